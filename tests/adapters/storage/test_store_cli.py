"""``prhub import`` and ``prhub digest`` from the store, as a user runs them (subprocess, real files)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT, shared_file

REPO = "vllm-project/vllm"
WEEKS = [f"2026-W{n}" for n in range(15, 21)]


def prhub(*args, env_extra=None, tmp_path=None):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for key in ("PRHUB_DEBUG", "PRHUB_DATABASE_URL"):
        env.pop(key, None)
    if tmp_path is not None:
        env["XDG_DATA_HOME"] = str(tmp_path / "xdg")  # never the user's ~/.local/share
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-m", "prhub", *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=300)


def week_files() -> list[str]:
    return [str(shared_file("vllm", f"{w}.json")) for w in WEEKS]


def test_import_six_weeks_twice_then_digest_equals_the_file_digest(db_url, tmp_path):
    files = week_files()
    r = prhub("import", *files, "--db", db_url, tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == f"{REPO}: 1159 PRs, 1159 inserted, 0 updated, 0 unchanged"
    assert lines[1].startswith("store: ") and len(lines) == 2

    r = prhub("import", *files, "--db", db_url, tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == f"{REPO}: 1159 PRs, 0 inserted, 0 updated, 1159 unchanged"

    for fmt in ("json", "markdown"):
        store = prhub("digest", "--repo", REPO, "--week", "2026-W19", "--db", db_url, "--format", fmt, tmp_path=tmp_path)
        assert store.returncode == 0, store.stderr
        # the store adds the 7 days before the week and the 56 after it (later reverts and fixes:
        # #39917 reverted by W20's #42434); the digest equals the one from the W18-W20 files, byte for byte
        file = prhub("digest", "--input", files[3], "--input", files[4], "--input", files[5], "--week", "2026-W19",
                     "--format", fmt, tmp_path=tmp_path)
        assert file.returncode == 0, file.stderr
        assert store.stdout == file.stdout
        assert store.stderr == ""

    data = json.loads(store_json := prhub("digest", "--repo", REPO, "--week", "2026-W19", "--db", db_url,
                                          "--format", "json", "--source", "store", tmp_path=tmp_path).stdout)
    assert data["week"] == "2026-W19" and data["total_prs"] == 199
    assert data["start"] == "2026-05-04T00:00:00Z" and data["end"] == "2026-05-11T00:00:00Z"
    assert store_json.count("\n") > 100


def test_digest_without_week_is_the_newest_stored_week(db_url, tmp_path):
    files = week_files()
    assert prhub("import", files[4], files[5], "--db", db_url, tmp_path=tmp_path).returncode == 0
    r = prhub("digest", "--repo", REPO, "--db", db_url, "--format", "json", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["week"] == "2026-W20" and data["total_prs"] == 217


def test_week_not_in_the_store_is_a_one_line_error(db_url, tmp_path):
    assert prhub("import", week_files()[5], "--db", db_url, tmp_path=tmp_path).returncode == 0
    r = prhub("digest", "--repo", REPO, "--week", "2026-W10", "--db", db_url, tmp_path=tmp_path)
    assert r.returncode == 2 and r.stdout == ""
    assert "has no PRs of vllm-project/vllm merged in 2026-W10: import that week first" in r.stderr
    assert r.stderr.count("\n") == 1
    r = prhub("digest", "--repo", "other/repo", "--db", db_url, tmp_path=tmp_path)
    assert r.returncode == 2 and "holds no PRs of other/repo: run prhub import FILE... first" in r.stderr


def test_default_store_is_under_xdg_data_home_and_env_url_wins(tmp_path):
    w20 = week_files()[5]
    r = prhub("import", w20, tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    default = tmp_path / "xdg" / "prhub" / "prhub.db"
    assert default.is_file()
    assert r.stdout.splitlines() == [f"{REPO}: 217 PRs, 217 inserted, 0 updated, 0 unchanged", f"store: sqlite:///{default}"]
    r = prhub("digest", "--repo", REPO, "--format", "json", tmp_path=tmp_path)
    assert r.returncode == 0 and json.loads(r.stdout)["total_prs"] == 217

    other = tmp_path / "other.db"
    r = prhub("import", w20, env_extra={"PRHUB_DATABASE_URL": f"sqlite:///{other}"}, tmp_path=tmp_path)
    assert r.returncode == 0 and other.is_file()
    assert r.stdout.splitlines()[0] == f"{REPO}: 217 PRs, 217 inserted, 0 updated, 0 unchanged"
    r = prhub("import", w20, "--db", f"sqlite:///{other}", env_extra={"PRHUB_DATABASE_URL": "postgresql://x:y@127.0.0.1:1/z"},
              tmp_path=tmp_path)
    assert r.returncode == 0 and "0 inserted, 0 updated, 217 unchanged" in r.stdout


def test_import_repo_from_option_and_invalid_records(tmp_path):
    db = f"sqlite:///{tmp_path / 'x.db'}"
    bad = tmp_path / "week.json"
    bad.write_text(json.dumps([{"number": 1, "title": "ok", "mergedAt": "2026-05-11T00:00:00Z"},
                               {"number": 2, "title": "x", "mergedAt": "not a date"}]))
    r = prhub("import", str(bad), "--db", db, tmp_path=tmp_path)
    assert r.returncode == 2
    assert r.stderr == f"prhub: error: invalid record 1 in {bad}: mergedAt: not a date (fix the record or pass --skip-invalid)\n"
    r = prhub("import", str(bad), "--db", db, "--skip-invalid", tmp_path=tmp_path)
    assert r.returncode == 2 and "cannot tell the repository (its PRs have no URLs): pass --repo owner/name" in r.stderr
    r = prhub("import", str(bad), "--db", db, "--skip-invalid", "--repo", "a/b", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["a/b: 1 PRs, 1 inserted, 0 updated, 0 unchanged",
                                     f"store: {db} (1 invalid records skipped)"]


@pytest.mark.parametrize(
    "args,message",
    [
        (["digest", "--sample", "--source", "store"], "--input/--sample read files: drop them or use --source file"),
        (["digest", "--source", "file"], "no input: pass --input FILE"),
        (["digest", "--repo", "a/b", "--db", "postgresql+psycopg://bob:s3cr3t-Pa55@127.0.0.1:1/x"],
         "database postgresql+psycopg://bob:***@127.0.0.1:1/x: opening failed"),
        (["import", "/nonexistent.json", "--db", "sqlite:///:memory:"], "/nonexistent.json: no such file"),
        (["digest", "--repo", "a/b", "--db", "mysql://bob:s3cr3t-Pa55@h/x"], "unsupported database URL 'mysql://bob:***@h/x'"),
    ],
)
def test_bad_arguments(args, message, tmp_path):
    r = prhub(*args, tmp_path=tmp_path)
    assert r.returncode == 2, r.stderr
    assert message in r.stderr and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert "s3cr3t-Pa55" not in r.stderr


def test_database_url_from_environment_is_masked(tmp_path):
    r = prhub("digest", "--repo", "a/b", env_extra={"PRHUB_DATABASE_URL": "postgresql://bob:s3cr3t-Pa55@127.0.0.1:1/x"},
              tmp_path=tmp_path)
    assert r.returncode == 2 and "bob:***@127.0.0.1:1/x" in r.stderr and "s3cr3t-Pa55" not in r.stderr
