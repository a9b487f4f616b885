import json
import gzip

import pytest

from chatbot.errors import RulesError
from chatbot.globs import MultiPathMatcher, PathMatcher
from chatbot.rules import shipped_rules
from tests.conftest import shared_file

CASES = [
    ("docs/**", "docs/a.md", True),
    ("docs/**", "x/docs/a.md", False),
    ("*.md", "README.md", True),
    ("*.md", "docs/x/a.md", True),
    ("*mla*", "vllm/attention/mla/x.py", True),
    ("*mla*", "vllm/a/flashmla.py", True),
    ("vllm/v1/core/", "vllm/v1/core/sched/x.py", True),
    ("vllm/v1/core/", "vllm/v1/core", False),
    ("vllm/v1/core", "vllm/v1/core.py", False),
    ("docker/Dockerfile*", "docker/Dockerfile.rocm", True),
    ("docker/Dockerfile*", "docker/sub/Dockerfile", False),
    ("requirements*.txt", "requirements-dev.txt", True),
    ("requirements*.txt", "a/requirements.txt", True),
    ("/requirements*.txt", "a/requirements.txt", False),
    ("test_*.py", "tests/a/test_x.py", True),
    ("**/test_*.py", "test_x.py", True),
    ("a/**/b.py", "a/b.py", True),
    ("a/**/b.py", "a/x/y/b.py", True),
    ("a/*/b.py", "a/x/y/b.py", False),
    ("/setup.py", "setup.py", True),
    ("/setup.py", "x/setup.py", False),
    ("rocm/", "x/rocm/a", True),
    ("rocm/", "x/rocm", False),
    ("file?.py", "file1.py", True),
    ("file[0-9].py", "file7.py", True),
    ("file[!0-9].py", "file7.py", False),
]


@pytest.mark.parametrize("glob,path,expected", CASES)
def test_gitignore_semantics(glob, path, expected):
    assert PathMatcher([glob]).matches(path) is expected


def test_exclude_wins():
    m = PathMatcher(["vllm/distributed/**"], ["vllm/distributed/kv_transfer/**"])
    assert m.matches("vllm/distributed/parallel_state.py")
    assert not m.matches("vllm/distributed/kv_transfer/x.py")


@pytest.mark.parametrize("glob", ["", "!docs/**", "/"])
def test_bad_globs(glob):
    with pytest.raises(RulesError):
        PathMatcher([glob])


def test_multi_matcher_agrees_with_single_matchers_on_every_real_path():
    """The trie/literal index must select exactly what the plain regexes select (5,135 real paths)."""
    records = json.load(gzip.open(shared_file("vllm-2025.json.gz")))
    paths = sorted({f["path"] for r in records for f in r["files"]})
    rules = shipped_rules("vllm")
    sets = [(m.paths, m.exclude) for m in rules.modules] + [(lb.paths, lb.exclude) for lb in rules.labels if lb.paths]
    multi = MultiPathMatcher(sets)
    single = [PathMatcher(i, e) for i, e in sets]
    assert len(paths) > 5000
    for p in paths:
        assert multi.matching(p) == tuple(i for i, m in enumerate(single) if m.matches(p)), p
