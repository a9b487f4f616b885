"""``prhub digest --from W --to W --out DIR``: many weekly digests in one process, one file per week,
format and language, with a progress bar.

File names: ``DIR/<week>.<lang>.<suffix>`` with the format registry's suffix (``2025-W01.en.md``,
``2025-W01.zh.pdf``); formats without a page suffix get ``<format>.json`` (``2025-W01.en.slack.json``).
One :class:`chatbot.digest_service.DigestService` serves every week, so each repository-week is analysed
once for all its languages.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from chatbot.errors import InputError
from chatbot.weeks import IsoWeek
from prhub.formats import FORMATS, OutputFormat

if TYPE_CHECKING:
    from chatbot.models import DigestText


def file_name(week: IsoWeek, lang: str, fmt: OutputFormat) -> str:
    """``2025-W01.en.md``; a format without a page suffix: ``2025-W01.en.slack.json``."""
    return f"{week}.{lang}.{fmt.suffix if fmt.suffix else fmt.name + '.json'}"


def check_out_dir(out: Path | None) -> Path:
    """The ``--out`` directory of a range: created when missing (with its parents).

    Raises:
        InputError: no ``--out``; it exists and is not a directory; it ends in an output format's
            suffix (``--out w.pdf``: a file name where a directory is wanted); it cannot be created.
    """
    if out is None:
        raise InputError("--from/--to writes one file per week: pass --out DIR (a directory)")
    if out.exists() and not out.is_dir():
        raise InputError(f"--out {out}: exists and is not a directory: with --from/--to, --out names a directory "
                         "(one file per week)")
    suffixes = {f".{f.suffix}" for f in FORMATS.values() if f.suffix} | {".txt", ".gz"}
    if not out.exists() and out.suffix.lower() in suffixes:
        raise InputError(f"--out {out}: ends in {out.suffix}, a file name: with --from/--to, --out is a directory, "
                         f"e.g. --out {out.with_suffix('')}/")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"--out {out}: cannot create the directory ({exc.strerror or exc})") from None
    return out


@dataclass(frozen=True)
class WeekFiles:
    """The files written for one week (paths in write order) and its merged-PR count."""

    week: IsoWeek
    prs: int
    files: tuple[Path, ...]


def write_weeks(weeks: Sequence[IsoWeek], langs: Sequence[str], formats: Sequence[OutputFormat], out: Path, *,
                digest: Callable[[IsoWeek, str], DigestText], render: Callable[[DigestText, OutputFormat], bytes],
                progress: Callable[[WeekFiles], None] | None = None) -> list[WeekFiles]:
    """For each week, language and format: ``render(digest(week, lang), fmt)`` written to
    ``out / file_name(week, lang, fmt)`` (see :func:`prhub.output.write_file`: atomic, no partial file).

    Raises:
        InputError: a file cannot be written; errors of ``digest`` and ``render`` (the files of the
            weeks before stay written).
    """
    from prhub.output import write_file

    done = []
    for week in weeks:
        files = []
        total = 0
        for lang in langs:
            d = digest(week, lang)
            total = d.total_prs
            for fmt in formats:
                path = out / file_name(week, lang, fmt)
                write_file(path, render(d, fmt))
                files.append(path)
        item = WeekFiles(week, total, tuple(files))
        done.append(item)
        if progress is not None:
            progress(item)
    return done
