"""Streaming import (issue 13): records read one at a time, written in batches through one cached
statement, unchanged records skipped by their raw SHA-256 before validation, one transaction."""

from __future__ import annotations

import gzip
import json

import pytest

from adapters.export import ghjson
from adapters.export.ghjson import iter_export, record_sha256
from chatbot.errors import InputError
from prhub import bootstrap
from tests.adapters.storage.test_sql_store import REPO

URL = f"https://github.com/{REPO}/pull/"


def rec(n: int, title: str = "t", merged: str = "2026-05-11T10:00:00Z") -> dict:
    return {"number": n, "title": title, "mergedAt": merged, "url": f"{URL}{n}", "body": "b" * 100,
            "author": {"login": f"u{n % 3}"}, "files": [{"path": "vllm/a.py", "additions": n, "deletions": 0}]}


@pytest.fixture
def validations(monkeypatch):
    """Counts real validations (the function still runs)."""
    calls: list[int] = []
    real = ghjson.validate_record

    def spy(item, index, source):
        calls.append(index)
        return real(item, index, source)

    monkeypatch.setattr(ghjson, "validate_record", spy)
    return calls


def write(path, records, *, gz=False):
    data = json.dumps(records).encode()
    path.write_bytes(gzip.compress(data) if gz else data)
    return str(path)


def test_reimport_skips_unchanged_records_before_validating(store, tmp_path, validations, monkeypatch):
    monkeypatch.setattr(bootstrap, "IMPORT_CHUNK", 7)  # several batches
    records = [rec(n) for n in range(1, 31)]
    f = write(tmp_path / "a.json.gz", records, gz=True)
    counts, _ = bootstrap.import_exports([f], repo=None, skip_invalid=False, store=store)
    assert [(c.prs, c.inserted, c.updated, c.unchanged) for c in counts] == [(30, 30, 0, 0)]
    assert len(validations) == 30
    validations.clear()
    counts, _ = bootstrap.import_exports([f], repo=None, skip_invalid=False, store=store)
    assert [(c.prs, c.inserted, c.updated, c.unchanged) for c in counts] == [(30, 0, 0, 30)] and validations == []
    records[4]["title"] = "changed"
    counts, _ = bootstrap.import_exports([write(tmp_path / "b.json", records)], repo=None, skip_invalid=False, store=store)
    assert [(c.inserted, c.updated, c.unchanged) for c in counts] == [(0, 1, 29)] and validations == [4]
    assert {p.number: p.title for p in store.merged_between(REPO, *_week())}[5] == "changed"


def _week():
    from datetime import datetime, timezone

    return datetime(2026, 5, 11, tzinfo=timezone.utc), datetime(2026, 5, 18, tzinfo=timezone.utc)


def test_the_later_record_of_a_number_wins_across_batches_and_files(store, tmp_path, monkeypatch):
    monkeypatch.setattr(bootstrap, "IMPORT_CHUNK", 2)
    a = write(tmp_path / "a.json", [rec(1, "first"), rec(2), rec(3), rec(1, "second")])
    b = write(tmp_path / "b.json", [rec(2, "from b")])
    counts, _ = bootstrap.import_exports([a, b], repo=None, skip_invalid=False, store=store)
    assert [(c.prs, c.inserted, c.updated) for c in counts] == [(3, 3, 0)]
    titles = {p.number: p.title for p in store.merged_between(REPO, *_week())}
    assert titles == {1: "second", 2: "from b", 3: "t"}


def test_an_invalid_record_late_in_the_file_writes_nothing(store, tmp_path, monkeypatch):
    monkeypatch.setattr(bootstrap, "IMPORT_CHUNK", 3)
    records = [rec(n) for n in range(1, 11)] + [rec(11, merged="not a date")]
    with pytest.raises(InputError, match=r"invalid record 10 in .*: mergedAt: not a date \(fix the record or pass --skip-invalid\)"):
        bootstrap.import_exports([write(tmp_path / "a.json", records)], repo=None, skip_invalid=False, store=store)
    assert store.count_prs() == 0
    counts, skipped = bootstrap.import_exports([write(tmp_path / "a.json", records)], repo=None, skip_invalid=True,
                                               store=store)
    assert skipped == 1 and counts[0].inserted == 10


def test_iter_export_streams_and_reports_bad_json_with_its_position(tmp_path):
    f = write(tmp_path / "a.json", [rec(1), {"number": 2, "x": 1.5}])
    assert list(iter_export(f)) == json.loads((tmp_path / "a.json").read_text())
    bad = tmp_path / "bad.json"
    bad.write_text('[{"number": 1},\n {"number": 2,,}]')
    with pytest.raises(InputError, match=r"not valid JSON \(line 2, column"):
        list(iter_export(str(bad)))
    obj = tmp_path / "obj.json"
    obj.write_text('{"number": 1}')
    with pytest.raises(InputError, match="expected a JSON array"):
        list(iter_export(str(obj)))
    (tmp_path / "z.json.gz").write_bytes(b"not gzip")
    with pytest.raises(InputError, match="not a valid gzip file"):
        list(iter_export(str(tmp_path / "z.json.gz")))


def test_record_hash_sees_every_value_and_type():
    a = rec(1)
    assert record_sha256(a) == record_sha256(json.loads(json.dumps(a))) == record_sha256(rec(1))
    assert record_sha256(a) != record_sha256(rec(1, "other"))
    assert record_sha256({"n": 1}) != record_sha256({"n": True})
    assert record_sha256({"n": 1}) != record_sha256({"n": 1.0})


def test_a_big_import_refreshes_postgresqls_statistics_at_each_doubling(store, tmp_path, monkeypatch):
    """On PostgreSQL the import ANALYZEs the PR tables after ANALYZE_AFTER looked-up records and at
    each doubling (here 10, 20, 40 of 50 records), so the planner keeps the primary key for the
    ``number IN (…)`` lookups (without statistics it scanned the whole repository: 8.4 s a lookup at
    412,550 PRs). SQLite runs no ANALYZE."""
    from adapters.storage import prs

    monkeypatch.setattr(prs, "ANALYZE_AFTER", 10)
    monkeypatch.setattr(bootstrap, "IMPORT_CHUNK", 5)
    analysed: list[int] = []
    real = prs.PrWriter._analyze

    def spy(self):
        analysed.append(self._looked_up)
        real(self)

    monkeypatch.setattr(prs.PrWriter, "_analyze", spy)
    counts, _ = bootstrap.import_exports([write(tmp_path / "a.json", [rec(n) for n in range(1, 51)])], repo=None,
                                         skip_invalid=False, store=store)
    assert [(c.prs, c.inserted) for c in counts] == [(50, 50)]
    if store.engine.dialect.name != "postgresql":
        assert analysed == []
        return
    assert analysed == [10, 20, 40]
    with store.engine.connect() as conn:
        tuples = conn.exec_driver_sql("SELECT reltuples FROM pg_class WHERE oid = 'pull_requests'::regclass").scalar()
    assert tuples is not None and tuples > 0  # statistics exist (-1 before the first ANALYZE on PostgreSQL 14+)
