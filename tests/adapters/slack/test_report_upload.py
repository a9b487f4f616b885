"""The full report as a Slack file (no public URL): ``SlackDelivery.upload_file`` through slack_sdk's
real ``files_upload_v2`` against the fake Slack, which refuses what Slack refuses."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest
from slack_sdk import WebClient

from adapters.slack.delivery import MAX_FILE_BYTES, SlackDelivery
from adapters.slack.manifest import bot_scopes
from chatbot.errors import DeliveryError
from chatbot.ports import Destination, FileUpload, file_uploader
from tests.fakes.slack_server import FakeSlack
from tests.fakes.slack_socket import FakeSlackSocket

PDF = b"%PDF-1.7\n" + b"x" * 4087  # 4,096 bytes
REPORT = FileUpload(data=PDF, filename="vllm-project-vllm-2026-W20.pdf",
                    title="Full report: vllm-project/vllm 2026-W20", kind="pdf")
DEST = Destination(platform="slack", target="C_DIGEST")


def _delivery(slack: FakeSlack, token: str | None = None) -> SlackDelivery:
    return SlackDelivery(WebClient(token=token or slack.token, base_url=slack.base_url))


def _part1(d: SlackDelivery, dest: Destination = DEST) -> str:
    return d.send(dest, {"text": "part 1", "blocks": []}, thread=None, delivery_key="k1").message_id


def test_the_report_is_shared_in_part_1s_thread_in_three_calls():
    with FakeSlack() as slack:
        d = _delivery(slack)
        assert file_uploader(d) is d and d.max_file_bytes == MAX_FILE_BYTES == 1024 ** 3
        thread = _part1(d)
        file_id = d.upload_file(DEST, REPORT, thread=thread, delivery_key="report-key")
        calls = [(m, e) for m, _, e in slack.calls]
        shared = slack.files_in("C_DIGEST")
    assert calls[1:] == [("files.getUploadURLExternal", None), ("upload", None), ("files.completeUploadExternal", None)]
    assert [(f["id"], f["filename"], f["title"], f["thread_ts"], len(f["data"])) for f in shared] == [
        (file_id, "vllm-project-vllm-2026-W20.pdf", "Full report: vllm-project/vllm 2026-W20", thread, 4096)]
    assert shared[0]["data"] == PDF


def test_a_dm_target_is_opened_first_and_the_file_lands_at_the_top_without_a_thread():
    with FakeSlack() as slack:
        d = _delivery(slack)
        d.upload_file(Destination(platform="slack", target="U_ALICE"), REPORT, thread=None, delivery_key="k")
        assert [(f["channel"], f["thread_ts"]) for f in slack.files] == [("D_ALICE", None)]


@pytest.mark.parametrize("setup, error", [
    (lambda s: None, "invalid_auth"),                       # a wrong token
    (lambda s: s.not_member.add("C_DIGEST"), "not_in_channel"),  # the bot is not in the channel
])
def test_slack_refusals_become_permanent_delivery_errors(setup, error):
    with FakeSlack() as slack:
        thread = _part1(_delivery(slack))
        setup(slack)
        d = _delivery(slack, token="xoxb-wrong" if error == "invalid_auth" else None)
        with pytest.raises(DeliveryError) as exc:
            d.upload_file(DEST, REPORT, thread=thread, delivery_key="k")
        assert exc.value.reason == error and exc.value.permanent
        assert slack.files == []


def test_without_files_write_the_upload_is_refused_with_missing_scope():
    with FakeSlackSocket(scopes=frozenset(s for s in bot_scopes() if s != "files:write")) as slack:
        d = _delivery(slack)
        thread = _part1(d)
        with pytest.raises(DeliveryError) as exc:
            d.upload_file(DEST, REPORT, thread=thread, delivery_key="k")
        assert exc.value.reason == "missing_scope" and exc.value.permanent
        assert ("files.getUploadURLExternal", "missing_scope") in [(m, e) for m, _, e in slack.calls]
        assert slack.files == []


def test_a_file_at_the_limit_goes_and_one_byte_more_is_refused_before_any_call():
    with FakeSlack(max_file_bytes=4096) as slack:
        d = _delivery(slack)
        d.max_file_bytes = 4096
        thread = _part1(d)
        d.upload_file(DEST, REPORT, thread=thread, delivery_key="k")  # exactly the limit
        before = len(slack.calls)
        big = FileUpload(data=PDF + b"x", filename=REPORT.filename, title=REPORT.title)
        with pytest.raises(DeliveryError) as exc:
            d.upload_file(DEST, big, thread=thread, delivery_key="k2")
        assert exc.value.reason == "file_too_large" and exc.value.permanent
        assert len(slack.calls) == before and len(slack.files) == 1


def _raw(slack: FakeSlack, method: str, token: str | None, **params: object) -> dict:
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(slack.base_url + method, data=json.dumps(params).encode(), headers=headers)
    return json.loads(urllib.request.urlopen(req).read())


def test_the_fake_refuses_no_token_a_length_over_its_limit_a_length_mismatch_and_an_unknown_file_id():
    with FakeSlack(max_file_bytes=4096) as slack:
        assert _raw(slack, "files.getUploadURLExternal", None, filename="r.pdf", length=10)["error"] == "not_authed"
        assert _raw(slack, "files.getUploadURLExternal", slack.token, filename="r.pdf", length=4097)["error"] \
            == "file_too_large"
        ok = _raw(slack, "files.getUploadURLExternal", slack.token, filename="r.pdf", length=4096)
        assert ok["ok"] and ok["upload_url"].endswith("/upload/" + ok["file_id"])
        with pytest.raises(urllib.error.HTTPError) as http:  # 4,095 bytes where 4,096 were announced
            urllib.request.urlopen(urllib.request.Request(ok["upload_url"], data=b"x" * 4095, method="POST"))
        assert http.value.code == 400
        done = _raw(slack, "files.completeUploadExternal", slack.token, files=[{"id": ok["file_id"]}], channel_id="C_DIGEST")
        assert done["error"] == "file_not_found"  # its bytes never arrived whole
        never = _raw(slack, "files.completeUploadExternal", slack.token, files=[{"id": "F_NEVER"}], channel_id="C_DIGEST")
        assert never["error"] == "file_not_found" and slack.files == []
