"""The gh-JSON file source: validation errors name the file, record and field."""

import gzip
import io
import json

import pytest

from adapters.export.ghjson import load_exports, parse_records
from chatbot.errors import InputError

GOOD = {"number": 7, "title": "x", "mergedAt": "2026-05-11T01:19:21Z"}


@pytest.mark.parametrize(
    "record,message",
    [
        ({"title": "x", "mergedAt": "2026-05-11T01:19:21Z"}, "number: missing (required)"),
        ({"number": "7", "title": "x", "mergedAt": "2026-05-11T01:19:21Z"}, "number: not an integer"),
        ({"number": 0, "title": "x", "mergedAt": "2026-05-11T01:19:21Z"}, "number: must be greater than 0"),
        ({"number": 7, "title": None, "mergedAt": "2026-05-11T01:19:21Z"}, "title: not a string"),
        ({"number": 7, "title": "x", "mergedAt": "soon"}, "mergedAt: not a date"),
        ({"number": 7, "title": "x", "mergedAt": 1747000000}, "mergedAt: not a date"),
        ({"number": 7, "title": "x", "mergedAt": "2026-05-11T01:19:21"}, "mergedAt: date has no time zone (expected e.g. 2026-05-11T01:19:21Z)"),
        ({**GOOD, "files": [{"path": "a", "additions": -1}]}, "files.0.additions: must not be negative"),
        ({**GOOD, "files": "a.py"}, "files: not a list"),
        ("not an object", "(record): not an object"),
        ({**GOOD, "mergedAt": "9999-12-31T23:59:59Z"}, "mergedAt: date out of range (1970-2100)"),
        ({**GOOD, "number": 10**30}, "number: too large"),
    ],
)
def test_invalid_record_message(record, message):
    data = [GOOD, GOOD, record]
    with pytest.raises(InputError) as info:
        parse_records(data, "week.json")
    assert info.value.user_message == f"invalid record 2 in week.json: {message} (fix the record or pass --skip-invalid)"


def test_skip_invalid_counts_records():
    parsed = parse_records([GOOD, {"number": 8}, {**GOOD, "number": 9}, 5], "w.json", skip_invalid=True)
    assert [p.number for p in parsed.prs] == [7, 9] and parsed.skipped == 2


def test_optional_fields_and_unknown_fields():
    rec = {**GOOD, "extra": {"x": 1}, "labels": [{"name": "bug", "color": "red"}, "perf"], "body": None,
           "files": [{"path": "a.py", "additions": 3, "deletions": 1, "status": "modified"}], "author": None}
    pr = parse_records([rec], "w.json").prs[0]
    assert pr.labels == ("bug", "perf") and pr.body == "" and pr.author is None
    assert pr.additions == 3 and pr.deletions == 1 and pr.changed_files == 1
    assert pr.merged_at.isoformat() == "2026-05-11T01:19:21+00:00"


def test_offsets_are_normalised_to_utc():
    pr = parse_records([{**GOOD, "mergedAt": "2026-05-11T09:19:21+08:00"}], "w").prs[0]
    assert pr.merged_at.isoformat() == "2026-05-11T01:19:21+00:00"


def test_not_an_array(tmp_path):
    f = tmp_path / "w.json"
    f.write_text('{"number": 1}')
    with pytest.raises(InputError, match="expected a JSON array"):
        load_exports([str(f)])


def test_bad_json_names_line_and_column(tmp_path):
    f = tmp_path / "w.json"
    f.write_text('[\n  {"number": 1,,}\n]')
    with pytest.raises(InputError, match=r"w.json: not valid JSON \(line 2, column 16\)"):
        load_exports([str(f)])


def test_gzip_and_stdin(tmp_path):
    f = tmp_path / "w.json.gz"
    f.write_bytes(gzip.compress(json.dumps([GOOD]).encode()))
    assert load_exports([str(f)]).prs[0].number == 7
    stdin = io.BytesIO(json.dumps([{**GOOD, "number": 8}]).encode())
    assert load_exports(["-"], stdin=stdin).prs[0].number == 8


def test_broken_gzip(tmp_path):
    f = tmp_path / "w.json.gz"
    f.write_bytes(b"\x1f\x8bnot really")
    with pytest.raises(InputError, match="not a valid gzip file"):
        load_exports([str(f)])


def test_threads_export_reads_descriptions_comments_reviews_and_threads():
    from tests.conftest import thread_prs

    prs = {p.number: p for p in thread_prs()}
    assert len(prs) == 217
    assert sum(1 for p in prs.values() if p.body.strip()) == 165
    # 156 review items: conversation comments + review bodies + review threads.
    assert sum(len(p.comments) + len(p.reviews) + len(p.review_threads) for p in prs.values()) == 156
    t = prs[42052].review_threads[0]
    assert (t.path, t.line, t.author, t.author_is_bot) == (
        "vllm/entrypoints/openai/chat_completion/serv", None, "gemini-code-assist[bot]", True)
    assert t.is_resolved is None and t.is_outdated is None and t.is_open  # state unknown in excerpts
    assert t.created_at.isoformat() == "2026-05-08T00:00:00+00:00"
    assert all(r.state is None for p in prs.values() for r in p.reviews)


def test_thread_fields_are_validated_with_their_names():
    bad = {**GOOD, "reviewThreads": [{"path": "a.py", "line": "ten", "comments": []}]}
    with pytest.raises(InputError, match=r"reviewThreads\.0\.line: not an integer"):
        parse_records([bad], "w.json")
    assert parse_records([{**GOOD, "comments": 4}], "w.json").prs[0].comments == ()  # gh's count form


def test_a_thread_record_round_trips_through_the_model():
    rec = {**GOOD, "comments": [{"author": {"login": "a", "is_bot": False}, "body": "hi", "createdAt": "2026-05-01"}],
           "reviews": [{"author": {"login": "r"}, "body": "LGTM", "submittedAt": "2026-05-02", "state": "APPROVED"}],
           "reviewThreads": [{"path": "x.py", "line": 3, "comments": [
               {"author": {"login": "gemini-code-assist[bot]", "is_bot": True}, "body": "![high](u) bad"},
               {"author": {"login": "b"}, "body": "fixed"}]}]}
    pr = parse_records([rec], "w.json").prs[0]
    assert pr.comment_count == 1 and pr.comments[0].author == "a"
    assert (pr.reviews[0].reviewer, pr.reviews[0].state) == ("r", "APPROVED")
    th = pr.review_threads[0]
    assert (th.line, th.first_comment, [c.author for c in th.comments]) == (3, "![high](u) bad", ["gemini-code-assist[bot]", "b"])
