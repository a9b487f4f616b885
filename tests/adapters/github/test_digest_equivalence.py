"""The digest built from the GitHub source equals the file digest of the same week (real vLLM data)."""

from datetime import datetime, timezone

import pytest

from tests.digests import written_digest
from chatbot.rules import shipped_rules
from chatbot.weeks import IsoWeek
from tests.conftest import week_prs
from tests.fakes.github_server import VLLM_REPO

FIELDS = ("number", "title", "author", "modules", "additions", "deletions")


@pytest.mark.parametrize("week", ["2026-W20", "2026-W18"])
def test_github_digest_equals_file_digest(fake, make_source, week):
    file_prs = week_prs(week)  # skips without ../shared
    iso = IsoWeek.parse(week)
    start, end = iso.utc_window(timezone.utc)
    result = make_source().merged_between(VLLM_REPO, start, end)
    rules = shipped_rules("vllm")
    from_file = written_digest(file_prs, repo=VLLM_REPO, week=iso, rules=rules)
    from_github = written_digest(result.prs, repo=VLLM_REPO, week=iso, rules=rules)
    pick = lambda d: [{k: getattr(p, k) for k in FIELDS} for p in d.prs]  # noqa: E731
    assert pick(from_github) == pick(from_file)
    assert from_github.total_prs == from_file.total_prs == len(result.prs)
    # the real weeks carry no review data, so everything else agrees too
    assert from_github.model_dump() == from_file.model_dump()
