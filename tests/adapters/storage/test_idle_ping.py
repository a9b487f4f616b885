"""PostgreSQL connections are pinged at checkout only after sitting idle for more than
``PING_AFTER_IDLE_S`` (issue 20: ``pool_pre_ping`` spent a round trip before every statement of a chat
question), and a connection the server dropped while idle is replaced, as pre-ping did.

Wrong changes these fail on: ``<=`` -> ``<`` in the idle test (pings at exactly 1.0 s), pinging at every
checkout (back-to-back reads ping), a failed ping not raising ``DisconnectionError`` (the read after
a terminated backend fails instead of reconnecting)."""

from __future__ import annotations

import os
import types

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool

import adapters.storage.engine as engine_mod
from tests.adapters.storage.conftest import PG_ENV, pg_schema


@pytest.fixture
def pg_store(monkeypatch):
    from adapters.storage import SqlStore
    from prhub.clock import SYSTEM_CLOCK

    base = os.environ.get(PG_ENV)
    if not base:
        pytest.skip(f"PostgreSQL: set {PG_ENV}=postgresql+psycopg://USER@HOST:PORT/DB to run")
    now = [1000.0]
    monkeypatch.setattr(engine_mod, "time", types.SimpleNamespace(monotonic=lambda: now[0]))
    with pg_schema(base) as url:
        s = SqlStore.open(url, clock=SYSTEM_CLOCK, pool_size=1)
        pings: list[int] = []
        real = s.engine.dialect.do_ping
        monkeypatch.setattr(s.engine.dialect, "do_ping", lambda c: pings.append(1) or real(c))
        yield s, now, pings
        s.close()


@pytest.mark.parametrize(("idle", "pinged"), [(0.0, 0), (1.0, 0), (1.001, 1), (60.0, 1)],
                         ids=["back-to-back", "idle-exactly-1s", "idle-past-1s", "idle-a-minute"])
def test_a_connection_is_pinged_only_after_idling_past_one_second(pg_store, idle, pinged):
    store, now, pings = pg_store
    assert store.count_prs("vllm-project/vllm") == 0  # the pool's one connection, checked in at 1000.0
    pings.clear()
    now[0] += idle
    assert store.count_prs("vllm-project/vllm") == 0
    assert len(pings) == pinged


def test_a_connection_dropped_while_idle_is_replaced(pg_store):
    store, now, pings = pg_store
    with store.engine.connect() as conn:
        pid = conn.execute(text("SELECT pg_backend_pid()")).scalar()
    admin = create_engine(os.environ[PG_ENV], poolclass=NullPool)
    with admin.connect() as conn:
        conn.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
    admin.dispose()
    now[0] += 5.0
    assert store.count_prs("vllm-project/vllm") == 0  # reconnected, not a StoreError
    assert len(pings) == 1
    with store.engine.connect() as conn:
        assert conn.execute(text("SELECT pg_backend_pid()")).scalar() != pid
