"""The shipped generic rules on a small week of another repository (tests/fixtures)."""

from adapters.export.ghjson import load_exports
from chatbot.digest import newest_week, repo_from_urls
from tests.digests import written_digest
from chatbot.render.markdown import render_markdown
from chatbot.rules import default_rules_for
from tests.conftest import FIXTURES


def test_generic_rules_on_example_repo():
    prs = load_exports([str(FIXTURES / "example-repo-week.json")]).prs
    repo = repo_from_urls(prs)
    assert repo == "example-org/example-repo"
    rules = default_rules_for(repo)
    week = newest_week(prs, "UTC")
    d = written_digest(prs, repo=repo, week=week, rules=rules)
    by = {p.number: p for p in d.prs}
    assert d.total_prs == 7 and str(week) == "2026-W20"
    assert by[101].modules == ("source",) and "missing-tests" in by[101].risk_tags
    assert by[102].labels == ("documentation",) and by[102].modules == ("docs",) and by[102].risk_tags == ()
    assert by[103].labels == ("test", "bugfix", "bug") and "follow-up-fix" in by[103].risk_tags
    assert by[104].risk_tags == ("dependency-change",) and by[104].labels == ("dependencies",)
    assert by[106].risk_tags == ("security-sensitive",)  # 40 test lines emptied: not more than the 50 threshold
    assert by[101].reverted_by == 107 and d.reverted == (101,)
    assert all(p.number not in (101, 102, 105) for p in d.key_prs)  # reverted, docs-only, CI-only
    assert [c.login for c in d.contributors] == ["alice", "bob", "carol"]  # dependabot excluded
    assert d.ai_coauthor_share == round(1 / 7, 3) and d.bot_coauthor_share == round(1 / 7, 3)
    md = render_markdown(d)
    assert ("[#107](https://github.com/example-org/example-repo/pull/107) reverted "
            "[#101](https://github.com/example-org/example-repo/pull/101)") in md
