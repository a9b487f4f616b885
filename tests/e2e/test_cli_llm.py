"""``prhub digest --llm`` as a user runs it: the real openai client, a scripted fake server, the store's cache."""

import json
import os
import subprocess
import sys

from tests.conftest import ROOT
from tests.fakes.openai_server import FakeOpenAI, Reply


def prhub(*args, env):
    return subprocess.run([sys.executable, "-m", "prhub", *args], capture_output=True, text=True, cwd=ROOT, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **env})


def answer_for(digest_json: dict) -> str:
    themes = digest_json["themes"]
    return json.dumps({
        "headline": {"text": f"{digest_json['total_prs']} PRs merged in 2026-W20.", "prs": []},
        "storylines": [{"id": t["module"], "text": f"{t['name']}: #{t['prs'][0]} leads it.", "prs": [t["prs"][0]]}
                       for t in themes],
        "trend": {"text": "Model support had the most PRs.", "prs": []},
        "recommendations": [{"text": "Check the revert #42434 of #39917.", "prs": [42434, 39917]}],
    })


def test_digest_llm_uses_checked_sentences_and_a_rerun_costs_zero_tokens(tmp_path):
    db = f"sqlite:///{tmp_path / 'prhub.db'}"
    base = prhub("digest", "--sample", "--format", "json", env={})
    assert base.returncode == 0, base.stderr
    with FakeOpenAI([Reply(answer_for(json.loads(base.stdout)))]) as fake:
        env = {"PRHUB_LLM_BASE_URL": fake.base_url, "PRHUB_LLM_MODEL": "qwen3", "PRHUB_LLM_API_KEY": "sk-test"}
        first = prhub("digest", "--sample", "--llm", "--db", db, env=env)
        assert first.returncode == 0, first.stderr
        assert "Summary sentences written by qwen3 and checked against the facts." in first.stdout
        assert "prhub: LLM writer qwen3: model (" in first.stderr and "1,200 prompt + 300 completion tokens" in first.stderr
        second = prhub("digest", "--sample", "--llm", "--db", db, env=env)
        assert second.returncode == 0 and second.stdout == first.stdout
        assert "cache, 0 tokens" in second.stderr and len(fake.requests) == 1
    assert "sk-test" not in first.stderr + first.stdout


def test_digest_llm_without_a_model_is_a_one_line_error():
    r = prhub("digest", "--sample", "--llm", env={"PRHUB_LLM_BASE_URL": "", "PRHUB_LLM_MODEL": ""})
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "--llm needs a model: set PRHUB_LLM_BASE_URL" in r.stderr and len(r.stderr.strip().splitlines()) == 1
