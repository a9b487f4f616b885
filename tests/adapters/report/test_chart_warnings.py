"""Charts raise no matplotlib warning (they leaked into the serve log and stderr with site-packages
paths): a week whose PRs changed no lines (a webhook-stored PR has no sizes) and labels far longer
than a tick can hold — rendered with warnings as errors."""

from __future__ import annotations

import warnings
from datetime import datetime, timedelta, timezone

from adapters.report.charts import chart_images, main_chart
from chatbot.models import Author, PullRequest
from chatbot.rules import shipped_rules
from chatbot.weeks import IsoWeek
from tests.digests import written_digest

WEEK = IsoWeek.parse("2026-W20")
T0 = datetime(2026, 5, 12, 8, 0, tzinfo=timezone.utc)


def digest(prs):
    return written_digest(prs, repo="a/b", week=WEEK, rules=shipped_rules("generic"))


def pr(n: int, **kw) -> PullRequest:
    return PullRequest(number=n, title=kw.pop("title", f"PR {n}"), merged_at=T0 + timedelta(minutes=n),
                       author=Author(login=kw.pop("login", f"user{n}")), **kw)


def test_a_zero_churn_week_draws_without_warnings():
    d = digest([pr(1), pr(2, labels=("bug",))])  # no files, +0/-0: every churn bar is 0
    assert [m.additions + m.deletions for m in d.module_stats] == [0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        charts = chart_images(d)
        assert [c.id for c in charts] == ["labels", "modules", "contributors"]
        assert main_chart(digest([pr(1)])).id == "modules"  # no label: the module chart alone


def test_huge_labels_and_logins_are_cut_to_a_tick_and_draw_without_warnings():
    long = [f"{i:02d}" + "label-" * 40 for i in range(12)]  # 242 characters each; equal first 32 but the number
    prs = [pr(i + 1, labels=(long[i],), login="x" * 39 + str(i), title="t" * 3000) for i in range(12)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        charts = chart_images(digest(prs))
    assert [c.id for c in charts] == ["labels", "modules", "contributors"]
