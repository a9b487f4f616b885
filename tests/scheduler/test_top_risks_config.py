"""``repositories[].cards.top_risks`` from the YAML config drives the weekly post and the chat's risks
answer (issue 11, Build 5): real W20 data, the real job and the real chat responders on a real store."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from chatbot.cards import PRList
from chatbot.digest import build_digest
from chatbot.rules import shipped_rules
from chatbot.weeks import IsoWeek
from prhub.config import load, parse_config
from prhub.web import create_responders
from scheduler.delivery import Deliverer
from scheduler.jobs import DigestJob
from scheduler.metrics import Metrics
from tests.conftest import week_prs
from tests.scheduler.doubles import ClockSleeper, RecordingDelivery, TestClock

REPO = "vllm-project/vllm"
WEEK = IsoWeek.parse("2026-W20")
RISKY = 33  # risky PRs of the real W20 (shared data, no threads) since issue 17's truer risk rules


def config(top_risks: int | None) -> str:
    cards = f"\n    cards: {{top_risks: {top_risks}}}" if top_risks is not None else ""
    return f"""
repositories:
  - repo: {REPO}
    source: github
    schedule: {{cron: "0 9 * * 1", timezone: UTC}}
    destinations: [{{slack: C_DIGEST}}, {{slack: C_ZH, lang: zh}}]{cards}
"""


def risk_lists(cards) -> list[PRList]:
    return [b for c in cards for b in c.blocks if isinstance(b, PRList) and b.role == "risks"]


@pytest.mark.parametrize("top, shown", [(3, 3), (None, 8)])
def test_weekly_post_shows_the_configured_top_risks(store, top, shown):
    clock = TestClock(datetime(2026, 5, 18, 1, 0, tzinfo=timezone.utc))
    slack = RecordingDelivery(platform="slack", clock=clock)
    rows = week_prs("2026-W20")

    def build(cfg, week, langs):
        return build_digest(rows, repo=cfg.repo, week=week, rules=shipped_rules("vllm"), tz=cfg.week_tz)

    metrics = Metrics()
    deliverer = Deliverer(store, {"slack": slack}, clock=clock, sleep=ClockSleeper(clock), metrics=metrics)
    job = DigestJob(parse_config(config(top), "t.yaml"), build=build, deliverer=deliverer, clock=clock, metrics=metrics)
    assert job.run(REPO, week=WEEK).status == "ok"
    by_target = {t: [p.card for p in slack.posts if p.target == t] for t in ("C_DIGEST", "C_ZH")}
    (en,), (zh,) = risk_lists(by_target["C_DIGEST"]), risk_lists(by_target["C_ZH"])
    assert len(en.items) == len(zh.items) == shown
    assert en.more_text == f"{shown} of {RISKY} shown"
    assert zh.more_text == f"已显示 {RISKY} 个中的 {shown} 个"


def test_chat_risks_answer_shows_the_configured_top_risks(store, tmp_path, monkeypatch):
    for key in ("PRHUB_CONFIG", "PRHUB_PUBLIC_URL"):
        monkeypatch.delenv(key, raising=False)
    store.upsert_prs(REPO, week_prs("2026-W20"))
    path = tmp_path / "prhub.yaml"
    now = datetime(2026, 5, 20, 12, 0, tzinfo=timezone.utc)
    for top, shown in ((3, 3), (None, 8)):
        path.write_text(config(top))
        (responder,) = create_responders(load(path), store, clock=lambda: now)
        card = responder.reply("risks 2026-W20")
        (top_list,) = risk_lists([card])
        assert len(top_list.items) == shown and top_list.more_text == f"{shown} of {RISKY} shown"
