"""A synthetic hostile week for the chat-card tests (BR-03, BR-08): 312 PRs, 80 of them risky,
long and hostile titles, 14 modules, a repository name long enough to overflow a header."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from chatbot.analysis import RISK_ORDER
from chatbot.models import AnalyzedPR, DigestText, ModuleStat, Recommendation, RiskItem

LONG_REPO = "example-org-with-a-really-quite-long-organisation-name/example-repo-with-an-even-longer-repository-name-for-size-tests-and-then-some"
HOSTILE = [
    "[Frontend] Escape <script> & \"a > b\" <!channel> <@U_ALICE> R&D &lt;x&gt;",
    "[Misc] <at id=all></at> cleanup <font color='red'>x</font>",
    "[Bugfix] 修复注意力内核在长序列下的数值溢出问题",
    "[Core] *bold* _it_ ~strike~ `code` [link](https://evil.example) | table | <https://evil|click>",
    "<at user_id=\"ou_BOB\"></at> ping <!here> \\[x\\] $x$",
]
MODULES = [f"module-{i:02d}" for i in range(14)]
START = datetime(2024, 6, 10, tzinfo=timezone.utc)


def _title(i: int, chinese: bool) -> str:
    base = HOSTILE[i % len(HOSTILE)]
    if chinese:
        base = f"[Bugfix] 修复注意力内核在长序列下的数值溢出问题 #{i} " + base
        pad = "修复长序列数值溢出"
        size = 200
    else:
        pad = " padding & <more> text"
        size = 250
    while len(base) < size:
        base += pad
    return base[:size]


def hostile_digest(*, lang: str = "en", chinese: bool = False, total: int = 312, risky: int = 80) -> DigestText:
    """The hostile week: PR ``i`` (number 10000+i) is risky for i < ``risky``; importance has ties."""
    prs = []
    for i in range(total):
        n = 10000 + i * 7 % total * 3 + i  # scattered numbers, unique
        tags = tuple(RISK_ORDER[j] for j in range(len(RISK_ORDER)) if (i + j) % 3 == 0)[:3] if i < risky else ()
        if i < risky and not tags:
            tags = (RISK_ORDER[0],)
        prs.append(AnalyzedPR(
            number=n, title=_title(i, chinese), url=f"https://github.com/{LONG_REPO}/pull/{n}",
            author=f"user-{i % 40}", importance=round(9.9 - (i % 50) * 0.1, 1),
            labels=("bugfix", "v1"), modules=(MODULES[i % 14], MODULES[(i + 3) % 14]), primary_module=MODULES[i % 14],
            risk_tags=tags, risk_reasons={t: f"core path vllm/<at id=all></at>/x_{i}.py (+{i}/-{i}) & more" for t in tags},
            reverted_by=None, additions=i * 10, deletions=i, changed_files=3, merged_at=START + timedelta(minutes=30 * i),
            gist=f"{MODULES[i % 14]} · 3 files · +{i * 10}/-{i}",
        ))
    prs.sort(key=lambda p: p.number)
    ranked = sorted(prs, key=lambda p: (-p.importance, p.number))
    risks = tuple(
        RiskItem(kind=t, prs=tuple(p.number for p in ranked if t in p.risk_tags),
                 detail=f"{sum(1 for p in prs if t in p.risk_tags)} PR(s): <!channel> detail for {t} [path/x.py +1/-2]")
        for t in RISK_ORDER if any(t in p.risk_tags for p in prs)
    )
    stats = tuple(ModuleStat(module=m, name=f"{m} name", prs=total // 14, additions=1000, deletions=500) for m in MODULES)
    return DigestText(
        repo=LONG_REPO, week="2024-W24", tz="UTC", lang=lang, start=START, end=START + timedelta(days=7),
        total_prs=total, avg_importance=5.0, label_counts={"bugfix": total, "v1": total},
        module_counts={m: total // 14 for m in MODULES}, risk_tag_counts={r.kind: len(r.prs) for r in risks},
        module_stats=stats, prs=tuple(prs), key_prs=tuple(ranked[:24]), risks=risks,
        contributors=(), hot_files=(), hot_dirs=(), themes=(),
        recommendations=tuple(Recommendation(text=f"Review {r.kind} <!here>", prs=r.prs[:5]) for r in risks),
        reverted=(), ai_coauthor_share=0.0, bot_coauthor_share=0.0, module_names={m: f"{m} name" for m in MODULES},
    )


def risky_in_rank_order(d: DigestText) -> list[int]:
    """Numbers of the risky PRs, importance descending then number ascending."""
    return [p.number for p in sorted((p for p in d.prs if p.risk_tags), key=lambda p: (-p.importance, p.number))]
