"""Chat query latency on the real vLLM week 2026-W20 (a benchmark, not a test).

Answers every line of ``benchmarks/queries.txt`` (1,000 queries: every intent, English and
Chinese) in this process: ``parse`` + ``answer`` + Slack Block Kit rendering of the answer card,
with now = the newest merge of the week, against a :class:`chatbot.queries.DigestCache` that holds
one digest per (week, lang). Subscription queries go to an in-memory book. The digests the queries
need are built once before timing (``warmup_ms`` reports that); then each query is timed alone.
Prints ``p50_ms``, ``p99_ms`` and ``max_ms`` (target p99 <= 50 ms).

Usage: python benchmarks/query_latency.py [--week PATH] [--queries PATH] [--rounds N]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from adapters.export.ghjson import load_exports  # noqa: E402
from adapters.slack.blocks import card_to_messages  # noqa: E402
from adapters.slack.inbound import strip_markup  # noqa: E402
from chatbot.queries import DigestCache, ModuleIndex, answer, parse  # noqa: E402
from chatbot.rules import shipped_rules  # noqa: E402
from chatbot.subscriptions import Requester  # noqa: E402
from tests.fakes.subscriptions import MemoryBook  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--week", default=str(ROOT / "prhub" / "data" / "2026-W20.json"))
    ap.add_argument("--queries", default=str(ROOT / "benchmarks" / "queries.txt"))
    ap.add_argument("--rounds", type=int, default=1, help="passes over the query list")
    args = ap.parse_args()

    prs = load_exports([args.week]).prs
    rules = shipped_rules("vllm")
    index = ModuleIndex(rules)
    cache = DigestCache(prs, repo="vllm-project/vllm", rules=rules)
    now = max(p.merged_at for p in prs)
    queries = [q for q in Path(args.queries).read_text(encoding="utf-8").splitlines() if q.strip()]
    who = Requester(platform="slack", workspace="T_TEST", user="U_ALICE", channel="C_DIGEST", is_admin=True,
                    repo="vllm-project/vllm")
    book = MemoryBook()

    def run(text: str) -> None:
        q = parse(strip_markup(text, bot_ids={"U_BOT"})[0], modules=index)
        card = answer(q, digest_provider=cache, now=now, modules=index, requester=who, subscriptions=book,
                      report_url=lambda w: f"https://prhub.example.com/reports/vllm-project/vllm/{w}")
        card_to_messages([card])

    t0 = time.perf_counter()
    for text in queries:  # builds every (week, lang) digest the queries need, once
        run(text)
    warm = (time.perf_counter() - t0) * 1000

    gc.collect()
    times: list[float] = []
    for _ in range(args.rounds):
        for text in queries:
            t = time.perf_counter()
            run(text)
            times.append((time.perf_counter() - t) * 1000)
    times.sort()
    p99 = times[min(len(times) - 1, int(round(0.99 * len(times))) - 1)]
    print(f"queries: {len(times)}")
    print(f"warmup_ms: {warm:.1f}")
    print(f"p50_ms: {statistics.median(times):.3f}")
    print(f"p99_ms: {p99:.3f}")
    print(f"max_ms: {times[-1]:.3f}")


if __name__ == "__main__":
    main()
