"""The one set of fixtures for the chat app tests (Slack, Feishu, both): the real week 2026-W20 as
the digest source, a clock the test moves, the fake platforms, and ``chat_bot(...)``, which builds
the bot with :func:`tests.fakes.inbound.build_bot` and closes it after the test.

Loaded for every test through ``pytest_plugins`` in ``tests/conftest.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from chatbot.queries import DigestCache
from tests.fakes.inbound import Bot, MovableClock, build_bot


@pytest.fixture(scope="module")
def provider(vllm_rules: Any) -> DigestCache:
    """Digests of the real vLLM week 2026-W20 (skips without ../shared)."""
    from tests.conftest import week_prs

    return DigestCache(week_prs("2026-W20"), repo="vllm-project/vllm", rules=vllm_rules)


@pytest.fixture
def clock() -> MovableClock:
    """A clock at the newest merge of 2026-W20 (so "this week" is 2026-W20)."""
    from tests.conftest import week_prs

    return MovableClock(max(p.merged_at for p in week_prs("2026-W20")))


@pytest.fixture
def slack() -> Iterator[Any]:
    """The fake Slack Web API on 127.0.0.1."""
    from tests.fakes.slack_server import FakeSlack

    with FakeSlack() as fake:
        yield fake


@pytest.fixture
def feishu(clock: MovableClock) -> Iterator[Any]:
    """The fake Feishu Open API on 127.0.0.1, on the test's clock."""
    from tests.fakes.feishu_server import FakeFeishu

    with FakeFeishu(app_id="cli_app_test", clock=lambda: clock.now().timestamp()) as fake:
        yield fake


@pytest.fixture
def chat_bot(tmp_path: Any, clock: MovableClock, provider: DigestCache) -> Iterator[Callable[..., Bot]]:
    """``chat_bot(slack=fake, feishu=fake, db=URL, **settings)``: the bot (``prhub.web.create_app``)
    served on 127.0.0.1 against the given fakes; every bot built is closed after the test."""
    bots: list[Bot] = []

    def make(*, db: str | None = None, **kwargs: Any) -> Bot:
        kwargs.setdefault("digest_provider", provider)
        b = build_bot(db or f"sqlite:///{tmp_path / 'bot.db'}", clock=clock, **kwargs)
        bots.append(b)
        return b

    yield make
    for b in bots:
        b.close()
