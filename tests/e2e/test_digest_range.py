"""``prhub digest --from --to --out DIR`` (issue 13): many weeks in one process, one file per week, format
and language; each file equals the single-week digest (its golden); bad ranges and outs are one line, exit 2."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from prhub.cli import app
from tests.goldens import PUBLIC_URL, SHARED_VLLM, VLLM_WEEKS, Golden, read, shared_available

ENV = {"PRHUB_PUBLIC_URL": PUBLIC_URL, "PRHUB_DATABASE_URL": "sqlite://"}


def run(*args):
    return CliRunner().invoke(app, list(args), env=ENV)


@pytest.fixture
def inputs():
    if not shared_available():
        pytest.skip("needs ../shared/data/vllm")
    return [a for w in VLLM_WEEKS for a in ("--input", str(SHARED_VLLM / f"{w}.json"))]


def test_two_weeks_two_languages_two_formats_equal_the_single_week_goldens(inputs, tmp_path):
    out = tmp_path / "digests"  # created by the command
    r = run("digest", *inputs, "--from", "2026-W19", "--to", "2026-W20", "--out", str(out),
            "-f", "markdown", "-f", "slack", "--lang", "en", "--lang", "zh")
    assert r.exit_code == 0, r.output
    assert "vllm-project/vllm 2026-W19..2026-W20: 2 weeks, 416 PRs, 8 files" in r.stdout
    assert sorted(p.name for p in out.iterdir()) == [
        "2026-W19.en.md", "2026-W19.en.slack.json", "2026-W19.zh.md", "2026-W19.zh.slack.json",
        "2026-W20.en.md", "2026-W20.en.slack.json", "2026-W20.zh.md", "2026-W20.zh.slack.json"]
    for week in ("2026-W19", "2026-W20"):
        for lang in ("en", "zh"):
            for fmt, suffix in (("markdown", "md"), ("slack", "slack.json")):
                text = (out / f"{week}.{lang}.{suffix}").read_text(encoding="utf-8")
                assert text == read(Golden(f"vllm-{week}", lang, fmt)), (week, lang, fmt)


def test_json_of_a_range_pins_the_week_counts(inputs, tmp_path):
    r = run("digest", *inputs, "--from", "2026-W15", "--to", "2026-W17", "--out", str(tmp_path), "-f", "json")
    assert r.exit_code == 0, r.output
    totals = {p.name: json.loads(p.read_text())["total_prs"] for p in sorted(tmp_path.glob("*.json"))}
    assert totals == {"2026-W15.en.json": 180, "2026-W16.en.json": 186, "2026-W17.en.json": 200}
    assert "prhub: digest vllm-project/vllm 2026-W15..2026-W17: 2026-W17 (3/3), 200 PRs, 1 files" in r.stderr


@pytest.mark.parametrize("args,line", [
    (["--from", "2026-W20", "--to", "2026-W19", "--out", "{tmp}/d"], "prhub: error: --to 2026-W19 is before --from 2026-W20\n"),
    (["--from", "2026-W19", "--to", "2026-W20", "--out", "{tmp}/file"],
     "prhub: error: --out {tmp}/file: exists and is not a directory: with --from/--to, --out names a directory "
     "(one file per week)\n"),
    (["--from", "2026-W19", "--out", "{tmp}/w19.pdf", "-f", "pdf"],
     "prhub: error: --out {tmp}/w19.pdf: ends in .pdf, a file name: with --from/--to, --out is a directory, "
     "e.g. --out {tmp}/w19/\n"),
    (["--from", "2026-W19"], "prhub: error: --from/--to writes one file per week: pass --out DIR (a directory)\n"),
    (["--to", "2026-W19", "--out", "{tmp}/d"],
     "prhub: error: --to needs --from (a range of weeks: --from 2025-W01 --to 2025-W52 --out DIR)\n"),
    (["--week", "2026-W19", "--from", "2026-W19", "--out", "{tmp}/d"], "prhub: error: pass either --week or --from/--to, not both\n"),
    (["-f", "json", "-f", "markdown"],
     "prhub: error: several --lang or --format values write several files: use --from/--to with --out DIR\n"),
])
def test_bad_ranges_and_outs_are_one_line_exit_2_and_write_nothing(tmp_path, args, line, monkeypatch, capsys):
    from prhub.cli import main

    (tmp_path / "file").write_text("keep")
    monkeypatch.setenv("PRHUB_DATABASE_URL", "sqlite://")
    monkeypatch.setattr("sys.argv", ["prhub", "digest", "--sample", *(a.format(tmp=tmp_path) for a in args)])
    with pytest.raises(SystemExit) as exc:
        main()  # the console entry point: its error handling is what is pinned
    captured = capsys.readouterr()
    assert (exc.value.code, captured.err, captured.out) == (2, line.format(tmp=tmp_path), "")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"] and (tmp_path / "file").read_text() == "keep"
