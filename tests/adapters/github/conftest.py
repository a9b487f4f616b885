"""Fixtures: a fake GitHub on 127.0.0.1 (one per module) and sources that never really sleep."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from adapters.github.source import GitHubPullRequestSource
from adapters.github.transport import RetryPolicy
from tests.fakes.github_server import FakeGitHub, load_schema

NOW = datetime(2026, 5, 18, 1, 0, tzinfo=timezone.utc)
TOKEN = "ghp_fakeTOKEN0123456789"


class Sleeps(list):
    """An injected sleeper: records the seconds asked for, never sleeps."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


@pytest.fixture(scope="module")
def fake_module():
    if load_schema() is None:
        pytest.skip("needs ../shared/data/github-schema.graphql for the fake /graphql endpoint")
    with FakeGitHub(token=TOKEN) as fake:
        yield fake


@pytest.fixture
def fake(fake_module):
    """The module's fake GitHub with an empty request log, no faults and the real search cap."""
    fake_module.reset_log()
    fake_module.faults.clear()
    fake_module.search_cap = 1000
    yield fake_module
    fake_module.faults.clear()
    fake_module.search_cap = 1000


@pytest.fixture
def sleeps():
    return Sleeps()


@pytest.fixture
def make_source(fake, sleeps):
    """``make_source(**kw)``: a GitHubPullRequestSource on the fake, fixed clock, recording sleeper."""

    def make(**kw):
        policy = kw.pop("policy", None) or RetryPolicy(sleeper=sleeps, clock=_Fixed(), **kw.pop("policy_kw", {}))
        return GitHubPullRequestSource(kw.pop("token", TOKEN), clock=_Fixed(), base_url=kw.pop("base_url", fake.base_url), policy=policy, **kw)

    return make


class _Fixed:
    """The tests' clock: always ``NOW``."""

    def now(self):
        return NOW
