"""``prhub digest --format slack|feishu`` and ``prhub ask`` as a user runs them."""

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT, shared_file

ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
ENV.pop("PRHUB_DEBUG", None)
ENV.pop("PRHUB_PUBLIC_URL", None)


def prhub(*args, env=None):
    return subprocess.run([sys.executable, "-m", "prhub", *args], capture_output=True, text=True, env=env or ENV,
                          cwd=ROOT, timeout=120)


def test_digest_slack_messages():
    r = prhub("digest", "--sample", "--format", "slack")
    assert r.returncode == 0, r.stderr
    msgs = json.loads(r.stdout)["messages"]
    assert len(msgs) >= 2 and all(set(m) == {"text", "blocks"} for m in msgs)
    assert all(len(m["blocks"]) <= 50 for m in msgs)
    assert not any(b["type"] == "actions" for m in msgs for b in m["blocks"])  # no public URL: no report button


def test_digest_feishu_cards_with_public_url():
    r = prhub("digest", "--sample", "--format", "feishu", "--lang", "zh",
              env={**ENV, "PRHUB_PUBLIC_URL": "https://prhub.example.com/"})
    assert r.returncode == 0, r.stderr
    cards = json.loads(r.stdout)["cards"]
    assert all(c["schema"] == "2.0" and "header" in c for c in cards)
    assert all(len(json.dumps(c, ensure_ascii=False, separators=(",", ":")).encode()) <= 25_000 for c in cards)
    buttons = [e for c in cards for e in c["body"]["elements"] if e["tag"] == "button"]
    assert buttons and buttons[0]["behaviors"][0]["default_url"] == "https://prhub.example.com/reports/vllm-project/vllm/2026-W20"


def test_bad_public_url_is_one_line():
    r = prhub("digest", "--sample", "--format", "slack", env={**ENV, "PRHUB_PUBLIC_URL": "not a url"})
    assert r.returncode == 2 and r.stderr.startswith("prhub: error: PRHUB_PUBLIC_URL") and r.stderr.count("\n") == 1


@pytest.mark.parametrize("query,expected", [
    ("PR #39568", "core-path change: core path vllm/v1/core/sched/scheduler.py"),
    ("本周风险", "风险 · vllm-project/vllm 2026-W20"),
    ("attention this week", "attention backends (attention) · 2026-W20"),
    ("help", "prhub: what you can ask"),
    ("subscribe spec-decode", "not available here"),
    ("risks wk19", "No merged PRs found for 2026-W19."),
    ("risks 2026-wk19", "No merged PRs found for 2026-W19."),
])
def test_ask_text(query, expected):
    r = prhub("ask", query, "--sample")
    assert r.returncode == 0, r.stderr
    assert expected in r.stdout


@pytest.mark.parametrize("query", ["前5个重点PR", "本周前5个重点PR"])
def test_ask_top_n_in_chinese_ignores_no_word(query):
    """"前" is part of the count: it was answered with "已忽略“前”" (Ignored “前”)."""
    r = prhub("ask", query, "--sample")
    assert r.returncode == 0, r.stderr
    assert "已忽略" not in r.stdout and r.stdout.count("\n  - #") == 5 and "及另外 19 个重点 PR" in r.stdout


@pytest.mark.parametrize("query,prs,line", [
    ("top 0", 0, "A count of 0 lists nothing: ask for 1 to 50, e.g. “top 5 PRs”."),
    ("前0个重点PR", 0, "数量为 0 时没有可列出的内容：请要 1 到 50 个，例如“前 5 个重点 PR”。"),
    ("0 biggest PRs", 0, "A count of 0 lists nothing: ask for 1 to 50, e.g. “5 biggest PRs”."),
    ("top 1", 1, "and 23 more key PRs"),
    ("top 999", 24, "Key PRs"),
    ("51 biggest PRs", 50, "All 217 merged PRs."),  # no filter: not "217 of 217 PRs in 2026-W20: PRs."
], ids=["top-0", "zh-0", "size-0", "top-1", "top-999-all-24-key", "size-51-capped-50"])
def test_ask_count_bounds(query, prs, line):
    """A count of 0 listed one PR (it was raised to 1); the sample week has 24 key PRs and 217 PRs."""
    r = prhub("ask", query, "--sample", "--format", "json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert len(out["prs"]) == prs and line in json.dumps(out["card"], ensure_ascii=False)


def _with_invalid(tmp_path, bad):
    """The sample week (217 records) followed by ``bad`` invalid ones, as one export."""
    from prhub.bootstrap import sample_path

    path = tmp_path / "week.json"
    path.write_text(json.dumps(json.loads(sample_path().read_text(encoding="utf-8")) + bad), encoding="utf-8")
    return path


NOT_INT = {"number": "x", "title": "t", "mergedAt": "2026-05-12T00:00:00Z"}
NO_DATE = {"number": 5, "title": "t", "mergedAt": "yesterday"}


@pytest.mark.parametrize("cmd", [["ask", "top 3"], ["digest", "--skip-invalid"]], ids=["ask", "digest-skip-invalid"])
@pytest.mark.parametrize("bad,rc,err", [
    ([], 0, ""),
    ([NOT_INT], 0, "note: skipped 1 of 218 records as invalid (the first: invalid record 217 in {p}: number: not an "
                   "integer); fix them in the export (number, title and mergedAt are required) to include them\n"),
    ([NO_DATE, NOT_INT], 0, "note: skipped 2 of 219 records as invalid (the first: invalid record 217 in {p}: mergedAt: "
                            "not a date); fix them in the export (number, title and mergedAt are required) to include "
                            "them\n"),
], ids=["none-invalid-no-line", "one-invalid", "two-invalid-first-named"])
def test_invalid_records_are_told_in_one_line_beside_the_answer(tmp_path, cmd, bad, rc, err):
    """``prhub ask -i`` dropped invalid records silently; both commands now say it alike
    (``bootstrap.skipped_line``)."""
    p = _with_invalid(tmp_path, bad)
    r = prhub(*cmd, "-i", str(p))
    assert (r.returncode, r.stderr) == (rc, err.format(p=p))
    assert "vllm-project/vllm" in r.stdout


@pytest.mark.parametrize("cmd", [["ask", "top 3"], ["digest", "--skip-invalid"]], ids=["ask", "digest-skip-invalid"])
def test_an_input_of_only_invalid_records_is_exit_2_in_one_line(tmp_path, cmd):
    """It said "cannot tell the repository: the input has no PR URLs"."""
    p = tmp_path / "bad.json"
    p.write_text(json.dumps([NOT_INT, NO_DATE]), encoding="utf-8")
    r = prhub(*cmd, "-i", str(p))
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == (f"prhub: error: no valid PR record in the input: skipped 2 of 2 records as invalid (the first: "
                        f"invalid record 0 in {p}: number: not an integer); fix them in the export (number, title and "
                        f"mergedAt are required) to include them\n")


def test_a_title_with_markup_is_shown_as_typed_on_slack_and_feishu(tmp_path):
    """The real W20 title of #39654 holds backticks (`bind_gpu_block_pool()`), here with *, _ and ~
    added: no marker may stay live in either platform's payload."""
    from prhub.bootstrap import sample_path

    records = json.loads(sample_path().read_text(encoding="utf-8"))
    pr = next(r for r in records if r["number"] == 39654)
    pr["title"] = "*Feat* _KV_ ~old~ " + pr["title"]
    path = tmp_path / "week.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    z = "\u200b"
    r = prhub("ask", "PR #39654", "-i", str(path), "--format", "slack")
    assert r.returncode == 0, r.stderr
    blob = json.dumps(json.loads(r.stdout), ensure_ascii=False)
    assert f"{z}*{z}Feat{z}*{z} {z}_{z}KV{z}_{z} {z}~{z}old{z}~{z}" in blob
    assert f"Add {z}`{z}bind_gpu_block_pool(){z}`{z} to KVConnectorBase_V1" in blob
    r = prhub("ask", "PR #39654", "-i", str(path), "--format", "feishu")
    assert r.returncode == 0, r.stderr
    blob = json.dumps(json.loads(r.stdout), ensure_ascii=False)
    assert "&#42;Feat&#42; &#95;KV&#95; &#126;old&#126;" in blob and "&#96;bind_gpu_block_pool()&#96;" in blob


def test_ask_input_now_is_newest_merge_and_lang_override():
    week19 = str(shared_file("vllm", "2026-W19.json"))
    r = prhub("ask", "risks this week", "--input", week19, "--lang", "zh")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("风险 · vllm-project/vllm 2026-W19")
    r = prhub("ask", "上周风险", "--input", week19)
    assert r.returncode == 0 and "未找到 2026-W18 合并的 PR。" in r.stdout


@pytest.mark.parametrize("fmt,key", [("slack", "messages"), ("feishu", "cards")])
def test_ask_payload_formats(fmt, key):
    r = prhub("ask", "PR #42202", "--sample", "--format", fmt)
    assert r.returncode == 0, r.stderr
    assert len(json.loads(r.stdout)[key]) == 1


def _hostile_week(path):
    """300 merged PRs of vllm-project/vllm in 2026-W20, 80 of them risky (core path, no tests), every
    title ~250 chars of mentions, markup and Chinese."""
    records = []
    for i in range(300):
        n = 60000 + i
        risky = i % 15 < 4  # 80 of 300
        title = (f"[Bugfix] <!channel> <@U_ALICE> <at id=all></at> <font color='red'>x</font> *b* `c` & "
                 f"修复注意力内核在长序列下的数值溢出问题 ").ljust(250, "长")
        files = ([{"path": f"vllm/v1/core/sched/m{i}.py", "additions": 140, "deletions": 5}] if risky
                 else [{"path": f"docs/page{i}.md", "additions": 3, "deletions": 1}])
        records.append({"number": n, "title": title, "mergedAt": f"2026-05-{11 + i % 7:02d}T{i % 24:02d}:00:00Z",
                        "url": f"https://github.com/vllm-project/vllm/pull/{n}", "author": {"login": f"dev{i % 40}"},
                        "files": files})
    path.write_text(json.dumps(records))
    return {r["number"] for r in records if r["files"][0]["path"].startswith("vllm/")}


def test_hostile_300_pr_week_stays_within_platform_limits(tmp_path):
    risky = _hostile_week(tmp_path / "hostile.json")
    assert len(risky) == 80
    env = {**ENV, "PRHUB_PUBLIC_URL": "https://prhub.example.org"}
    r = prhub("digest", "--input", str(tmp_path / "hostile.json"), "--format", "slack", env=env)
    assert r.returncode == 0, r.stderr
    msgs = json.loads(r.stdout)["messages"]
    assert len(msgs) <= 4  # a 300-PR week: summary, top risks, key PRs
    listed = set()
    for m in msgs:
        assert 0 < len(m["text"]) <= 3000 and len(m["blocks"]) <= 50
        total = 0
        for b in m["blocks"]:
            if b["type"] == "header":
                assert len(b["text"]["text"]) <= 150
            if b["type"] == "section":
                if "text" in b:
                    assert 1 <= len(b["text"]["text"]) <= 3000
                    total += len(b["text"]["text"])
                assert len(b.get("fields", [])) <= 10 and all(len(f["text"]) <= 2000 for f in b.get("fields", []))
        assert total <= 12000
        body = json.dumps(m["blocks"])
        assert "<!channel>" not in body and "<@U_ALICE>" not in body
        listed |= {n for n in risky if f"/pull/{n}|" in body}
    assert listed and listed <= risky  # the top risks and key PRs; the report lists all 80
    assert "8 of 80 shown; all in the full report" in json.dumps(msgs)
    r = prhub("digest", "--input", str(tmp_path / "hostile.json"), "--format", "feishu", "--lang", "zh", env=env)
    assert r.returncode == 0, r.stderr
    cards = json.loads(r.stdout)["cards"]
    seen = set()
    for c in cards:
        raw = json.dumps(c, ensure_ascii=False)
        assert len(raw.encode("utf-8")) <= 25_000
        assert "<at " not in raw and "<font" not in raw and "\\\\[Bugfix" not in raw
        seen |= {n for n in risky if f"[#{n}](https://github.com/vllm-project/vllm/pull/{n})" in raw}
    assert seen and seen <= risky and len(cards) <= 4
    assert "已显示 80 个中的 8 个，全部见完整报告" in json.dumps(cards, ensure_ascii=False)


def test_ask_full_report_writes_the_attached_file_to_out(tmp_path):
    """The chat "full report" answer attaches the report; ``prhub ask`` writes it where ``--out`` says
    (the PDF of the sample week, in the query's language), says where on stderr, and without ``--out``
    says how to get it instead of promising a file that never comes."""
    out = tmp_path / "report.pdf"
    r = prhub("ask", "--sample", "完整报告", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "2026-W20 的完整报告随后以文件发送" in r.stdout
    data = out.read_bytes()
    assert data.startswith(b"%PDF-") and len(data) > 100_000
    assert f"wrote PDF vllm-project-vllm-2026-W20-zh.pdf ({len(data):,} bytes) to {out}" in r.stderr

    r = prhub("ask", "--sample", "full report")
    assert r.returncode == 0 and "follows as a file" in r.stdout
    assert r.stderr.strip() == "the answer attaches the full report of 2026-W20: pass --out FILE to write it"

    other = tmp_path / "risks.pdf"
    r = prhub("ask", "--sample", "risks", "--out", str(other))
    assert r.returncode == 0 and not other.exists()
    assert "not written: this answer attaches no file" in r.stderr
