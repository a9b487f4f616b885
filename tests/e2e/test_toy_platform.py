"""A third chat platform is one package: a toy "toychat" package written to a temporary directory,
its ``register(Platform(...))`` in its ``__init__`` and named by ``PRHUB_PLATFORMS`` (the one
register line), answers a chat question over its own HTTP endpoint of ``prhub serve``'s app, gets
the weekly post through the scheduler, is a ``--format`` of ``prhub digest`` and ``prhub ask``,
and is checked by the config — with no other file changed."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
from datetime import datetime, timezone

import pytest

from tests.conftest import ROOT

TOY = '''
"""toychat: a chat platform whose events are JSON POSTs to /toy/message, answered in the response,
and whose weekly posts are lines appended to the file $TOYCHAT_LOG."""

import itertools
import json
import os

from adapters.platform import Mount, Platform, register
from chatbot.inbound import InboundMessage
from chatbot.ports import SentMessage
from chatbot.render.text import card_to_text


def payload(cards):
    return {"lines": [card_to_text(c) for c in cards]}


class ToyDelivery:
    platform = "toy"
    dedup_window_seconds = 0.0
    rate_limit_reasons = frozenset()

    def __init__(self, path):
        self.path = path
        self.ids = itertools.count(1)

    def send(self, destination, card, *, thread, delivery_key):
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps({"to": destination.target, "lang": destination.lang, **payload([card])}) + "\\n")
        mid = f"toy-{next(self.ids)}"
        return SentMessage(mid, thread or mid)

    def find_sent(self, destination, delivery_key, around, thread=None):
        return None


def mount(settings, chat, options):
    def app(environ, start_response):
        body = json.loads(environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0)))
        msg = InboundMessage(platform="toy", workspace="home", channel=body["room"], user=body["user"],
                             text=body["text"], is_direct=True, dedup_key=body["id"], where=body["id"])
        card = chat.handle(msg)
        start_response("200 OK", [("Content-Type", "application/json")])
        return [json.dumps(payload([card]) if card is not None else {"lines": []}).encode()]

    return Mount(prefix="/toy/", app=app)


register(Platform(name="toy", credentials="TOYCHAT_LOG", title="Toy",
                  can_send=lambda s: bool(os.environ.get("TOYCHAT_LOG")),
                  delivery=lambda s: ToyDelivery(os.environ["TOYCHAT_LOG"]),
                  wants_inbound=lambda s: True, mount=mount, payload=payload,
                  missing=lambda s: () if os.environ.get("TOYCHAT_LOG") else ("TOYCHAT_LOG",)))
'''


@pytest.fixture()
def toy(tmp_path, monkeypatch):
    """The toy package on the path and named by ``PRHUB_PLATFORMS``; the registry restored after."""
    import adapters.platform
    from prhub import platforms

    (tmp_path / "pkgs" / "toychat").mkdir(parents=True)
    (tmp_path / "pkgs" / "toychat" / "__init__.py").write_text(textwrap.dedent(TOY), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path / "pkgs"))
    monkeypatch.setattr(adapters.platform, "PLATFORMS", dict(platforms.registry()))  # the built-in ones loaded
    monkeypatch.setattr(adapters.platform, "REGISTERED_BY", dict(adapters.platform.REGISTERED_BY))
    monkeypatch.setattr(platforms, "_imported", set(platforms._imported))
    monkeypatch.setenv(platforms.PLATFORMS_ENV, "toychat")
    monkeypatch.setenv("TOYCHAT_LOG", str(tmp_path / "posts.jsonl"))
    monkeypatch.delenv("PRHUB_PUBLIC_URL", raising=False)
    yield tmp_path
    sys.modules.pop("toychat", None)


def _config():
    from prhub import bootstrap
    from prhub.config import parse_config

    sample = bootstrap.sample_path()
    return parse_config(f"""
repositories:
  - repo: vllm-project/vllm
    source: file
    path: {sample.parent}/{{week}}.json
    schedule: {{weekly: "mon 09:00"}}
    destinations:
      - {{toy: lounge, lang: zh}}
admins: {{toy: ["home:ops"]}}
""", "toy.yaml")


def test_the_registry_lists_it_after_the_built_in_ones(toy):
    from prhub import platforms

    assert list(platforms.registry()) == ["slack", "feishu", "toy"]
    assert platforms.names() == ("feishu", "slack", "toy") and platforms.get("toy").title == "Toy"


def test_a_chat_question_is_answered_over_its_endpoint(toy):
    from adapters.storage import SqlStore
    from chatbot.queries import DigestCache
    from chatbot.rules import shipped_rules
    from prhub import bootstrap
    from prhub.clock import SYSTEM_CLOCK
    from prhub.config import load_settings
    from prhub.web import create_app

    prs = bootstrap.read_inputs([], sample=True, skip_invalid=True).prs
    now = max(p.merged_at for p in prs)
    store = SqlStore.open(f"sqlite:///{toy / 'bot.db'}", clock=SYSTEM_CLOCK)
    app = create_app(load_settings(prhub_default_repo="vllm-project/vllm"), store, clock=lambda: now,
                     digest_provider=DigestCache(prs, repo="vllm-project/vllm", rules=shipped_rules("vllm")))
    try:
        assert list(app.mounts) == ["toy"] and list(app.reply_executors) == ["toy"]

        def post(text, event_id):
            body = json.dumps({"room": "D1", "user": "ann", "text": text, "id": event_id}).encode()
            status = []
            out = b"".join(app({"REQUEST_METHOD": "POST", "PATH_INFO": "/toy/message", "CONTENT_LENGTH": str(len(body)),
                                "CONTENT_TYPE": "application/json", "wsgi.input": io.BytesIO(body)},
                               lambda s, h, *a: status.append(s)))
            return status[0], json.loads(out)["lines"]

        status, lines = post("risks this week", "e1")
        assert status == "200 OK" and lines[0].startswith("Risks · vllm-project/vllm 2026-W20")
        assert post("risks this week", "e1")[1] == []  # a re-delivery of the same event: answered once
        assert post("本周风险", "e2")[1][0].startswith("风险 · vllm-project/vllm 2026-W20")
    finally:
        app.close()
        for ex in app.reply_executors.values():
            ex.shutdown()
        store.close()


def test_the_weekly_post_is_delivered_through_it(toy, monkeypatch):
    from adapters.storage import SqlStore
    from chatbot.weeks import IsoWeek
    from prhub.bot import check_deliveries, create_bot
    from prhub.checks import file_problems
    from prhub.clock import SYSTEM_CLOCK
    from prhub.config import load_settings
    from prhub.web import create_deliveries
    from scheduler.config import LoadedConfig

    cfg = _config()
    assert [(d.platform, d.target, d.lang) for d in cfg.repositories[0].destinations] == [("toy", "lounge", "zh")]
    loaded = LoadedConfig(config=cfg, base_dir=toy)
    deliveries = create_deliveries(load_settings())
    assert sorted(deliveries) == ["toy"]
    check_deliveries(loaded, deliveries)
    assert file_problems(loaded, load_settings()) == []
    store = SqlStore.open(f"sqlite:///{toy / 'bot.db'}", clock=SYSTEM_CLOCK)
    try:
        bot = create_bot(loaded, store, deliveries, chart=None,
                         clock=_Fixed(datetime(2026, 5, 18, 1, tzinfo=timezone.utc)), sleep=lambda s: None)
        report = bot.job.run("vllm-project/vllm", week=IsoWeek.parse("2026-W20"))
        assert report.status == "ok", report.problems
    finally:
        store.close()
    posts = [json.loads(line) for line in (toy / "posts.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(posts) == 3 and {p["to"] for p in posts} == {"lounge"} and {p["lang"] for p in posts} == {"zh"}
    assert "vllm-project/vllm" in posts[0]["lines"][0] and "2026-W20" in posts[0]["lines"][0]
    monkeypatch.delenv("TOYCHAT_LOG")
    assert file_problems(loaded, load_settings()) == [
        "vllm-project/vllm posts to toy:lounge but TOYCHAT_LOG is not set: export it"]


def test_the_cli_offers_its_payload_format(toy):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(toy / "pkgs"), str(ROOT)])}
    r = subprocess.run([sys.executable, "-m", "prhub", "digest", "--sample", "--format", "toy"],
                       capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = json.loads(r.stdout)["lines"]
    assert len(lines) == 3 and lines[0].startswith("vllm-project/vllm")
    r = subprocess.run([sys.executable, "-m", "prhub", "ask", "--sample", "--format", "toy", "risks"],
                       capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert r.returncode == 0 and json.loads(r.stdout)["lines"][0].startswith("Risks · vllm-project/vllm 2026-W20"), r.stderr
    env.pop("PRHUB_PLATFORMS")
    r = subprocess.run([sys.executable, "-m", "prhub", "digest", "--sample", "--format", "toy"],
                       capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert r.returncode == 2  # without the register line, no toy platform


class _Fixed:
    def __init__(self, t: datetime) -> None:
        self.t = t

    def now(self) -> datetime:
        return self.t
