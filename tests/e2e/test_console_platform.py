"""A toy chat platform, "console" (stdin -> stdout), added the way any platform is added: its own
adapter (the classes below, standing for ``adapters/console/``) and one registry line. It answers
"risks this week" through the same chat pipeline as Slack and Feishu, gets the weekly digest
through the same scheduler, and its destinations parse from the configuration's shorthand.
Nothing in ``chatbot/``, ``scheduler/`` or ``prhub/`` changes for it."""

from __future__ import annotations

import io
import itertools
from collections.abc import Iterable
from datetime import datetime, timezone
from typing import TextIO

import pytest

from chatbot.cards import Card
from chatbot.inbound import ChatService, InboundMessage
from chatbot.ports import Destination, SentMessage
from chatbot.queries import DigestCache
from chatbot.render.text import card_to_text
from chatbot.rules import shipped_rules
from prhub import bootstrap, platforms
from prhub.bot import create_bot
from prhub.chat import ask
from prhub.config import parse_config
from prhub.config import load_settings
from prhub.web import create_chat_service
from scheduler.config import LoadedConfig

# --- the console adapter (what adapters/console/ would hold) ------------------------------------


class ConsoleChat:
    """Inbound: each stdin line is a direct message to the bot; the answer card goes to stdout as text."""

    def __init__(self, chat: ChatService, out: TextIO, user: str = "operator") -> None:
        self.chat = chat
        self.out = out
        self.user = user

    def run(self, lines: Iterable[str]) -> None:
        for n, line in enumerate(lines, 1):
            msg = InboundMessage(platform="console", workspace="local", channel="tty", user=self.user, text=line.strip(),
                                 is_direct=True, dedup_key=f"line:{n}", where=f"line {n}")
            card = self.chat.handle(msg)
            if card is not None:
                self.out.write(card_to_text(card))


class ConsoleDelivery:
    """Outbound (a ChatDelivery): a card printed as text; a terminal de-duplicates nothing."""

    platform = "console"
    dedup_window_seconds = 0.0
    rate_limit_reasons: frozenset[str] = frozenset()

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self._ids = itertools.count(1)

    def send(self, destination: Destination, card: object, *, thread: str | None, delivery_key: str) -> SentMessage:
        assert isinstance(card, Card)
        self.out.write(f"[{destination.target}] " + card_to_text(card))
        mid = f"console-{next(self._ids)}"
        return SentMessage(mid, thread or mid)

    def find_sent(self, destination: Destination, delivery_key: str, around: datetime,
                  thread: str | None = None) -> SentMessage | None:
        return None


# --- the test ----------------------------------------------------------------------------------


@pytest.fixture
def console(monkeypatch):
    out = io.StringIO()
    import adapters.platform

    monkeypatch.setattr(adapters.platform, "PLATFORMS", dict(platforms.registry()))  # the test's registry copy
    platforms.register(platforms.Platform(name="console", credentials="a terminal", can_send=lambda s: True,
                                          delivery=lambda s: ConsoleDelivery(out)))  # the one registry line
    return out


def test_console_platform_answers_through_the_one_pipeline(console, tmp_path, monkeypatch):
    monkeypatch.delenv("PRHUB_PUBLIC_URL", raising=False)
    prs = bootstrap.read_inputs([], sample=True, skip_invalid=True).prs
    now = max(p.merged_at for p in prs)
    from adapters.storage import SqlStore
    from prhub.clock import SYSTEM_CLOCK

    store = SqlStore.open(f"sqlite:///{tmp_path / 'bot.db'}", clock=SYSTEM_CLOCK)
    try:
        settings = load_settings(prhub_default_repo="vllm-project/vllm")
        chat = create_chat_service(settings, store, clock=lambda: now,
                                   digest_provider=DigestCache(prs, repo="vllm-project/vllm", rules=shipped_rules("vllm")))
        ConsoleChat(chat, console).run(io.StringIO("risks this week\n本周风险\n"))
        ConsoleChat(chat, console).run(io.StringIO("risks this week\n本周风险\n"))  # the same lines again
        text = console.getvalue()
        expected = ask("risks this week", inputs=[], sample=True, repo=None, rules_file=None, tz="UTC", lang=None,
                       fmt="text")
        # the same card as `prhub ask`, byte for byte, but for the line the console's mid-week clock adds
        # (`prhub ask --sample` runs on today's clock, after the sample week ended)
        so_far = f"2026-W20 so far, as of {now:%H:%M} (UTC).\n\n"
        assert so_far in text
        assert text.replace(so_far, "", 1).startswith(expected)
        assert text.count("Risks · vllm-project/vllm 2026-W20") == 1  # re-delivered lines: de-duplicated
        assert text.count("风险 · vllm-project/vllm 2026-W20") == 1
        # subscriptions work for the new platform with no change elsewhere
        ConsoleChat(chat, console).run(["", "", "subscribe spec-decode"])
        assert [s.platform for s in store.subscriptions_of("console", "local", "user", "operator", "vllm-project/vllm")] == ["console"]
    finally:
        store.close()


def test_console_destinations_parse_and_get_the_weekly_post(console, tmp_path):
    sample = bootstrap.sample_path()
    cfg = parse_config(f"""
repositories:
  - repo: vllm-project/vllm
    source: file
    path: {sample.parent}/{{week}}.json
    schedule: {{weekly: "mon 09:00"}}
    destinations:
      - {{console: tty, lang: zh}}
admins: {{console: [local:operator]}}
""", "console.yaml")
    assert [(d.platform, d.target, d.lang) for d in cfg.repositories[0].destinations] == [("console", "tty", "zh")]
    from adapters.storage import SqlStore
    from prhub.clock import SYSTEM_CLOCK
    from chatbot.weeks import IsoWeek

    store = SqlStore.open(f"sqlite:///{tmp_path / 'bot.db'}", clock=SYSTEM_CLOCK)
    try:
        deliveries = {"console": platforms.get("console").delivery(load_settings())}
        bot = create_bot(LoadedConfig(config=cfg, base_dir=tmp_path), store, deliveries, chart=None,
                         clock=_Fixed(datetime(2026, 5, 18, 1, tzinfo=timezone.utc)), sleep=lambda s: None)
        report = bot.job.run("vllm-project/vllm", week=IsoWeek.parse("2026-W20"))
        assert report.status == "ok", report.problems
        out = console.getvalue()
        assert out.startswith("[tty] ") and "vllm-project/vllm" in out and "2026-W20" in out
    finally:
        store.close()


class _Fixed:
    def __init__(self, t: datetime) -> None:
        self.t = t

    def now(self) -> datetime:
        return self.t
