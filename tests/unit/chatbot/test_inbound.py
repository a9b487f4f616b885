"""Admin rights of a chat sender (chatbot/inbound.py ``ChatService.requester``): ``WORKSPACE:USER``
among the admins of the message's own platform.

Kills the mutation that looks the sender up in every platform's admins (``frozenset().union(*admins
.values())``): a Slack admin ``T1:U1`` would then manage Feishu subscriptions as tenant ``T1`` user
``U1``; the endpoint tests configure one admin per platform with different ids, so none noticed.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from adapters.storage import SqlStore
from chatbot.inbound import ChatService, InboundMessage
from chatbot.queries import Responder
from prhub.clock import SYSTEM_CLOCK

NOW = datetime(2026, 5, 18, 9, 0, tzinfo=timezone.utc)
ADMINS = {"slack": ["T1:U1"], "feishu": ["tk1:ou_1"]}


@pytest.fixture
def chat(tmp_path):
    store = SqlStore.open(f"sqlite:///{tmp_path / 'prhub.db'}", clock=SYSTEM_CLOCK)
    responder = Responder(digest_provider=None, clock=lambda: NOW, repo="o/r")  # type: ignore[arg-type]
    yield ChatService(responders=[responder], events=store, clock=lambda: NOW, admins=ADMINS)
    store.close()


@pytest.mark.parametrize("platform,workspace,user,admin", [
    ("slack", "T1", "U1", True),
    ("feishu", "tk1", "ou_1", True),
    ("feishu", "T1", "U1", False),     # Slack's admin id, sent from Feishu
    ("slack", "tk1", "ou_1", False),   # Feishu's admin id, sent from Slack
    ("console", "T1", "U1", False),    # a platform without admins
    ("slack", "T2", "U1", False),      # the same user id in another workspace
    ("slack", "", "U1", False),        # no workspace: never an admin
], ids=["slack-admin", "feishu-admin", "slack-id-on-feishu", "feishu-id-on-slack", "no-admins", "other-workspace",
        "no-workspace"])
def test_an_admin_is_one_of_the_messages_own_platform(chat, platform, workspace, user, admin):
    msg = InboundMessage(platform=platform, workspace=workspace, user=user, channel="C1", text="hi")
    assert chat.requester(msg).is_admin is admin
