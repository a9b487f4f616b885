"""The named checks of the validator, one function each, in one registry (:data:`CHECKS`). Pure.

Every check takes a :class:`Claim` (a sentence with the ids it cites), the :class:`~chatbot.prose_check.facts.Facts`
of the digest and the sentence's slot (``headline``, ``trend``, ``recommendations``,
``storylines.<id>``, ``risks.<kind>``, ``prs.<n>`` or ``None``), and returns its faults (plain
sentences the writer sends back to the model). Where a rule's words come from is said at each.

Number rounding (:func:`matches`): a number equals a fact when the fact, rounded to the decimals
written, is the number (``6.4`` ← 6.43; ``70%`` ← a share of 69.6%; ``6.4k`` ← 6,351..6,449 as
thousands with one decimal; ``1.2x`` ← a stated ``1.2x``). After an approximation word (``约``,
``超``, ``about``, ``over``, ``350+``) it may also be within 5% of the fact.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date

from chatbot.prose_check.facts import FILES, LINES, PERCENT, PRS, SCORE, TEXT, WEEK, Fact, Facts, name_key
from chatbot.prose_check.tokens import CJK_CHAR, PR_REF, Number, clauses, dates, items, numbers, pr_refs, versions

MAX_SENTENCE = 400
"""Characters at most in one model sentence."""

AMBIENT = ("week", "labels", "modules", "storylines", "risks", "authors", "coauthors")
"""What a sentence without fact ids cites besides the PRs it names: the week-level facts."""


@dataclass(frozen=True)
class Claim:
    """One sentence and what it rests on: ``prs`` (PR numbers) and ``facts`` (fact ids; ``None``
    when the writer gave none: then it cites :data:`AMBIENT` and the PRs it names)."""

    text: str
    prs: tuple[int, ...] = ()
    facts: tuple[str, ...] | None = None

    def cited_prs(self) -> set[int]:
        """PRs the sentence cites: listed, named as ``#N``, or named by a ``prs.<n>…`` id."""
        ids = {int(m.group(1)) for f in self.facts or () if (m := re.match(r"prs\.(\d+)", f))}
        return set(self.prs) | {n for n, _ in pr_refs(self.text)} | ids

    def cited(self) -> tuple[str, ...]:
        """Id prefixes the sentence cites."""
        base = AMBIENT if self.facts is None else self.facts
        return (*base, *(f"prs.{n}" for n in sorted(self.cited_prs())))


Check = Callable[[Claim, Facts, "str | None"], list[str]]


# --- length and markup -------------------------------------------------------------------------

_MARKUP = re.compile(
    r"<[^>]*>|[<>]|[@＠]\w|\[[^\]]*\]\(|\*\*|__|(?<!\w)[*_](?=\S)|`|~~|^\s*#(?!\d)|https?://|www\.|&[a-z]+;|&#"
    r"|(?<![\w.@-])[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|org|net|io|ai|dev|cn|co|app|me|sh|xyz)(?![\w.])",
    re.MULTILINE | re.IGNORECASE)


def check_length(c: Claim, f: Facts, slot: str | None) -> list[str]:
    """1 to :data:`MAX_SENTENCE` characters."""
    if not c.text.strip():
        return ["is empty"]
    return [f"is longer than {MAX_SENTENCE} characters"] if len(c.text) > MAX_SENTENCE else []


def check_markup(c: Claim, f: Facts, slot: str | None) -> list[str]:
    """No mention or markup: ``@user``/full-width ``＠``, ``<!channel>``, ``<at …>``, tags, Markdown
    links, emphasis, code, headings, URLs and bare domains (``example.com``), HTML entities."""
    return ["contains mention or markup syntax (write plain text)"] if _MARKUP.search(c.text) else []


# --- PRs ---------------------------------------------------------------------------------------

def check_known_prs(c: Claim, f: Facts, slot: str | None) -> list[str]:
    """Every cited PR is a PR of the week or one the week's PRs name."""
    unknown = sorted(n for n in c.cited_prs() if n not in f.known_prs)
    return ["cites PRs that are not in this week: " + ", ".join(f"#{n}" for n in unknown)] if unknown else []


def check_slot_prs(c: Claim, f: Facts, slot: str | None) -> list[str]:
    """In a storyline's, risk's or PR summary's slot, every ``#N`` is a PR of that storyline, risk or PR."""
    members = f.slots.get(slot or "")
    if members is None:
        return []
    outside = sorted(n for n in c.cited_prs() if n not in members and n in f.known_prs)
    if outside:
        return [f"names PRs that are not in {slot}: " + ", ".join(f"#{n}" for n in outside)]
    return []


_TOKEN = re.compile(r"(?<![A-Za-z0-9_.\-])[A-Za-z][A-Za-z0-9_]*(?:[.\-][A-Za-z0-9_]+)*", re.ASCII)
_TAGS = re.compile(r"\[[^\]]*\]")
_IDENTLIKE = re.compile(r"^[A-Z]|.[A-Z0-9_\-]", re.ASCII)
RARE_SHARE = 0.05
"""An identifier in at most this share of the week's titles (3 at least) is specific enough to belong to
them; more common ones (``CUDA``, ``ROCm``, ``MoE`` in a busy week) say nothing about which PR."""


def _groups(text: str, lo: int = 0, hi: int | None = None) -> list[tuple[list[int], int, int]]:
    """PR reference groups (``#1、#2``) of ``text[lo:hi]`` with the span of text about them: from the
    previous group's end (or ``lo``) to the next group's start (or ``hi``)."""
    hi = len(text) if hi is None else hi
    refs = [(int(m.group(1)), m.start(), m.end()) for m in PR_REF.finditer(text, lo, hi)]
    groups: list[tuple[list[int], int, int]] = []
    for n, a, b in refs:
        if groups and re.fullmatch(r"[\s、,，和与及and/]*", text[groups[-1][2]:a]):
            groups[-1] = (groups[-1][0] + [n], groups[-1][1], b)
        else:
            groups.append(([n], a, b))
    out = []
    for i, (nums, a, b) in enumerate(groups):
        start = groups[i - 1][2] if i else lo
        end = groups[i + 1][1] if i + 1 < len(groups) else hi
        out.append((nums, start, end))
    return out


def _item_groups(text: str) -> list[tuple[list[int], int, int]]:
    """:func:`_groups` bound by list items (:func:`~chatbot.prose_check.tokens.items`): in an item that
    names PRs, its text is about its own groups only (``FlashInfer 0.6.13（#46683）、DeepGEMM tag更新
    （#47304）``: FlashInfer is not about #47304); an item that names none is about the groups around it."""
    whole = _groups(text)
    out = []
    for a, b in items(text):
        if PR_REF.search(text, a, b):
            out += _groups(text, a, b)
        else:
            out += [(nums, max(x, a), min(y, b)) for nums, x, y in whole if x < b and y > a]
    return out


def _identifiers(text: str, a: int, b: int, lang: str) -> list[str]:
    """Name-like ASCII tokens: capitalised or mixed case, with digits, ``_`` or ``-`` (``KDA``, ``B12X``,
    ``VLLM_USE_X``, ``Unlimited-OCR``, ``Kimi``); a hyphenated token also by its parts (``Hy3``, ``FP8``).
    In English a plain capitalised word that starts a sentence or clause (``Check``) is no name.
    Tokens of ``text[a:b]``, judged in the whole text."""
    out = []
    for m in _TOKEN.finditer(text, a, b):
        tok = m.group(0).rstrip(".")
        if len(tok) < 3 or not _IDENTLIKE.search(tok):
            continue
        if lang == "en" and re.fullmatch(r"[A-Z][a-z]+", tok) and re.search(r"(?:^|[.!?:;]\s*)$", text[:m.start()].rstrip()):
            continue
        out.append(tok)
        parts = re.split(r"[.\-]", tok)
        out += [x for x in parts if len(parts) > 1 and len(x) >= 3 and _IDENTLIKE.search(x)]
    return out


def _initials(title: str) -> str:
    """The initials of a title's words, camel case split and digits kept (``[ModelRunner V2] Enable``
    → ``mrv2e``): an all-caps identifier found in them is the title's own abbreviation."""
    words = re.findall(r"[A-Z][a-z]+|[A-Z]+(?![a-z])|\d+|[a-z]+", title)
    return "".join(w if w.isdigit() else w[0] for w in words).casefold()


def check_foreign_identifiers(c: Claim, f: Facts, slot: str | None) -> list[str]:
    """Text about ``#N`` carries no identifier (``KDA``, ``B12X``, ``VLLM_*``) that is in another PR's
    title (outside its ``[Tag]`` prefixes, which name categories such as ``[MRV2]``), in at most
    :data:`RARE_SHARE` of the week's titles, and not in ``#N``'s own texts."""
    faults = []
    titles = [(p.number, _TAGS.sub(" ", p.title).casefold()) for p in f.prs.values()]
    rare = max(3, int(RARE_SHARE * len(titles)))
    for nums, a, b in _item_groups(c.text):
        raw = " ".join(f.prs[n].texts for n in nums if n in f.prs)
        own = raw.casefold()
        if not own:
            continue
        initials = _initials(" ".join(f.prs[n].title for n in nums if n in f.prs))
        for ident in dict.fromkeys(_identifiers(c.text, a, b, f.lang)):
            low = ident.casefold()
            if low in f.names:
                continue
            rx = re.compile(r"(?<![a-z0-9])" + re.escape(low) + r"(?![a-z0-9])")
            if rx.search(own) or (ident.isupper() and low in initials):
                continue
            holders = [n for n, t in titles if rx.search(t)]
            if 0 < len(holders) <= rare and not set(holders) & set(nums):
                faults.append(f"says {ident} of {', '.join(f'#{n}' for n in nums)}, but {ident} is in the title of "
                              + ", ".join(f"#{n}" for n in holders[:3]))
                break
    return list(dict.fromkeys(faults))


def _named_as_name(text: str, start: int, word: str, lang: str) -> bool:
    """Whether ``word`` at ``start`` is written as a name: with a capital letter or a digit (``ROCm``,
    ``XPU``, ``Gemma4``) or in CJK (``Rust 前端``); not a plain capitalised word opening an English
    sentence or clause (``Model support had ...``), not lower case (``build``, ``fix``)."""
    if not re.search(r"[A-Z0-9]", word) and not CJK_CHAR.search(word):
        return False
    if lang == "en" and re.fullmatch(r"[A-Z][a-z]+", word):
        return not re.search(r"(?:^|[.!?:;]\s*)$", text[:start].rstrip())
    return True


def check_wrong_entity(c: Claim, f: Facts, slot: str | None) -> list[str]:
    """A label, module, storyline-topic or platform name of the rules (``ROCm``, ``XPU``, ``Gemma4``,
    ``Kimi``, ``Rust 前端``), written as a name (:func:`_named_as_name`) in a clause, that the titles
    of other PRs of the week write, names a label, module or topic of a PR the clause cites (of the
    sentence, when the clause cites none): one of its own, or one whose name its texts write.
    ``修正ROCm上的workspace不足问题`` about two FlashInfer MLA fixes is caught; a name no other title
    uses (``RoutedExperts``, a class a refactor moved code into) is left to the other checks."""
    if f.entities is None:
        return []
    faults: list[str] = []
    spans = clauses(c.text)
    for m in f.entities.finditer(c.text):
        word = m.group(0)
        if not _named_as_name(c.text, m.start(), word, f.lang):
            continue
        a, b = next(((x, y) for x, y in spans if x <= m.start() < y), (0, len(c.text)))
        prs = [n for n in dict.fromkeys([n for n, _ in pr_refs(c.text[a:b])] or sorted(c.cited_prs())) if n in f.prs]
        ids = f.entity_ids.get(name_key(word), frozenset())
        if not prs or any(f.belongs(n, ids) for n in prs) or not f.titled(word) - set(prs):
            continue
        faults.append(f"says {word} of " + ", ".join(f"#{n}" for n in prs)
                      + ", which is none of its labels, modules or topics")
    return faults


# --- numbers, versions, dates ------------------------------------------------------------------

def matches(n: Number, v: float) -> bool:
    """Whether the written number ``n`` states the value ``v`` (rounding: see the module docstring)."""
    v = abs(v)
    if n.suffix == "k":
        ok = round(v / 1000, n.decimals) == round(n.value / 1000, n.decimals)
    else:
        ok = round(v, n.decimals) == n.value
    return ok or (n.approx and abs(v - n.value) <= 0.05 * max(v, 1.0))


def _compatible(n: Number, fact: Fact) -> bool:
    if fact.kind == TEXT:  # a number written in a text: same suffix family, and its unit when the sentence names one
        family = {"k": "", "": ""}
        same = family.get(n.suffix, n.suffix) == family.get(fact.suffix, fact.suffix)
        return same and (n.unit in ("", "count", "percent", "times", "thousands") or n.unit == fact.unit)
    if n.suffix == "x":
        return False
    if n.suffix == "%" or n.unit == "percent":
        return fact.kind == PERCENT
    if fact.kind == PERCENT:
        return False
    if n.unit == "lines" or n.suffix == "k":
        if fact.kind != LINES:
            return False
        return not n.sign or fact.id.endswith(".additions" if n.sign == "+" else ".deletions")
    want = {"files": FILES, "prs": PRS, "week": WEEK}.get(n.unit)
    if want is not None:
        return fact.kind == want
    return fact.kind != SCORE or n.decimals > 0


def _subject_at(c: Claim, f: Facts, n: Number) -> tuple[str, tuple[str, ...]] | None:
    """The subject the number is about: the nearest named one (PR, label, module, storyline, risk,
    author) before it in its clause that has a fact of the number's kind, else the nearest after it,
    else a week-level word (``重点``/``key``, ``合并``/``merged``); None when the clause names none."""
    a, b = next(((x, y) for x, y in clauses(c.text) if x <= n.start < y), (0, len(c.text)))
    clause = c.text[a:b]
    found: list[tuple[int, str, tuple[str, ...]]] = []
    for num, pos in pr_refs(clause):
        found.append((pos, f"#{num}", (f"prs.{num}",)))
    for rx, ids in f.subjects:
        for m in rx.finditer(clause):
            found.append((m.start(), m.group(0), ids))
    pos_n = n.start - a

    def usable(ids: tuple[str, ...]) -> bool:
        return any(_compatible(n, x) for x in f.under(ids))

    before = sorted((x for x in found if x[0] + len(x[1]) <= pos_n and usable(x[2])), key=lambda x: (-x[0], -len(x[1])))
    after = sorted((x for x in found if x[0] > pos_n and usable(x[2])), key=lambda x: (x[0], -len(x[1])))
    for pos, name, ids in before[:1] or after[:1]:
        return name, ids
    for rx, ids in f.generic:
        word = rx.search(clause)
        if word:
            return word.group(0), ids
    return None


def check_numbers(c: Claim, f: Facts, slot: str | None) -> list[str]:
    """Each number equals (see :func:`matches`) a cited fact of its kind (lines, files, PRs, percent,
    week) about the subject next to it (a label, module, storyline, risk kind, author, PR)."""
    cited = f.under(c.cited())
    cited_ids = {x.id for x in cited}
    faults = []
    for n in numbers(c.text):
        subject = _subject_at(c, f, n)
        pool = cited if subject is None else [x for x in f.under(subject[1]) if x.id in cited_ids]
        if any(_compatible(n, x) and matches(n, x.value) for x in pool):
            continue
        about = f" for {subject[0]}" if subject else ""
        unit = f" {n.unit}" if n.unit and n.unit not in ("count", "percent", "times", "thousands") else ""
        faults.append(f"states {n.text.strip()}{unit}{about}, which no cited fact has")
    return faults


def check_versions(c: Claim, f: Facts, slot: str | None) -> list[str]:
    """Each version (``0.6.13``) is written in a title or description of a cited PR (of the week, when it cites none)."""
    prs = [f.prs[n] for n in c.cited_prs() if n in f.prs] or list(f.prs.values())
    known = {v for p in prs for v in p.versions}
    wrong = [v for v in versions(c.text) if v not in known]
    return ["states versions that no cited PR has: " + ", ".join(wrong)] if wrong else []


def check_dates(c: Claim, f: Facts, slot: str | None) -> list[str]:
    """Each date lies in the week's window (first to last day, inclusive; the window's year when none is written)."""
    faults = []
    for d in dates(c.text):
        year = d.year or f.first_day.year
        try:
            day = date(year, d.month, d.day)
        except ValueError:
            faults.append(f"states {d.text}, which is not a date")
            continue
        if not d.year and not f.first_day <= day <= f.last_day and f.first_day.year != f.last_day.year:
            day = date(f.last_day.year, d.month, d.day)
        if not f.first_day <= day <= f.last_day:
            faults.append(f"states {d.text}, outside the week {f.first_day:%m-%d} – {f.last_day:%m-%d}")
    return faults


# --- relations, people, direction --------------------------------------------------------------

_REVERT = re.compile(r"revert|回滚|撤销|撤回|还原", re.IGNORECASE)
_FIX = re.compile(r"\bfix|修复|修正|修好", re.IGNORECASE)
_PASSIVE = re.compile(r"被|\bby\b|由", re.IGNORECASE)


def _related(f: Facts, kind: str, a: int, b: int) -> bool:
    pa, pb = f.prs.get(a), f.prs.get(b)
    if kind == "reverts":
        return (pa is not None and pa.reverts == b) or (pb is not None and pb.reverted_by == a)
    return pa is not None and b in pa.fixes


def check_relations(c: Claim, f: Facts, slot: str | None) -> list[str]:
    """``#A reverts/fixes #B`` (``回滚``, ``修复``; passive ``被``/``by`` reversed) holds in the facts:
    ``reverts``/``reverted_by`` for reverts, ``fixed_by`` or a fix title naming ``#B`` for fixes."""
    faults = []
    for a, b in clauses(c.text):
        clause = c.text[a:b]
        refs = pr_refs(clause)
        if len(refs) < 2:
            continue
        for kind, rx in (("reverts", _REVERT), ("fixes", _FIX)):
            m = rx.search(clause)
            if m is None:
                continue
            subj = [n for n, pos in refs if pos < m.start()]
            obj = [n for n, pos in refs if pos > m.start()]
            passive = _PASSIVE.search(clause[m.start():]) or _PASSIVE.search(clause[:m.start()])
            if passive:
                subj, obj = obj, subj
            if not subj or not obj:
                continue
            for o in obj:
                if not any(_related(f, kind, s, o) for s in subj if s != o):
                    who = ", ".join(f"#{s}" for s in subj)
                    faults.append(f"says {who} {kind} #{o}, which the facts do not show")
    return faults


def check_people(c: Claim, f: Facts, slot: str | None) -> list[str]:
    """A person named (login or name of a week's author or co-author) is an author or co-author of
    a PR cited in the same list item (:func:`~chatbot.prose_check.tokens.items`), else in the same
    clause with its brackets kept whole, else in the sentence: in ``hmellor（12 PR，#47058）、
    BugenZhao（10，#47283）`` BugenZhao is bound to #47283, not to #47058 before the comma."""
    faults = []
    spans = [items(c.text), clauses(c.text, in_brackets=False)]
    for key, rx in f.people.items():
        for m in rx.finditer(c.text):
            prs: list[int] = []
            for level in spans:
                a, b = next(((x, y) for x, y in level if x <= m.start() < y), (0, len(c.text)))
                prs = [n for n, _ in pr_refs(c.text[a:b])]
                if prs:
                    break
            prs = [n for n in prs or sorted(c.cited_prs()) if n in f.prs]
            if prs and not any(key in f.prs[n].people for n in prs):
                faults.append(f"names {m.group(0)} as the person behind " + ", ".join(f"#{n}" for n in prs)
                              + ", who is not its author or co-author")
                break
    return faults


_TITLE_UP = re.compile(r"^(?:\[[^\]]*\]\s*|\w+\([^)]*\):\s*)*(?:add|adds|added|support|supports|enable|enables|"
                       r"introduce|implement|implements)\b", re.IGNORECASE)
_TITLE_DOWN = re.compile(r"^(?:\[[^\]]*\]\s*)*(?:remove|removes|drop|drops|disable|disables|deprecate|revert)\b", re.IGNORECASE)
_SAYS_DOWN = re.compile(r"移除|删除|删去|去掉|关闭|禁用|弃用|下线|\bremov|\bdrop|\bdisabl|\bdeprecat", re.IGNORECASE)
_SAYS_UP = re.compile(r"新增|添加|支持|启用|开启|\badd|\bsupport|\benabl", re.IGNORECASE)
_RESULT_UP = re.compile(r"improv|speed-?up|faster|higher|increase|提升|加速|提高", re.IGNORECASE)
_RESULT_DOWN = re.compile(r"regress|slower|worse|degrad|下降|变慢|退化", re.IGNORECASE)
_SAYS_WORSE = re.compile(r"下降|变慢|退化|恶化|regress|slower|worse|degrad", re.IGNORECASE)
_SAYS_BETTER = re.compile(r"提升|加速|提高|改善|improv|speed-?up|faster|higher", re.IGNORECASE)


def check_direction(c: Claim, f: Facts, slot: str | None) -> list[str]:
    """The text about ``#N`` does not turn its direction: an Add/Support/Enable title against
    移除/关闭/remove/disable (and back), a stated improvement against 下降/slower (and back)."""
    faults = []
    for nums, a, b in _groups(c.text):
        part = c.text[a:b]
        for n in nums:
            p = f.prs.get(n)
            if p is None:
                continue
            if _TITLE_UP.search(p.title) and _SAYS_DOWN.search(part) and not _SAYS_UP.search(part):
                faults.append(f"says #{n} removes or turns off what its title adds or turns on")
            elif _TITLE_DOWN.search(p.title) and _SAYS_UP.search(part) and not _SAYS_DOWN.search(part):
                faults.append(f"says #{n} adds or turns on what its title removes or turns off")
            results = p.texts
            if _RESULT_UP.search(results) and _SAYS_WORSE.search(part) and not _RESULT_DOWN.search(results):
                faults.append(f"says #{n} made things worse, but its stated result is an improvement")
            elif _RESULT_DOWN.search(results) and _SAYS_BETTER.search(part) and not _RESULT_UP.search(results):
                faults.append(f"says #{n} made things better, but its stated result is a regression")
    return faults


# --- language ----------------------------------------------------------------------------------

_WORD = re.compile(r"(?<![A-Za-z0-9_\-])[a-z]{3,}(?![A-Za-z0-9_\-])")


def check_language(c: Claim, f: Facts, slot: str | None) -> list[str]:
    """The sentence is in the digest's language, identifiers aside: a zh sentence has fewer plain
    English words (lower-case, three letters or more, not in a cited PR's title, not a login of the
    week) than half its CJK characters, at most 2 when it has few, and none when it has no CJK: PR
    references, numbers, identifiers and names alone (``#47058, #44589, #46995``) are in no language;
    an en sentence has no CJK outside PR titles."""
    titles = " ".join(f.prs[n].title for n in c.cited_prs() if n in f.prs).casefold()
    if f.lang == "zh":
        cjk = len(CJK_CHAR.findall(c.text))
        words = [w for w in _WORD.findall(c.text) if w not in titles and w not in f.people]
        if (cjk == 0 and words) or len(words) > max(2, cjk // 2):
            return ["is not written in Chinese (the digest's language)"]
        return []
    text = c.text
    for n in c.cited_prs():
        if n in f.prs:
            text = text.replace(f.prs[n].title, " ")
    return ["is not written in English (the digest's language)"] if CJK_CHAR.search(text) else []


CHECKS: dict[str, Check] = {
    "length": check_length,
    "markup": check_markup,
    "known_prs": check_known_prs,
    "slot_prs": check_slot_prs,
    "numbers": check_numbers,
    "versions": check_versions,
    "dates": check_dates,
    "relations": check_relations,
    "people": check_people,
    "direction": check_direction,
    "foreign_identifiers": check_foreign_identifiers,
    "wrong_entity": check_wrong_entity,
    "language": check_language,
}
"""Every check by name, in the order they run."""


def check_claim(c: Claim, f: Facts, slot: str | None = None, checks: Sequence[str] | None = None) -> list[str]:
    """Faults of one sentence (empty when it may be used): every check of :data:`CHECKS` (or the named ones)."""
    if not c.text.strip():
        return ["is empty"]
    return [fault for name in (checks or CHECKS) for fault in CHECKS[name](c, f, slot)]
