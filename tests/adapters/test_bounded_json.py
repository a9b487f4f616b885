"""Bounded parsing (issue 20, item 1): one JSON reader (:mod:`chatbot.json_input`) for untrusted and
local input, with a nesting and a size limit, on every route and command that reads JSON; any
exception in a request handler is a JSON 500 and one log line, never Flask's HTML page or a traceback.

At 12dedfc a signed webhook of 5,000 nested ``[`` was a 500 HTML page with a traceback, ``prhub
digest -i`` of 200 KB of them exited 70 (``RecursionError``), and ``prhub import`` of it grew with the
square of the depth (21 GB for 200 KB).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from werkzeug.test import Client

from chatbot.errors import InputError
from chatbot.json_input import MAX_DEPTH, JsonDepthError, read_json
from prhub.guard import RequestGuard
from prhub.sync import create_webhook_app
from tests.conftest import shared_file

ROOT = Path(__file__).resolve().parents[2]
SECRET = "webhook-secret-test"
DEEP = b"[" * 100_000 + b"]" * 100_000  # 200 KB of nesting


def nested(depth: int) -> bytes:
    """A value (``1``) inside ``depth`` nested arrays."""
    return b"[" * depth + b"1" + b"]" * depth


# -- the reader --------------------------------------------------------------------------------------

def test_nesting_is_refused_exactly_past_the_limit():
    assert MAX_DEPTH == 200
    assert read_json(nested(MAX_DEPTH), source="t", max_bytes=10_000) == json.loads(nested(MAX_DEPTH))
    with pytest.raises(JsonDepthError) as err:
        read_json(nested(MAX_DEPTH + 1), source="hook body", max_bytes=10_000, hint="send a GitHub event")
    assert err.value.user_message == ("hook body: JSON nested deeper than 200 levels (line 1, column 202): "
                                      "send a GitHub event")
    with pytest.raises(JsonDepthError):
        read_json(b'{"a":' * 5000 + b"1" + b"}" * 5000, source="t", max_bytes=10**6)


def test_size_is_refused_exactly_past_the_limit():
    text = b'{"a": [1, 2.5, "x"]}'
    assert read_json(text, source="t", max_bytes=len(text)) == {"a": [1, 2.5, "x"]}
    with pytest.raises(InputError) as err:
        read_json(text, source="t", max_bytes=len(text) - 1)
    assert err.value.user_message == "t: 20 bytes of JSON, over the limit of 19"


def test_syntax_errors_name_line_and_column():
    with pytest.raises(InputError) as err:
        read_json(b'[1,\n 2,]', source="week.json", max_bytes=100)
    assert err.value.user_message == "week.json: not valid JSON (line 2, column 4): trailing comma"
    assert not isinstance(err.value, JsonDepthError)


def test_the_reader_gives_what_json_loads_gives_on_real_weeks():
    for week in ("2026-W15", "2026-W20"):
        raw = shared_file("vllm", f"{week}.json").read_bytes()
        assert read_json(raw, source=week, max_bytes=len(raw)) == json.loads(raw)
    assert read_json(b"\xef\xbb\xbf[1, 12345678901234567890123, 1e400, -0.0]", source="t", max_bytes=100) == \
        [1, 12345678901234567890123, float("inf"), -0.0]
    assert read_json('{"k": 1, "k": 2}', source="t", max_bytes=100) == {"k": 2}


# -- HTTP --------------------------------------------------------------------------------------------

def _signed(body: bytes) -> dict[str, str]:
    return {"Content-Type": "application/json", "X-GitHub-Event": "pull_request",
            "X-Hub-Signature-256": "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()}


def _no_traceback(caplog: pytest.LogCaptureFixture) -> None:
    assert not any(r.exc_info or "Traceback" in r.getMessage() for r in caplog.records)


def test_a_signed_webhook_of_5000_nested_brackets_is_a_one_line_400(caplog):
    client = Client(create_webhook_app(SECRET, ["o/r"], lambda repo, hook: 1))
    body = b"[" * 5000 + b"]" * 5000
    with caplog.at_level(logging.INFO):
        r = client.post("/github/webhook", data=body, headers=_signed(body))
    assert r.status_code == 400 and r.headers["Content-Type"] == "application/json"
    assert r.get_json() == {"error": "webhook body: JSON nested deeper than 200 levels (line 1, column 202)"}
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    _no_traceback(caplog)


def test_an_exception_in_the_webhook_handler_is_a_json_500_and_one_line(caplog):
    def broken(repo, hook):
        raise RuntimeError("store went away")

    client = Client(create_webhook_app(SECRET, ["o/r"], broken))
    body = json.dumps({"action": "closed", "repository": {"full_name": "o/r"},
                       "pull_request": {"merged": True, "number": 5, "merged_at": "2026-05-12T00:00:00Z"}}).encode()
    with caplog.at_level(logging.INFO):
        r = client.post("/github/webhook", data=body, headers=_signed(body))
    assert r.status_code == 500 and r.get_json() == {"error": "internal error"}
    lines = [rec.getMessage() for rec in caplog.records if rec.levelno >= logging.ERROR]
    assert lines == ["POST /github/webhook: RuntimeError: store went away"]
    _no_traceback(caplog)


def test_flask_error_pages_become_json_and_plain_text_answers_stay():
    from flask import Flask, Response

    app = Flask("t")
    app.config["PROPAGATE_EXCEPTIONS"] = True

    @app.get("/text")
    def text() -> Response:
        return Response("no report for this week\n", status=404, mimetype="text/plain")

    client = Client(RequestGuard(app.wsgi_app))
    r = client.post("/text")
    assert (r.status_code, r.get_json()) == (405, {"error": "METHOD NOT ALLOWED"})
    r = client.get("/text")
    assert (r.status_code, r.data) == (404, b"no report for this week\n")


# -- the command line --------------------------------------------------------------------------------

def _run(args: list[str], tmp_path: Path) -> tuple[int, str, int]:
    """``prhub ARGS`` in a child: its exit code, its stderr and its peak resident memory (KiB, wait4)."""
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "xdg")}
    with open(tmp_path / "err.txt", "w+") as err:
        p = subprocess.Popen([sys.executable, "-m", "prhub", *args], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                             stderr=err)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        return p.returncode, err.read(), usage.ru_maxrss


@pytest.fixture
def deep_file(tmp_path):
    path = tmp_path / "deep.json"
    path.write_bytes(DEEP)
    return path


def test_import_of_200_kb_of_nesting_is_exit_2_one_line_within_50_mib(tmp_path, deep_file):
    db = f"sqlite:///{tmp_path / 'prhub.db'}"
    code, err, _ = _run(["import", "--db", db, str(ROOT / "prhub" / "data" / "2026-W20.json")], tmp_path)
    assert code == 0, err
    _, _, baseline = _run(["import", "--db", db, str(ROOT / "prhub" / "data" / "2026-W20.json")], tmp_path)
    code, err, peak = _run(["import", "--db", db, str(deep_file)], tmp_path)
    assert code == 2
    assert err == (f"prhub: error: {deep_file}: record 0 is nested deeper than 200 levels: "
                   "not a PR export (gh pr list --json ...)\n")
    assert peak - baseline <= 50 * 1024, (peak, baseline)


def test_digest_of_200_kb_of_nesting_is_exit_2_one_line(tmp_path, deep_file):
    code, err, _ = _run(["digest", "-i", str(deep_file)], tmp_path)
    assert code == 2
    assert err == (f"prhub: error: {deep_file}: JSON nested deeper than 200 levels (line 1, column 202): "
                   "pass a PR export (gh pr list --json ...)\n")
