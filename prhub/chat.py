"""Chat output for the command line: digest cards as Slack/Feishu payloads, and ``prhub ask``.

Reads ``PRHUB_PUBLIC_URL`` (base of "Full report" links; no such button without it).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from datetime import datetime

from chatbot.cards import Attachment, Card, Section, digest_cards
from chatbot.digest import repo_from_urls
from chatbot.errors import InputError
from chatbot.i18n import lang_or
from chatbot.models import DigestText
from chatbot.queries import DigestCache, ModuleIndex, answer, read
from chatbot.entities import resolve_week
from chatbot.reading import offer
from chatbot.render.text import card_to_text
from chatbot.repo_mention import find_repo_mention, path_roots, unknown_repo_card
from chatbot.rules import Rules
from chatbot.weeks import IsoWeek, load_zone
from prhub import bootstrap, platforms
from prhub.clock import SYSTEM_CLOCK
from prhub.config import check_public_url



def public_url() -> str | None:
    """``$PRHUB_PUBLIC_URL`` without a trailing slash, or None when unset or empty.

    Raises:
        InputError: set but not an http(s) URL.
    """
    return check_public_url(os.environ.get("PRHUB_PUBLIC_URL", ""))


def report_url(repo: str, week: IsoWeek | str) -> str | None:
    """The public URL of a week's full report (``{base}/reports/{owner}/{name}/{week}``), or None."""
    base = public_url()
    return f"{base}/reports/{repo}/{week}" if base else None


def render_cards(cards: list[Card], fmt: str) -> str:
    """Cards as the payloads of the platform named ``fmt`` (its ``Platform.payload``, e.g.
    ``{"messages": [...]}`` for slack, ``{"cards": [...]}`` for feishu), else as plain text."""
    p = platforms.registry().get(fmt)
    if p is not None and p.payload is not None:
        return json.dumps(p.payload(cards), indent=2, ensure_ascii=False) + "\n"
    return "\n".join(card_to_text(c) for c in cards)


def render_digest_chat(digest: DigestText, fmt: str) -> str:
    """The digest as the chat payloads of platform ``fmt`` (:func:`render_cards`), in posting order."""
    cards = digest_cards(digest, report_url=report_url(digest.repo, digest.week))
    return render_cards(cards, fmt)


def ask(
    text: str,
    *,
    inputs: list[str],
    sample: bool,
    repo: str | None,
    rules_file: str | None,
    tz: str,
    lang: str | None,
    fmt: str,
    clock: Callable[[], datetime] = SYSTEM_CLOCK.now,
    files: Callable[[Attachment, DigestCache, Rules], None] | None = None,
) -> str:
    """Answer one query from PR files; now = the newest ``mergedAt`` of the input. The files are
    the whole history (PR numbers of any of their weeks, new contributors); an answer about the
    newest week says "so far" only while that week is not over by ``clock`` (the real time).

    ``files(attachment, provider, rules)``: called when the answer carries a file (the full report,
    as in chat where no public URL is set) with what renders it
    (:func:`prhub.report.report_attachment`); the CLI renders and writes it when ``--out`` asks.

    Raises:
        InputError: no input, unreadable input, unknown repository, zone or rules.
    """
    load_zone(tz)
    parsed = bootstrap.read_inputs(inputs, sample=sample, skip_invalid=True)
    repo_name = bootstrap.check_repo(repo) if repo else repo_from_urls(parsed.prs)
    if repo_name is None:
        raise InputError("cannot tell the repository: the input has no PR URLs; pass --repo owner/name")
    if not parsed.prs:
        raise InputError("the input holds no PRs: there is nothing to answer from")
    rules = bootstrap.rules_for(repo_name, rules_file)
    provider = DigestCache(parsed.prs, repo=repo_name, rules=rules, tz=tz)
    cards: list[Card] = []
    out = ask_cache(text, provider, rules=rules, tz=tz, lang=lang, fmt=fmt, clock=clock, answered=cards.append)
    attachment = cards[0].attachment if cards else None
    if attachment is not None and files is not None:
        files(attachment, provider, rules)
    return out


def ask_cache(text: str, provider: DigestCache, *, rules: Rules, tz: str, lang: str | None, fmt: str,
              clock: Callable[[], datetime] = SYSTEM_CLOCK.now, answered: Callable[[Card], None] | None = None) -> str:
    """:func:`ask` on PRs already read (``provider``: its PRs are the history; now = their newest merge);
    ``answered`` is given the answer card before it is rendered.

    A repository the text names is read as in chat (:mod:`chatbot.repo_mention`): the input's
    repository is removed from the text ("risks in vllm-project/vllm" asks "risks"); another
    ``owner/name`` is answered with the one line naming the repository the input holds.

    Raises:
        InputError: unknown zone.
    """
    index = ModuleIndex(rules)
    now = max(p.merged_at for p in provider.prs)
    zone = load_zone(tz)
    mention = find_repo_mention(text, configured=[provider.repo], path_roots=path_roots(rules))
    reading = read(mention.rest if mention is not None else text, modules=index)
    query = reading.query
    live = clock() < IsoWeek.containing(now, zone).utc_window(zone)[1]
    if mention is not None and not mention.known:
        card = unknown_repo_card(mention.repo, lang_or(lang, query.lang), [provider.repo])
    else:
        card = answer(query, digest_provider=provider, now=now, lang=lang, tz=tz, modules=index,
                      report_url=lambda w: report_url(provider.repo, w), history=provider.history, so_far=live)
        if reading.unsure:  # "I read this as … — or did you mean: …", as in chat (no buttons here)
            card = offer(card, query, reading.alternatives, index, repo=provider.repo, buttons=False)
    if answered is not None:
        answered(card)
    if fmt == "json":
        return json.dumps(answer_json(query, card, repo=provider.repo, now=now, tz=tz), indent=2, ensure_ascii=False) + "\n"
    return render_cards([card], fmt)


def cited_prs(card: Card) -> list[int]:
    """PR numbers a card cites (its PR items and PR references), in order of first appearance."""
    seen: dict[int, None] = {}

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("number"), int) and ("title" in node or node.get("kind") == "pr" or "url" in node):
                seen.setdefault(node["number"], None)
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(card.model_dump(mode="json"))
    return list(seen)


def answer_json(query: object, card: Card, *, repo: str, now: datetime, tz: str) -> dict[str, object]:
    """``prhub ask --format json``: ``{"intent", "repo", "week", "prs", "card"}``.

    ``intent`` is the parsed intent (``help`` only when the answer is the help card: nothing was
    understood and a search found nothing, or help was asked for), ``week`` the ISO
    week the query named, resolved at ``now`` in ``tz`` (None for intents without a week; an empty
    current week answered with last week keeps the asked week), ``prs`` the PR numbers the card cites,
    ``card`` the platform-neutral card.
    """
    intent = getattr(query, "intent", "help")
    ref = getattr(query, "week", None)
    if any(isinstance(b, Section) and b.role == "help" for b in card.blocks):
        intent, ref = "help", None  # text not understood, and a search found nothing near it either
    week: str | None = None
    if isinstance(ref, str):
        current = IsoWeek.containing(now, load_zone(tz))
        week = str(resolve_week(ref, current))
    return {"intent": intent, "repo": repo, "week": week, "prs": cited_prs(card),
            "card": card.model_dump(mode="json")}
