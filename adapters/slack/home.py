"""Slack's App Home tab: the person's subscriptions, with add (a select of modules) and remove buttons.

On ``app_home_opened`` (tab ``home``) the bot publishes the home view (``views.publish``) built
from the core's :func:`chatbot.home.home_of`. A press in the view (``block_actions`` from a
``view`` container: a Remove button, ``unsubscribe``; a module picked in the select,
``subscribe``) goes through the core's chat pipeline like any button of a card (validated,
de-duplicated, stored), then the view is published again so it shows the new state.

View limits (Slack): type ``home``, at most 100 blocks, select options at most 100 with text of
75 chars and values of 150 chars; rows of subscriptions that would not fit are left out and
counted in a context line.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_sdk import WebClient

from adapters.slack.blocks import escape
from adapters.slack.delivery import delivery_error
from adapters.slack.inbound import action_inbound
from chatbot.cards import Action, clip
from chatbot.home import Home, home_of
from chatbot.inbound import ChatService

log = logging.getLogger(__name__)

MAX_VIEW_BLOCKS = 100
MAX_OPTIONS = 100
MAX_OPTION_TEXT = 75
MAX_OPTION_VALUE = 150


def _plain(text: str, most: int = MAX_OPTION_TEXT) -> dict[str, Any]:
    return {"type": "plain_text", "text": clip(text, most) or " ", "emoji": True}


def home_view(home: Home) -> dict[str, Any]:
    """The ``views.publish`` view of ``home``: header, intro, then per repository its name, one
    section per subscription with a Remove button, and a select of the modules left to add."""
    blocks: list[dict[str, Any]] = [
        {"type": "header", "block_id": "home-header", "text": _plain(home.title, 150)},
        {"type": "section", "block_id": "home-intro", "text": {"type": "mrkdwn", "text": escape(home.intro)}},
    ]
    for r, repo in enumerate(home.repos):
        blocks.append({"type": "divider", "block_id": f"repo-{r}-divider"})
        blocks.append({"type": "section", "block_id": f"repo-{r}",
                       "text": {"type": "mrkdwn", "text": f"*{escape(repo.repo)}*"}})
        room = MAX_VIEW_BLOCKS - len(blocks) - 2 - 3 * (len(home.repos) - r - 1)
        shown = repo.subscribed[: max(room, 0)]
        for i, m in enumerate(shown):
            blocks.append({"type": "section", "block_id": f"sub-{r}-{i}",
                           "text": {"type": "mrkdwn", "text": f"• {escape(m.name)} (`{escape(m.id)}`)"},
                           "accessory": {"type": "button", "action_id": f"unsubscribe-{r}-{i}",
                                         "text": _plain(home.remove), "value": m.value}})
        if not repo.subscribed:
            blocks.append({"type": "context", "block_id": f"none-{r}",
                           "elements": [{"type": "mrkdwn", "text": escape(home.none)}]})
        elif len(shown) < len(repo.subscribed):
            blocks.append({"type": "context", "block_id": f"more-{r}",
                           "elements": [{"type": "mrkdwn", "text": f"+{len(repo.subscribed) - len(shown)}"}]})
        options = [{"text": _plain(f"{m.name} ({m.id})"), "value": m.value}
                   for m in repo.available if len(m.value) <= MAX_OPTION_VALUE][:MAX_OPTIONS]
        if options:
            blocks.append({"type": "actions", "block_id": f"add-{r}",
                           "elements": [{"type": "static_select", "action_id": f"subscribe-{r}",
                                         "placeholder": _plain(home.add), "options": options}]})
    return {"type": "home", "callback_id": "prhub-home", "blocks": blocks[:MAX_VIEW_BLOCKS]}


class SlackHome:
    """The App Home listeners.

    Args:
        chat: the chat pipeline (repositories, modules, subscriptions; button presses).
        platform: the platform's registry name (``slack``).
    """

    def __init__(self, chat: ChatService, *, platform: str = "slack") -> None:
        self.chat = chat
        self.platform = platform

    def publish(self, client: WebClient, workspace: str, user: str) -> None:
        """``views.publish`` the home of ``user``; a refusal is logged (one line, no token)."""
        view = home_view(home_of(self.chat, platform=self.platform, workspace=workspace, user=user))
        try:
            client.views_publish(user_id=user, view=view)
        except Exception as exc:  # noqa: BLE001 - SDK and network errors, logged without the token
            log.warning("slack home of %s: views.publish failed: %s", user, delivery_error(exc, "views.publish").reason)

    def on_app_home_opened(self, ack: Any, body: dict[str, Any], event: dict[str, Any], client: WebClient) -> None:
        """``app_home_opened``: ack, then publish the home (only for the Home tab)."""
        ack()
        user = str(event.get("user") or "")
        if event.get("tab") != "home" or not user:
            return
        self.publish(client, str(body.get("team_id") or event.get("team") or ""), user)

    def on_action(self, body: dict[str, Any], action: Action, client: WebClient) -> None:
        """A press in the home view: through the chat pipeline, then the home again."""
        msg = action_inbound(body, action, platform=self.platform)
        self.chat.handle(msg)  # the answer card is the new home itself
        if msg.user:
            self.publish(client, msg.workspace, msg.user)
