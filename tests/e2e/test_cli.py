"""The prhub command as a user runs it (a subprocess, real files)."""

import json
import re
import os
import subprocess
import sys

import jsonschema
import pytest

from tests.conftest import ROOT, shared_file

ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
ENV.pop("PRHUB_DEBUG", None)


def prhub(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "prhub", *args], capture_output=True, text=True, env=ENV,
                          input=stdin, cwd=ROOT, timeout=120)


def test_sample_runs_without_shared():
    r = prhub("digest", "--sample")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("# vllm-project/vllm weekly PR digest 2026-W20 (05-11 – 05-17)")
    assert "Merged PRs: 217" in r.stdout


@pytest.mark.parametrize("lang,heading", [("en", "## Risk observations"), ("zh", "## 风险观察")])
def test_w19_in_both_languages(lang, heading):
    r = prhub("digest", "--input", str(shared_file("vllm", "2026-W19.json")), "--lang", lang)
    assert r.returncode == 0, r.stderr
    assert heading in r.stdout and "2026-W19" in r.stdout and "199" in r.stdout


def test_json_validates_against_committed_schema(tmp_path):
    out = tmp_path / "d.json"
    r = prhub("digest", "--sample", "--format", "json", "--out", str(out))
    assert r.returncode == 0 and r.stdout == ""
    data = json.loads(out.read_text())
    schema = json.loads((ROOT / "docs" / "digest.schema.json").read_text())
    jsonschema.validate(data, schema)
    assert data["week"] == "2026-W20" and data["total_prs"] == 217
    assert data["start"] == "2026-05-11T00:00:00Z" and data["end"] == "2026-05-18T00:00:00Z"
    assert [p["number"] for p in data["prs"]] == sorted(p["number"] for p in data["prs"])


def test_committed_schema_is_current():
    from prhub.cli import digest_schema

    committed = json.loads((ROOT / "docs" / "digest.schema.json").read_text())
    assert committed == digest_schema(), "regenerate: prhub schema digest > docs/digest.schema.json"


def test_byte_identical_runs():
    a = prhub("digest", "--sample", "--lang", "zh", "--format", "json")
    b = prhub("digest", "--sample", "--lang", "zh", "--format", "json")
    assert a.returncode == 0 and a.stdout == b.stdout


def test_bad_record_is_one_line_exit_2_nothing_written(tmp_path):
    bad = tmp_path / "week.json"
    bad.write_text(json.dumps([{"number": 1, "title": "ok", "mergedAt": "2026-05-11T00:00:00Z"}] * 17
                              + [{"number": 18, "title": "x", "mergedAt": "not a date"}]))
    out = tmp_path / "out.md"
    out.write_text("previous content")
    r = prhub("digest", "--input", str(bad), "--repo", "a/b", "--out", str(out))
    assert r.returncode == 2
    assert r.stderr == f"prhub: error: invalid record 17 in {bad}: mergedAt: not a date (fix the record or pass --skip-invalid)\n"
    assert "Traceback" not in r.stderr and r.stdout == ""
    assert out.read_text() == "previous content"
    r = prhub("digest", "--input", str(bad), "--repo", "a/b", "--skip-invalid", "--format", "json")
    assert r.returncode == 0 and json.loads(r.stdout)["skipped_records"] == 1


@pytest.mark.parametrize(
    "args,message",
    [
        (["digest"], "no input: pass --input FILE"),
        (["digest", "--sample", "--week", "2026-W60"], "2026 has no week 60"),
        (["digest", "--sample", "--tz", "Nowhere/City"], "unknown time zone 'Nowhere/City'"),
        (["digest", "--sample", "--repo", "not a repo"], "invalid repository 'not a repo'"),
        (["digest", "--sample", "--rules", "/nonexistent/rules.yaml"], "rules file /nonexistent/rules.yaml: cannot read it"),
        (["digest", "--sample", "--out", "/nonexistent/dir/x.md"], "directory /nonexistent/dir does not exist"),
        (["digest", "--input", "/nonexistent.json"], "/nonexistent.json: no such file"),
        (["digest", "--sample", "--generated-at", "yesterday"], "--generated-at 'yesterday'"),
        (["digest", "--sample", "--repo", "other/name"], "none of the input's PRs belong to other/name (they are from vllm-project/vllm)"),
    ],
)
def test_bad_arguments(args, message):
    r = prhub(*args)
    assert r.returncode == 2
    assert message in r.stderr and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr


def test_bad_rules_file(tmp_path):
    rules = tmp_path / "r.yaml"
    rules.write_text("modules:\n  - id: core\n    paths: []\n")
    r = prhub("digest", "--sample", "--rules", str(rules))
    assert r.returncode == 2
    assert r.stderr.startswith(f"prhub: error: rules file {rules}: modules.0.paths:")


def test_stdin_and_week_and_generated_at():
    data = (ROOT / "prhub" / "data" / "2026-W20.json").read_text()
    r = prhub("digest", "--input", "-", "--week", "2026-W21", "--generated-at", "2026-05-25T01:01:00+08:00", stdin=data)
    assert r.returncode == 0, r.stderr
    assert "No merged PRs found for 2026-W21." in r.stdout
    assert "Generated 2026-05-25 01:01 UTC+08:00" in r.stdout
    # the empty week says, on stderr, which weeks the input holds and the --week to pass
    assert r.stderr == ("note: the input holds no PRs merged in 2026-W21 (UTC); it holds 2026-W20 (217 PRs): "
                        "pass --week 2026-W20\n")


def test_an_empty_week_names_the_weeks_the_input_holds_in_the_digests_zone():
    """Weeks count in the digest's zone: in Asia/Shanghai two of W20's PRs (UTC) fall in W21; of
    six weeks, the newest three are named and the others counted."""
    data = (ROOT / "prhub" / "data" / "2026-W20.json").read_text()
    r = prhub("digest", "--input", "-", "--week", "2026-W30", "--tz", "Asia/Shanghai", stdin=data)
    assert r.returncode == 0 and "No merged PRs found for 2026-W30." in r.stdout
    assert r.stderr == ("note: the input holds no PRs merged in 2026-W30 (Asia/Shanghai); it holds 2026-W20 (215 PRs), "
                        "2026-W21 (2 PRs): pass --week 2026-W21\n")
    # two overlapping exports of one week: each PR counted once, as the digest counts it (not 434)
    sample = str(ROOT / "prhub" / "data" / "2026-W20.json")
    r = prhub("digest", "-i", sample, "-i", sample, "--week", "2026-W21")
    assert r.returncode == 0 and "it holds 2026-W20 (217 PRs): pass --week 2026-W20" in r.stderr, r.stderr
    weeks = [str(shared_file("vllm", f"2026-W{w}.json")) for w in range(15, 21)]
    r = prhub("digest", *(a for w in weeks for a in ("-i", w)), "--week", "2026-W10")
    assert r.returncode == 0, r.stderr
    assert r.stderr.startswith("note: the input holds no PRs merged in 2026-W10 (UTC); it holds 2026-W18 (")
    assert r.stderr.endswith(" PRs) and 3 earlier weeks: pass --week 2026-W20\n")


def test_rules_schema_and_check():
    r = prhub("rules", "schema")
    assert r.returncode == 0 and json.loads(r.stdout)["additionalProperties"] is False
    r = prhub("rules", "check", str(ROOT / "chatbot" / "rulesets" / "vllm.yaml"))
    assert r.returncode == 0 and "23 modules" in r.stdout


def test_mixed_repositories_keep_the_digests_own(tmp_path):
    mixed = tmp_path / "mixed.json"
    mixed.write_text(json.dumps([
        {"number": n, "title": f"t{n}", "mergedAt": "2026-05-11T00:00:00Z", "url": f"https://github.com/{r}/pull/{n}"}
        for n, r in ((1, "x/y"), (2, "x/y"), (3, "z/w"))]))
    r = prhub("digest", "--input", str(mixed), "--format", "json")
    assert r.returncode == 0 and json.loads(r.stdout)["repo"] == "x/y" and json.loads(r.stdout)["total_prs"] == 2
    r = prhub("digest", "--input", str(mixed), "--repo", "z/w", "--format", "json")
    assert r.returncode == 0 and [p["number"] for p in json.loads(r.stdout)["prs"]] == [3]


def test_a_config_or_rules_file_that_is_not_utf8_is_one_line_and_exit_2(tmp_path):
    """Issue 9, failure 9: Latin-1 bytes in a config or rules file: one line naming the file, exit 2."""
    bad = tmp_path / "bad.yaml"
    bad.write_bytes("repositories: []  # caf\xe9\n".encode("latin-1"))
    for args in (("config", "check", "--config", str(bad)), ("rules", "check", str(bad))):
        r = prhub(*args)
        assert r.returncode == 2, (args, r.stderr)
        assert r.stderr.count("\n") == 1 and "not UTF-8" in r.stderr and str(bad) in r.stderr
        assert "Traceback" not in r.stderr and "internal error" not in r.stderr


@pytest.mark.parametrize("args, line", [
    (["digest", "--sample", "--lang", "fr"],
     "prhub: error: Invalid value for '--lang': 'fr' is not one of 'en', 'zh' (see prhub digest --help)"),
    (["digest", "--sample", "--format", "docx"],
     "prhub: error: Invalid value for '--format' / '-f': 'docx' is not one of 'markdown', 'json', 'slack', 'feishu', "
     "'html', 'pdf' (see prhub digest --help)"),
    (["rules", "check"], "prhub: error: Missing argument 'path' (see prhub rules check --help)"),
])
def test_usage_errors_are_one_line_and_exit_2(args, line):
    """The README's promise for Typer/Click usage errors: one line on stderr (no box, no usage text), exit 2."""
    r = prhub(*args)
    assert (r.returncode, r.stdout, r.stderr) == (2, "", line + "\n")


def test_no_arguments_prints_the_help_and_exits_2():
    r = prhub()
    assert r.returncode == 2 and "Usage" in r.stdout and "digest" in r.stdout and r.stderr == ""


def test_an_input_of_only_invalid_records_says_how_many_were_skipped():
    bad = '[{"number": 1, "title": "t", "mergedAt": "not a date", "url": "https://github.com/a/b/pull/1"}]'
    for week in ([], ["--week", "2026-W20"]):  # nothing usable: no digest of no PRs either
        r = prhub("digest", "-i", "-", "--skip-invalid", "--repo", "a/b", *week, stdin=bad)
        assert (r.returncode, r.stdout) == (2, "")
        assert r.stderr == ("prhub: error: no valid PR record in the input: skipped 1 of 1 record as invalid (the first: "
                            "invalid record 0 in <stdin>: mergedAt: not a date); fix them in the export (number, title "
                            "and mergedAt are required) to include them\n")


def test_review_first_and_count_answers_write_lines_as_the_digest_does():
    """"+1920/-1033" in the review-first answer beside "+1,862/-1,031" in the digest: one format
    (chatbot.i18n.lines_text, thousands separators) in every answer."""
    r = prhub("ask", "--sample", "what should I review first this week?")
    assert r.returncode == 0, r.stderr
    assert "8.8 · follow-up fix, dependency change, large change, no review on record · +1,920/-1,033" in r.stdout
    assert not re.search(r"\+\d{4,}/-", r.stdout)
    r = prhub("ask", "--sample", "how many rocm PRs this week")
    assert r.returncode == 0 and not re.search(r"\+\d{4,}/-|/-\d{4,}", r.stdout), r.stdout


def test_one_stored_week_and_wk_for_week():
    """"merged from 2026-W20 to 2026-W20" of a store of one week; "this wk" searched as a word
    (the parser and the entities each had their own copy of the week patterns)."""
    r = prhub("ask", "--sample", "#99999")
    assert r.returncode == 0 and "PR #99999 is not among the stored PRs, all merged in 2026-W20." in r.stdout, r.stdout
    r = prhub("ask", "--sample", "anything broken this wk?")
    assert r.returncode == 0 and r.stdout.startswith("Search “broken” · 2026-W20"), r.stdout


def test_the_readme_synopsis_lists_every_output_format():
    """The README's "Using it" synopsis said ``--format markdown|json`` while the CLI writes six."""
    from prhub.formats import FORMATS

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    synopsis = re.search(r"\[--format ([a-z|]+)\]", readme)
    assert synopsis is not None and set(synopsis.group(1).split("|")) == set(FORMATS)


def test_top_n_says_what_the_rest_are():
    """"top 3" listed three and then "and 21 more", as if 21 more had been asked for."""
    r = prhub("ask", "--sample", "top 3")
    assert r.returncode == 0 and r.stdout.rstrip().endswith("and 21 more key PRs"), r.stdout
    assert r.stdout.count("\n  - #") == 3


@pytest.mark.parametrize("weeks,held", [((19, 20), 1), ((17, 18, 19, 20), 3), ((16, 17, 18, 19, 20), 4), ((15, 20), 0)])
def test_new_contributors_warn_unless_the_four_weeks_before_are_stored(weeks, held):
    """W19 alone before W20 made 87 of 137 authors "new" (Cyrus Leung among them) with no word of
    caution, and W15 + W20 (a gap: "reaches back 5 weeks") 93. The answer warns unless each of the
    SHORT_HISTORY_WEEKS (4) weeks before is stored: 1, 3 and 0 of 4 warn, exactly 4 does not."""
    inputs = [a for w in weeks for a in ("-i", str(shared_file("vllm", f"2026-W{w}.json")))]
    r = prhub("ask", *inputs, "new contributors")
    assert r.returncode == 0, r.stderr
    warning = f"Stored: {held} of the 4 weeks before 2026-W20; authors who merged only in the others"
    assert (warning in r.stdout) is (held < 4) and ("Stored: " in r.stdout) is (held < 4), r.stdout[:600]


def test_pr_zero_is_no_such_pr_not_a_search():
    """"#0" was searched as the word "0" (29 PRs matched)."""
    r = prhub("ask", "--sample", "#0")
    assert r.returncode == 0 and r.stdout.startswith("No such PR") and "GitHub numbers start at 1." in r.stdout, r.stdout


def test_a_10_kb_question_is_not_echoed_back_whole():
    """"risks <10 KB>" answered 23 KB: the question twice, in "I read this as …" and "Ignored “…”"."""
    r = prhub("ask", "--sample", "risks " + "a" * 10_000)
    assert r.returncode == 0 and len(r.stdout) < 5_000 and r.stdout.count("a" * 200) == 0, len(r.stdout)
    assert "Ignored “" + "a" * 100 in r.stdout


@pytest.mark.parametrize("question,header", [
    ("前端的重点PR", "前端/API 中的重点 PR · vllm-project/vllm 2026-W20"),  # "已忽略“前端”"
    ("Rust 前端 的重点PR", "Rust 前端中的重点 PR · vllm-project/vllm 2026-W20"),
])
def test_the_zh_word_for_frontend_names_the_frontend_module(question, header):
    r = prhub("ask", "--sample", "--lang", "zh", question)
    assert r.returncode == 0 and r.stdout.startswith(header), r.stdout[:300]
    assert "已忽略" not in r.stdout
