"""The pure mapping from GraphQL payloads to domain PRs, and the search strings (no server)."""

from datetime import datetime, timedelta, timezone

import pytest
from pydantic import ValidationError

from adapters.github.mapping import added_asserts, co_authors, is_test_path, to_pull_request
from adapters.github.queries import SEARCH_QUERY, FollowUp, followup_query
from adapters.github.search import merged_range, merged_search, split_window
from chatbot.analysis import analyze_prs
from chatbot.rules import shipped_rules

UTC = timezone.utc


def node(**kw):
    base = {
        "number": 7, "title": "[Core] Fix x", "body": None, "url": "https://github.com/o/r/pull/7",
        "mergedAt": "2026-05-12T03:04:05Z", "additions": 12, "deletions": 3, "changedFiles": 2,
        "author": {"__typename": "User", "login": "alice", "name": "Alice"},
        "mergeCommit": {"oid": "abc", "message": "Fix x (#7)\n\nCo-authored-by: Claude <noreply@anthropic.com>\n"
                                                  "Co-authored-by: mergify[bot] <x@y>\nCo-authored-by: Claude <n@a>"},
        "comments": {"nodes": [{"body": "Thanks!", "createdAt": "2026-05-12T04:00:00Z",
                                "author": {"__typename": "User", "login": "bob"}}]},
        "labels": {"pageInfo": {"hasNextPage": False}, "nodes": [{"name": "bug"}]},
        "files": {"nodes": [{"path": "vllm/a.py", "additions": 10, "deletions": 3}, {"path": "tests/test_a.py", "additions": 2, "deletions": 0}]},
        "reviews": {"nodes": [
            {"state": "COMMENTED", "submittedAt": "2026-05-12T01:00:00Z", "body": "LGTM?", "author": {"__typename": "Bot", "login": "gemini-code-assist"}},
            {"state": "APPROVED", "submittedAt": "2026-05-12T02:00:00Z", "body": "", "author": None},
        ]},
        "reviewThreads": {"nodes": [
            {"isResolved": False, "isOutdated": False, "path": "vllm/a.py", "line": 41,
             "comments": {"nodes": [{"body": "![critical](https://www.gstatic.com/codereviewagent/critical.svg)\n\nrace", "createdAt": "2026-05-12T01:00:00Z",
                                     "author": {"__typename": "Bot", "login": "gemini-code-assist"}},
                                    {"body": "fixed", "createdAt": "2026-05-12T02:00:00Z",
                                     "author": {"__typename": "User", "login": "alice"}}]}},
            {"isResolved": False, "isOutdated": True, "path": "vllm/a.py", "comments": {"nodes": []}},
        ]},
        "closingIssuesReferences": {"nodes": [{"number": 5}, {"number": 6}]},
    }
    base.update(kw)
    return base


def test_full_node_maps_every_field():
    pr = to_pull_request(node())
    assert pr.number == 7 and pr.title == "[Core] Fix x" and pr.body == ""
    assert pr.merged_at == datetime(2026, 5, 12, 3, 4, 5, tzinfo=UTC)
    assert pr.author.login == "alice" and pr.author.name == "Alice" and not pr.author.is_bot
    assert pr.labels == ("bug",)
    assert [(f.path, f.additions, f.deletions) for f in pr.files] == [("vllm/a.py", 10, 3), ("tests/test_a.py", 2, 0)]
    assert (pr.additions, pr.deletions, pr.changed_files) == (12, 3, 2)
    assert [(c.author, c.body) for c in pr.comments] == [("bob", "Thanks!")] and pr.comment_count == 1
    assert pr.closing_issues == (5, 6) and pr.merge_commit == "abc"
    assert pr.co_authors == ("Claude", "mergify[bot]")
    bot, ghost = pr.reviews
    assert (bot.reviewer, bot.is_bot, bot.state) == ("gemini-code-assist[bot]", True, "COMMENTED")
    assert (ghost.reviewer, ghost.is_bot, ghost.state) == ("ghost", False, "APPROVED")
    t0, t1 = pr.review_threads
    assert (t0.path, t0.is_resolved, t0.is_outdated, t0.author, t0.author_is_bot) == ("vllm/a.py", False, False, "gemini-code-assist[bot]", True)
    assert t0.line == 41 and t1.line is None
    assert [(c.author, c.is_bot, c.body) for c in t0.comments] == [
        ("gemini-code-assist[bot]", True, "![critical](https://www.gstatic.com/codereviewagent/critical.svg)\n\nrace"), ("alice", False, "fixed")]
    assert t0.first_comment == "![critical](https://www.gstatic.com/codereviewagent/critical.svg)\n\nrace" and t1.is_outdated and t1.author is None and t1.first_comment == ""
    assert pr.added_asserts == ()


def review_risks(pr):
    """The PR's risk tags under the vLLM rules (alone in its week)."""
    (a,), _ = analyze_prs([pr], {pr.number: pr}, shipped_rules("vllm").compiled, pr.merged_at)
    return a.risk_tags


def test_review_data_lights_review_risks():
    pr = to_pull_request(node(reviews={"nodes": [{"state": "APPROVED", "author": {"__typename": "Bot", "login": "x"}}]}))
    risks = review_risks(pr)
    assert "no-human-approval" in risks and "bot-review-flag" in risks and "review-open" not in risks


def test_minimal_node_and_bad_nodes():
    pr = to_pull_request({"number": 1, "title": "t", "mergedAt": "2026-05-12T00:00:00Z"})
    assert pr.files == () and pr.author is None and pr.comments == () and pr.comment_count == 0
    with pytest.raises(ValueError):
        to_pull_request({"number": 1, "title": "t", "mergedAt": None})
    with pytest.raises(ValidationError):
        to_pull_request({"title": "t", "mergedAt": "2026-05-12T00:00:00Z"})


def test_changed_files_keeps_githubs_count_when_the_list_is_truncated():
    files = {"nodes": [{"path": f"f{i}", "additions": 1, "deletions": 0} for i in range(3000)]}
    pr = to_pull_request(node(files=files, changedFiles=3500))
    assert len(pr.files) == 3000 and pr.changed_files == 3500


def test_co_authors_and_asserts():
    assert co_authors(None) == () and co_authors("x\n\nco-authored-by:  Bob  <b@x>") == ("Bob",)
    assert is_test_path("tests/x.py") and is_test_path("vllm/test_x.py") and is_test_path("a/conftest.py")
    assert not is_test_path("vllm/testing_utils.py") and not is_test_path("vllm/attest.py")
    files = [
        {"filename": "vllm/a.py", "patch": "@@ -1 +1,2 @@\n x\n+    assert y, 'msg'\n"},
        {"filename": "vllm/b.py", "patch": "@@ -1,2 +1 @@\n-    assert y\n"},
        {"filename": "tests/test_c.py", "patch": "+assert 1\n"},
        {"filename": "vllm/d.py"},
        {"filename": "csrc/e.cu", "patch": "+assert(x);\n"},
        {"filename": "vllm/f.py", "patch": "+++ b/vllm/f.py\n+asserted = 1\n"},
    ]
    assert added_asserts(files) == ("vllm/a.py",)
    pr = to_pull_request(node(), patch_files=files)
    assert pr.added_asserts == ("vllm/a.py",) and "assert-runtime-check" in review_risks(pr)


def test_search_uses_explicit_utc_instants_for_the_half_open_window():
    start = datetime(2026, 5, 11, tzinfo=UTC)
    end = start + timedelta(days=7)
    assert merged_search("vllm-project/vllm", start, end) == (
        "repo:vllm-project/vllm is:pr is:merged merged:2026-05-11T00:00:00Z..2026-05-17T23:59:59Z")
    shanghai = timezone(timedelta(hours=8))
    assert merged_range(datetime(2026, 5, 11, tzinfo=shanghai), datetime(2026, 5, 18, tzinfo=shanghai)) == (
        "merged:2026-05-10T16:00:00Z..2026-05-17T15:59:59Z")
    assert merged_range(start + timedelta(microseconds=5), start + timedelta(seconds=2)) == (
        "merged:2026-05-11T00:00:01Z..2026-05-11T00:00:01Z")
    with pytest.raises(ValueError):
        merged_search("not a repo", start, end)
    with pytest.raises(ValueError):
        merged_range(datetime(2026, 5, 11), end)


def test_split_by_day_then_by_halves():
    start = datetime(2026, 4, 6, tzinfo=UTC)
    halves = split_window(start, start + timedelta(days=42))
    assert halves == [(start, start + timedelta(days=21)), (start + timedelta(days=21), start + timedelta(days=42))]
    odd = split_window(start, start + timedelta(days=7))
    assert odd[0][1] in (start + timedelta(days=3), start + timedelta(days=4)) and odd[0][1].hour == 0
    day = split_window(start, start + timedelta(days=1))
    assert day == [(start, start + timedelta(hours=12)), (start + timedelta(hours=12), start + timedelta(days=1))]
    assert split_window(start, start + timedelta(seconds=1)) is None
    two = split_window(start, start + timedelta(seconds=2))
    assert two == [(start, start + timedelta(seconds=1)), (start + timedelta(seconds=1), start + timedelta(seconds=2))]


def test_followup_query_batches_prs_with_aliases():
    text, variables = followup_query([FollowUp(1, "files", "Y3Vyc29yOjk5"), FollowUp(2, "reviewThreads", "abc")])
    assert "f0: pullRequest(number: 1)" in text and "f1: pullRequest(number: 2)" in text
    assert variables == {"c0": "Y3Vyc29yOjk5", "c1": "abc"}
    assert "files(first: 100" in SEARCH_QUERY and "search(type: ISSUE" in SEARCH_QUERY
