"""Red-team suite: LLM-written sentences about week 2026-W27 against the validator.

``tests/fixtures/prose/2026-W27.zh.jsonl`` holds the seed report's sentences about the week
(``../shared/seeds/001_*.txt``), each labelled ``true``/``false``/``unverifiable`` with the record
field that decides it (window-dependent counts — the seed's 246 PRs against the records' 247 — and
the seed's own scores are unverifiable), and edits of the true ones of the kinds a real model makes
(swapped PR number, a true number on the wrong subject, wrong module or platform, inverted claim,
wrong author, a false relation between two real PRs). Test data only: no seed text is in the product.

Run two ways: ``prhub check-prose`` on the week's records (descriptions included), and as model
answers through the real ``openai`` client against the fake server into ``write_prose`` (the writer
knows the digest's facts only: titles and gists, not whole descriptions). Each prints its keep and
catch rates; the counts are pinned.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter

from adapters.llm.client import OpenAIModelClient
from chatbot.rules import shipped_rules
from chatbot.weeks import IsoWeek
from chatbot.writer import write_prose
from tests.conftest import ROOT, shared_file, thread_prs
from tests.digests import written_digest
from tests.fakes.openai_server import FakeOpenAI, Reply

SUITE = ROOT / "tests" / "fixtures" / "prose" / "2026-W27.zh.jsonl"
MUST_CATCH = ("swapped_pr", "wrong_subject_number", "inverted", "false_relation")


def suite() -> list[dict]:
    return [json.loads(x) for x in SUITE.read_text(encoding="utf-8").splitlines() if x.strip()]


def rates(rows: list[dict], kept: list[bool]) -> Counter:
    """Counts by (label, edit kind, kept|rejected); prints keep and catch rates."""
    out: Counter = Counter()
    for r, k in zip(rows, kept):
        out[(r["label"], r.get("kind", ""), "kept" if k else "rejected")] += 1
    true_kept = out[("true", "", "kept")]
    true_all = true_kept + out[("true", "", "rejected")]
    edits = [(r, k) for r, k in zip(rows, kept) if r["label"] == "edit"]
    caught = sum(not k for _, k in edits)
    false_caught = out[("false", "", "rejected")]
    print(f"true sentences kept: {true_kept}/{true_all} ({100 * true_kept / true_all:.1f}%); "
          f"false rejected: {false_caught}/{false_caught + out[('false', '', 'kept')]}; "
          f"edits rejected: {caught}/{len(edits)} ({100 * caught / len(edits):.1f}%)")
    return out


def test_the_suite_is_labelled_with_the_deciding_field():
    rows = suite()
    labels = Counter(r["label"] for r in rows)
    assert labels == {"true": 47, "false": 5, "unverifiable": 8, "edit": 50}
    assert all(r["field"] for r in rows if r["label"] != "edit")
    by_id = {r["id"]: r for r in rows}
    kinds = Counter(r["kind"] for r in rows if r["label"] == "edit")
    assert kinds == {"swapped_pr": 10, "wrong_subject_number": 13, "wrong_module": 6, "inverted": 7, "wrong_author": 8,
                     "false_relation": 6}
    assert all(by_id[r["of"]]["label"] != "edit" for r in rows if r["label"] == "edit")


def test_check_prose_keeps_true_sentences_and_rejects_edits():
    week_file = shared_file("vllm-threads", "2026-W27.json")
    r = subprocess.run([sys.executable, "-m", "prhub", "check-prose", "--input", str(week_file), "--week", "2026-W27",
                        "--lang", "zh", "--format", "json", str(SUITE)], capture_output=True, text=True, cwd=ROOT,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    verdicts = json.loads(r.stdout)
    rows = suite()
    assert [v["text"] for v in verdicts] == [x["text"] for x in rows]
    c = rates(rows, [v["kept"] for v in verdicts])
    assert (c[("true", "", "kept")], c[("true", "", "rejected")]) == (46, 1)  # 97.9%: the one names no PR
    assert c[("false", "", "rejected")] == 5 and c[("false", "", "kept")] == 0
    for kind in MUST_CATCH + ("wrong_author", "wrong_module"):
        assert c[("edit", kind, "kept")] == 0, kind
    assert sum(n for (label, _, verdict), n in c.items() if label == "edit" and verdict == "rejected") == 50  # 100%
    lost = [v["faults"] for v, x in zip(verdicts, rows) if x["label"] == "true" and not v["kept"]]
    assert lost == [["states 63 files, which no cited fact has"]]  # its ~2,750 lines bind to #47058 of a storyline


def test_the_writer_through_the_openai_client_binds_the_same_sentences():
    d = written_digest(thread_prs("2026-W27"), repo="vllm-project/vllm", week=IsoWeek(2026, 27), rules=shipped_rules("vllm"), lang="zh")
    rows = suite()
    kept: list[bool] = []
    for i in range(0, len(rows), 6):  # six a request, as recommendations (no storyline slot to bind them to)
        batch = rows[i:i + 6]
        answer = json.dumps({"headline": {"text": "", "prs": []}, "storylines": [], "trend": {"text": "", "prs": []},
                             "recommendations": [{"text": r["text"], "prs": []} for r in batch]}, ensure_ascii=False)
        with FakeOpenAI([Reply(answer)]) as fake:
            out = write_prose(d, OpenAIModelClient(fake.base_url, "qwen3", "sk-test", timeout_s=10.0),
                              max_input_tokens=16000)
        assert fake.rejected == [] and fake.requests[0]["response_format"]["type"] == "json_schema"
        by_model = {r.text for r, m in zip(out.recommendations,
                                           [m for m in out.prose.sentences if m.slot.startswith("recommendations.")])
                    if m.source == "model"}
        kept += [r["text"] in by_model for r in batch]
        assert out.prose.replaced == sum(r["text"] not in by_model for r in batch)
    c = rates(rows, kept)
    # without the descriptions (127.0.0.1, Hy3-FP8, MLA, JIT are in them, not in titles or gists) 5 true ones go
    assert (c[("true", "", "kept")], c[("true", "", "rejected")]) == (42, 5)
    assert c[("false", "", "kept")] == 0
    for kind in MUST_CATCH + ("wrong_author", "wrong_module"):  # wrong_module: 2 of 6 kept on 927e43b
        assert c[("edit", kind, "kept")] == 0, kind
