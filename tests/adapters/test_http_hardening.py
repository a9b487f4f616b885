"""Issue 9, failures 2 and 3, over HTTP against the real app (bolt, lark-oapi) and the fakes: the
body limit answers 413 before the body is read; refused requests log one short line each; malformed
JSON and forms answer 400 (not Flask's 500); Feishu checks the signature before decrypting, answers
the same 401 to every forgery and refuses timestamps older than 5 minutes."""

from __future__ import annotations

import json
from contextlib import contextmanager
import logging
import socket
import time
import urllib.parse

import pytest

from chatbot.queries import DigestCache
from prhub.guard import OncePer, RefusalLog
from tests.conftest import week_prs
from tests.fakes.feishu_server import FakeFeishu, encrypt, event_request, message_event
from tests.fakes.inbound import FEISHU_KEY, FEISHU_TOKEN, MovableClock, build_bot, post, slack_event, slack_form, slack_headers
from tests.fakes.slack_server import FakeSlack

LIMIT = 1024 * 1024
MENTION = {"type": "app_mention", "user": "U_ALICE", "channel": "C_DIGEST", "ts": "1718000000.000100",
           "text": "<@U_BOT> risks this week"}


@pytest.fixture(scope="module")
def provider(vllm_rules):
    return DigestCache(week_prs("2026-W20"), repo="vllm-project/vllm", rules=vllm_rules)


@contextmanager
def w20_bot(tmp_path, provider, **options):
    """A wired bot on SQLite beside fake Slack and Feishu, its clock at 2026-W20's newest merge."""
    clock = MovableClock(max(p.merged_at for p in week_prs("2026-W20")))
    with FakeSlack() as slack, FakeFeishu(app_id="cli_app_test", clock=lambda: clock.now().timestamp()) as feishu:
        b = build_bot(f"sqlite:///{tmp_path / 'bot.db'}", clock=clock, digest_provider=provider, slack=slack,
                      feishu=feishu, **options)
        b.extra.update(slack=slack, feishu=feishu)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def bot(tmp_path, provider):
    with w20_bot(tmp_path, provider) as b:
        yield b


def _raw(url: str, head: bytes, body: bytes = b"", *, read_timeout: float = 10.0) -> tuple[int, bytes]:
    """Send ``head`` (request line and headers) and ``body`` on a socket; the status and response."""
    parsed = urllib.parse.urlparse(url)
    with socket.create_connection((parsed.hostname, parsed.port), timeout=read_timeout) as s:
        s.sendall(head + body)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    return int(data.split(b" ", 2)[1]), data


def test_a_body_over_the_limit_is_413_before_it_is_read(bot):
    # 100 MB announced, not one byte of it sent: the answer comes anyway, so nothing was buffered
    head = (b"POST /slack/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 104857600\r\n\r\n")
    start = time.monotonic()
    status, resp = _raw(bot.server.url, head)
    assert status == 413 and time.monotonic() - start < 5 and b"Payload Too Large" in resp
    # exactly at the limit is read (and then refused for its signature); one byte over is 413
    at = b"x" * LIMIT
    assert post(bot.server.url + "/slack/events", at, {"Content-Type": "application/json"}).status == 401
    assert post(bot.server.url + "/slack/events", at + b"x", {"Content-Type": "application/json"}).status == 413
    assert post(bot.server.url + "/feishu/events", at + b"x", {"Content-Type": "application/json"}).status == 413


def test_a_chunked_body_over_the_limit_is_413_after_at_most_the_limit(bot):
    chunk = b"y" * 65536
    body = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(20)) + b"0\r\n\r\n"  # 1.25 MiB
    head = b"POST /feishu/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    status, _ = _raw(bot.server.url, head, body)
    assert status == 413


def test_malformed_slack_bodies_are_400_once_signed_and_401_unsigned(bot):
    url = bot.server.url
    cases = [
        (b"{not json", "application/json"),
        (b"[" * 1000 + b"]" * 1000, "application/json"),  # nesting depth 1,000
        (b'"a string"', "application/json"),
        (b'{"type":"event_callback","event":"str"}', "application/json"),  # bolt's middleware: 500 before
        (slack_form({"payload": json.dumps({"type": "block_actions", "user": "U1", "actions": []})}),
         "application/x-www-form-urlencoded"),
        (slack_form({"payload": "{oops"}), "application/x-www-form-urlencoded"),
        (slack_form({"payload": json.dumps({"type": "block_actions", "actions": "x"})}), "application/x-www-form-urlencoded"),
        (b"\xff\xfe=\xff", "application/x-www-form-urlencoded"),
    ]
    for body, ctype in cases:
        path = "/slack/events" if ctype == "application/json" else "/slack/actions"
        assert post(url + path, body, {"Content-Type": ctype}).status == 401, body[:40]
        r = post(url + path, body, slack_headers(body, content_type=ctype))
        assert r.status == 400 and b"<html" not in r.body.lower(), (body[:40], r.status)
    # a non-numeric timestamp is a forgery, not a 500
    assert post(url + "/slack/events", b"{}", {"Content-Type": "application/json", "X-Slack-Request-Timestamp": "abc",
                                               "X-Slack-Signature": "v0=00"}).status == 401
    good = slack_event(MENTION, event_id="Ev_ok")
    assert post(url + "/slack/events", good, slack_headers(good)).status == 200


def test_feishu_forgeries_all_get_the_same_401_and_signed_garbage_is_400(bot):
    url = bot.server.url + "/feishu/events"
    ev = message_event(token=FEISHU_TOKEN, event_id="ev_F1", message_id="om_F1")
    statuses = set()
    # no signature headers (not a URL verification)
    body, headers = event_request(ev, encrypt_key=FEISHU_KEY)
    statuses.add(post(url, body, {"Content-Type": "application/json"}).status)
    # signed with another key; good and bad AES padding alike
    good_pad = json.dumps({"encrypt": encrypt(FEISHU_KEY, json.dumps(ev))}).encode()
    bad_pad = json.dumps({"encrypt": encrypt(FEISHU_KEY, json.dumps(ev))[:-8] + "AAAAAAA="}).encode()
    for b in (good_pad, bad_pad, b"{garbage", b"\x00" * 10):
        _, h = event_request({}, encrypt_key="", sign_key="not-the-key")
        ts, nonce = h["X-Lark-Request-Timestamp"], h["X-Lark-Request-Nonce"]
        import hashlib

        h["X-Lark-Signature"] = hashlib.sha256((ts + nonce + "not-the-key").encode() + b).hexdigest()
        statuses.add(post(url, b, h).status)
    # signed with the right key, 24 hours ago (a replay after the event log forgot it), and 301 s ago
    for age in (86400, 301):
        body, headers = event_request(ev, encrypt_key=FEISHU_KEY, timestamp=str(int(time.time()) - age))
        statuses.add(post(url, body, headers).status)
    assert statuses == {401}
    assert bot.extra["feishu"].messages == []  # no handler ran
    # 299 s old is inside the window
    body, headers = event_request(ev, encrypt_key=FEISHU_KEY, timestamp=str(int(time.time()) - 299))
    assert post(url, body, headers).status == 200
    # signed with the right key but not JSON, or JSON that is not an event: 400, not 500
    for b in (b"{garbage", b'"text"', json.dumps({"encrypt": "bm90IGFlcw=="}).encode()):
        ts, nonce = str(int(time.time())), "n1"
        import hashlib

        h = {"Content-Type": "application/json", "X-Lark-Request-Timestamp": ts, "X-Lark-Request-Nonce": nonce,
             "X-Lark-Signature": hashlib.sha256((ts + nonce + FEISHU_KEY).encode() + b).hexdigest()}
        assert post(url, b, h).status == 400, b


def test_url_verification_is_answered_unsigned_only_with_the_right_token(bot):
    url = bot.server.url + "/feishu/events"
    body, _ = event_request({"challenge": "c1", "token": FEISHU_TOKEN, "type": "url_verification"}, encrypt_key=FEISHU_KEY)
    r = post(url, body, {"Content-Type": "application/json"})
    assert r.status == 200 and r.json() == {"challenge": "c1"}
    body, _ = event_request({"challenge": "c1", "token": "wrong", "type": "url_verification"}, encrypt_key=FEISHU_KEY)
    assert post(url, body, {"Content-Type": "application/json"}).status == 401


def test_refused_requests_log_one_short_line_each_without_body_or_traceback(bot, caplog):
    caplog.set_level(logging.DEBUG)
    url = bot.server.url
    big = b'{"x": "' + b"A" * 900_000 + b'"}'
    post(url + "/slack/events", big, {"Content-Type": "application/json", "X-Slack-Request-Timestamp": str(int(time.time())),
                                      "X-Slack-Signature": "v0=" + "0" * 64})
    for _ in range(3):
        body, headers = event_request(message_event(token=FEISHU_TOKEN), encrypt_key=FEISHU_KEY, sign_key="forged")
        post(url + "/feishu/events", body, headers)
    post(url + "/slack/events", b"x" * (LIMIT + 1), {"Content-Type": "application/json"})
    records = caplog.records
    assert max(len(r.getMessage()) for r in records) < 1024
    assert not any(r.exc_info for r in records)
    refused = [r.getMessage() for r in records if r.getMessage().startswith("refused POST")]
    assert len(refused) == 5 and any(" 413 " in m for m in refused) and sum(" 401 " in m for m in refused) == 4


def test_refusal_log_is_rate_limited():
    t = [0.0]
    lines: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda r: lines.append(r.getMessage())  # type: ignore[method-assign]
    logger = logging.getLogger("prhub.guard")
    logger.addHandler(handler)
    try:
        rl = RefusalLog(burst=3, window=60.0, clock=lambda: t[0])
        for _ in range(5):
            rl.refused("POST", "/slack/events", 401, "bad signature", "1.2.3.4")
        t[0] = 60.0
        rl.refused("POST", "/slack/events", 401, "bad signature", "1.2.3.4")
    finally:
        logger.removeHandler(handler)
    assert len(lines) == 5
    assert lines[3] == "refused requests: 2 more in the last 60 s not logged"
    assert lines[0] == "refused POST /slack/events: 401 bad signature (from 1.2.3.4)"


def test_once_per_window_passes_one_record_and_counts_the_rest():
    t = [0.0]
    f = OncePer(window=60.0, clock=lambda: t[0])

    def rec(depth: int) -> logging.LogRecord:
        return logging.LogRecord("waitress.queue", logging.WARNING, __file__, 1, "Task queue depth is %d", (depth,), None)

    first = rec(1)
    assert f.filter(first) and first.getMessage() == "Task queue depth is 1"
    t[0] = 59.999
    assert [f.filter(rec(d)) for d in (2, 3, 4)] == [False, False, False]
    t[0] = 60.0  # exactly one window after the last line: passes, and counts the three left out
    last = rec(5)
    assert f.filter(last) and last.getMessage() == "Task queue depth is 5 (3 more in the last 60 s)"


@pytest.mark.parametrize("body", [b'{"encrypt": "abc"}', b'{"encrypt": 5}', b'{"encrypt": "' + b"QUJD" * 8 + b'"}',
                                  b'{"schema": "2.0", "header": 7}', b"not json"])
@pytest.mark.parametrize("sign", [False, True])
def test_a_forged_feishu_event_logs_only_the_guards_one_warning(bot, caplog, body, sign):
    """lark-oapi logged two ERROR lines (its handler and the propagated one) with internal text such as
    'invalid ciphertext length' for each forged body; now only the guard's refusal line remains."""
    caplog.set_level(logging.DEBUG)
    ts = str(int(time.time()))
    signed = {"X-Lark-Request-Timestamp": ts, "X-Lark-Request-Nonce": "n", "X-Lark-Signature": "0" * 64}
    r = post(bot.server.url + "/feishu/events", body, {"Content-Type": "application/json", **(signed if sign else {})})
    assert 400 <= r.status < 500
    lines = [(rec.levelno, rec.getMessage()) for rec in caplog.records if rec.levelno >= logging.WARNING]
    assert len(lines) == 1 and lines[0][0] == logging.WARNING, lines
    assert lines[0][1].startswith("refused POST /feishu/events: 4")
