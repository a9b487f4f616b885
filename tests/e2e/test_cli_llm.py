"""``prhub digest --llm`` as a user runs it: the real openai client, a scripted fake server, the store's cache."""

import json
import os
import subprocess
import sys

from tests.conftest import ROOT
from tests.adapters.llm.test_pr_summaries import summary_answer
from tests.fakes.openai_server import Answer, FakeOpenAI


def prhub(*args, env):
    return subprocess.run([sys.executable, "-m", "prhub", *args], capture_output=True, text=True, cwd=ROOT, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **env})


def test_digest_llm_words_each_key_pr_once_and_reports_tokens_and_seconds(tmp_path):
    db = f"sqlite:///{tmp_path / 'prhub.db'}"
    with FakeOpenAI([Answer(summary_answer)]) as fake:
        env = {"PRHUB_LLM_BASE_URL": fake.base_url, "PRHUB_LLM_MODEL": "qwen3", "PRHUB_LLM_API_KEY": "sk-test"}
        first = prhub("digest", "--sample", "--llm", "--db", db, env=env)
        assert first.returncode == 0, first.stderr
        assert len(fake.requests) == 25  # 24 key-PR summaries + the digest prose
        line = first.stderr.strip().splitlines()[-1]
        assert line.startswith("prhub: LLM writer qwen3: model (") and "24 PR summaries by the model, 0 rule-written, 0 from the cache" in line
        assert "25 calls, 5,000 prompt + 1,000 completion tokens" in line and line.endswith(" s)")
        assert "† 33 sentences by qwen3, numbers and PR references checked against the facts; 0 replaced by rule text." in first.stdout
        assert "\x1b[" not in first.stderr  # no progress bar when stderr is not a terminal
        second = prhub("digest", "--sample", "--llm", "--db", db, env=env)
        assert second.stdout == first.stdout and len(fake.requests) == 25
        assert "24 from the cache; cache, 0 calls, 0 tokens" in second.stderr
    assert "sk-test" not in first.stderr + first.stdout


def test_digest_llm_without_a_model_is_a_one_line_error():
    r = prhub("digest", "--sample", "--llm", env={"PRHUB_LLM_BASE_URL": "", "PRHUB_LLM_MODEL": ""})
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "--llm needs a model: set PRHUB_LLM_BASE_URL" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def wrong_answer(body) -> str:
    """An answer every check rejects: a number that is in no fact (the summaries and the digest prose alike)."""
    return json.dumps({"summary": {"text": "This PR makes decoding 987x faster.", "prs": []},
                       "headline": {"text": "987 PRs merged.", "prs": []}, "storylines": [], "recommendations": []})


def test_a_second_run_after_failed_answers_makes_no_model_call(tmp_path):
    """Negative results are cached: what failed the check twice is re-checked from the store, not asked again
    (on 12dedfc only successes were cached: the second run asked all 25 again, 50 calls)."""
    db = f"sqlite:///{tmp_path / 'prhub.db'}"
    with FakeOpenAI([Answer(wrong_answer)]) as fake:
        env = {"PRHUB_LLM_BASE_URL": fake.base_url, "PRHUB_LLM_MODEL": "qwen3", "PRHUB_LLM_API_KEY": "sk-test"}
        first = prhub("digest", "--sample", "--llm", "--db", db, env=env)
        assert first.returncode == 0, first.stderr
        assert len(fake.requests) == 50  # 25 asks, each retried once with the complaints
        assert "0 PR summaries by the model, 24 rule-written, 0 from the cache; 50 calls" in first.stderr
        second = prhub("digest", "--sample", "--llm", "--db", db, env=env)
        assert second.returncode == 0 and len(fake.requests) == 50
        assert second.stdout == first.stdout
        assert second.stderr.strip().splitlines()[-1].startswith("prhub: LLM writer qwen3: rules (0 sentences kept")
        assert "cache, 0 calls, 0 tokens" in second.stderr
