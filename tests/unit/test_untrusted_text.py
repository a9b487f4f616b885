"""Issue 9, failure 7 (links, bidi controls): only https://github.com/<repo>/pull/<n> becomes a link;
bidi controls (U+202A–U+202E, U+2066–U+2069) are removed from PR text when it enters the domain,
so no output (Markdown, Slack, Feishu, HTML, JSON) carries them."""

from __future__ import annotations

import json

import pytest

from chatbot.digest import pr_link
from tests.digests import written_digest
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
    d = written_digest([pr], repo=REPO, week=IsoWeek.parse("2026-W20"), rules=default_rules_for(REPO))
    dumped = d.model_dump_json()
    assert not any(chr(c) in dumped for c in BIDI_CONTROLS) and json.loads(dumped)
    assert d.key_prs and all(p.url == "" for p in d.key_prs) and "evil.example" not in dumped


def test_control_characters_are_removed_from_pr_text_before_markdown_and_html():
    """A title with NUL, an ANSI colour (ESC [31m), CR, DEL and a C1 CSI reaches neither Markdown nor HTML
    raw; newline and tab in a body are kept (same sanitizer as the bidi controls)."""
    from chatbot.models import CONTROL_CHARS
    from chatbot.render.markdown import render_markdown
    from prhub.formats import Rendering, output_format
    from prhub.report import PrList, build_report

    assert strip_bidi("a\x00b\x1b[31mc\r\x7f\x9bd\u0085") == "ab[31mcd" and strip_bidi("x\ny\tz") == "x\ny\tz"
    assert len(CONTROL_CHARS) == 32 - 2 + 1 + 32
    pr = PullRequest.model_validate({
        "number": 7, "title": "[Bugfix] fix\x00 \x1b[31mred\x1b[0m title\r", "body": "line 1\nline\t2\x07",
        "url": f"https://github.com/{REPO}/pull/7", "author": {"login": "mal\x1blory"},
        "merged_at": "2026-05-12T10:00:00Z", "labels": ["bug\x00"],
        "files": [{"path": "src/a\x1b.py", "additions": 1, "deletions": 0}],
    })
    assert pr.title == "[Bugfix] fix [31mred[0m title" and pr.body == "line 1\nline\t2"
    assert pr.author.login == "mallory" and pr.labels == ("bug",) and pr.files[0].path == "src/a.py"
    rules = default_rules_for(REPO)
    d = written_digest([pr], repo=REPO, week=IsoWeek.parse("2026-W20"), rules=rules)
    html = output_format("html").render(Rendering(d, build_report(d, PrList([pr]), rules))).decode("utf-8")
    for text in (render_markdown(d), html):
        assert "31mred" in text and "mallory" in text
        assert not any(chr(c) in text for c in CONTROL_CHARS), repr([c for c in text if ord(c) in CONTROL_CHARS])


@pytest.mark.parametrize("text, shown", [
    ("see https://evil.example/phish now", "see https://evil[.]example/phish now"),
    ("www.evil.example/login", "www[.]evil[.]example/login"),
    ("HTTPS://Evil.Example:8443/x", "HTTPS://Evil[.]Example:8443/x"),
    ("https://user@evil.example/x", "https://user@evil[.]example/x"),
    ("https://github.com.evil.example/", "https://github[.]com[.]evil[.]example/"),
    ("https://github.com/vllm-project/vllm/pull/42052", "https://github.com/vllm-project/vllm/pull/42052"),
    ("https://gist.github.com/u/1", "https://gist.github.com/u/1"),
    ("Fix config.py and vllm/v1/core.py", "Fix config.py and vllm/v1/core.py"),  # file names are not URLs
    ("(https://evil.example)", "(https://evil[.]example)"),
])
def test_bare_foreign_urls_are_broken(text, shown):
    from chatbot.render.escape import break_urls

    assert break_urls(text) == shown


def test_a_foreign_url_in_a_title_is_broken_in_chat_outputs_and_escaped_as_before_elsewhere():
    """Issue 20: ``https://evil.example/phish`` in a PR title stayed text that Slack and Feishu link."""
    from adapters.feishu.messages import cards_to_feishu
    from adapters.slack.messages import card_to_messages
    from chatbot.cards import digest_cards
    from chatbot.render.markdown import render_markdown

    pr = PullRequest.model_validate({
        "number": 7, "title": "[Bugfix] login moved to https://evil.example/phish (see www.evil.example)",
        "url": f"https://github.com/{REPO}/pull/7", "author": {"login": "mallory"},
        "merged_at": "2026-05-12T10:00:00Z", "labels": ["bug"],
        "files": [{"path": "src/auth.py", "additions": 40, "deletions": 2}],
    })
    d = written_digest([pr], repo=REPO, week=IsoWeek.parse("2026-W20"), rules=default_rules_for(REPO))
    cards = digest_cards(d, report_url=None)
    for out in (json.dumps(card_to_messages(cards), ensure_ascii=False),
                json.dumps(cards_to_feishu(cards), ensure_ascii=False)):
        assert "https://evil[.]example/phish" in out and "www[.]evil[.]example" in out
        assert "evil.example" not in out
        assert f"https://github.com/{REPO}/pull/7" in out  # the PR's own link is kept
    md = render_markdown(d)  # Markdown: the title escaped as before (brackets escaped, the URL as text)
    assert "| \\[Bugfix\\] login moved to https://evil.example/phish (see www.evil.example) |" in md
