"""``prhub check-prose`` as a user runs it, on the shipped real week 2026-W20 (``--sample``)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT


def prhub(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "prhub", "check-prose", "--sample", "--week", "2026-W20", *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=120, input=stdin)


def test_plain_text_verdicts_with_reasons(tmp_path):
    f = tmp_path / "s.txt"
    f.write_text("本周共合并 217 个 PR。\n\nbugfix（51）最多。\n#42434 回滚了 #39917。\n", encoding="utf-8")
    r = prhub("--lang", "zh", str(f))
    assert r.returncode == 0, r.stderr
    assert r.stdout == ("kept: 本周共合并 217 个 PR。\n"
                        "rejected: bugfix（51）最多。\n"
                        "  - states 51 for bugfix, which no cited fact has\n"
                        "kept: #42434 回滚了 #39917。\n"
                        "2 kept, 1 rejected\n")


def test_jsonl_with_ids_and_json_output_from_stdin():
    lines = [{"text": "217 PRs were merged.", "facts": ["labels.bugfix"]},
             {"text": "217 PRs were merged.", "facts": ["week.merged_prs"]},
             {"text": "#39568 reverts #39949.", "prs": [39568, 39949]}]
    r = prhub("--format", "json", "-", stdin="\n".join(json.dumps(x) for x in lines))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == [
        {"text": "217 PRs were merged.", "kept": False, "faults": ["states 217 prs for merged, which no cited fact has"]},
        {"text": "217 PRs were merged.", "kept": True, "faults": []},
        {"text": "#39568 reverts #39949.", "kept": False, "faults": ["says #39568 reverts #39949, which the facts do not show"]},
    ]


@pytest.mark.parametrize("content, expected", [
    ("", "no sentences; write one sentence a line"),
    ('{"text": 3}\n', 'line 1: expected {"text": string, "prs": [integers], "facts": [strings]}'),
    ('{"text": "a"}\n{"text": "b", "prs": ["1"]}\n', "line 2: expected"),
    ('{"text": "a"\n', "line 1: not valid JSON"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, content, expected):
    f = tmp_path / "s.jsonl"
    f.write_text(content, encoding="utf-8")
    r = prhub(str(f))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and expected in r.stderr


def test_a_missing_file_and_a_week_without_prs_are_one_line_errors(tmp_path):
    r = prhub(str(tmp_path / "nope.txt"))
    assert r.returncode == 2 and "cannot read" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    f = tmp_path / "s.txt"
    f.write_text("a\n", encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "prhub", "check-prose", "--sample", "--week", "2026-W30", str(f)],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 2 and "the input holds no PR of vllm-project/vllm merged that week" in r.stderr
