"""Fetch and digest-range progress on the terminal: a Rich progress bar when stderr is a TTY, plain lines otherwise.

The GitHub adapter stays UI-free: it calls a ``progress(FetchProgress)`` callback that this module
provides.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO


def _bar(out: TextIO, unit: str, *, terminal: bool | None = None, bar_width: int = 40) -> Any:
    """A transient Rich progress bar on ``out``: description, bar (``bar_width`` columns), done/total,
    ``unit`` text, elapsed time (``terminal``: Rich's ``force_terminal``; None lets Rich detect it)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(TextColumn("[bold]{task.description}"), BarColumn(bar_width=bar_width), MofNCompleteColumn(), TextColumn(unit),
                    TimeElapsedColumn(), console=Console(file=out, force_terminal=terminal), transient=True)


@contextmanager
def fetch_progress(label: str, *, stream: TextIO | None = None, tty: bool | None = None) -> Iterator[Callable[[Any], None]]:
    """A progress callback for one fetch named ``label`` (``vllm-project/vllm 2026-W20``).

    On a terminal: a Rich bar of PRs listed out of PRs matched, with the page count. Otherwise one
    plain line per page on ``stream`` (stderr): ``prhub: fetch <label>: page 3, 75/217 PRs``.
    """
    out = stream if stream is not None else sys.stderr
    is_tty = out.isatty() if tty is None else tty
    if not is_tty:
        def plain(p: Any) -> None:
            total = f"/{p.matched}" if p.matched is not None else ""
            out.write(f"prhub: fetch {label}: {p.phase} page {p.pages}, {p.prs}{total} PRs\n")
            out.flush()

        yield plain
        return
    with _bar(out, "PRs · {task.fields[pages]} pages") as bar:
        task = bar.add_task(label, total=None, pages=0)

        def rich_cb(p: Any) -> None:
            bar.update(task, completed=p.prs, total=p.matched if p.matched is not None else None, pages=p.pages)

        yield rich_cb


@contextmanager
def week_progress(label: str, total: int, *, stream: TextIO | None = None,
                  tty: bool | None = None) -> Iterator[Callable[[Any], None]]:
    """A progress callback for ``total`` weeks (``prhub digest --from --to``), called once per finished
    week with an object having ``week``, ``prs`` and ``files``.

    On a terminal: a Rich bar of weeks done out of ``total``. Otherwise one plain line per week on
    ``stream`` (stderr): ``prhub: digest <label>: 2025-W03 (3/52), 88 PRs, 2 files``.
    """
    out = stream if stream is not None else sys.stderr
    is_tty = out.isatty() if tty is None else tty
    if not is_tty:
        count = [0]

        def plain(w: Any) -> None:
            count[0] += 1
            out.write(f"prhub: digest {label}: {w.week} ({count[0]}/{total}), {w.prs} PRs, {len(w.files)} files\n")
            out.flush()

        yield plain
        return
    with _bar(out, "weeks · {task.fields[week]}") as bar:
        task = bar.add_task(label, total=total, week="")

        def rich_cb(w: Any) -> None:
            bar.update(task, advance=1, week=str(w.week))

        yield rich_cb


@contextmanager
def steps_progress(label: str, *, stream: TextIO | None = None, tty: bool | None = None,
                   spent: Callable[[], tuple[int, int]] | None = None) -> Iterator[Callable[[int, int], None] | None]:
    """A ``progress(done, total)`` callback drawing a Rich bar of the LLM writer's model steps (key-PR
    summaries, then the digest prose; :data:`chatbot.writer.Progress`) on ``stream`` (stderr) when it
    is a terminal, with the calls and tokens so far from ``spent()`` (``(calls, tokens)``); None
    otherwise, so that piped output and stderr stay as they are."""
    out = stream if stream is not None else sys.stderr
    if not (out.isatty() if tty is None else tty):
        yield None
        return
    counts = spent or (lambda: (0, 0))
    with _bar(out, "steps · {task.fields[calls]} calls · {task.fields[tokens]} tok", terminal=True, bar_width=6) as bar:
        task = bar.add_task(label, total=None, calls=0, tokens="0")

        def cb(done: int, total: int) -> None:
            calls, tokens = counts()
            bar.update(task, completed=done, total=total, calls=calls, tokens=f"{tokens:,}")

        yield cb
