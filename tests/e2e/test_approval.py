"""The optional approval of the weekly post end to end: the real job, the real Slack delivery and
the bolt app (signed HTTP) against the fake Slack, the real store (SQLite, and PostgreSQL with
PRHUB_TEST_DATABASE_URL), a moved clock: the preview goes to the admin only, Approve posts once
(two clicks, two replicas, a restart), Skip posts nothing and tells the admins, the deadline posts
once at exactly its minute."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from chatbot.weeks import IsoWeek
from prhub.bot import create_bot
from prhub.config import load_settings, parse_config
from prhub.web import create_app, create_deliveries
from scheduler.approval import deadline_after
from scheduler.config import LoadedConfig
from scheduler.metrics import Metrics
from tests.e2e.bot_support import example_config, example_week_dir
from tests.fakes.inbound import SLACK_SECRET, MovableClock, Server, post, slack_form, slack_headers
from tests.fakes.slack_server import FakeSlack
from tests.scheduler.conftest import db_url, store  # noqa: F401  (fixtures)

REPO = "example-org/example-repo"
FIRE = datetime(2026, 5, 18, 9, 0, tzinfo=timezone.utc)  # Monday of W21: the job digests 2026-W20
W20 = IsoWeek(2026, 20)


def config(path: str, deadline: str = "120") -> str:
    return example_config(path, '{weekly: "mon 09:00", timezone: UTC}', " [{slack: C_EX}, {slack: C_ALL, lang: zh}]",
                          repo_keys=f"    approval: true\n    approval_deadline: {deadline}\n",
                          rest="admins: {slack: [T_TEST:U_ADMIN]}\n")


class Setup:
    """The bot (job + chat app on 127.0.0.1) of one process, against one fake Slack and one store."""

    def __init__(self, store, slack, loaded, clock):
        values = dict(slack_bot_token=slack.token, slack_signing_secret=SLACK_SECRET, slack_api_url=slack.base_url,
                      prhub_default_repo=REPO, prhub_slack_admins="T_TEST:U_ADMIN")
        self.settings = load_settings(**values)
        self.bot = create_bot(loaded, store, create_deliveries(self.settings), clock=clock, sleep=lambda s: None,
                              metrics=Metrics(), chart=None)
        self.app = create_app(self.settings, store, clock=clock, handlers=self.bot.job.approvals.handlers())
        self.server = Server(self.app)

    def press(self, action_id, value, *, user, ts, channel="D_ADMIN"):
        payload = {"type": "block_actions", "team": {"id": "T_TEST"}, "user": {"id": user}, "trigger_id": "t",
                   "channel": {"id": channel}, "message": {"ts": "1.000001"},
                   "container": {"type": "message", "message_ts": "1.000001", "channel_id": channel},
                   "actions": [{"action_id": f"{action_id}-9-0", "type": "button", "value": value, "action_ts": ts}]}
        body = slack_form({"payload": json.dumps(payload)})
        r = post(self.server.url + "/slack/actions", body,
                 slack_headers(body, content_type="application/x-www-form-urlencoded"))
        assert r.status == 200 and r.seconds < 3.0

    def close(self):
        if self.server is None:
            return
        self.server.stop()
        self.server = None
        self.app.close()  # the reply outbox's worker and the platform probes
        for pool in self.app.reply_executors.values():
            pool.shutdown(wait=True)


@pytest.fixture
def env(tmp_path, store, monkeypatch):
    monkeypatch.delenv("PRHUB_CONFIG", raising=False)
    monkeypatch.delenv("PRHUB_PUBLIC_URL", raising=False)
    edir = example_week_dir(tmp_path, ["2026-W20"])
    made = []
    with FakeSlack() as slack:
        def make(deadline="120", clock=None):
            loaded = LoadedConfig(config=parse_config(config(str(edir), deadline), "a.yaml"), base_dir=tmp_path)
            s = Setup(store, slack, loaded, clock or MovableClock(FIRE))
            made.append(s)
            return s
        yield slack, make
        for s in made:
            s.close()


def to(slack, channel):
    return [p for p in slack.posts if p["channel"] == channel]


def answers(slack):
    return [b["text"]["text"] for p in slack.posts if p["channel"] == "D_ADMIN" and p["thread_ts"]
            for b in p["blocks"] if b["type"] == "section"]


def approve_button(slack):
    first = to(slack, "D_ADMIN")[0]
    (row,) = [b for b in first["blocks"] if b["type"] == "actions"]
    return {e["text"]["text"]: e for e in row["elements"]}


def test_approve_posts_once_after_the_preview_went_to_the_admin_only(env, store):
    slack, make = env
    a = make()
    report = a.bot.job.run(REPO, fire_time=FIRE)
    assert report.status == "awaiting_approval" and report.digests == []
    preview = to(slack, "D_ADMIN")
    assert to(slack, "C_EX") == [] and to(slack, "C_ALL") == [] and len(preview) >= 1
    notice = preview[0]["blocks"][1]["text"]["text"]
    assert "not posted yet" in notice and "slack:C_EX, slack:C_ALL" in notice and "2026-05-18 11:00 UTC" in notice
    buttons = approve_button(slack)
    assert list(buttons)[:2] == ["Approve", "Skip"]
    assert json.loads(buttons["Approve"]["value"]) == {"repo": REPO, "week": "2026-W20"}
    assert a.bot.job.run(REPO, fire_time=FIRE).status == "awaiting_approval"  # a catch-up run
    assert len(to(slack, "D_ADMIN")) == len(preview)  # the preview is not sent twice

    value = buttons["Approve"]["value"]
    a.press("approve", value, user="U_ALICE", ts="1.1")  # not an admin
    b = make()  # a second replica on the same store
    a.press("approve", value, user="U_ADMIN", ts="1.2")
    b.press("approve", value, user="U_ADMIN", ts="1.3")  # a double click, answered by the other replica
    a.close(), b.close()  # every reply is done
    parts = len(to(slack, "C_EX"))
    assert parts >= 1 and len(to(slack, "C_ALL")) >= 1
    assert [p["ts"] for p in to(slack, "C_EX")] == sorted({p["ts"] for p in to(slack, "C_EX")})  # each part once
    got = answers(slack)
    assert sum("Only admins" in t for t in got) == 1
    assert sum("Approved: example-org/example-repo 2026-W20 is posted to 2 destinations." in t for t in got) == 1
    assert sum("was already approved" in t for t in got) == 1
    rec = store.approval(REPO, "2026-W20")
    assert rec.state == "approved" and rec.decided_by == "slack:T_TEST:U_ADMIN"
    assert a.bot.job.approvals.run_due() == []  # decided: the deadline does nothing
    c = make(clock=MovableClock(FIRE + timedelta(hours=3)))  # a restart after the deadline
    assert c.bot.job.approvals.run_due() == [] and c.bot.job.run(REPO, fire_time=FIRE).status == "ok"
    assert len(to(slack, "C_EX")) == parts


def test_skip_posts_nothing_and_tells_the_admins(env, store):
    slack, make = env
    clock = MovableClock(FIRE)
    a = make(clock=clock)
    a.bot.job.run(REPO, fire_time=FIRE)
    skip = approve_button(slack)["Skip"]["value"]
    a.press("skip", skip, user="U_ADMIN", ts="2.1")
    a.close()
    assert "Skipped: nothing is posted for example-org/example-repo 2026-W20." in answers(slack)
    told = [p for p in to(slack, "D_ADMIN") if not p["thread_ts"] and "skipped by an admin" in json.dumps(p["blocks"])]
    assert len(told) == 1
    clock.advance(timedelta(hours=5))
    assert a.bot.job.approvals.run_due() == []
    assert a.bot.job.run(REPO, fire_time=FIRE).status == "skipped"
    assert to(slack, "C_EX") == [] and to(slack, "C_ALL") == []


def test_the_deadline_posts_once_at_exactly_its_minute_and_survives_a_restart(env, store):
    slack, make = env
    clock = MovableClock(FIRE)
    a = make(clock=clock)
    assert a.bot.job.run(REPO, fire_time=FIRE).status == "awaiting_approval"
    clock.advance(timedelta(minutes=120) - timedelta(microseconds=1))
    assert a.bot.job.approvals.run_due() == []
    b = make(clock=clock)  # restarted (or a second replica): the record is in the store
    clock.advance(timedelta(microseconds=1))
    assert b.bot.job.approvals.run_due() == [(REPO, "2026-W20")]
    assert a.bot.job.approvals.run_due() == []
    assert len(to(slack, "C_EX")) >= 1
    rec = store.approval(REPO, "2026-W20")
    assert rec.state == "approved" and rec.decided_by == "deadline"
    assert rec.decided_at == FIRE + timedelta(minutes=120)
    a.press("approve", approve_button(slack)["Approve"]["value"], user="U_ADMIN", ts="3.1")
    a.close()
    assert any("was posted at its deadline (2026-05-18 11:00 UTC)" in t for t in answers(slack))


@pytest.mark.parametrize("spec,fire,want", [
    (180, "2026-05-18T09:00:00+00:00", "2026-05-18T12:00:00+00:00"),
    ("Mon 12:00", "2026-05-18T09:00:00+00:00", "2026-05-18T12:00:00+00:00"),
    ("Mon 09:00", "2026-05-18T09:00:00+00:00", "2026-05-25T09:00:00+00:00"),  # exactly then: next week
    ("Sun 23:59", "2026-05-18T09:00:00+00:00", "2026-05-24T23:59:00+00:00"),
    ("tuesday 08:30", "2026-05-18T09:00:00+00:00", "2026-05-19T00:30:00+00:00"),  # Asia/Shanghai
    (None, "2026-05-18T09:00:00+00:00", None),
])
def test_deadline_forms(spec, fire, want):
    tz = "Asia/Shanghai" if spec == "tuesday 08:30" else "UTC"
    got = deadline_after(spec, datetime.fromisoformat(fire), tz)
    assert (got.isoformat() if got else None) == want


def test_a_feishu_admin_approves_through_the_card_callback(tmp_path, store, monkeypatch):
    """The preview goes to a Feishu admin (open_id DM, card JSON 2.0 callback buttons); the press
    comes back as card.action.trigger on /feishu/card (signed, encrypted): a toast, then the post."""
    from tests.fakes.feishu_server import FakeFeishu, event_request
    from tests.fakes.inbound import FEISHU_KEY, FEISHU_TOKEN

    monkeypatch.delenv("PRHUB_CONFIG", raising=False)
    monkeypatch.delenv("PRHUB_PUBLIC_URL", raising=False)
    edir = example_week_dir(tmp_path, ["2026-W20"])
    text = config(str(edir)).replace("[{slack: C_EX}, {slack: C_ALL, lang: zh}]", "[{feishu: oc_ex, lang: zh}]")
    text = text.replace("admins: {slack: [T_TEST:U_ADMIN]}", "admins: {feishu: [tenant_T:ou_ADMIN]}")
    loaded = LoadedConfig(config=parse_config(text, "a.yaml"), base_dir=tmp_path)
    clock = MovableClock(FIRE)
    with FakeFeishu(app_id="cli_app_test", clock=lambda: clock.now().timestamp()) as feishu:
        settings = load_settings(feishu_app_id=feishu.app_id, feishu_app_secret=feishu.app_secret,
                                 feishu_verification_token=FEISHU_TOKEN, feishu_encrypt_key=FEISHU_KEY,
                                 feishu_api_url=feishu.url, prhub_default_repo=REPO,
                                 prhub_feishu_admins="tenant_T:ou_ADMIN")
        bot = create_bot(loaded, store, create_deliveries(settings), clock=clock, sleep=lambda s: None,
                         metrics=Metrics(), chart=None)
        app = create_app(settings, store, clock=clock, handlers=bot.job.approvals.handlers())
        server = Server(app)
        try:
            assert bot.job.run(REPO, fire_time=FIRE).status == "awaiting_approval"
            previews = [m for m in feishu.messages if m.get("target") == "ou_ADMIN"]
            assert previews and not [m for m in feishu.messages if m.get("target") == "oc_ex"]
            els = [e for e in previews[0]["card"]["body"]["elements"] if e.get("tag") == "button"]
            approve = {e["text"]["content"]: e["behaviors"][0]["value"] for e in els}["批准"]
            assert approve["action"] == "approve"
            payload = {"schema": "2.0",
                       "header": {"event_id": "ev_ap1", "token": FEISHU_TOKEN, "event_type": "card.action.trigger",
                                  "tenant_key": "tenant_T", "app_id": "cli_app_test", "create_time": "1"},
                       "event": {"operator": {"open_id": "ou_ADMIN", "tenant_key": "tenant_T"},
                                 "action": {"tag": "button", "value": approve},
                                 "context": {"open_message_id": "om_PREVIEW", "open_chat_id": "oc_dm"}}}
            body, headers = event_request(payload, encrypt_key=FEISHU_KEY)
            r = post(server.url + "/feishu/card", body, headers)
            assert r.status == 200 and r.json()["toast"]["type"] == "info"
        finally:
            server.stop()
            app.close()
            for pool in app.reply_executors.values():
                pool.shutdown(wait=True)
        assert len([m for m in feishu.messages if m.get("target") == "oc_ex"]) >= 1
        (answer,) = feishu.replies_to("om_PREVIEW")
        assert "已批准：example-org/example-repo 2026-W20 已发布到 1 个目的地。" in json.dumps(answer["card"], ensure_ascii=False)
    assert store.approval(REPO, "2026-W20").decided_by == "feishu:tenant_T:ou_ADMIN"
