"""The model client's bounds (issue 20): a wall-clock deadline per request (not per read), a cap on
the answer's size, and every failure of the server a ModelError. The real ``openai`` client
against the scripted fake on 127.0.0.1; times scaled down to a 1 s timeout."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
import tracemalloc

import pytest

from adapters.llm.client import OpenAIModelClient
from chatbot.errors import ModelError
from chatbot.ports import TokenCount
from tests.conftest import ROOT
from tests.fakes.openai_server import (FakeOpenAI, Garbage, Hangup, Huge, Refusal, Reply, Stall, Status, Trickle,
                                       Truncated, closed_port_url)

TIMEOUT_S = 1.0
LATE_S = 0.4
"""How late past its deadline a call may return on a loaded machine (thread hand-over, not a read)."""


def _client(base_url: str, **kw) -> OpenAIModelClient:
    return OpenAIModelClient(base_url, "qwen3", "sk-test", timeout_s=kw.pop("timeout_s", TIMEOUT_S),
                             sleep=kw.pop("sleep", lambda s: None), **kw)


def _fails(step, *, timeout_s: float | None = None) -> tuple[str, float]:
    with FakeOpenAI([step]) as fake:
        client = _client(fake.base_url)
        started = time.monotonic()
        with pytest.raises(ModelError) as err:
            client.complete("system", "user", timeout_s=timeout_s)
        return err.value.user_message, time.monotonic() - started


@pytest.mark.parametrize("step, says", [
    (Truncated(), "the answer is not a chat completion (JSONDecodeError)"),
    (Garbage(), "the answer is not a chat completion"),
    (Garbage(body=b'{"choices": "none"}', content_type="application/json"), "the answer is not a chat completion"),
    (Hangup(), "APIConnectionError"),
    (Status(500), "HTTP 500"),
    (Status(429, retry_after="120"), "rate-limited (HTTP 429)"),
    (Huge(size=50 * 1024 * 1024), "answer larger than 1,048,576 bytes"),
    (Huge(size=50 * 1024 * 1024, chunked=True), "answer larger than 1,048,576 bytes"),
])
def test_every_broken_answer_is_a_model_error_naming_the_cause_never_the_key(step, says):
    message, seconds = _fails(step)
    assert says in message and message.startswith("model server 127.0.0.1:") and "sk-test" not in message
    assert seconds < TIMEOUT_S + LATE_S


def test_a_refused_connection_is_a_model_error():
    with pytest.raises(ModelError, match="cannot connect"):
        _client(closed_port_url()).complete("system", "user")


def test_a_refusal_is_an_empty_answer():
    with FakeOpenAI([Refusal()]) as fake:
        assert _client(fake.base_url).complete("system", "user").text == ""


@pytest.mark.parametrize("step", [Trickle(interval_s=0.2), Stall(seconds=10)], ids=["trickle", "stall"])
def test_the_deadline_is_wall_clock_not_per_read(step):
    """A byte every 0.2 s never trips a 1 s per-read timeout: on 12dedfc this call ran for hours."""
    message, seconds = _fails(step)
    assert f"no complete answer in {TIMEOUT_S:g} s" in message
    assert TIMEOUT_S - 0.05 <= seconds < TIMEOUT_S + LATE_S


def test_the_abandoned_request_stops_reading_a_trickle():
    with FakeOpenAI([Trickle(interval_s=0.1, length=10_000)]) as fake:
        with pytest.raises(ModelError):
            _client(fake.base_url).complete("system", "user")
        time.sleep(1.0)  # the worker sees its cancelled deadline at the next byte and closes
        assert fake.bytes_sent < 40  # ~1 s of bytes at 10 a second, then the connection was dropped


def test_the_calls_timeout_below_the_clients_wins():
    message, seconds = _fails(Stall(seconds=10), timeout_s=0.3)
    assert "no complete answer in 0.3 s" in message and 0.25 <= seconds < 0.3 + LATE_S


def test_a_retry_after_longer_than_the_time_left_fails_at_once():
    sleeps: list[float] = []
    with FakeOpenAI([Status(429, retry_after="2"), Status(429, retry_after="2"), Reply("{}")]) as fake:
        client = _client(fake.base_url, sleep=sleeps.append, timeout_s=5.0)
        with pytest.raises(ModelError, match="429"):
            client.complete("system", "user", timeout_s=1.5)
        assert sleeps == [] and len(fake.requests) == 1
        assert client.complete("system", "user", timeout_s=3.0).text == "{}"  # 2 s fit in 3 s: waited, asked again
        assert sleeps == [2.0]


def test_a_300_mb_answer_is_never_held_in_memory():
    tracemalloc.start()
    try:
        with FakeOpenAI([Huge(size=300 * 1024 * 1024, chunked=True)]) as fake:
            with pytest.raises(ModelError, match="larger than"):
                _client(fake.base_url, timeout_s=10.0).complete("system", "user")
            _, peak = tracemalloc.get_traced_memory()
            time.sleep(0.2)
            sent = fake.bytes_sent
    finally:
        tracemalloc.stop()
    assert peak < 8 * 1024 * 1024, peak  # the cap is 1 MiB; 12dedfc held all 300 MB (404 MB peak RSS)
    assert sent < 64 * 1024 * 1024, sent  # and stopped reading soon after it


def _peak_rss_mib(args: list[str], env: dict[str, str]) -> tuple[float, str]:
    """Run ``prhub ARGS`` and return the child's own peak RSS (MiB, from wait4) and its stderr."""
    proc = subprocess.Popen([sys.executable, "-m", "prhub", *args], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    err = proc.stderr.read() if proc.stderr else ""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    assert proc.returncode == 0, err[-2000:]
    return usage.ru_maxrss / 1024, err  # ru_maxrss is KiB on Linux


@pytest.mark.skipif(not hasattr(os, "wait4") or resource.getpagesize() <= 0, reason="needs wait4 (POSIX)")
def test_digest_llm_peak_memory_is_the_same_with_a_300_mb_answer(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRHUB_")}
    peaks = {}
    for name, step in (("HTTP 500", Status(500)), ("300 MB", Huge(size=300 * 1024 * 1024, chunked=True))):
        with FakeOpenAI([step]) as fake:
            run_env = {**env, "PYTHONPATH": str(ROOT), "PRHUB_LLM_BASE_URL": fake.base_url, "PRHUB_LLM_MODEL": "qwen3",
                       "PRHUB_LLM_API_KEY": "sk-test"}
            peaks[name], err = _peak_rss_mib(["digest", "--sample", "--llm", "--db", f"sqlite:///{tmp_path / name}.db"],
                                             run_env)
            assert "rules (0 sentences kept" in err
    assert peaks["300 MB"] - peaks["HTTP 500"] < 24, peaks  # 12dedfc: +300 MB


def test_count_tokens_asks_the_servers_tokenize_and_is_none_without_one():
    with FakeOpenAI([Reply("{}")], tokenizer=lambda text: len(text.split()), max_model_len=4096) as fake:
        assert _client(fake.base_url).count_tokens("three short words") == TokenCount(tokens=3, context=4096)
        assert fake.tokenize_requests == [{"model": "qwen3", "prompt": "three short words"}]
    with FakeOpenAI([Reply("{}")]) as fake:
        assert _client(fake.base_url).count_tokens("three short words") is None
    assert _client(closed_port_url()).count_tokens("x") is None
