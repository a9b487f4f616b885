"""Analysis rules on small synthetic PRs, under the shipped vLLM rules."""

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chatbot.analysis import analyze_prs, build_revert_graph, parse_revert, title_prefixes
from chatbot.models import Author, FileChange, PullRequest
from chatbot.rules import shipped_rules

RULES = shipped_rules("vllm").compiled
T0 = datetime(2026, 5, 11, tzinfo=timezone.utc)


def pr(number, title="Change", files=(), hours=1, body="", **kw):
    fs = tuple(FileChange(path=p, additions=a, deletions=d) for p, a, d in files)
    return PullRequest(
        number=number, title=title, body=body, url=f"https://github.com/o/r/pull/{number}",
        author=Author(login="alice"), merged_at=T0 + timedelta(hours=hours), files=fs,
        additions=sum(f.additions for f in fs), deletions=sum(f.deletions for f in fs), changed_files=len(fs), **kw,
    )


def analyze(*prs, context=()):
    ctx = {p.number: p for p in (*context, *prs)}
    out, graph = analyze_prs(list(prs), ctx, RULES, T0)
    return {a.pr.number: a for a in out}, graph


@pytest.mark.parametrize(
    "title,expected",
    [
        ("[ROCm][Bugfix] Fix X", ["rocm", "bugfix"]),
        ("[ROCm] [Bugfix] Fix X", ["rocm", "bugfix"]),
        ("  [Model Runner V2]  Fix", ["model runner v2"]),
        ("Fix typo [Fixes #35949]", []),
        ("[ci/build]x [Perf] y", ["ci/build"]),
        ("[DSV4] [2/n] x", ["dsv4", "2/n"]),
    ],
)
def test_title_prefixes(title, expected):
    assert title_prefixes(title) == expected


def test_labels_from_prefixes_paths_and_titles():
    a, _ = analyze(
        pr(1, "[Bugfix] [ROCm] Fix AMD thing", [("vllm/v1/core/sched/scheduler.py", 3, 1)]),
        pr(2, "[DSV4] [2/n] something", [("README.md", 1, 0)]),
        pr(3, "Fix typo in scheduler", [("vllm/foo.py", 1, 1)], labels=("github-label",)),
        pr(4, "Fixture cleanup for the forward fix suite", [("vllm/foo.py", 1, 1)]),
        pr(5, "Forward fix nightly errors from #44589", [("vllm/foo.py", 1, 1)]),
    )
    assert a[1].labels == ("v1", "rocm", "bugfix")
    assert a[2].labels == ("documentation", "deepseek")
    assert a[3].labels == ("bugfix", "github-label")  # a title whose first word is Fix (vllm.yaml)
    assert "bugfix" not in a[4].labels and "bugfix" in a[5].labels


def test_modules_from_paths_only_with_other_and_primary():
    a, _ = analyze(
        pr(1, "[Spec Decode] x", [("vllm/v1/worker/gpu_model_runner.py", 10, 0), ("vllm/v1/spec_decode/eagle.py", 50, 5)]),
        pr(2, "[Spec Decode] title says spec decode", [("setup.cfg", 1, 1)]),
        pr(3, "tie", [("vllm/v1/attention/x.py", 5, 0), ("vllm/lora/y.py", 5, 0)]),
    )
    assert a[1].modules == ("spec-decode", "model-runner")
    assert a[1].primary_module == "spec-decode"
    assert a[2].modules == ("other",) and a[2].primary_module == "other"
    assert a[3].primary_module == "attention"  # tie -> rule order


def test_core_path_and_missing_tests_reasons_name_path_and_lines():
    a, _ = analyze(pr(1, "x", [("vllm/v1/worker/gpu_model_runner.py", 125, 10)]),
                   pr(2, "x", [("vllm/v1/worker/gpu_model_runner.py", 25, 10)]))
    reasons = a[1].reasons("en")
    assert a[1].risk_tags == ("core-path-change", "missing-tests")
    assert reasons["core-path-change"] == "core path vllm/v1/worker/gpu_model_runner.py (+125/-10)"
    assert "vllm/v1/worker/gpu_model_runner.py (+125/-10)" in reasons["missing-tests"]
    assert a[2].risk_tags == ()  # 35 core lines, 25 added: neither is what a reviewer re-reads


def test_missing_tests_threshold_and_test_files():
    a, _ = analyze(
        pr(1, "x", [("vllm/a.py", 99, 90)]),  # 99 added lines: below the threshold
        pr(2, "x", [("vllm/a.py", 100, 0)]),  # 100 added
        pr(3, "x", [("vllm/a.py", 200, 10), ("tests/test_a.py", 1, 0)]),
        pr(4, "x", [("vllm/a.py", 200, 10), ("vllm/x/conftest.py", 1, 0)]),
        pr(5, "x", [("docs/a.md", 500, 0)]),
        pr(6, "x", [("vllm/benchmarks/datasets/datasets.py", 150, 4)]),  # W20 #41576: not behavioural
        pr(7, "x", [("vllm/model_executor/configs/x.json", 300, 0)]),  # not code
        pr(8, "x", [("csrc/spinloop.cpp", 204, 0)]),
        pr(9, "x", [("csrc/moe/k.cu", 0, 400)]),  # a removal adds nothing to test
    )
    assert "missing-tests" not in a[1].risk_tags
    assert "missing-tests" in a[2].risk_tags
    assert "missing-tests" not in a[3].risk_tags
    assert "missing-tests" not in a[4].risk_tags
    assert a[5].risk_tags == ()
    assert "missing-tests" not in a[6].risk_tags
    assert "missing-tests" not in a[7].risk_tags
    assert "missing-tests" in a[8].risk_tags
    assert "missing-tests" not in a[9].risk_tags


def test_tests_removed_large_dependency_security():
    a, _ = analyze(
        pr(1, "x", [("tests/test_a.py", 0, 55)]),
        pr(2, "x", [("tests/test_a.py", 10, 61)]),
        pr(3, "x", [(f"vllm/m{i}.py", 1, 0) for i in range(31)]),
        pr(4, "x", [("requirements/cuda.txt", 1, 1)]),
        pr(5, "Add TLS certificate checks", [("vllm/x.py", 1, 1)]),
        pr(6, "x", [("vllm/entrypoints/auth_middleware.py", 3, 1)]),
        pr(7, "x", [("tests/test_a.py", 0, 171), ("tests/test_b.py", 209, 0)]),  # W20 #41826: moved, not lost
        pr(8, "x", [("tests/test_a.py", 0, 3)]),  # a 3-line list emptied (W20 #42387): no loss worth a look
        pr(9, "x", [(f"tests/t{i}.py", 50, 0) for i in range(31)] + [("vllm/a.py", 10, 0)]),  # tests: not large
        pr(10, "x", [("requirements/test/cuda.txt", 4, 4)]),  # a test-only pin breaks no install
    )
    assert a[1].reasons("en")["tests-removed"] == "test lines net -55, lines only deleted from test file tests/test_a.py (+0/-55)"  # no "emptied": counts only
    assert "net -51" in a[2].reasons("en")["tests-removed"]
    assert a[3].reasons("en")["large-change"].startswith("31 files outside tests, +31/-0 lines")
    assert "tests-removed" not in a[7].risk_tags and "tests-removed" not in a[8].risk_tags
    assert "large-change" not in a[9].risk_tags
    assert "dependency-change" not in a[10].risk_tags
    assert a[4].reasons("en")["dependency-change"] == "dependency file requirements/cuda.txt (+1/-1)"
    assert a[5].reasons("en")["security-sensitive"] == "security keyword \u201cTLS\u201d in the title"
    assert "auth_middleware.py (+3/-1)" in a[6].reasons("en")["security-sensitive"]


def test_truncated_file_list_is_a_large_change():
    """BR-16 (b): 3,500 changed, 3,000 listed."""
    files = tuple(FileChange(path=f"docs/f{i}.md", additions=1, deletions=0) for i in range(3000))
    big = PullRequest(number=2002, title="big", merged_at=T0, files=files, additions=3000, changed_files=3500)
    a, _ = analyze(big)
    assert "file list truncated (3,500 changed, 3,000 analysed)" in a[2002].reasons("en")["large-change"]


def test_missing_file_list_is_not_a_truncated_one():
    bare = PullRequest(number=7, title="x", merged_at=T0, additions=80, deletions=5, changed_files=2)
    a, _ = analyze(bare)
    assert "large-change" not in a[7].risk_tags


def test_revert_parsing():
    assert parse_revert('Revert "[Core] X (#39917)"').number == 39917
    assert parse_revert('Revert "[Core] X" (#39917)').number == 39917
    link = parse_revert('Revert "[Core] Replace things"')
    assert link.number is None and link.title == "[Core] Replace things"
    assert parse_revert("Reverting to old") is None or parse_revert("Reverting to old").number is None
    assert parse_revert("Fix revert logic") is None


def test_reverted_in_the_same_week_and_relands():
    orig = pr(10, "[Core] Replace things", [("vllm/v1/core/a.py", 100, 10)], hours=1)
    rev = pr(11, 'Revert "[Core] Replace things"', [("vllm/v1/core/a.py", 10, 100)], hours=5)
    a, graph = analyze(orig, rev)
    assert graph.reverted_by == {10: 11}
    assert a[11].reasons("en")["revert"] == "reverts \u201c[Core] Replace things\u201d"
    reland = pr(12, 'Revert "Revert "[Core] Replace things""', [("vllm/v1/core/a.py", 100, 10)], hours=9)
    a, graph = analyze(orig, rev, reland)
    assert graph.reverted_by == {11: 12}  # the original is re-landed, the revert is reverted
    assert a[12].reasons("en")["revert"] == "re-lands \u201c[Core] Replace things\u201d"


def test_revert_of_a_pr_outside_the_input_names_the_number():
    a, graph = analyze(pr(42434, 'Revert "[Core] Replace routing replay" (#39917)', [("vllm/x.py", 1, 1)]))
    assert a[42434].reasons("en")["revert"] == "reverts #39917"
    assert graph.reverted_by == {}


def test_follow_up_fix_needs_a_recent_cited_pr():
    earlier = pr(100, "[Feature] thing", [("vllm/a.py", 10, 0)], hours=-30)  # previous week
    old = pr(50, "[Feature] old thing", [("vllm/a.py", 10, 0)], hours=-24 * 30)
    fix = pr(101, "[Bugfix] Fix regression from #100", [("vllm/a.py", 1, 1)], hours=3)
    fix_old = pr(102, "[Bugfix] Fix bug from #50", [("vllm/a.py", 1, 1)], hours=3)
    not_bug = pr(103, "[Misc] follow up to #100", [("vllm/a.py", 1, 1)], hours=3)
    a, _ = analyze(fix, fix_old, not_bug, context=(earlier, old))
    assert a[101].reasons("en")["follow-up-fix"] == "fixes #100, merged 05-09"
    assert "follow-up-fix" not in a[102].risk_tags
    assert "follow-up-fix" not in a[103].risk_tags


def _score(files, title="x"):
    a, _ = analyze(pr(1, title, files))
    return a[1].importance


def test_docs_only_and_ci_only_are_capped():
    assert _score([("docs/a.md", 5000, 100)], "[Feature] [Perf] docs") <= 1.5
    assert _score([(".buildkite/test.yaml", 5000, 100), ("docs/x.md", 1, 0)]) <= 1.5


paths = st.sampled_from([
    "vllm/v1/core/sched/scheduler.py", "vllm/v1/worker/gpu_model_runner.py", "vllm/model_executor/models/llama.py",
    "tests/v1/test_x.py", "docs/usage.md", ".buildkite/test.yaml", "csrc/attention/a.cu", "requirements/cuda.txt",
    "vllm/entrypoints/openai/api_server.py", "setup.py",
])
file_lists = st.lists(st.tuples(paths, st.integers(0, 3000), st.integers(0, 3000)), min_size=1, max_size=8,
                      unique_by=lambda t: t[0])


@settings(max_examples=150, deadline=None)
@given(file_lists, st.integers(0, 7), st.integers(1, 5000), st.integers(0, 1))
def test_importance_never_decreases_when_lines_grow(files, which, extra, side):
    i = which % len(files)
    grown = list(files)
    p, a, d = grown[i]
    grown[i] = (p, a + extra * (1 - side), d + extra * side)
    w = shipped_rules("vllm").importance
    stops_new = side == 1 and d == 0 and a >= w.new_file_lines  # a first deleted line: an edit, not a new file
    # scores are rounded to 0.1: compare in tenths (5.4 - 1.5 is 3.9000000000000004 in floats, and 3.9 is not >= it)
    assert round(10 * _score(grown)) >= round(10 * (_score(files) - (w.capability if stops_new else 0.0)))


def test_a_new_source_file_is_a_new_capability():
    w = shipped_rules("vllm").importance
    new = _score([("vllm/v1/core/sched/scheduler.py", 80, 0)])
    edit = _score([("vllm/v1/core/sched/scheduler.py", 80, 1)])
    assert round(new - edit, 1) == w.capability  # 4.3 and 2.8: +80/-0 reads as a new file
    assert _score([("tests/v1/test_x.py", 500, 0)]) == _score([("tests/v1/test_x.py", 500, 1)])  # a test is no capability


@settings(max_examples=100, deadline=None)
@given(file_lists, st.sampled_from(["vllm/v1/engine/core.py", "vllm/v1/executor/abstract.py", "vllm/v1/core/kv.py"]),
       st.integers(0, 500))
def test_importance_never_decreases_when_core_files_grow(files, core, lines):
    if core in {f[0] for f in files}:
        return
    assert _score([*files, (core, lines, 0)]) >= _score(files)


@settings(max_examples=50, deadline=None)
@given(file_lists)
def test_importance_is_bounded_and_deterministic(files):
    s = _score(files)
    assert 0.0 <= s <= 10.0 and s == round(s, 1) and s == _score(files)
