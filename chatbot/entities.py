"""What a chat message names, before what it asks: PR numbers, weeks and ranges of weeks, paths,
risk kinds, labels, modules and topics of the rules, a count ("top 5") and the words left over.

:func:`extract` reads cleaned text (:func:`chatbot.queries.clean_text`) left to right in passes,
each taking its spans out of the text before the next one looks: PR references, weeks and ranges,
paths, risk kinds (the risk rules' ``words``), labels (:data:`LABEL_WORDS` and the rules' ``labels`` /
``prefix_aliases``), then module and topic names (the longest name first). Intent words (the
registry's patterns, passed as ``cues``) and filler words (:data:`FILLER_EN`, :data:`FILLER_ZH`)
are then dropped; what remains are :attr:`Entities.words`, which an answer may read as an author
of the week and otherwise ignores — an unknown word never becomes "no module named X".

Week references (:data:`chatbot.intent.WeekRef`) are ``current``, ``previous``, ``2026-W19`` or
``W19`` (a week number without a year: the latest such week not after the current one). A range
(:data:`RangeRef`) is ``month:0`` (this month: the weeks whose Thursday falls in it), ``month:-1``,
``weeks:4`` (the last four weeks, the current one included) or ``since:W18``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date
from pydantic import BaseModel, ConfigDict

from chatbot.errors import InputError
from chatbot.i18n import langs
from chatbot.module_names import ModuleIndex, squash
from chatbot.risks import RISKS
from chatbot.weeks import MAX_YEAR, MIN_YEAR, IsoWeek

RangeRef = str
"""``month:0``, ``month:-1``, ``weeks:4`` or ``since:<week ref>`` (see the module docstring)."""

_TAGS = tuple((tag, re.compile("|".join(f"(?:{words[lang]})" for lang in sorted(words))))
              for tag, words in RISKS.tag_words)
"""Risk tags (the analysis's ids) by the words their rules declare (``RiskRule.words``, all
languages), in the order the registry reads them (:attr:`chatbot.risks.RiskRegistry.tag_words`:
"tests removed" before "missing tests"); the first that matches is the tag asked about."""
RISK_EN = r"\brisk(?:s|y|ier|iest)?\b|\bdanger\w*|\bscary\b"
RISK_ZH = "风险|危险"
RISK_WORDS = re.compile(f"{RISK_EN}|{RISK_ZH}")
"""Any risk, no kind named."""

LABEL_WORDS: tuple[tuple[str, str], ...] = (
    ("performance", r"\bperf\b|\bperformance\b|\boptimi[sz]ations?\b|\bspeed ?ups?\b|\bfaster\b|\bthroughput\b"
                    r"|性能优化|性能提升|性能|提速|加速|优化"),
    ("bugfix", r"\bbug ?fix(?:es)?\b|\bbugs?\b|\bfixes\b|修复|修bug|bug 修复"),
    ("documentation", r"\bdocs?\b|\bdocumentation\b|文档"),
    ("refactor", r"\brefactor(?:s|ing|ed)?\b|\bcleanups?\b|重构"),
    ("feature", r"\bfeatures?\b|新功能|新特性"),
)
"""Label kinds by their words in both languages; a kind is read only when the repository's rules
define that label (``labels`` or ``prefix_aliases``)."""

FILLER_EN = frozenset("""
a an the of in on at for to from about with and or but is are was were be been being did do does done doing has have
had what whats which who whom whose where when why how any anything anybody some something someone show shows showing
me my mine i im ive id we us our you your yours it its this that these those there here all please pls plz can could
would should will shall may might must let lets tell give get got gotten see look looking want wanna need know find
list just only also really actually maybe kind sort like stuff things thing work worked working lately recent recently
latest so far now today currently yet already new news happened happening going on up via into over per out than then
very much many more most else other others one ones hey hi hello thanks thank thx bot ok okay quick quickly briefly
changed change changes prs pr pull request requests merged merge merges landed land week weeks related around regarding
concerning touching touched touch affecting affected did whatre theres by right anyone anybody everyone umm um uh hmm so ok
""".split())
"""English words that name nothing (function words, politeness, "PRs", "changed"...)."""
FILLER_ZH = re.compile(
    r"一下|一些|哪些|哪个|哪几个|什么|有没有|是否|是不是|有什么|相关的?|有关的?|方面的?|关于|请问|请|帮我|帮忙|给我|我想|想知道|"
    r"看看|看一下|瞧瞧|说说|讲讲|列出|列一下|所有的?|全部|情况|进展|工作|改动|变化|变更|更新|合并了?|提交|最近|目前|现在|"
    r"新东西|东西|啥|大吗|多吗|高吗|一共|总共|都|也|还|就|呢|吗|吧|啊|呀|嘛|的|了|过|在|有|和|与|及|跟|把|被|对|中|里|上|下|我|你|们|这|那|个|些|谁|"
    r"改了|修改了?|动了|涉及|碰了|改|没"
)
"""Chinese filler (particles, "哪些", "相关", "给我", "改了"...), removed as substrings."""
SOCIAL = re.compile(r"^(?:(?:hi|hello|hey|yo|thanks|thank you|thx|ty|ok|okay|cool|nice|great|good (?:morning|afternoon|evening)"
                    r"|bye|你好|您好|嗨|谢谢|多谢|感谢|好的|好|早|早上好|晚安|再见|辛苦了)\s*)+$")
"""A message that only greets or thanks (the help card answers it)."""

_WEEK_WORD = r"(?:week|wk|w)"
"""What names a week before its number: ``w``, ``wk``, ``week`` (one word for both patterns below)."""
ISO_WEEK = re.compile(rf"(?<![0-9])([0-9]{{4}}) ?(?:-|年)? ?(?:{_WEEK_WORD}|第) ?([0-9]{{1,2}})(?![0-9])(?: ?周)?", re.ASCII)
"""An ISO week in cleaned text: ``2026-w19``, ``2026-wk19``, ``2026 week 19``, ``2026年第19周``
(year, week)."""
SHORT_WEEK = re.compile(rf"(?<![0-9a-z/]){_WEEK_WORD} ?([0-9]{{1,2}})(?![0-9])|第 ?([0-9]{{1,2}}) ?周", re.ASCII)
"""A week of the current year: ``w19``, ``wk19``, ``week 19``, ``第19周`` (not inside a word or a
path)."""
THIS_WEEK = re.compile(r"\b(?:this|current) (?:week|wk)\b|本周|这周|这一周|本星期|这个星期|这星期")
"""This week, in English (``wk`` too) or Chinese; one copy for the parser and the entities."""
LAST_WEEK = re.compile(r"\b(?:last|previous|prev|past) (?:week|wk)\b|上周|上一周|上星期|上个星期")
"""Last week, in English (``wk`` too) or Chinese."""
_THIS_MONTH = re.compile(r"\b(?:this|current) month\b|本月|这个月|这月|当月")
_LAST_MONTH = re.compile(r"\b(?:last|previous|past) month\b|上个月|上月")
_NUM_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "eight": 8, "ten": 10, "twelve": 12,
              "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "八": 8, "十": 10}
_N = r"([0-9]{1,2}|two|three|four|five|six|eight|ten|twelve|两|二|三|四|五|六|八|十)"
_LAST_N = re.compile(rf"\b(?:last|past|previous|recent)\s+{_N}\s+weeks?\b|(?:最近|近|过去|前)\s*{_N}\s*(?:个)?\s*(?:周|星期|礼拜)")
_FEW_WEEKS = re.compile(r"\b(?:last|past|recent) (?:few|couple of|several) weeks\b|\b(?:last|past) 30 days\b"
                        r"|最近几周|近几周|这几周|过去几周|(?:最近|近|过去)(?:一|1) ?个月")
_SINCE = re.compile(r"\bsince\s+(?P<a>(?:week\s+)?\S+)|(?:自|从)\s*(?P<b>\S+?)\s*(?:以来|起|开始)|(?P<c>\S+?)\s*(?:以来|之后)")
_PR_REF = re.compile(r"(?ai:(?:\bpr ?#? ?|\bpull request ?#? ?|#|/pull/)([0-9]{1,40})(?![0-9]))")
_PR_URL = re.compile(r"\S*/pull/[0-9]+\S*")
_COUNT = re.compile(r"(?:(?P<lead>\btop|\bfirst|前)|最大的?|最重要的?|重点)\s*(?P<a>[0-9]{1,3})(?![0-9])(?:\s*(?:个|条))?"
                    r"|(?<![0-9])(?P<b>[0-9]{1,3})(?P<unit>\s*(?:个|条))?\s*"
                    r"(?:biggest|largest|most|key|important|top|largest|重点|重要|最大)", re.ASCII)
"""A count asked for: ``top 5``, ``前 5 个``, ``5 biggest``. The number with its measure word (个, 条)
and a leading word that only says "the first N" (``lead``: top, first, 前) are the count and leave
the text with it; the words that say what is counted ("重点", "biggest") stay for the intents."""
MAX_COUNT = 50
"""The most entries one "top N" answer lists: a larger count asks for all of them, up to this."""
_P = r"[a-z0-9_.\-]"
EXTENSIONS = ("py", "pyi", "cu", "cuh", "cpp", "cc", "c", "h", "hpp", "rs", "go", "txt", "toml", "yaml", "yml", "json",
              "md", "rst", "sh", "cmake", "proto", "cfg", "ini", "lock", "dockerfile")
"""File extensions that make a word without ``/`` a file name ("setup.py")."""
PATH_RX = re.compile(rf"(?<![a-z0-9_.\-/])(?P<p>{_P}+(?:/{_P}+)+|/?{_P}*[a-z0-9_\-]\.(?:{'|'.join(EXTENSIONS)}))(?![a-z0-9_.\-/])",
                     re.ASCII)
"""A path-looking word in cleaned (case-folded) text (a ``/`` inside, or a known file extension)."""
_WORD = re.compile(r"[a-z0-9][a-z0-9_.+\-]*|[\u3400-\u9fff\uf900-\ufaff]+")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


class Entities(BaseModel):
    """What one message names (see the module docstring). Tuples keep the order of the text."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    weeks: tuple[str, ...] = ()
    """Week references named, in order (``2026-W19``, ``W20``, ``previous``)."""
    span: RangeRef | None = None
    prs: tuple[int, ...] = ()
    paths: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    """Risk tags named (the risk rules' ``words``, :mod:`chatbot.risks`)."""
    risk: bool = False
    """The words "risk", "risky", "风险" (any tag)."""
    labels: tuple[str, ...] = ()
    modules: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()
    by_alias: tuple[str, ...] = ()
    """The modules named only by an alias ("cuda graph" for ``compilation``): a narrower subject
    than the module, so a message naming nothing else is searched rather than read as the module."""
    n: int | None = None
    """A count asked for ("top 5", "前 3 个"), at most :data:`MAX_COUNT`; 0 when 0 was asked for
    ("top 0": the answer says a count starts at 1, :meth:`chatbot.intent.AnswerContext.zero_count`)."""
    words: tuple[str, ...] = ()
    """Words left over: no entity, no intent word, no filler."""
    social: bool = False

    @property
    def week(self) -> str:
        """The first week named (``current`` when none)."""
        return self.weeks[0] if self.weeks else "current"


def _cut(text: str, m: re.Match[str]) -> str:
    return text[: m.start()] + " " + text[m.end():]


def _count_span(m: re.Match[str]) -> tuple[int, int]:
    """Where a :data:`_COUNT` match's count lies: its leading word, number and measure word."""
    if m.group("a"):
        return (m.start("lead") if m.group("lead") else m.start("a")), m.end()
    return m.start("b"), m.end("unit") if m.group("unit") else m.end("b")


def _week_ref(token: str) -> str | None:
    """``2026-W19`` / ``W19`` / ``this week`` / ``last week`` as a week reference, else None."""
    m = ISO_WEEK.fullmatch(token) or None
    if m:
        return f"{int(m.group(1))}-W{int(m.group(2)):02d}"
    m = SHORT_WEEK.fullmatch(token)
    if m:
        n = int(m.group(1) or m.group(2))
        return f"W{n:02d}" if 1 <= n <= 53 else None
    if LAST_WEEK.fullmatch(token):
        return "previous"
    if THIS_WEEK.fullmatch(token):
        return "current"
    return None


def _weeks(text: str) -> tuple[list[str], str]:
    """``(week refs in text order, text without them)``; an ISO week that does not exist is dropped
    (:func:`chatbot.intent.week_of` reports it)."""
    found: list[tuple[int, str]] = []
    for rx in (ISO_WEEK, SHORT_WEEK, LAST_WEEK, THIS_WEEK):
        while True:
            m = rx.search(text)
            if not m:
                break
            ref = _week_ref(m.group(0).strip())
            if rx is ISO_WEEK:
                year, week = int(m.group(1)), int(m.group(2))
                try:
                    date.fromisocalendar(year, week, 1)
                    ok = MIN_YEAR <= year <= MAX_YEAR
                except ValueError:
                    ok = False
                if not ok:
                    ref = None
            if ref is not None:
                found.append((m.start(), ref))
            text = text[: m.start()] + " " * (m.end() - m.start()) + text[m.end():]
    return [r for _, r in sorted(found)], text


def _span(text: str) -> tuple[RangeRef | None, str]:
    m = _THIS_MONTH.search(text)
    if m:
        return "month:0", _cut(text, m)
    m = _LAST_MONTH.search(text)
    if m:
        return "month:-1", _cut(text, m)
    m = _LAST_N.search(text)
    if m:
        raw = m.group(1) or m.group(2)
        n = int(raw) if raw.isdigit() else _NUM_WORDS[raw]
        return f"weeks:{min(max(n, 1), 26)}", _cut(text, m)
    m = _FEW_WEEKS.search(text)
    if m:
        return "weeks:4", _cut(text, m)
    for m in _SINCE.finditer(text):
        ref = _week_ref(next(g for g in m.groups() if g))
        if ref is not None:
            return f"since:{ref}", _cut(text, m)
    return None, text


def _key(name: str) -> str:
    return " ".join(name.casefold().replace("-", " ").replace("_", " ").split())


class _Gazetteer:
    """Module, topic and label names of one rules file as one longest-first regex."""

    def __init__(self, index: ModuleIndex) -> None:
        names: dict[str, tuple[str, str]] = {}
        primary = {_key(n) for m in index.ids for n in (m, *(index.display(m, lang) for lang in langs()))}
        for key, module in index.names:
            names.setdefault(key, ("module" if key in primary else "alias", module))
        for t in index.topic_names():
            key = _key(t)
            topic = index.topic(t)
            if topic is not None and len(squash(key)) >= 2 and (key not in names or key not in primary):
                names[key] = ("topic", topic)  # a module's alias that names a topic reads as the narrower topic
        for label, aliases in index.label_aliases().items():
            for a in (label, *aliases):
                key = _key(a)
                if key and key not in names and index.resolve(key, fuzzy=False) == (None, ()):
                    names[key] = ("label", label)
        self.names = names
        alts = sorted(names, key=lambda k: (-len(k), k))
        parts = []
        for k in alts:
            body = r"[\s]*".join(re.escape(w) for w in k.split())
            parts.append(body if _CJK.search(k) else rf"(?<![a-z0-9]){body}(?![a-z0-9])")
        self.rx = re.compile("|".join(parts)) if parts else None


_GAZETTEERS: dict[int, tuple[ModuleIndex, _Gazetteer]] = {}


def _gazetteer(index: ModuleIndex) -> _Gazetteer:
    hit = _GAZETTEERS.get(id(index))
    if hit is None or hit[0] is not index:
        hit = (index, _Gazetteer(index))
        if len(_GAZETTEERS) > 16:
            _GAZETTEERS.clear()
        _GAZETTEERS[id(index)] = hit
    return hit[1]


def _add(out: list[str], value: str) -> None:
    if value not in out:
        out.append(value)


def leftover_words(text: str) -> list[str]:
    """The words of ``text`` that are no filler (:data:`FILLER_EN`, :data:`FILLER_ZH`), each once."""
    out: list[str] = []
    for w in _WORD.findall(FILLER_ZH.sub(" ", text)):
        w = w.strip(".-+_")
        if w and w not in FILLER_EN and not w.isdigit() and w not in out:
            out.append(w)
    return out


def extract(text: str, index: ModuleIndex, *, cues: re.Pattern[str] | None = None) -> Entities:
    """The entities of cleaned ``text`` (see the module docstring).

    Args:
        text: cleaned text (:func:`chatbot.queries.clean_text`).
        index: the repository's module, topic and label names.
        cues: the intents' words (removed before the leftover words are taken).
    """
    s = text
    if not s or SOCIAL.match(s):
        return Entities(social=bool(s))
    prs: list[int] = []
    for m in _PR_REF.finditer(s):
        if 0 < int(m.group(1)):
            prs.append(int(m.group(1)))
    s = _PR_URL.sub(" ", s)
    s = _PR_REF.sub(" ", s)
    span, s = _span(s)
    weeks, s = _weeks(s)
    n = None
    cm = _COUNT.search(s)
    if cm:
        n = min(int(cm.group("a") or cm.group("b")), MAX_COUNT)
        a, b = _count_span(cm)
        s = s[:a] + " " + s[b:]
    paths: list[str] = []
    for m in PATH_RX.finditer(s):
        p = m.group("p").strip("/")
        if p and len(p) <= 300:
            _add(paths, p)
    s = PATH_RX.sub(" ", s)
    tags: list[str] = []
    for tag, rx in _TAGS:
        tm = rx.search(s)
        if tm:
            _add(tags, tag)
            s = _cut(s, tm)
    risk = bool(RISK_WORDS.search(s))
    s = RISK_WORDS.sub(" ", s)
    labels: list[str] = []
    known = set(index.label_aliases())
    for label, pattern in LABEL_WORDS:
        rx = re.compile(pattern)
        if rx.search(s) and label in known:
            _add(labels, label)
            s = rx.sub(" ", s)
    modules: list[str] = []
    aliased: list[str] = []
    topics: list[str] = []
    g = _gazetteer(index)
    if g.rx is not None:
        flat = s.replace("-", " ").replace("_", " ")
        for gm in g.rx.finditer(flat):
            key = " ".join(gm.group(0).split())
            kind, value = g.names.get(key, g.names.get(" ".join(key), ("", "")))
            if not kind:
                kind, value = next((v for k, v in g.names.items() if squash(k) == squash(key)), ("", ""))
            if kind in ("module", "alias"):
                _add(modules, value)
                if kind == "alias":
                    _add(aliased, value)
            elif kind == "topic":
                _add(topics, value)
            elif kind == "label":
                _add(labels, value)
        s = g.rx.sub(" ", flat)
    if cues is not None:
        s = cues.sub(_whole_words, s)
    words: list[str] = []
    for w in leftover_words(s):
        mod, _ = index.resolve(w, fuzzy=True) if len(w) >= 5 and not _CJK.search(w) else (None, ())
        if mod is not None and _close(w, index, mod):
            _add(modules, mod)
        else:
            words.append(w)
    return Entities(weeks=tuple(weeks), span=span, prs=tuple(dict.fromkeys(prs)), paths=tuple(paths),
                    tags=tuple(tags), risk=risk, labels=tuple(labels), modules=tuple(modules), topics=tuple(topics),
                    by_alias=tuple(m for m in aliased if m in modules),
                    n=n, words=tuple(words))


def _whole_words(m: re.Match[str]) -> str:
    """An intent word is removed only as whole words ("module" stays inside "nosuchmodule")."""
    s, a, b = m.string, m.start(), m.end()
    inside = (a > 0 and s[a - 1].isalnum() and s[a].isascii() and s[a].isalnum()) or \
             (b < len(s) and s[b].isalnum() and s[b - 1].isascii() and s[b - 1].isalnum())
    return m.group(0) if inside else " "


def _close(word: str, index: ModuleIndex, module: str) -> bool:
    """A leftover word is read as ``module`` only when it spells one of its names with a typo
    (difflib ratio >= 0.8 against a whole name), not as a mere prefix ("models" of "model-runner")."""
    import difflib

    return any(m == module and difflib.SequenceMatcher(None, word, n.replace(" ", "")).ratio() >= 0.8
               for n, m in index.names)


def weeks_of_range(ref: RangeRef, current: IsoWeek, resolve: Iterable[IsoWeek] | None = None) -> list[IsoWeek]:
    """The ISO weeks of a range, oldest first, never after ``current``.

    ``month:0`` is the weeks whose Thursday lies in ``current``'s Thursday's month (``month:-1``
    the month before); ``weeks:N`` the N weeks ending with ``current``; ``since:REF`` the weeks from
    REF (resolved by :func:`resolve_week`) to ``current`` (at most 26).

    Raises:
        ValueError: ``ref`` is no range of that form.
    """
    kind, _, value = ref.partition(":")
    if kind == "weeks":
        out = [current]
        while len(out) < int(value):
            out.append(out[-1].previous())
        return out[::-1]
    if kind == "month":
        thursday = current.monday.toordinal() + 3
        month = date.fromordinal(thursday)
        y, mo = month.year, month.month + int(value)
        while mo < 1:
            y, mo = y - 1, mo + 12
        out = []
        w = current
        for _ in range(10):
            th = date.fromordinal(w.monday.toordinal() + 3)
            if (th.year, th.month) == (y, mo):
                out.append(w)
            elif (th.year, th.month) < (y, mo):
                break
            w = w.previous()
        return out[::-1]
    if kind == "since":
        start = resolve_week(value, current)
        out = [current]
        while out[-1] > start and len(out) < 26:
            out.append(out[-1].previous())
        return out[::-1]
    raise ValueError(f"not a range of weeks: {ref!r}")


def resolve_week(ref: str, current: IsoWeek) -> IsoWeek:
    """A week reference as an :class:`IsoWeek`: ``current``, ``previous``, ``2026-W19``, or ``W19``
    (the latest week 19 not after ``current``).

    Raises:
        chatbot.errors.InputError: an ISO week that does not exist, or a ``Wnn`` no year of the last eight has.
    """
    if ref == "current":
        return current
    if ref == "previous":
        return current.previous()
    if re.fullmatch(r"W[0-9]{2}", ref):
        n = int(ref[1:])
        for year in range(current.year, current.year - 8, -1):  # a year with a week 53 comes every 5-6 years
            try:
                date.fromisocalendar(year, n, 1)
            except ValueError:
                continue
            if IsoWeek(year, n) <= current:
                return IsoWeek(year, n)
        raise InputError(f"W{n:02d} is not a week of the last eight years: name its year, e.g. 2026-W20")
    return IsoWeek.parse(ref)

