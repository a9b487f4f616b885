"""The ``prhub`` command line (Typer). Thin: parses options, calls bootstrap and the core, prints.

Exit codes: 0 success; 2 bad input or usage (one line on stderr, nothing written); 70 an
internal error (one line; ``PRHUB_DEBUG=1`` shows the traceback).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from datetime import datetime
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from chatbot.digest import build_digest, newest_week, repo_from_urls
from chatbot.errors import InputError, PrhubError
from chatbot.models import Digest
from chatbot.render.markdown import render_markdown
from chatbot.rules import Rules
from chatbot.weeks import IsoWeek, load_zone
from prhub import bootstrap

app = typer.Typer(
    name="prhub",
    help="Weekly digests of the PRs merged into a GitHub repository, for Slack and Feishu.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
rules_app = typer.Typer(help="Rules files: schema and validation.", no_args_is_help=True)
app.add_typer(rules_app, name="rules")


class Lang(str, Enum):
    en = "en"
    zh = "zh"


class DigestFormat(str, Enum):
    markdown = "markdown"
    json = "json"


def write_output(text: str, out: Optional[Path]) -> None:
    """Print ``text`` to stdout, or write it to ``out`` atomically (temp file + rename).

    Raises:
        InputError: the output directory does not exist or is not writable.
    """
    if out is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    parent = out.resolve().parent
    if not parent.is_dir():
        raise InputError(f"--out {out}: directory {parent} does not exist: create it first")
    try:
        fd, tmp = tempfile.mkstemp(dir=parent, prefix=f".{out.name}.", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, out)
    except OSError as exc:
        raise InputError(f"--out {out}: cannot write ({exc.strerror or exc})") from None


def _parse_generated_at(value: Optional[str]) -> Optional[datetime]:
    if value is None:
        return None
    try:
        dt = datetime.fromisoformat(value)
    except ValueError:
        raise InputError(f"--generated-at {value!r}: not an ISO 8601 date-time such as 2026-05-18T01:01:00+08:00") from None
    if dt.tzinfo is None:
        raise InputError(f"--generated-at {value!r}: add a UTC offset, e.g. 2026-05-18T01:01:00Z")
    return dt


def render(digest: Digest, fmt: DigestFormat) -> str:
    """The digest in ``fmt``: Markdown text or the Digest model as indented JSON."""
    if fmt is DigestFormat.json:
        return digest.model_dump_json(indent=2) + "\n"
    return render_markdown(digest)


@app.command()
def digest(
    input: Annotated[list[str], typer.Option("--input", "-i", help="gh pr list --json export (path, .gz, or - for stdin); repeatable")] = [],  # noqa: B006
    sample: Annotated[bool, typer.Option(help=f"use the real vLLM week {bootstrap.SAMPLE_WEEK} shipped with prhub")] = False,
    repo: Annotated[Optional[str], typer.Option(help="owner/name (default: the repository of the input's PR URLs)")] = None,
    week: Annotated[Optional[str], typer.Option(help="ISO week, e.g. 2026-W20 (default: the week of the newest merge)")] = None,
    tz: Annotated[str, typer.Option(help="IANA time zone of the week window")] = "UTC",
    rules: Annotated[Optional[str], typer.Option(help="rules YAML (default: shipped rules for the repository)")] = None,
    lang: Annotated[Lang, typer.Option(help="language of the text")] = Lang.en,
    format: Annotated[DigestFormat, typer.Option("--format", "-f", help="output format")] = DigestFormat.markdown,
    out: Annotated[Optional[Path], typer.Option(help="write to this file instead of stdout")] = None,
    skip_invalid: Annotated[bool, typer.Option(help="skip invalid records (counted as skipped_records) instead of failing")] = False,
    generated_at: Annotated[Optional[str], typer.Option(help="generation time to print in the header (ISO 8601)")] = None,
) -> None:
    """Build the weekly digest of merged PRs and print it (Markdown or JSON)."""
    zone_name = tz
    load_zone(zone_name)
    iso_week = IsoWeek.parse(week) if week else None
    gen = _parse_generated_at(generated_at)
    parsed = bootstrap.read_inputs(input, sample=sample, skip_invalid=skip_invalid)
    repo_name = bootstrap.check_repo(repo) if repo else repo_from_urls(parsed.prs)
    if repo_name is None:
        raise InputError("cannot tell the repository: the input has no PR URLs; pass --repo owner/name")
    rules_obj: Rules = bootstrap.rules_for(repo_name, rules)
    if iso_week is None:
        iso_week = newest_week(parsed.prs, zone_name)
        if iso_week is None:
            raise InputError("the input holds no PRs, so there is no newest week: pass --week YYYY-Www")
    d = build_digest(parsed.prs, repo=repo_name, week=iso_week, rules=rules_obj, tz=zone_name, lang=lang.value,
                     skipped_records=parsed.skipped, generated_at=gen)
    write_output(render(d, format), out)


@rules_app.command("schema")
def rules_schema() -> None:
    """Print the JSON schema of rules files."""
    sys.stdout.write(json.dumps(Rules.model_json_schema(), indent=2, ensure_ascii=False) + "\n")


def digest_schema() -> dict[str, object]:
    """JSON schema of ``prhub digest --format json`` output (committed as docs/digest.schema.json)."""
    schema = Digest.model_json_schema(mode="serialization")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema


@app.command("schema")
def schema_cmd(
    what: Annotated[str, typer.Argument(help="digest or rules")] = "digest",
) -> None:
    """Print a JSON schema: of the digest JSON (default) or of rules files."""
    if what == "digest":
        sys.stdout.write(json.dumps(digest_schema(), indent=2, ensure_ascii=False) + "\n")
    elif what == "rules":
        rules_schema()
    else:
        raise InputError(f"unknown schema {what!r}: use digest or rules")


@rules_app.command("check")
def rules_check(path: Annotated[str, typer.Argument(help="rules YAML file")]) -> None:
    """Validate a rules file; print a one-line summary."""
    from chatbot.rules import load_rules

    r = load_rules(path)
    typer.echo(f"{path}: ok ({len(r.labels)} label rules, {len(r.prefix_aliases)} prefix aliases, {len(r.modules)} modules)")


def main() -> None:
    """Console entry point: run the app, turning errors into one line on stderr and an exit code."""
    try:
        app()  # click handles usage errors itself (exit 2) and raises SystemExit
    except PrhubError as exc:
        sys.stderr.write(f"prhub: error: {exc.user_message}\n")
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        sys.stderr.write("prhub: interrupted\n")
        sys.exit(130)
    except Exception as exc:  # the CLI's single catch-all: one line, no traceback
        if os.environ.get("PRHUB_DEBUG"):
            raise
        sys.stderr.write(f"prhub: internal error: {type(exc).__name__}: {exc} (set PRHUB_DEBUG=1 for details)\n")
        sys.exit(70)

if __name__ == "__main__":
    main()
