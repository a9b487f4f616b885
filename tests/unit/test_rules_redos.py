"""Rules regexes are guarded against catastrophic backtracking: a pattern with an unbounded repeat
inside another (``(a+)+$`` took 14 s on a 28-character title, doubling per character) is refused when
the rules load — ``prhub rules check`` and every load — with one line naming the file, the key and the
fix; and title regexes see only the first :data:`TITLE_MATCH_CHARS` characters of a title."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from chatbot.errors import RulesError
from chatbot.models import PullRequest
from chatbot.rules import TITLE_MATCH_CHARS, parse_rules
from chatbot.weeks import IsoWeek
from tests.digests import written_digest
from tests.e2e.test_cli import prhub


def rules(*titles: str, keywords: tuple[str, ...] = ()):
    quoted = ", ".join(f"'{t}'" for t in titles)
    extra = f"\nsecurity_keywords: [{', '.join(repr(k) for k in keywords)}]" if keywords else ""
    return parse_rules(f"labels:\n  - name: hit\n    titles: [{quoted}]{extra}\n", "r.yaml")


@pytest.mark.parametrize("pattern", ["(a+)+$", "(a*)*", "(?:x*y)*", r"(\w+\s?){2,}", "((a|b)+c)*", "x(?=(a+)+)"])
def test_nested_unbounded_repeats_are_refused_naming_file_key_and_fix(pattern):
    with pytest.raises(RulesError) as exc:
        rules(pattern)
    msg = exc.value.user_message
    assert msg.startswith("rules file r.yaml: labels.0.titles: regular expression ") and "\n" not in msg
    assert "nests an unbounded repeat inside another" in msg and "rewrite it without the inner repeat" in msg


@pytest.mark.parametrize("pattern", ["(a+){1,10}", "(a{1,5})+", "(a++)+", "(?>a+)+", "a+b*", r"(?i)\bfix(es)?\b", "(ab)+"])
def test_bounded_possessive_or_flat_repeats_load(pattern):
    assert rules(pattern).labels[0].titles == (pattern,)


def test_every_regex_key_is_guarded_not_only_titles():
    with pytest.raises(RulesError, match=r"security_keywords: regular expression '\(a\+\)\+'"):
        rules("ok", keywords=("(a+)+",))


def test_rules_check_refuses_it_in_one_line_exit_2(tmp_path):
    bad = tmp_path / "r_redos.yaml"
    bad.write_text("labels:\n  - name: slow\n    titles: ['(a+)+$']\n")
    r = prhub("rules", "check", str(bad))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert f"rules file {bad}: labels.0.titles: regular expression '(a+)+$' nests" in r.stderr


def label_of(title: str, pattern: str) -> dict:
    pr = PullRequest(number=1, title=title, merged_at=datetime(2026, 5, 12, tzinfo=timezone.utc))
    return written_digest([pr], repo="a/b", week=IsoWeek.parse("2026-W20"), rules=rules(pattern)).label_counts


def test_title_regexes_see_exactly_the_first_300_characters():
    assert TITLE_MATCH_CHARS == 300
    inside = "x" * (TITLE_MATCH_CHARS - len("marker")) + "marker"  # ends at character 300
    assert label_of(inside, "marker") == {"hit": 1}
    assert label_of("x" + inside, "marker") == {}  # ends at 301: not seen
