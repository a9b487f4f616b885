"""Issue 12's questions as a new user asks them, against a store holding the real weeks
2026-W15..W20 (now = the newest merge of W20, so "this week" is 2026-W20): through the HTTP app as
signed Slack mentions and Feishu group @-messages, and a representative set over Socket Mode and
the Feishu long connection against the fakes. Each answer's header, a pinned line and the PR
numbers it cites (read back from the posted Block Kit / Feishu card) are checked on both platforms.
"""

from __future__ import annotations

import json
import re
import shutil

import pytest

from tests.conftest import week_prs
from tests.fakes.feishu_server import event_request, message_event
from tests.fakes.inbound import FEISHU_KEY, FEISHU_TOKEN, MovableClock, build_bot, post, slack_event, slack_headers

REPO = "vllm-project/vllm"
WEEKS = [f"2026-W{n}" for n in range(15, 21)]


@pytest.fixture(scope="module")
def stored_weeks(tmp_path_factory):
    """A SQLite store holding 2026-W15..W20 (written once; each bot gets a copy)."""
    from adapters.storage import SqlStore
    from prhub.clock import SYSTEM_CLOCK

    path = tmp_path_factory.mktemp("weeks") / "weeks.db"
    with SqlStore.open(f"sqlite:///{path}", clock=SYSTEM_CLOCK) as store:
        store.upsert_prs(REPO, [p for w in WEEKS for p in week_prs(w)])
    return path


def copy_db(stored_weeks, tmp_path, name="bot.db"):
    target = tmp_path / name
    shutil.copy(stored_weeks, target)
    return f"sqlite:///{target}"


def now_w20():
    return MovableClock(max(p.merged_at for p in week_prs("2026-W20")))


def cited(text: str) -> list[int]:
    """PR numbers an answer links, in order of first appearance."""
    return list(dict.fromkeys(int(n) for n in re.findall(r"/pull/(\d+)", text)))


# (question, header, a line of the answer, the PRs it cites first — [] when it must cite none)
EXAMPLES = [
    # risk tags by name, with synonyms, in a module, several modules, last week
    ("what got reverted last week", "revert · vllm-project/vllm 2026-W19", "1 of 199 PRs.", [41618]),  # docs-only: the fact, no advice
    ("show me reverts", "revert · vllm-project/vllm 2026-W20", "1 of 217 PRs.", [42434]),
    ("rocm risks", "risk tags in ROCm · vllm-project/vllm 2026-W20", "3 of 217 PRs.", [41946, 41812, 42509]),
    ("本周安全相关的 PR", "安全相关 · vllm-project/vllm 2026-W20", "共 217 个 PR 中有 1 个。", [42594]),
    ("哪些 PR 删了测试", "删除测试 · vllm-project/vllm 2026-W20", "2026-W20 没有删除测试的 PR。", []),
    ("dependency changes", "dependency change · vllm-project/vllm 2026-W20", "11 of 217 PRs.", [41946, 41778, 36517]),
    ("missing tests", "missing test coverage · vllm-project/vllm 2026-W20", "10 of 217 PRs.", [42339, 41263, 36517]),
    ("large changes", "large change · vllm-project/vllm 2026-W20", "13 of 217 PRs.", [41035, 41946, 42339]),
    ("kv-connector 和 ROCm 上周的风险", "KV 传输/卸载、ROCm 中的风险标签 · vllm-project/vllm 2026-W19",
     "共 199 个 PR 中有 6 个。", [40871, 39280, 40731]),
    # authors, paths, new contributors
    ("what did Michael Goin merge", "PRs by Michael Goin · 2026-W20", "7 of 217 PRs.",
     [39949, 39538, 41566, 41516, 42429, 42782]),
    ("PRs touching vllm/v1/worker", "PRs touching vllm/v1/worker · 2026-W20", "27 of 217 PRs.", [41035, 39949, 39568]),
    ("改了 vllm/v1/worker 的 PR", "改动 vllm/v1/worker 的 PR · 2026-W20", "共 217 个 PR 中有 27 个。", [41035, 39949, 39568]),
    ("any new contributors?", "New contributors · vllm-project/vllm 2026-W20",
     "which reaches back to 2026-W15 (5 weeks before 2026-W20)", [41825, 42062, 42072]),
    ("新贡献者", "新贡献者 · vllm-project/vllm 2026-W20", "137 位作者中有 57 位首次合并 PR", [41825, 42062, 42072]),
    # topics and free text
    ("Kimi changes", "Search “kimi” · 2026-W20", "3 of 217 PRs.", [42081, 41778, 42616]),
    ("DeepSeek V4", "Search “deepseek v4” · 2026-W20", "13 of 217 PRs.", [42810, 42320, 42342]),
    ("Qwen3", "Search “qwen3” · 2026-W20", "13 of 217 PRs.", [42151, 42716, 42394]),
    ("qwen4", "Search “qwen4” · 2026-W20", "Did you mean: Qwen3?", []),
    ("blah blah", "Search “blah” · 2026-W20", "Nothing in 2026-W20 matched “blah”.", []),
    # comparisons
    ("compare this week with last week", "Trends · vllm-project/vllm · 2 weeks", "217 PRs (+18)", []),
    ("比上周", "趋势 · vllm-project/vllm · 2 周", "217 个 PR (+18)", []),
    # several modules in one subscription (each platform's sender is its own subscriber)
    ("订阅 MoE 和 量化", "订阅", "已为你订阅 vllm-project/vllm 的量化（quantization）。", []),
    ("subscribe moe and quantization", "Subscriptions",
     "you already subscribed to quantization (quantization) in vllm-project/vllm: nothing changed.", []),
    # a PR of an older stored week, with the revert that reverted it; out of range
    ("PR #41353", "PR #41353", "2026-W18", [41353, 41618]),
    ("PR #99999999999999999999", "No such PR", "GitHub numbers stop at 2,147,483,647.", []),
    # summary, top N, help
    ("summary", "vllm-project/vllm weekly PR digest 2026-W20 (05-11 – 05-17)",
     "or open the full report.", [41263, 41812]),
    ("top 5 PRs", "Top PRs · vllm-project/vllm 2026-W20", "Key PRs", [41035, 41946, 42339, 39949, 39568]),
    ("help", "prhub: what you can ask", "PR #42202", []),
]


def feishu_form(needle: str) -> list[str]:
    """The spellings a needle may take in a Feishu card (lark_md escapes _ and `)."""
    return [needle, needle.replace("_", "&#95;").replace("`", "&#96;")]


def check(platform: str, question: str, text: str, header: str, line: str, first: list[int]) -> None:
    assert header in text, (platform, question, header)
    assert any(n in text for n in feishu_form(line)), (platform, question, line)
    got = cited(text)
    assert (got[: len(first)] == first) if first else got == [], (platform, question, got[:12])


@pytest.fixture(scope="module")
def bot(stored_weeks, tmp_path_factory):
    """One bot on a copy of the store, served over HTTP (signed Slack events, encrypted Feishu
    callbacks) and connected over Socket Mode and the Feishu long connection at the same time, so
    both paths answer from the same digests; the fakes speak the Web/Open API and both protocols."""
    from adapters.feishu.long_connection import Backoff
    from prhub.config import load_settings
    from prhub.connections import open_connections
    from tests.fakes.feishu_ws import FakeFeishuWs
    from tests.fakes.slack_socket import FakeSlackSocket

    with FakeSlackSocket(ack_timeout=2.0) as slack, FakeFeishuWs(app_id="cli_questions", ack_timeout=2.0) as feishu:
        b = build_bot(copy_db(stored_weeks, tmp_path_factory.mktemp("bot")), clock=now_w20(), digest_provider=None,
                      slack=slack, feishu=feishu, slack_app_token=slack.app_token, prhub_feishu_mode="long")
        modes = load_settings(slack_bot_token=slack.token, slack_app_token=slack.app_token, slack_api_url=slack.base_url,
                              feishu_app_id=feishu.app_id, feishu_app_secret=feishu.app_secret, feishu_api_url=feishu.url,
                              prhub_feishu_mode="long", prhub_default_repo=REPO)
        fast = Backoff(interval_seconds=0.05, jitter_seconds=0.0, ping_seconds=0.2)
        # no reconnect is tested here: a 0.1 s ping let a loaded machine (pytest -n 2) miss a pong, and the
        # client then dropped the session the acks were sent on
        conns = open_connections(modes, b.app, timings={"slack": 2.0, "feishu": fast})
        try:
            yield b, slack, feishu, conns
        finally:
            conns.stop()
            b.close()


@pytest.fixture(scope="module")
def http_answers(bot):
    """Every example sent once over HTTP, as a Slack mention in #C_DIGEST and a Feishu group
    @-message; returns ``{question: (slack_text, feishu_text, slack_posts, feishu_replies)}``."""
    b, slack, feishu, _ = bot
    for i, (q, *_rest) in enumerate(EXAMPLES):
        body = slack_event({"type": "app_mention", "user": "U_ALICE", "channel": "C_DIGEST",
                            "ts": f"17190000{i:02d}.000100", "text": f"<@U_BOT> {q}"}, event_id=f"EvQ{i}")
        assert post(b.server.url + "/slack/events", body, slack_headers(body)).status == 200
        fb, fh = event_request(message_event(token=FEISHU_TOKEN, event_id=f"ev_Q{i}", message_id=f"om_Q{i}",
                                             chat_id="oc_GROUP", text=f"@_user_1 {q}"), encrypt_key=FEISHU_KEY)
        assert post(b.server.url + "/feishu/events", fb, fh).status == 200
    assert slack.wait_for(lambda: len(slack.posts_to("C_DIGEST")) >= len(EXAMPLES), timeout=30)
    assert feishu.wait_for(lambda: all(feishu.replies_to(f"om_Q{i}") for i in range(len(EXAMPLES))), timeout=30)
    out = {}
    for i, (q, *_rest) in enumerate(EXAMPLES):
        s = [p for p in slack.posts if p["thread_ts"] == f"17190000{i:02d}.000100"]
        f = feishu.replies_to(f"om_Q{i}")
        out[q] = (json.dumps([p["blocks"] for p in s], ensure_ascii=False),
                  json.dumps([m["card"] for m in f], ensure_ascii=False), len(s), len(f))
    return out


@pytest.mark.parametrize("question, header, line, first", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_every_example_over_http_on_both_platforms(http_answers, question, header, line, first):
    s_text, f_text, n_slack, n_feishu = http_answers[question]
    assert (n_slack, n_feishu) == (1, 1), question  # one answer each, in the thread / as a reply
    check("slack", question, s_text, header, line, first)
    check("feishu", question, f_text, header, line, first)


def test_no_answer_promises_parts_that_never_come(http_answers):
    for question, (s_text, f_text, _, _) in http_answers.items():
        for text in (s_text, f_text):
            assert "follow in the thread" not in text and "见本消息的后续回复" not in text, question
    exact = cited(http_answers["top 5 PRs"][0])
    assert exact == [41035, 41946, 42339, 39949, 39568]  # five, not ten


CONNECTED = ["PRs touching vllm/v1/worker", "any new contributors?", "Kimi changes", "kv-connector 和 ROCm 上周的风险",
             "PR #41353", "本周安全相关的 PR", "blah blah"]
"""A representative set asked again over Socket Mode and the Feishu long connection."""


def test_a_representative_set_over_socket_mode_and_the_long_connection(bot, http_answers):
    b, slack, feishu, conns = bot
    assert [c["mode"] for c in conns.describe()] == ["socket", "long"]
    assert feishu.wait_for(lambda: all(c["connected"] for c in conns.describe()))
    expected = {e[0]: e[1:] for e in EXAMPLES}
    for i, q in enumerate(CONNECTED):
        eid = slack.deliver({"token": "x", "team_id": "T_TEST", "api_app_id": "A_APP", "type": "event_callback",
                             "event_id": f"EvC{i}", "event_time": 1718000000,
                             "event": {"type": "app_mention", "user": "U_ALICE", "channel": "C_DIGEST",
                                       "ts": f"17191000{i:02d}.000100", "text": f"<@U_BOT> {q}"}})
        mid = feishu.deliver(message_event(token="", event_id=f"ev_C{i}", message_id=f"om_C{i}", text=f"@_user_1 {q}"))
        assert slack.wait_for(lambda: slack.acked(eid)) and feishu.wait_for(lambda: feishu.acks_of(mid))
    threads = {f"17191000{i:02d}.000100" for i in range(len(CONNECTED))}
    assert slack.wait_for(lambda: len([p for p in slack.posts if p["thread_ts"] in threads]) >= len(CONNECTED), timeout=20)
    assert feishu.wait_for(lambda: all(feishu.replies_to(f"om_C{i}") for i in range(len(CONNECTED))), timeout=20)
    b.settle()
    for i, q in enumerate(CONNECTED):
        header, line, first = expected[q]
        s_posts = [p for p in slack.posts if p["thread_ts"] == f"17191000{i:02d}.000100"]
        f_posts = feishu.replies_to(f"om_C{i}")
        assert len(s_posts) == 1 and len(f_posts) == 1, q
        check("slack socket", q, json.dumps(s_posts[0]["blocks"], ensure_ascii=False), header, line, first)
        check("feishu long connection", q, json.dumps(f_posts[0]["card"], ensure_ascii=False), header, line, first)
