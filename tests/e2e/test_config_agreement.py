"""One configuration: with a custom rules file and a week zone in the config, the weekly post (the
scheduler's catch-up run against the fake Slack) and the chat answers (signed Slack events to the
app built from the same config) agree for the same week; every configured repository is served,
each channel about the repository its destination is bound to.

Real data: vLLM 2026-W19/W20 from ../shared (W20 in Asia/Shanghai holds 216 merged PRs, in UTC 217).
The custom rules are the shipped vLLM rules with the attention module renamed and the large-change
threshold lowered from 1000 to 400 lines: 40 large changes instead of the shipped rules' 17.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
import time_machine
from apscheduler.events import EVENT_JOB_ERROR, EVENT_JOB_EXECUTED

from chatbot.i18n import tr
from prhub.bot import create_bot
from prhub.config import load_config, load_settings
from prhub.web import create_deliveries
from scheduler.metrics import Metrics
from tests.e2e.bot_support import example_week_dir, vllm_dir
from tests.fakes.inbound import MovableClock, build_bot, post, slack_event, slack_headers
from tests.fakes.slack_server import FakeSlack
from tests.scheduler.conftest import db_url  # noqa: F401  (fixture)
from tests.scheduler.harness import posted_before

ROOT = Path(__file__).resolve().parents[2]
SH = ZoneInfo("Asia/Shanghai")
VLLM, EXAMPLE = "vllm-project/vllm", "example-org/example-repo"
RENAMED = "attention kernels (custom)"
RISK_LINE = re.compile(r"• #(\d+) <[^>]*> — ([^\n]*?)(?=\n|\"}|$)")

# the large changes of W20 (Asia/Shanghai) at the custom 400-line threshold that the shipped
# 1000-line threshold does not flag, pinned from the data
NEW_LARGE = {39568, 41263, 40984, 42304, 41383}


def custom_rules(dst: Path) -> Path:
    """The shipped vLLM rules with the attention module renamed and a lower large-change threshold."""
    text = (ROOT / "chatbot/rulesets/vllm.yaml").read_text(encoding="utf-8")
    changed = (text.replace("    name: {en: attention backends, zh: 注意力后端}\n",
                            f"    name: {{en: {RENAMED}, zh: 注意力内核（自定义）}}\n")
               .replace("large_change_lines: 1000", "large_change_lines: 400"))
    assert changed.count(RENAMED) == 1 and "large_change_lines: 400" in changed
    out = dst / "custom-vllm.yaml"
    out.write_text(changed, encoding="utf-8")
    return out


def write_config(tmp: Path, vdir: Path, edir: Path) -> Path:
    """Two repositories; the example repository first (direct messages), vLLM with the custom rules."""
    custom_rules(tmp)
    cfg = tmp / "prhub.yaml"
    cfg.write_text(f"""
repositories:
  - repo: {EXAMPLE}
    rules: generic
    source: file
    path: {edir}/{{week}}.json
    schedule: {{weekly: "mon 09:30", timezone: Asia/Shanghai}}
    destinations: [{{slack: C_EX}}]
  - repo: {VLLM}
    rules: custom-vllm.yaml
    source: file
    path: {vdir}/{{week}}.json
    week_tz: Asia/Shanghai
    schedule: {{cron: "0 9 * * 1", timezone: Asia/Shanghai}}
    destinations: [{{slack: C_VLLM}}]
chat: {{public_url: "https://prhub.example.com"}}
""", encoding="utf-8")
    return cfg


def blocks_text(message: dict) -> str:
    return json.dumps(message["blocks"], ensure_ascii=False).replace("&amp;", "&")


def risk_lines(messages: list[dict], blocks: str = "risks") -> dict[int, str]:
    """PR number -> the text after the dash of the PR lines (``• #N <url|title> — ...``) of the blocks
    whose id starts with ``blocks``, in posting order."""
    text = "".join(json.dumps(b, ensure_ascii=False) for m in messages for b in m["blocks"]
                   if str(b.get("block_id", "")).startswith(blocks)).replace("\\n", "\n")
    out: dict[int, list[str]] = {}
    for n, rest in RISK_LINE.findall(text):
        out.setdefault(int(n), rest)
    return out


@pytest.fixture
def weekly(db_url, tmp_path, monkeypatch):  # noqa: F811 - the db_url fixture
    """:func:`run_weekly` on SQLite and on PostgreSQL (with PRHUB_TEST_DATABASE_URL)."""
    yield from run_weekly(db_url, tmp_path, monkeypatch)


@pytest.fixture
def weekly_sqlite(tmp_path, monkeypatch):
    """:func:`run_weekly` on SQLite only (routing does not depend on the database)."""
    yield from run_weekly(f"sqlite:///{tmp_path / 'routing.db'}", tmp_path, monkeypatch)


def run_weekly(db_url, tmp_path, monkeypatch):  # noqa: F811 - a parameter, not the fixture
    """The weekly job of both repositories run by the scheduler's catch-up on Monday 2026-05-18
    09:45 (Asia/Shanghai), against the fake Slack; yields (loaded config, fake Slack, db url)."""
    vdir = vllm_dir()
    if vdir is None:
        pytest.skip("needs ../shared/data/vllm")
    for k in ("PRHUB_CONFIG", "PRHUB_PUBLIC_URL", "PRHUB_DEFAULT_REPO", "PRHUB_TZ"):
        monkeypatch.delenv(k, raising=False)
    loaded = load_config(write_config(tmp_path, vdir, example_week_dir(tmp_path, ["2026-W19", "2026-W20"])))
    from adapters.storage import SqlStore
    from prhub.clock import SYSTEM_CLOCK

    with FakeSlack() as slack:
        settings = load_settings(slack_bot_token=slack.token, slack_signing_secret="x", slack_api_url=slack.base_url)
        with SqlStore.open(db_url, clock=SYSTEM_CLOCK) as store:
            for repo in (EXAMPLE, VLLM):
                posted_before(store, repo)  # a bot that ran before: the missed Monday firing is caught up
            bot = create_bot(loaded, store, create_deliveries(settings), sleep=lambda s: None, metrics=Metrics(),
                             chart=None)
            done: list[str] = []
            errors: list[object] = []
            bot.scheduler.scheduler.add_listener(
                lambda e: e.job_id.startswith("catchup:") and (done.append(e.job_id), errors.append(e.exception)
                                                                if e.code == EVENT_JOB_ERROR else None),
                EVENT_JOB_EXECUTED | EVENT_JOB_ERROR)
            with time_machine.travel(datetime(2026, 5, 18, 9, 45, tzinfo=SH), tick=True):
                bot.scheduler.start(catch_up=True)
                try:
                    assert slack.wait_for(lambda: len(done) >= 2, timeout=60)
                finally:
                    bot.scheduler.shutdown()
            assert errors == [] and sorted(done) == [f"catchup:{EXAMPLE}", f"catchup:{VLLM}"]
        yield loaded, slack, db_url


def ask(slack: FakeSlack, bot, channel: str, text: str, n: int) -> dict:
    """Send ``text`` in ``channel`` (a mention; ``D…`` channels as a direct message) and return the answer."""
    ts = f"1779000{n:03d}.000100"
    if channel.startswith("D"):
        event = {"type": "message", "channel_type": "im", "user": "U_ALICE", "channel": channel, "ts": ts, "text": text}
    else:
        event = {"type": "app_mention", "user": "U_ALICE", "channel": channel, "ts": ts, "text": f"<@U_BOT> {text}"}
    seen = len(slack.posts_to(channel))
    body = slack_event(event, event_id=f"EvCfg{n}")
    assert post(bot.server.url + "/slack/events", body, slack_headers(body)).status == 200
    assert slack.wait_for(lambda: len(slack.posts_to(channel)) > seen, timeout=10)
    return slack.posts_to(channel)[seen]


def test_weekly_post_and_chat_answers_agree_with_a_custom_rules_file(weekly):
    loaded, slack, db = weekly
    weekly_vllm = slack.posts_to("C_VLLM")
    week_text = "".join(blocks_text(m) for m in weekly_vllm).replace("\\n", "\n")
    assert "(Asia/Shanghai) · 216 merged PRs" in week_text  # the config's week zone (UTC: 217)
    report = "https://prhub.example.com/reports/vllm-project/vllm/2026-W20"
    assert report in week_text  # chat.public_url of the file (no PRHUB_PUBLIC_URL set)
    # the custom threshold: 29 large changes outside tests (the shipped rules: 13), one named with its reason
    kinds = re.search(r"\*large change ×(\d+)\*: \d+ PRs were too large to review line by line \(#(\d+): (.*?lines \(largest [^)]*\))",
                      week_text)
    assert kinds is not None and kinds.group(1) == "29", week_text[:2000]
    weekly_top = risk_lines(weekly_vllm)  # the weekly post's top risks: PR -> "tag: reason, tag: reason"

    clock = MovableClock(datetime(2026, 5, 18, 10, 0, tzinfo=SH).astimezone(timezone.utc))
    bot = build_bot(db, clock=clock, digest_provider=None, slack=slack, loaded=loaded)
    try:
        risks = ask(slack, bot, "C_VLLM", "large changes last week", 1)
        module = ask(slack, bot, "C_VLLM", f"what changed in {RENAMED} last week", 2)
        bot.settle()
    finally:
        bot.close()
    risks_text = blocks_text(risks)
    assert "large change · vllm-project/vllm 2026-W20" in risks_text and "29 of 216 PRs." in risks_text
    assert report in risks_text
    chat_large = risk_lines([risks], "filtered")  # PR -> its large-change reason
    assert len(chat_large) == 10 and NEW_LARGE & set(chat_large) == {39568, 42304}  # #40984: +190 lines of tests
    named, reason = int(kinds.group(2)), kinds.group(3)  # the observation names a PR no other section named
    assert (named, reason) == (40900, "8 files outside tests, +2,042/-0 lines (largest "
                               "vllm/distributed/kv_transfer/kv_connector/v1/mooncake/store/worker.py, +979/-0)")
    both = [n for n in chat_large if n in weekly_top]
    assert both == [41035, 41946, 39568, 42339, 42434, 40392, 41254, 42304]
    for n in both:  # the weekly post gives each the chat answer's large-change reason (its lines may be cut)
        assert f"large change: {chat_large[n].split(' (largest')[0]}" in weekly_top[n], (n, weekly_top[n])
    assert chat_large[42304].startswith("10 files outside tests, +478/-5 lines")  # large only at the custom 400 lines

    module_text = blocks_text(module)
    assert f"{RENAMED} (attention) · 2026-W20" in module_text and "attention backends" not in module_text
    assert "*PRs*\\n25" in module_text and "*PRs with risk tags*\\n9" in module_text
    module_large = [n for n, tags in risk_lines([module], "module_risks").items() if "large change" in tags]
    assert module_large == [42339, 40392, 42304, 41778, 40119, 41812, 42236, 40327]  # importance order
    assert {42339, 40392} <= set(chat_large)  # the module's large changes are the channel's large changes


def test_every_configured_repository_is_served_where_it_is_bound(weekly_sqlite):
    loaded, slack, db = weekly_sqlite
    clock = MovableClock(datetime(2026, 5, 18, 10, 0, tzinfo=SH).astimezone(timezone.utc))
    bot = build_bot(db, clock=clock, digest_provider=None, slack=slack, loaded=loaded)
    asks = [("D_ALICE", "risks last week"), ("C_EX", "risks last week"), ("C_VLLM", "risks last week"),
            ("D_ALICE", "risks in vllm-project/vllm last week"), ("C_EX", "vllm-project/vllm 上周的风险"),
            ("C_VLLM", "risks in foo-org/bar-repo"), ("D_ALICE", "foo-org/bar-repo 的风险"),
            ("D_ALICE", "subscribe attention in vllm-project/vllm"), ("C_VLLM", "changes in vllm/v1 last week"),
            ("C_VLLM", "risks in foo/bar")]
    try:
        answers = [blocks_text(ask(slack, bot, ch, text, 10 + i)) for i, (ch, text) in enumerate(asks)]
        subs = sorted((s.repo, s.module) for r in (EXAMPLE, VLLM) for s in bot.store.subscriptions_to(r))
        bot.settle()
    finally:
        bot.close()
    ex_header = tr("en", "card.risks.header", repo=EXAMPLE, week="2026-W20")
    vllm_header = tr("en", "card.risks.header", repo=VLLM, week="2026-W20")
    assert ex_header in answers[0]  # a direct message: the first configured repository
    assert ex_header in answers[1]  # C_EX is bound to the example repository
    assert vllm_header in answers[2] and "(Asia/Shanghai) · 216 merged PRs" in answers[2]  # C_VLLM: vLLM
    assert vllm_header in answers[3]  # named for one question, in a direct message
    assert tr("zh", "card.risks.header", repo=VLLM, week="2026-W20") in answers[4]  # named in Chinese, in C_EX
    assert ("I do not serve foo-org/bar-repo; ask about one of: example-org/example-repo, vllm-project/vllm"
            in answers[5])
    assert "未配置仓库 foo-org/bar-repo；可以问：example-org/example-repo, vllm-project/vllm" in answers[6]
    assert subs == [(VLLM, "attention")]  # the named repository's module, not the first repository's
    assert "foo" not in answers[8] and tr("en", "card.repo.unknown.header") not in answers[8]  # a path, not a repo
    # a short unconfigured owner/name is still a repository, not C_VLLM's week
    assert "I do not serve foo/bar; ask about one of: example-org/example-repo, vllm-project/vllm" in answers[9]
    assert vllm_header not in answers[9]
