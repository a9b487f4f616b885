"""In-process metrics in the Prometheus text exposition format (version 0.0.4), hand-written.

Counters: digests built, deliveries sent/failed/retried/already-sent, jobs run, queries answered;
one histogram: query latency in seconds. Thread-safe; one :class:`Metrics` per process
(:data:`METRICS`), rendered by ``GET /metrics``.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence

QUERY_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
"""Upper bounds (seconds) of the query latency histogram buckets (``+Inf`` is added)."""

_HELP = {
    "prhub_digests_built_total": "Weekly digests built, by repository.",
    "prhub_deliveries_sent_total": "Message parts the platform accepted, by platform and kind.",
    "prhub_deliveries_failed_total": "Message parts given up on (logged failed), by platform and kind.",
    "prhub_deliveries_retried_total": "Platform calls retried after a 429, 5xx or timeout, by platform.",
    "prhub_deliveries_skipped_total": "Message parts already sent or being sent by another process, by platform.",
    "prhub_charts_total": "Weekly charts attached to digests, by platform and outcome (sent, failed, skipped).",
    "prhub_report_files_total": "Full reports posted as files (no public URL), by platform and outcome (sent, failed, skipped).",
    "prhub_jobs_total": "Scheduled digest job runs, by repository and outcome.",
    "prhub_queries_answered_total": "Chat queries answered, by platform.",
}


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _labels(items: Sequence[tuple[str, str]]) -> str:
    if not items:
        return ""
    return "{" + ",".join(f'{k}="{_escape(v)}"' for k, v in items) + "}"


def label_set(**labels: str) -> str:
    """``{k="v",...}`` with Prometheus escaping (for gauges rendered outside :class:`Metrics`)."""
    return _labels(list(labels.items()))


def _num(v: float) -> str:
    if math.isinf(v):
        return "+Inf"
    return repr(float(v)) if not float(v).is_integer() else str(int(v))


class Metrics:
    """Counters and a latency histogram; every method is thread-safe."""

    def __init__(self, buckets: Sequence[float] = QUERY_BUCKETS) -> None:
        self._lock = threading.Lock()
        self._counters: dict[str, dict[tuple[tuple[str, str], ...], float]] = {name: {} for name in _HELP}
        self._buckets = tuple(sorted(buckets))
        self._hist_counts = [0] * (len(self._buckets) + 1)
        self._hist_sum = 0.0
        self._hist_n = 0

    def inc(self, name: str, amount: float = 1.0, **labels: str) -> None:
        """Add ``amount`` to counter ``name`` (one of the ``prhub_*_total`` names) with ``labels``.

        Raises:
            KeyError: an unknown counter name.
        """
        key = tuple(sorted(labels.items()))
        with self._lock:
            series = self._counters[name]
            series[key] = series.get(key, 0.0) + amount

    def value(self, name: str, **labels: str) -> float:
        """The current value of one counter series (0 when never incremented)."""
        with self._lock:
            return self._counters[name].get(tuple(sorted(labels.items())), 0.0)

    def total(self, name: str) -> float:
        """The sum of every series of counter ``name``."""
        with self._lock:
            return sum(self._counters[name].values())

    def observe_query(self, seconds: float, platform: str = "") -> None:
        """Count one answered chat query and record its latency (seconds) in the histogram."""
        self.inc("prhub_queries_answered_total", platform=platform or "unknown")
        with self._lock:
            i = next((n for n, b in enumerate(self._buckets) if seconds <= b), len(self._buckets))
            self._hist_counts[i] += 1
            self._hist_sum += seconds
            self._hist_n += 1

    def render(self, extra: Sequence[str] = ()) -> str:
        """Everything in the Prometheus text format; ``extra`` lines (already formatted gauges) are appended."""
        out: list[str] = []
        with self._lock:
            for name, help_text in _HELP.items():
                out.append(f"# HELP {name} {help_text}")
                out.append(f"# TYPE {name} counter")
                for key, v in sorted(self._counters[name].items()):
                    out.append(f"{name}{_labels(key)} {_num(v)}")
            h = "prhub_query_latency_seconds"
            out.append(f"# HELP {h} Time to answer a chat query, in seconds.")
            out.append(f"# TYPE {h} histogram")
            cum = 0
            for b, c in zip((*self._buckets, math.inf), self._hist_counts):
                cum += c
                out.append(f'{h}_bucket{{le="{_num(b)}"}} {cum}')
            out.append(f"{h}_sum {_num(self._hist_sum)}")
            out.append(f"{h}_count {self._hist_n}")
        out.extend(extra)
        return "\n".join(out) + "\n"


METRICS = Metrics()
"""The process-wide registry (``prhub serve`` renders it on ``/metrics``)."""
