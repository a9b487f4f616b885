"""``prhub slack ...``: the Slack platform's command group (``Platform.cli``)."""

from __future__ import annotations

import os
import sys
from typing import Annotated, Optional

import typer

from adapters.platform import check_public_url
from chatbot.errors import InputError

slack_app = typer.Typer(help="The Slack app: its manifest.", no_args_is_help=True)


@slack_app.command("manifest")
def slack_manifest_cmd(
    http: Annotated[bool, typer.Option("--http", help="HTTP request URLs instead of Socket Mode")] = False,
    public_url: Annotated[Optional[str], typer.Option(help="with --http: base URL of prhub serve (default: $PRHUB_PUBLIC_URL)")] = None,
    name: Annotated[str, typer.Option(help="the app's display name")] = "prhub",
) -> None:
    """Print the Slack app manifest (scopes, bot events, /prhub, interactivity, Socket Mode on or off) as YAML."""
    from adapters.slack.manifest import manifest_yaml

    base = check_public_url(public_url if public_url else os.environ.get("PRHUB_PUBLIC_URL", ""))
    if http and not base:
        raise InputError("--http needs the public URL of prhub serve: pass --public-url https://... or set PRHUB_PUBLIC_URL")
    sys.stdout.write(manifest_yaml(name=name, socket_mode=not http, public_url=base))
