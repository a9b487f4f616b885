"""The full report as a Feishu file (no public URL): ``FeishuDelivery.upload_file`` (``im/v1/files``,
then a ``file`` message) against the fake Feishu, which refuses what Feishu refuses; and lark-oapi's
own ``im.v1.file.create`` / ``im.v1.message.create`` against the same fake, so the fake's endpoint
has the shape of the real SDK's requests."""

from __future__ import annotations

import io
import json

import pytest

from adapters.feishu.delivery import MAX_FILE_BYTES, FeishuDelivery, feishu_uuid, lark_client
from chatbot.errors import DeliveryError
from chatbot.ports import Destination, FileUpload, file_uploader
from tests.fakes.feishu_server import FakeFeishu

PDF = b"%PDF-1.7\n" + b"x" * 4087  # 4,096 bytes
REPORT = FileUpload(data=PDF, filename="vllm-project-vllm-2026-W20.pdf",
                    title="完整报告：vllm-project/vllm 2026-W20", kind="pdf")
DEST = Destination(platform="feishu", target="oc_chat", lang="zh")


def _delivery(feishu: FakeFeishu, secret: str | None = None) -> FeishuDelivery:
    return FeishuDelivery(lark_client(feishu.app_id, secret or feishu.app_secret, domain=feishu.url))


def _part1(d: FeishuDelivery) -> str:
    return d.send(DEST, {"schema": "2.0", "body": {"elements": []}}, thread=None, delivery_key="part1").message_id


def test_the_report_is_uploaded_then_posted_as_a_file_reply_in_part_1s_thread():
    with FakeFeishu() as feishu:
        d = _delivery(feishu)
        assert file_uploader(d) is d and d.max_file_bytes == MAX_FILE_BYTES == 30 * 1024 * 1024
        thread = _part1(d)
        mid = d.upload_file(DEST, REPORT, thread=thread, delivery_key="report-key")
        files = feishu.file_messages()
        paths = [(verb, path, code) for verb, path, _, code in feishu.calls]
    assert paths[-2:] == [("POST", "/open-apis/im/v1/files", 0), ("POST", f"/open-apis/im/v1/messages/{thread}/reply", 0)]
    assert [(m["message_id"], m["reply_to"], m["in_thread"], m["uuid"]) for m in files] == [
        (mid, thread, True, feishu_uuid("report-key"))]
    assert (files[0]["file"]["file_type"], files[0]["file"]["file_name"], files[0]["file"]["data"]) == \
        ("pdf", "vllm-project-vllm-2026-W20.pdf", PDF)


def test_a_second_post_with_the_same_key_within_the_hour_shows_one_file():
    with FakeFeishu() as feishu:
        d = _delivery(feishu)
        first = d.upload_file(DEST, REPORT, thread=None, delivery_key="report-key")
        again = d.upload_file(DEST, REPORT, thread=None, delivery_key="report-key")
        assert first == again and len(feishu.file_messages()) == 1


def test_a_file_that_is_not_pdf_goes_as_stream():
    with FakeFeishu() as feishu:
        d = _delivery(feishu)
        d.upload_file(DEST, FileUpload(data=b"<html></html>", filename="r.html", title="r", kind="html"),
                      thread=None, delivery_key="k")
        assert [m["file"]["file_type"] for m in feishu.file_messages()] == ["stream"]


def test_a_file_at_the_limit_goes_and_one_byte_more_or_an_empty_one_is_refused_before_any_call():
    with FakeFeishu(max_file_bytes=4096) as feishu:  # the 30 MB limit, scaled down (pinned above)
        d = _delivery(feishu)
        d.max_file_bytes = 4096
        d.upload_file(DEST, REPORT, thread=None, delivery_key="k1")  # exactly the limit
        before = len(feishu.calls)
        for data, reason in ((PDF + b"x", "file_too_large"), (b"", "file_empty")):
            with pytest.raises(DeliveryError) as exc:
                d.upload_file(DEST, FileUpload(data=data, filename="r.pdf", title="r"), thread=None, delivery_key="k2")
            assert exc.value.reason == reason and exc.value.permanent
        assert len(feishu.calls) == before and len(feishu.file_messages()) == 1


def test_a_refused_token_missing_permission_or_server_error_posts_nothing():
    with FakeFeishu(granted=frozenset({"im:message"})) as feishu:
        with pytest.raises(DeliveryError) as exc:
            _delivery(feishu).upload_file(DEST, REPORT, thread=None, delivery_key="k")
        assert exc.value.reason == "99991672" and exc.value.permanent  # im:resource not granted
    with FakeFeishu() as feishu:
        with pytest.raises(DeliveryError) as exc:
            _delivery(feishu, secret="wrong").upload_file(DEST, REPORT, thread=None, delivery_key="k")
        assert exc.value.reason == "token_10014" and exc.value.permanent
        feishu.fail_files()
        with pytest.raises(DeliveryError) as exc:
            _delivery(feishu).upload_file(DEST, REPORT, thread=None, delivery_key="k")
        assert exc.value.reason == "99991000" and not exc.value.permanent
        assert feishu.files == {} and feishu.file_messages() == []


def _post(feishu: FakeFeishu, path: str, token: str | None, **kw: object) -> dict:
    import requests

    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    return requests.post(feishu.url + path, headers=headers, timeout=5, **kw).json()


def test_the_fake_refuses_a_missing_token_a_wrong_file_type_a_large_file_and_an_unknown_file_key():
    with FakeFeishu(max_file_bytes=4096) as feishu:
        def upload(token, file_type="pdf", data=PDF):
            return _post(feishu, "/open-apis/im/v1/files", token, data={"file_type": file_type, "file_name": "r.pdf"},
                         files={"file": ("r.pdf", data)})["code"]

        assert upload(None) == 99991661
        assert upload("t-wrong") == 99991663
        assert upload(feishu.tenant_token, file_type="png") == 234001
        assert upload(feishu.tenant_token, data=PDF + b"x") == 234006
        assert upload(feishu.tenant_token, data=PDF) == 0  # exactly the limit
        sent = _post(feishu, "/open-apis/im/v1/messages?receive_id_type=chat_id", feishu.tenant_token,
                     json={"receive_id": "oc_chat", "msg_type": "file", "content": json.dumps({"file_key": "file_v3_never"})})
        assert sent["code"] == 230001 and feishu.file_messages() == []


def test_lark_oapi_uploads_and_sends_a_file_through_the_fake():
    lark = pytest.importorskip("lark_oapi")
    from lark_oapi.api.im.v1 import (CreateFileRequest, CreateFileRequestBody, CreateMessageRequest,
                                     CreateMessageRequestBody)

    with FakeFeishu() as feishu:
        client = lark.Client.builder().app_id(feishu.app_id).app_secret(feishu.app_secret).domain(feishu.url).build()
        up = client.im.v1.file.create(CreateFileRequest.builder().request_body(
            CreateFileRequestBody.builder().file_type("pdf").file_name("r.pdf").file(io.BytesIO(PDF)).build()).build())
        assert up.success(), up.msg
        sent = client.im.v1.message.create(CreateMessageRequest.builder().receive_id_type("chat_id").request_body(
            CreateMessageRequestBody.builder().receive_id("oc_chat").msg_type("file")
            .content(json.dumps({"file_key": up.data.file_key})).build()).build())
        assert sent.success(), sent.msg
        assert [m["file"]["data"] for m in feishu.file_messages()] == [PDF]
