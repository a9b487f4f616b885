"""Escaping of untrusted text (PR titles, paths, logins) for text output formats.

PR text is untrusted: every renderer passes it through the escaper of its format exactly once.
"""

from __future__ import annotations

import re

_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~])")
_WS = re.compile(r"\s+")


def one_line(text: str) -> str:
    """Collapse all whitespace (newlines, tabs, NBSP) to single spaces and trim."""
    return _WS.sub(" ", text).strip()


def md_text(text: str) -> str:
    """Escape untrusted text for inline Markdown (CommonMark/GFM), table cells included.

    ``&``, ``<``, ``>`` become entities (no raw HTML, no autolinks); the characters that start
    emphasis, code, links, tables or strikethrough get a backslash; whitespace is collapsed to
    one line. ``[Bugfix] a_b`` -> ``\\[Bugfix\\] a\\_b`` (renders as ``[Bugfix] a_b``).
    """
    s = one_line(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_SPECIAL.sub(r"\\\1", s)


def md_code(text: str) -> str:
    """An inline code span holding ``text`` verbatim (fenced with more backticks than it contains)."""
    s = one_line(text)
    longest = max((len(m) for m in re.findall(r"`+", s)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if s.startswith("`") or s.endswith("`") or longest else ""
    return f"{fence}{pad}{s}{pad}{fence}"


_SAFE_URL = re.compile(r"^https?://[^\s<>|\"'\\`]+$")


def safe_url(url: str) -> str:
    """``url`` (trimmed) if it is an ``http(s)`` URL with no whitespace, ``<``, ``>``, ``|``, quotes,
    backticks or backslashes, else ``""``. The one URL rule of every output: such a URL cannot break
    out of a Slack ``<url|label>``, a Markdown link, an HTML attribute or a Feishu card."""
    u = url.strip()
    return u if _SAFE_URL.match(u) else ""


def md_url(url: str) -> str:
    """A URL safe inside ``[text](url)``: :func:`safe_url`, with parentheses encoded."""
    return safe_url(url).replace("(", "%28").replace(")", "%29")


REPOSITORY_HOSTS = ("github.com",)
"""Hosts whose URLs stay whole in chat text: the repositories' (every repository prhub reads is on
GitHub; its PR links are ``https://github.com/<repo>/pull/<n>``), subdomains included."""

_BARE_URL = re.compile(r"(?i)(?<![\w.@/-])((?:https?|ftp)://|www\.)([^\s/?#<>|\"'`\\\[\]()]+)")


def break_urls(text: str, hosts: tuple[str, ...] = REPOSITORY_HOSTS) -> str:
    """Untrusted text with every bare URL whose host is not one of ``hosts`` broken, so chat clients
    (Slack, Feishu) do not turn it into a link: the dots of its host become ``[.]``
    (``https://evil.example/phish`` -> ``https://evil[.]example/phish``, ``www.evil.example`` ->
    ``www[.]evil[.]example``; ``https://github.com/o/r/pull/1`` stays). A URL is what starts with
    ``http://``, ``https://``, ``ftp://`` or ``www.``; file names (``config.py``) are left alone.
    """
    def host_of(authority: str) -> str:
        return authority.rsplit("@", 1)[-1].split(":", 1)[0].lower().rstrip(".")

    def fix(m: re.Match[str]) -> str:
        scheme, authority = m.group(1), m.group(2)
        whole = authority if not scheme.lower().startswith("www") else "www." + authority
        host = host_of(whole)
        if any(host == h or host.endswith("." + h) for h in hosts):
            return m.group(0)
        broken = whole.replace(".", "[.]")
        return broken if scheme.lower().startswith("www") else scheme + broken

    return _BARE_URL.sub(fix, text)
