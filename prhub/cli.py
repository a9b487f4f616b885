"""The ``prhub`` command line (Typer). Thin: parses options, calls bootstrap and the core, prints.

Exit codes: 0 success; 2 bad input or usage (one line on stderr, nothing written); 70 an
internal error (one line; ``PRHUB_DEBUG=1`` shows the traceback).
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from collections.abc import Sequence
from datetime import datetime
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Optional

from typing import TYPE_CHECKING

import typer

from chatbot.errors import InputError, PrhubError
from chatbot.i18n import DEFAULT_LANG, langs
from chatbot.weeks import IsoWeek, load_zone
from prhub import platforms
from prhub.formats import FORMATS
from prhub.options import SAMPLE_WEEK, DigestSource

if TYPE_CHECKING:  # imported where used: ``import prhub.cli`` stays under 0.25 s CPU (no pydantic, no rules)
    from chatbot.models import DigestText, PullRequest
    from scheduler.config import LLMSettings

app = typer.Typer(
    name="prhub",
    help=f"Weekly digests of the PRs merged into a GitHub repository, for {' and '.join(platforms.display_names())}.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
rules_app = typer.Typer(help="Rules files: schema and validation.", no_args_is_help=True)
app.add_typer(rules_app, name="rules")


Lang = Enum("Lang", {name: name for name in langs()}, type=str)  # type: ignore[misc]
"""``--lang`` choices: the languages with a catalog (:func:`chatbot.i18n.langs`)."""


DigestFormat = Enum("DigestFormat", {name: name for name in FORMATS}, type=str)  # type: ignore[misc]
"""``--format`` choices: the output-format registry (:data:`prhub.formats.FORMATS`)."""


class TrendsFormat(str, Enum):
    markdown = "markdown"
    json = "json"
    html = "html"


AskFormat = Enum("AskFormat", {"text": "text", **{name: name for name, p in platforms.registry().items() if p.payload},  # type: ignore[misc]
                               "json": "json"}, type=str)
"""``prhub ask --format`` choices: text, each registered platform's payload, json."""


# Options shared by several commands (one definition each).
InputOpt = Annotated[list[str], typer.Option("--input", "-i", help="gh pr list --json export (path, .gz, or - for stdin); repeatable")]
SampleOpt = Annotated[bool, typer.Option(help=f"use the real vLLM week {SAMPLE_WEEK} shipped with prhub")]
RepoOpt = Annotated[Optional[str], typer.Option(help="owner/name (default: the repository of the input's PR URLs)")]
RulesOpt = Annotated[Optional[str], typer.Option(help="rules YAML (default: shipped rules for the repository)")]
DbOpt = Annotated[Optional[str], typer.Option("--db", metavar="URL",
                                              help="PR store URL (default: $PRHUB_DATABASE_URL, else ~/.local/share/prhub/prhub.db)")]
ConfigOpt = Annotated[Optional[str], typer.Option("--config", "-c", metavar="FILE",
                                                  help="bot config YAML (default: $PRHUB_CONFIG)")]


def write_output(text: str, out: Optional[Path]) -> None:
    """Print ``text`` to stdout, or write it to ``out`` (see :func:`prhub.output.write_file`).

    Raises:
        InputError: ``out`` cannot be written.
    """
    if out is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    from prhub.output import write_file

    write_file(out, text)


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


def render(digest: DigestText, fmt: DigestFormat) -> str:
    """The digest in a text format of the registry (:data:`prhub.formats.FORMATS`)."""
    from prhub.formats import Rendering, output_format

    return output_format(fmt.value).render(Rendering(digest)).decode("utf-8")


@app.command()
def digest(
    input: InputOpt = [],  # noqa: B006
    sample: SampleOpt = False,
    repo: RepoOpt = None,
    week: Annotated[Optional[str], typer.Option(help="ISO week, e.g. 2026-W20 (default: the week of the newest merge)")] = None,
    tz: Annotated[str, typer.Option(help="IANA time zone of the week window")] = "UTC",
    rules: RulesOpt = None,
    lang: Annotated[list[Lang], typer.Option(help="language of the text (repeatable with --from/--to)")] = [Lang(DEFAULT_LANG)],  # noqa: B006
    format: Annotated[list[DigestFormat], typer.Option("--format", "-f", help="output format (repeatable with --from/--to)")] = [DigestFormat.markdown],  # type: ignore[attr-defined]  # noqa: B006
    out: Annotated[Optional[Path], typer.Option(help="write to this file instead of stdout (with --from/--to: a directory)")] = None,
    skip_invalid: Annotated[bool, typer.Option(help="skip invalid records (counted as skipped_records) instead of failing")] = False,
    generated_at: Annotated[Optional[str], typer.Option(help="generation time to print in the header (ISO 8601)")] = None,
    source: Annotated[Optional[DigestSource], typer.Option(help="where PRs come from (default: file with --input/--sample, else store)")] = None,
    db: DbOpt = None,
    refresh: Annotated[bool, typer.Option(help="with --source github: fetch the week again even when the stored copy is final")] = False,
    llm: Annotated[bool, typer.Option("--llm", help="word the summary with the model of PRHUB_LLM_BASE_URL/PRHUB_LLM_MODEL (validated; cached in the store)")] = False,
    llm_timeout: Annotated[Optional[float], typer.Option("--llm-timeout", help="with --llm: wall-clock seconds per model request (default 60)")] = None,
    llm_budget: Annotated[Optional[float], typer.Option("--llm-budget", help="with --llm: wall-clock seconds for all model calls of the digest (default 300)")] = None,
    llm_max_input_tokens: Annotated[Optional[int], typer.Option("--llm-max-input-tokens", help="with --llm: the prompt's budget in the model's tokens (default 8000)")] = None,
    from_week: Annotated[Optional[str], typer.Option("--from", help="first ISO week of a range (with --to and --out DIR: one file per week, format and language)")] = None,
    to_week: Annotated[Optional[str], typer.Option("--to", help="last ISO week of the range (default: --from)")] = None,
) -> None:
    """Build the weekly digest of merged PRs: Markdown, JSON, Slack/Feishu payloads, HTML or PDF; with
    --from/--to, every week of the range in one process (files DIR/<week>.<lang>.<suffix>)."""
    from chatbot.digest import newest_week, repo_from_urls, select_repo, write
    from chatbot.digest_service import DigestService
    from prhub import bootstrap

    zone_name = tz
    load_zone(zone_name)
    model = _llm_options(llm, timeout_s=llm_timeout, budget_s=llm_budget, max_input_tokens=llm_max_input_tokens)
    langs = list(dict.fromkeys(x.value for x in lang))
    fmts = list(dict.fromkeys(f.value for f in format))
    if to_week is not None and from_week is None:
        raise InputError("--to needs --from (a range of weeks: --from 2025-W01 --to 2025-W52 --out DIR)")
    if from_week is not None:
        if week is not None:
            raise InputError("pass either --week or --from/--to, not both")
        _digest_range(from_week, to_week, input=input, sample=sample, repo=repo, tz=zone_name, rules=rules, langs=langs,
                      fmts=fmts, out=out, skip_invalid=skip_invalid, generated_at=_parse_generated_at(generated_at),
                      source=source, db=db, refresh=refresh, llm=model)
        return
    if len(langs) > 1 or len(fmts) > 1:
        raise InputError("several --lang or --format values write several files: use --from/--to with --out DIR")
    lang_value, format_value = langs[0], fmts[0]
    iso_week = IsoWeek.parse(week) if week else None
    gen = _parse_generated_at(generated_at)
    src = bootstrap.digest_source(source, has_input=bool(input or sample))
    if src is DigestSource.file:
        parsed = bootstrap.read_inputs(input, sample=sample, skip_invalid=skip_invalid)
    elif src is DigestSource.github:  # fetch the week into the store (0 requests when final), read it back
        iso_week, parsed = bootstrap.read_github(bootstrap.check_repo(repo) if repo else None, iso_week, zone_name, db=db, refresh=refresh)
    else:  # store: the week plus the 7 days before it (context for follow-up fixes)
        iso_week, parsed = bootstrap.read_store(bootstrap.check_repo(repo) if repo else None, iso_week, zone_name, db=db)
    repo_name = bootstrap.check_repo(repo) if repo else repo_from_urls(parsed.prs)
    if repo_name is None:
        raise InputError("cannot tell the repository: the input has no PR URLs; pass --repo owner/name")
    if src is DigestSource.file:  # an input may mix repositories: keep the digest's own
        parsed = dataclasses.replace(parsed, prs=select_repo(parsed.prs, repo_name))
    rules_obj = bootstrap.rules_for(repo_name, rules)
    if iso_week is None:
        iso_week = newest_week(parsed.prs, zone_name)
        if iso_week is None:
            n = parsed.skipped
            skipped = f" ({n} invalid record{'' if n == 1 else 's'} skipped)" if n else ""
            raise InputError(f"the input holds no PRs{skipped}, so there is no newest week: pass --week YYYY-Www")
    step = None
    if model is not None:  # the optional LLM writer between analysis and rendering; its cache is the store
        from prhub.llm import store_step

        step = store_step(model, lambda: bootstrap.open_store(db))
    service = DigestService(lambda _repo, _week: parsed.prs, rules_for=lambda _repo: rules_obj,
                            tz_for=lambda _repo: zone_name, step=step)
    d = service.digest(repo_name, iso_week, langs=(lang_value,), skipped_records=parsed.skipped, generated_at=gen)
    text = write(d, lang_value)  # the one digest, written at output time
    if d.total_prs == 0 and parsed.prs:
        _note_weeks_held(parsed.prs, iso_week, zone_name)
    from prhub.formats import output_format

    if output_format(format_value).needs_report:  # the full report: history from the input or the store
        from prhub.report import check_pdf_out, digest_report_bytes, write_bytes

        check_pdf_out(format_value, out)
        data = digest_report_bytes(text, format_value, prs=parsed.prs, db=db, rules=rules_obj,
                                   from_store=src is not DigestSource.file)
        if out is None:
            sys.stdout.write(data.decode("utf-8"))
        else:
            write_bytes(data, out)
        return
    write_output(render(text, DigestFormat(format_value)), out)


def _note_weeks_held(prs: Sequence[PullRequest], week: IsoWeek, zone_name: str) -> None:
    """On stderr, when the digest's week is empty but the input is not: which weeks the input holds
    (the newest three, with PR counts) and the ``--week`` to pass. The digest itself stays as is."""
    from chatbot.digest import weeks_held

    held = weeks_held(prs, zone_name)
    shown = ", ".join(f"{w} ({n} PR{'' if n == 1 else 's'})" for w, n in held[-3:])
    more = f" and {len(held) - 3} earlier week{'' if len(held) == 4 else 's'}" if len(held) > 3 else ""
    typer.echo(f"note: the input holds no PRs merged in {week} ({zone_name}); it holds {shown}{more}: "
               f"pass --week {held[-1][0]}", err=True)


def _llm_options(llm: bool, **overrides: float | int | None) -> Optional[LLMSettings]:
    """The ``--llm`` settings with the ``--llm-*`` options (None without ``--llm``).

    Raises:
        InputError: an ``--llm-*`` option without ``--llm``, no model configured, an option out of range.
    """
    if not llm:
        given = [name for name, value in overrides.items() if value is not None]
        if given:
            flag = "--llm-" + {"timeout_s": "timeout", "budget_s": "budget"}.get(given[0], given[0].replace("_", "-"))
            raise InputError(f"{flag} needs --llm (the model's options apply only when it writes)")
        return None
    from prhub.llm import require_llm

    return require_llm(**overrides)


def _digest_range(from_week: str, to_week: Optional[str], *, input: list[str], sample: bool, repo: Optional[str],
                  tz: str, rules: Optional[str], langs: list[str], fmts: list[str], out: Optional[Path],
                  skip_invalid: bool, generated_at: Optional[datetime], source: Optional[DigestSource],
                  db: Optional[str], refresh: bool, llm: Optional[LLMSettings]) -> None:
    """``prhub digest --from --to --out DIR``: every week of the range in this process (see
    :mod:`prhub.digest_range`), PRs read once (input files, or the store for the whole range).

    Raises:
        InputError: a bad or reversed range, ``--out`` missing, not a directory or a file name, no
            repository, nothing stored for the range.
    """
    from chatbot.digest import repo_from_urls, select_repo, write
    from chatbot.digest_service import DigestService
    from prhub import bootstrap
    from prhub.digest_range import check_out_dir, write_weeks
    from prhub.formats import Rendering, output_format
    from prhub.progress import week_progress

    weeks = bootstrap.week_range(IsoWeek.parse(from_week), IsoWeek.parse(to_week or from_week))
    directory = check_out_dir(out)
    load_zone(tz)
    src = bootstrap.digest_source(source, has_input=bool(input or sample))
    if src is DigestSource.file:
        parsed = bootstrap.read_inputs(input, sample=sample, skip_invalid=skip_invalid)
    else:
        if repo is None:
            raise InputError("--from/--to without --input needs --repo owner/name to read the PR store")
        if src is DigestSource.github:  # fetch the range into the store (final weeks: 0 requests)
            bootstrap.fetch_github_weeks(bootstrap.check_repo(repo), weeks, tz, db=db, refresh=refresh)
        parsed = bootstrap.read_store_range(bootstrap.check_repo(repo), weeks, tz, db=db)
    repo_name = bootstrap.check_repo(repo) if repo else repo_from_urls(parsed.prs)
    if repo_name is None:
        raise InputError("cannot tell the repository: the input has no PR URLs; pass --repo owner/name")
    prs = select_repo(parsed.prs, repo_name) if src is DigestSource.file else parsed.prs
    rules_obj = bootstrap.rules_for(repo_name, rules)
    step = None
    if llm is not None:
        from prhub.llm import store_step

        step = store_step(llm, lambda: bootstrap.open_store(db))
    service = DigestService(lambda _repo, _week: prs, rules_for=lambda _repo: rules_obj, tz_for=lambda _repo: tz,
                            step=step)
    formats = [output_format(f) for f in fmts]

    def render_one(d: DigestText, fmt: Any) -> bytes:
        if fmt.needs_report:
            from prhub.report import digest_report_bytes

            return digest_report_bytes(d, fmt.name, prs=prs, db=db, rules=rules_obj,
                                       from_store=src is not DigestSource.file)
        return bytes(fmt.render(Rendering(d)))

    with week_progress(f"{repo_name} {weeks[0]}..{weeks[-1]}", len(weeks)) as cb:
        done = write_weeks(weeks, langs, formats, directory, progress=cb, render=render_one,
                           digest=lambda w, lang: write(service.digest(repo_name, w, langs=(lang,), generated_at=generated_at,
                                                                       skipped_records=parsed.skipped), lang))
    n = sum(len(w.files) for w in done)
    typer.echo(f"{repo_name} {weeks[0]}..{weeks[-1]}: {len(done)} weeks, {sum(w.prs for w in done)} PRs, "
               f"{n} files in {directory}")


@app.command("trends")
def trends_cmd(
    repo: Annotated[str, typer.Option(help="owner/name, e.g. vllm-project/vllm")],
    weeks: Annotated[Optional[int], typer.Option(help="this many weeks ending with the newest stored week (default 8)")] = None,
    from_week: Annotated[Optional[str], typer.Option("--from", help="first ISO week (instead of --weeks)")] = None,
    to_week: Annotated[Optional[str], typer.Option("--to", help="last ISO week (default: the newest stored week)")] = None,
    tz: Annotated[str, typer.Option(help="IANA time zone of the week windows")] = "UTC",
    rules: RulesOpt = None,
    lang: Annotated[Lang, typer.Option(help="language of the text")] = Lang(DEFAULT_LANG),
    format: Annotated[TrendsFormat, typer.Option("--format", "-f", help="output format")] = TrendsFormat.markdown,
    out: Annotated[Optional[Path], typer.Option(help="write to this file instead of stdout")] = None,
    db: DbOpt = None,
) -> None:
    """Per-week PR counts, top labels, modules, risk tags and average importance from the PR store, with deltas."""
    from prhub import bootstrap
    from prhub.report import store_trends, trends_output

    name = bootstrap.check_repo(repo)
    t = store_trends(name, weeks=weeks, from_week=from_week, to_week=to_week, tz=tz, db=db,
                     rules=bootstrap.rules_for(name, rules), lang=lang.value)
    write_output(trends_output(t, format.value, lang.value), out)


@app.command("import")
def import_cmd(
    files: Annotated[list[str], typer.Argument(metavar="FILE...", help="gh pr list --json exports (path, .gz, or - for stdin)")],
    repo: Annotated[Optional[str], typer.Option(help="owner/name for every PR (default: each PR's URL)")] = None,
    db: DbOpt = None,
    skip_invalid: Annotated[bool, typer.Option(help="skip invalid records instead of failing")] = False,
) -> None:
    """Load gh-JSON exports into the PR store (upserted by repo and number: importing twice changes nothing)."""
    from prhub import bootstrap

    if repo:
        bootstrap.check_repo(repo)
    with bootstrap.open_store(db) as store:
        counts, skipped = bootstrap.import_exports(files, repo=repo, skip_invalid=skip_invalid, store=store)
        for c in counts:
            typer.echo(f"{c.repo}: {c.prs} PRs, {c.inserted} inserted, {c.updated} updated, {c.unchanged} unchanged")
        typer.echo(f"store: {store.url}" + (f" ({skipped} invalid records skipped)" if skipped else ""))


@app.command("fetch")
def fetch_cmd(
    repo: Annotated[str, typer.Option(help="owner/name, e.g. vllm-project/vllm")],
    from_week: Annotated[str, typer.Option("--from", help="first ISO week, e.g. 2026-W16")],
    to_week: Annotated[Optional[str], typer.Option("--to", help="last ISO week (default: --from)")] = None,
    tz: Annotated[str, typer.Option(help="IANA time zone of the week windows")] = "UTC",
    db: DbOpt = None,
    refresh: Annotated[bool, typer.Option(help="fetch final weeks again (a final week otherwise costs 0 requests)")] = False,
    github_url: Annotated[Optional[str], typer.Option(help="GitHub API base URL (default: $GITHUB_API_URL, else https://api.github.com)")] = None,
    patches: Annotated[bool, typer.Option(help="also fetch file patches (REST, more requests) for the assert-runtime-check risk")] = False,
    points: Annotated[Optional[int], typer.Option("--points-budget", help="GraphQL points to spend per hour at most, 1-10000 (default: $PRHUB_GITHUB_POINTS_BUDGET, else 1000); past it the fetch waits for GitHub's reset")] = None,
) -> None:
    """Fetch merged PRs of the weeks --from..--to from GitHub (token: $GITHUB_TOKEN) into the PR store."""
    from prhub import bootstrap

    weeks = bootstrap.week_range(IsoWeek.parse(from_week), IsoWeek.parse(to_week or from_week))
    budget = bootstrap.points_budget(points)
    outcomes = bootstrap.fetch_github_weeks(
        bootstrap.check_repo(repo), weeks, tz, db=db, refresh=refresh, base_url=github_url, patches=patches,
        points=budget, wait_for_points=True,
        on_week=lambda o: typer.echo(f"{repo} {o.week}: {len(o.prs)} PRs, {o.requests} requests"
                                     + (" (final: read from the store)" if o.cached else f", {o.points} points")),
    )
    used = sum(o.points for o in outcomes)
    typer.echo(f"GraphQL points used: {used:,} (budget {budget:,} an hour)")


@app.command("ask")
def ask_cmd(
    query: Annotated[str, typer.Argument(metavar="QUERY", help='a chat query, e.g. "risks this week", "PR #42202", "本周风险"')],
    input: InputOpt = [],  # noqa: B006
    sample: SampleOpt = False,
    repo: RepoOpt = None,
    rules: RulesOpt = None,
    tz: Annotated[str, typer.Option(help="IANA time zone of the week windows")] = "UTC",
    lang: Annotated[Optional[Lang], typer.Option(help="answer language (default: the query's language)")] = None,
    format: Annotated[AskFormat, typer.Option("--format", "-f", help="text, a chat platform's payload, or json: {intent, repo, week, prs, card}")] = AskFormat.text,  # type: ignore[attr-defined]
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="where to write a file the answer attaches (the full report: PDF, or HTML without a CJK font)")] = None,
) -> None:
    """Answer one chat query from PR files, as the bot would (now = the newest merge of the input)."""
    from chatbot.cards import Attachment
    from chatbot.queries import DigestCache
    from chatbot.rules import Rules as RepoRules
    from prhub.chat import ask
    from prhub.output import write_file

    wrote: list[Path] = []

    def attached(attachment: Attachment, provider: DigestCache, repo_rules: RepoRules) -> None:
        if out is None:
            typer.echo(f"the answer attaches the full report of {attachment.week}: pass --out FILE to write it", err=True)
            return
        from prhub.report import report_attachment

        upload = report_attachment(attachment, provider, repo_rules)
        write_file(out, upload.data)
        wrote.append(out)
        typer.echo(f"wrote {upload.kind.upper()} {upload.filename} ({len(upload.data):,} bytes) to {out}", err=True)

    text = ask(query, inputs=input, sample=sample, repo=repo, rules_file=rules, tz=tz,
               lang=lang.value if lang else None, fmt=format.value, files=attached)
    sys.stdout.write(text)
    if out is not None and not wrote:
        typer.echo(f"--out {out}: not written: this answer attaches no file (ask for the full report)", err=True)


class ProseFormat(str, Enum):
    text = "text"
    json = "json"


@app.command("check-prose")
def check_prose_cmd(
    file: Annotated[str, typer.Argument(help="sentences: plain text, one a line, or JSONL {\"text\", \"prs\", \"facts\"} (- for stdin)")],
    input: InputOpt = [],  # noqa: B006
    sample: SampleOpt = False,
    week: Annotated[Optional[str], typer.Option(help="ISO week the text is about, e.g. 2026-W27 (default: the week of the newest merge)")] = None,
    lang: Annotated[Lang, typer.Option(help="the text's language (the digest's)")] = Lang(DEFAULT_LANG),
    repo: RepoOpt = None,
    rules: RulesOpt = None,
    tz: Annotated[str, typer.Option(help="IANA time zone of the week window")] = "UTC",
    format: Annotated[ProseFormat, typer.Option("--format", "-f", help="text, or json: [{text, kept, faults}]")] = ProseFormat.text,
) -> None:
    """Check sentences about a week against its facts with the LLM writer's validator: each number,
    PR, version, date, relation, person and direction; print each verdict with its reasons."""
    from chatbot.digest import newest_week, repo_from_urls
    from prhub import bootstrap
    from prhub.check_prose import read_file, render_json, render_text, verdicts, week_facts

    load_zone(tz)
    claims = read_file(file)
    parsed = bootstrap.read_inputs(input, sample=sample, skip_invalid=False)
    repo_name = bootstrap.check_repo(repo) if repo else repo_from_urls(parsed.prs)
    if repo_name is None:
        raise InputError("cannot tell the repository: the input has no PR URLs; pass --repo owner/name")
    iso = week or (str(w) if (w := newest_week(parsed.prs, tz)) else None)
    if iso is None:
        raise InputError("the input holds no PRs, so there is no newest week: pass --week YYYY-Www")
    facts = week_facts(parsed.prs, repo=repo_name, week=iso, lang=lang.value, rules_file=rules, tz=tz)
    out = verdicts(claims, facts)
    sys.stdout.write(render_json(out) if format is ProseFormat.json else render_text(out))


@rules_app.command("schema")
def rules_schema() -> None:
    """Print the JSON schema of rules files."""
    from chatbot.rules import Rules

    sys.stdout.write(json.dumps(Rules.model_json_schema(), indent=2, ensure_ascii=False) + "\n")


def digest_schema() -> dict[str, object]:
    """JSON schema of ``prhub digest --format json`` output (committed as docs/digest.schema.json)."""
    from chatbot.models import DigestText

    schema = DigestText.model_json_schema(mode="serialization")
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


# -- the scheduled bot: config, jobs, run-job, serve (issue 5) ---------------------------------------

config_app = typer.Typer(help="The bot's config file (--config FILE or PRHUB_CONFIG): schema and validation.",
                         no_args_is_help=True)
app.add_typer(config_app, name="config")



@config_app.command("schema")
def config_schema_cmd() -> None:
    """Print the JSON schema of the bot's config file."""
    from prhub.config import config_schema

    sys.stdout.write(json.dumps(config_schema(), indent=2, ensure_ascii=False) + "\n")


@config_app.command("check")
def config_check_cmd(config: ConfigOpt = None) -> None:
    """Validate the config file: one line per repository; exit 2 listing what is missing (rules files,
    the tokens of configured destinations, GITHUB_TOKEN for source: github)."""
    from prhub.checks import config_problems
    from prhub.config import load

    cfg = load(config, require_file=True)
    assert cfg.file is not None
    loaded = cfg.file
    problems = config_problems(loaded, cfg.env)
    for p in problems:
        sys.stderr.write(f"prhub: error: {p}\n")
    if problems:  # the per-repository lines say "valid": only when everything passed
        raise typer.Exit(2)
    for r in loaded.config.repositories:
        typer.echo(f"{r.repo}: {r.schedule.crontab} ({r.schedule.timezone}), {len(r.destinations)} destination(s), source {r.source}")


@app.command("doctor")
def doctor_cmd(config: ConfigOpt = None, db: DbOpt = None) -> None:
    """Check every token, scope, destination channel, the database and the GitHub token: one line each, with the fix."""
    from prhub.checks import doctor
    from prhub.config import load

    cfg = load(config)
    checks = doctor(cfg.file, cfg.env, db=db)
    for c in checks:
        typer.echo(c.line())
    if not all(c.ok for c in checks):
        raise typer.Exit(1)


for _p in platforms.registry().values():  # each platform's own commands: `prhub slack manifest`
    if _p.cli is not None:
        app.add_typer(_p.cli(), name=_p.name)


@app.command("jobs")
def jobs_cmd(
    config: ConfigOpt = None,
    now: Annotated[Optional[str], typer.Option(help="list next runs after this ISO 8601 instant (default: now)")] = None,
    count: Annotated[int, typer.Option(min=1, max=52, help="next runs to show per job")] = 1,
    json_out: Annotated[bool, typer.Option("--json", help="JSON instead of a table")] = False,
) -> None:
    """List the scheduled digest jobs and their next run times, in each job's time zone."""
    from prhub.bot import jobs_table, parse_now
    from prhub.config import load_config

    rows = jobs_table(load_config(config), parse_now(now), count=count)
    if json_out:
        sys.stdout.write(json.dumps(rows, indent=2, ensure_ascii=False) + "\n")
        return
    for r in rows:
        typer.echo(f"{r['id']}  {r['schedule']!r} {r['timezone']}  next: {', '.join(r['next_runs'])}  "
                   f"({', '.join(r['next_runs_utc'])})")


@app.command("run-job")
def run_job_cmd(
    kind: Annotated[str, typer.Argument(metavar="weekly", help="the job to run: weekly")],
    repo: Annotated[str, typer.Option(help="a configured owner/name")],
    config: ConfigOpt = None,
    week: Annotated[Optional[str], typer.Option(help="ISO week to digest (default: the week that ended before now)")] = None,
    db: DbOpt = None,
) -> None:
    """Run a repository's weekly job once now: digest, post to every destination (exactly once), slices.

    Exit 0 when posted, held for approval ("waiting for approval") or skipped by an admin; 1 otherwise.
    """
    from prhub.bot import configure_logging, report_lines, run_job_once
    from prhub.config import load_config

    if kind != "weekly":
        raise InputError(f"unknown job {kind!r}: use weekly")
    loaded = load_config(config)
    configure_logging()
    report = run_job_once(loaded, repo, IsoWeek.parse(week) if week else None, db=db)
    for line in report_lines(report):
        typer.echo(line)
    from scheduler.approval import AWAITING, SKIPPED_STATUS

    if report.status not in ("ok", AWAITING, SKIPPED_STATUS):  # held for the admins, or skipped by one: normal
        raise typer.Exit(1)


@app.command("serve")
def serve_cmd(
    config: ConfigOpt = None,
    db: DbOpt = None,
    host: Annotated[Optional[str], typer.Option(help="listen address (default: server.host of the config)")] = None,
    port: Annotated[Optional[int], typer.Option(help="listen port (default: server.port of the config, 8080)")] = None,
) -> None:
    """Run the bot: Slack/Feishu endpoints, /healthz, /metrics and the weekly scheduler, in one process."""
    from prhub.bot import configure_logging, serve
    from prhub.config import load_config

    loaded = load_config(config)
    configure_logging()
    serve(loaded, db=db, host=host, port=port)


def main() -> None:
    """Console entry point: run the app, turning errors into one line on stderr and an exit code."""
    try:
        code = app(prog_name="prhub", standalone_mode=False)  # usage errors come here, not to Typer's multi-line box
    except typer.Abort:  # Ctrl-C or EOF at a prompt
        sys.stderr.write("prhub: interrupted\n")
        sys.exit(130)
    except typer.TyperException as exc:  # Typer's (vendored) click errors: usage errors, unreadable files
        if type(exc).__name__ == "NoArgsIsHelpError":  # ``prhub`` / ``prhub rules`` alone: help was printed
            sys.exit(2)
        sys.stderr.write(usage_error_line(exc) + "\n")
        sys.exit(getattr(exc, "exit_code", 2))
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
    sys.exit(code if isinstance(code, int) else 0)


def usage_error_line(exc: Exception) -> str:
    """One line for a usage error of Typer's click (unknown option, bad choice, missing value):
    ``prhub: error: <what> (see <command> --help)``; the README promises one line on stderr and exit 2."""
    message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
    what = " ".join(message.replace("Value error, ", "").split()).rstrip(".")
    ctx = getattr(exc, "ctx", None)
    return f"prhub: error: {what} (see {ctx.command_path if ctx is not None else 'prhub'} --help)"


if __name__ == "__main__":
    main()
