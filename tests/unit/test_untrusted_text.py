"""Issue 9, failure 7 (links, bidi controls): only https://github.com/<repo>/pull/<n> becomes a link;
bidi controls (U+202A–U+202E, U+2066–U+2069) are removed from PR text when it enters the domain,
so no output (Markdown, Slack, Feishu, HTML, JSON) carries them."""

from __future__ import annotations

import json

import pytest

from chatbot.digest import build_digest, pr_link
from chatbot.models import BIDI_CONTROLS, PullRequest, strip_bidi
from chatbot.rules import default_rules_for
from chatbot.weeks import IsoWeek

REPO = "example-org/example-repo"


@pytest.mark.parametrize("url, ok", [
    ("https://github.com/example-org/example-repo/pull/7", True),
    ("https://GitHub.com/Example-Org/example-repo/pull/7/", True),
    ("http://github.com/example-org/example-repo/pull/7", False),
    ("https://evil.example/example-org/example-repo/pull/7", False),
    ("https://github.com/example-org/example-repo/pull/8", False),
    ("https://github.com/other/repo/pull/7", False),
    ("https://github.com/example-org/example-repo/pull/7?x=<script>", False),
    ("https://github.com.evil/example-org/example-repo/pull/7", False),
    ("javascript:alert(1)", False),
])
def test_only_this_prs_github_url_is_a_link(url, ok):
    assert (pr_link(url, REPO, 7) != "") is ok


def test_bidi_controls_are_removed_from_every_pr_text_field():
    rlo = "".join(chr(c) for c in sorted(BIDI_CONTROLS))
    assert len(rlo) == 9 and strip_bidi(f"a{rlo}b") == "ab" and strip_bidi("\u200f\u061c x") == "\u200f\u061c x"
    pr = PullRequest.model_validate({
        "number": 7, "title": f"[Bugfix] fix\u202e txt.exe", "url": "https://evil.example/x", "body": f"b\u2066ody",
        "author": {"login": f"mal\u202dlory"}, "merged_at": "2026-05-12T10:00:00Z", "labels": [f"bug\u2069"],
        "files": [{"path": f"src/a\u202b.py", "additions": 1, "deletions": 0}],
    })
    assert pr.title == "[Bugfix] fix txt.exe" and pr.body == "body" and pr.author.login == "mallory"
    assert pr.labels == ("bug",) and pr.files[0].path == "src/a.py"
    d = build_digest([pr], repo=REPO, week=IsoWeek.parse("2026-W20"), rules=default_rules_for(REPO))
    dumped = d.model_dump_json()
    assert not any(chr(c) in dumped for c in BIDI_CONTROLS) and json.loads(dumped)
    assert d.key_prs and all(p.url == "" for p in d.key_prs) and "evil.example" not in dumped
