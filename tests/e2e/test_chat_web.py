"""Done-when: through the fake Slack and the fake Feishu, with the real week 2026-W20, the bot built
by ``prhub.web.create_app`` answers the issue's queries with the right cards."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest

from chatbot.i18n import tr
from tests.conftest import week_prs
from tests.fakes.feishu_server import FakeFeishu, event_request, message_event
from tests.fakes.inbound import FEISHU_KEY, FEISHU_TOKEN, build_bot, post, slack_event, slack_headers
from tests.fakes.slack_server import FakeSlack

REPO = "vllm-project/vllm"
QUERIES = ["risks this week", "本周风险", "PR #42202", "attention this week", "subscribe spec-decode",
           "subscribe spec-decode", "help"]


def expected():
    """(query index) -> substrings the answer's header/body must hold."""
    return [
        [tr("en", "card.risks.header", repo=REPO, week="2026-W20"), tr("en", "card.h.top_risks"), "/pull/"],
        [tr("zh", "card.risks.header", repo=REPO, week="2026-W20"), tr("zh", "card.h.top_risks")],
        ["PR #42202", "seq_lens_cpu_upper_bound", "Nick Hill"],
        ["(attention) · 2026-W20", tr("en", "card.module.prs")],
        ["Subscribed you to", "(spec-decode)"],
        ["already subscribed", "(spec-decode)"],
        [tr("en", "card.help.header"), "subscribe"],
    ]


def test_done_when_through_fake_slack_and_fake_feishu(tmp_path, clock, provider):
    with FakeSlack() as slack, FakeFeishu(app_id="cli_e2e_test") as feishu:
        bot = build_bot(f"sqlite:///{tmp_path / 'bot.db'}", clock=clock, digest_provider=provider, slack=slack,
                        feishu=feishu)
        try:
            for i, q in enumerate(QUERIES):  # one at a time: the two subscribes are ordered
                body = slack_event({"type": "app_mention", "user": "U_ALICE", "channel": "C_DIGEST",
                                    "ts": f"17180000{i:02d}.000100", "text": f"<@U_BOT> {q}"}, event_id=f"Ev{i}")
                r = post(bot.server.url + "/slack/events", body, slack_headers(body))
                assert r.status == 200 and r.seconds < 3.0
                payload = message_event(token=FEISHU_TOKEN, event_id=f"ev_{i}", message_id=f"om_Q{i}", chat_type="p2p",
                                        chat_id="oc_P2P", text=q, mentions=[])
                fb, fh = event_request(payload, encrypt_key=FEISHU_KEY)
                r = post(bot.server.url + "/feishu/events", fb, fh)
                assert r.status == 200 and r.seconds < 3.0
                assert slack.wait_for(lambda: len([p for p in slack.posts if p["thread_ts"] == f"17180000{i:02d}.000100"]) >= 1)
                assert feishu.wait_for(lambda: len(feishu.replies_to(f"om_Q{i}")) >= 1)
            bot.settle()
        finally:
            bot.close()
        for i, needles in enumerate(expected()):
            s_posts = [p for p in slack.posts if p["thread_ts"] == f"17180000{i:02d}.000100"]
            f_posts = feishu.replies_to(f"om_Q{i}")
            assert len(s_posts) == 1 and len(f_posts) == 1, QUERIES[i]
            s_text = json.dumps(s_posts[0]["blocks"], ensure_ascii=False).replace("&amp;", "&")
            f_text = json.dumps(f_posts[0]["card"], ensure_ascii=False)
            for n in needles:
                assert n in s_text, (QUERIES[i], n)
                # Feishu markdown entity-escapes _ and ` in untrusted text
                assert n.replace("_", "&#95;").replace("`", "&#96;") in f_text or n in f_text, (QUERIES[i], n)
            if i == 0:
                assert "https://prhub.example.com/reports/vllm-project/vllm/2026-W20" in s_text


def test_answers_from_the_store(tmp_path, clock):
    from adapters.storage import SqlStore
    from prhub.clock import SYSTEM_CLOCK

    db = f"sqlite:///{tmp_path / 'bot.db'}"
    with SqlStore.open(db, clock=SYSTEM_CLOCK) as store:
        store.upsert_prs(REPO, week_prs("2026-W20") + week_prs("2026-W19"))
        with FakeSlack() as slack:
            bot = build_bot(db, clock=clock, digest_provider=None, slack=slack)
            try:
                body = slack_event({"type": "message", "channel_type": "im", "user": "U_ALICE", "channel": "D_A",
                                    "ts": "1718000000.000100", "text": "risks last week"}, event_id="Ev1")
                assert post(bot.server.url + "/slack/events", body, slack_headers(body)).status == 200
                bot.settle()
            finally:
                bot.close()
            assert len(slack.posts) == 1
            assert tr("en", "card.risks.header", repo=REPO, week="2026-W19") in slack.posts[0]["blocks"][0]["text"]["text"]


def test_subscriptions_land_in_the_store_per_platform(tmp_path, clock, provider):
    with FakeSlack() as slack, FakeFeishu(app_id="cli_e2e_test2") as feishu:
        bot = build_bot(f"sqlite:///{tmp_path / 'bot.db'}", clock=clock, digest_provider=provider, slack=slack,
                        feishu=feishu)
        try:
            pool = ThreadPoolExecutor(4)
            bodies = []
            for i in range(2):  # "two workers": the same subscribe twice at once, on both platforms
                body = slack_event({"type": "message", "channel_type": "im", "user": "U_ALICE", "channel": "D_A",
                                    "ts": f"171800010{i}.000100", "text": "subscribe attention"}, event_id=f"EvS{i}")
                bodies.append(("/slack/events", body, slack_headers(body)))
                fb, fh = event_request(message_event(token=FEISHU_TOKEN, event_id=f"ev_s{i}", message_id=f"om_S{i}",
                                                     chat_type="p2p", text="subscribe Attention ", mentions=[]),
                                       encrypt_key=FEISHU_KEY)
                bodies.append(("/feishu/events", fb, fh))
            results = list(pool.map(lambda b: post(bot.server.url + b[0], b[1], b[2]).status, bodies))
            assert results == [200] * 4
            bot.settle()
            subs = sorted((s.platform, s.subscriber, s.module) for s in bot.store.subscriptions_to(REPO))
            assert subs == [("feishu", "ou_ALICE", "attention"), ("slack", "U_ALICE", "attention")]
        finally:
            bot.close()
