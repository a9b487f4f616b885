"""DigestService: one analysis per repository-week whatever the languages, the optional step between
analysis and rendering, the ttl on an injected clock, the source version; same digest as before."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from chatbot.digest import write
from tests.digests import written_digest
from chatbot.digest_service import DigestService
from chatbot.weeks import IsoWeek
from tests.conftest import week_prs

W20 = IsoWeek.parse("2026-W20")
REPO = "vllm-project/vllm"


class FixedClock:
    def __init__(self) -> None:
        self.t = datetime(2026, 5, 18, 9, tzinfo=timezone.utc)

    def now(self) -> datetime:
        return self.t


@pytest.fixture
def prs():
    return week_prs("2026-W19") + week_prs("2026-W20")


def _service(prs, vllm_rules, calls, **kw):
    def source(repo, week):
        calls.append((repo, str(week)))
        return prs
    return DigestService(source, rules_for=lambda repo: vllm_rules, tz_for=lambda repo: "UTC", **kw)


def test_one_analysis_for_both_languages_and_the_same_digests(prs, vllm_rules):
    calls: list = []
    svc = _service(prs, vllm_rules, calls)
    en, zh = svc.written(REPO, W20, "en"), svc.written(REPO, W20, "zh")
    assert svc.analyses_built == 1 and calls == [(REPO, "2026-W20")]
    assert en == written_digest(prs, repo=REPO, week=W20, rules=vllm_rules, lang="en")
    assert zh == written_digest(prs, repo=REPO, week=W20, rules=vllm_rules, lang="zh")
    assert (en.total_prs, zh.total_prs, en.lang, zh.lang) == (217, 217, "en", "zh")
    assert [p.number for p in en.key_prs] == [p.number for p in zh.key_prs]


def test_the_step_sees_every_digest_before_rendering(prs, vllm_rules):
    seen = []

    def step(d):
        seen.append(d.lang)
        return d.model_copy(update={"recommendations": d.recommendations[:1]})

    svc = _service(prs, vllm_rules, [], step=step)
    assert len(svc.written(REPO, W20, "zh").recommendations) == 1 and seen == ["zh"]
    # one digest for both languages: the step writes each language once, the other keeps the rules' text
    d = svc.digest(REPO, W20, langs=("en", "zh"))
    assert seen == ["zh", "en"] and sorted(d.prose) == ["en", "zh"] and svc.analyses_built == 1
    assert len(write(d, "en").recommendations) == 1
    assert len(write(svc.digest(REPO, W20), "en").recommendations) > 1  # no prose asked: rule-written
    svc.written(REPO, W20, "zh")
    assert seen == ["zh", "en"]


def test_ttl_on_the_clock_and_version_rebuild(prs, vllm_rules):
    clock, version, calls = FixedClock(), ["a"], []
    svc = _service(prs, vllm_rules, calls, clock=clock, ttl=300, version=lambda repo, week: version[0])
    svc.digest(REPO, W20)
    clock.t += timedelta(seconds=299)
    svc.written(REPO, W20, "zh")
    assert svc.analyses_built == 1
    clock.t += timedelta(seconds=1)  # exactly ttl: rebuilt
    svc.digest(REPO, W20)
    assert svc.analyses_built == 2
    version[0] = "b"  # newer PRs stored
    svc.digest(REPO, W20)
    assert svc.analyses_built == 3


def test_bad_language_and_ttl_without_clock(prs, vllm_rules):
    from chatbot.errors import InputError

    with pytest.raises(InputError, match="unsupported language 'fr': use en or zh"):
        _service(prs, vllm_rules, []).written(REPO, W20, "fr")
    with pytest.raises(ValueError, match="ttl needs a clock"):
        _service(prs, vllm_rules, [], ttl=1)


def test_chat_window_digests_read_the_store_once_for_both_languages(prs, vllm_rules):
    from chatbot.queries import WindowDigests

    clock, reads = FixedClock(), []

    def fetch(start, end):
        reads.append((start, end))
        return [p for p in prs if start <= p.merged_at < end]

    seen = []
    w = WindowDigests(fetch, repo=REPO, rules=vllm_rules, clock=clock.now, step=lambda d: seen.append(d.lang) or d)
    en, zh = w.digest(W20, "en"), w.digest(W20, "zh")
    # the 7 days before the week (context) to the 56 days after it (later reverts and fixes)
    assert reads == [(datetime(2026, 5, 4, tzinfo=timezone.utc), datetime(2026, 7, 13, tzinfo=timezone.utc))]
    assert (en.total_prs, zh.total_prs, seen) == (217, 217, ["en", "zh"])
    assert en.generated_at == clock.t


def test_concurrent_misses_of_one_week_build_once_and_other_weeks_build_meanwhile(prs, vllm_rules):
    """Single flight: eight listeners missing the cache for 2026-W20 at once read the source and
    analyse once (before: eight builds); a miss of another week is not held up behind it."""
    import threading
    import time

    calls: list = []
    w19_asked = threading.Event()

    def source(repo, week):
        calls.append(str(week))
        if str(week) == "2026-W20":
            assert w19_asked.wait(10)  # W19's build runs while W20's is in flight
            time.sleep(0.2)  # the other seven arrive while this build is in flight
        else:
            w19_asked.set()
        return prs

    svc = DigestService(source, rules_for=lambda repo: vllm_rules, tz_for=lambda repo: "UTC")
    start = threading.Barrier(9)
    results: list = []

    def ask(week):
        start.wait()
        results.append(svc.digest(REPO, week).total_prs)

    threads = [threading.Thread(target=ask, args=(W20,)) for _ in range(8)]
    threads.append(threading.Thread(target=ask, args=(IsoWeek.parse("2026-W19"),)))
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sorted(calls) == ["2026-W19", "2026-W20"] and svc.analyses_built == 2
    assert results.count(217) == 8 and len(results) == 9


def test_a_failed_build_is_tried_again_by_the_next_caller(prs, vllm_rules):
    calls: list = []

    def source(repo, week):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("source down")
        return prs

    svc = DigestService(source, rules_for=lambda repo: vllm_rules, tz_for=lambda repo: "UTC")
    with pytest.raises(RuntimeError):
        svc.digest(REPO, W20)
    assert svc.digest(REPO, W20).total_prs == 217 and len(calls) == 2 and svc._building == {}


def test_written_text_is_written_once_per_analysis_and_language(prs, vllm_rules, monkeypatch):
    """Chat answers ask ``written`` per question: writing W20 costs ~0.15 s CPU, so it must be reused
    (chat_load fell from ~290 to ~18 answers/s when every answer wrote the digest again)."""
    import chatbot.digest_service as ds

    writes: list[str] = []
    real = ds.write
    monkeypatch.setattr(ds, "write", lambda d, lang: writes.append(lang) or real(d, lang))
    stamp = ["v1"]
    s = _service(prs, vllm_rules, [], version=lambda repo, week: stamp[0])
    en = s.written(REPO, W20, "en")
    assert s.written(REPO, W20, "en") is en and writes == ["en"]
    at = datetime(2026, 5, 17, 12, tzinfo=timezone.utc)
    later = s.written(REPO, W20, "en", generated_at=at)
    assert later.generated_at == at and later.model_copy(update={"generated_at": None}) == en and writes == ["en"]
    assert s.written(REPO, W20, "zh").lang == "zh" and writes == ["en", "zh"]
    assert en == write(s.digest(REPO, W20), "en")  # the same text as writing it afresh
    stamp[0] = "v2"  # the store changed: a new analysis is written again
    assert s.written(REPO, W20, "en") is not en and writes == ["en", "zh", "en"]
