"""Message catalogs (English and Chinese) for every piece of free text prhub writes.

``tr(lang, key, **values)`` formats the catalog entry with :meth:`str.format`. Values that
come from PRs (titles, paths) are inserted as given: escaping is the renderer's job, per output
format. Languages: ``en`` (default) and ``zh``.
"""

from __future__ import annotations

from typing import Any

LANGS = ("en", "zh")

_EN: dict[str, str] = {
    # risk tag display names
    "risk.core-path-change": "core-path change",
    "risk.missing-tests": "missing test coverage",
    "risk.tests-removed": "tests removed",
    "risk.large-change": "large change",
    "risk.dependency-change": "dependency change",
    "risk.revert": "revert",
    "risk.follow-up-fix": "follow-up fix",
    "risk.security-sensitive": "security-sensitive change",
    "risk.review-open": "review thread left open",
    "risk.no-human-approval": "no human approval",
    "risk.bot-review-flag": "bot review flag not addressed",
    "risk.assert-runtime-check": "assert used as a runtime check",
    # risk reasons (per PR)
    "reason.core": "core path {path} ({lines})",
    "reason.more_files": "{text} and {n} more",
    "reason.missing_tests": "{lines} source lines, largest {path} ({flines}); no test changed",
    "reason.tests_removed_file": "test file {path} emptied ({lines})",
    "reason.tests_removed_net": "test lines net {net} (largest {path}, {lines})",
    "reason.large": "{files} files, {lines} lines (largest {path}, {flines})",
    "reason.truncated": "file list truncated ({changed} changed, {listed} analysed)",
    "reason.dependency": "dependency file {path} ({lines})",
    "reason.revert_pr": "reverts #{number}",
    "reason.revert_title": "reverts \u201c{title}\u201d",
    "reason.reland": "re-lands the change reverted by #{revert}",
    "reason.follow_up": "fixes #{number}, merged {date}",
    "reason.security_path": "security-sensitive path {path} ({lines})",
    "reason.security_keyword": "security keyword \u201c{word}\u201d in the {where}",
    "where.title": "title",
    "where.body": "description",
    "reason.review_open": "{n} unresolved review thread(s) at merge, first on {path}",
    "reason.no_human_approval": "no APPROVED review by a person",
    "reason.bot_review_flag": "{reviewer} flagged {severity} on {path}, no later commit to it",
    "reason.assert": "adds assert in {path}",
    # risk items (grouped)
    "risk_detail": "{n} PR(s): {reason_head}. Most notable #{top}: {reason}",
    "risk_detail.paths": "{n} PR(s); most frequent path {path} ({lines} in {k} PR(s)). Most notable #{top}: {reason}",
    "risk_detail.reverted": " Reverted this week: {pairs}.",
    # gist
    "gist.files": "{n} files",
    "gist.file": "1 file",
    # themes
    "theme.summary": "{n} PR(s), {lines} lines",
    # recommendations
    "rec.missing-tests": "Add regression tests for {prs}: each changed at least {min} source lines without touching a test ({n} such PRs this week).",
    "rec.tests-removed": "Confirm that the tests removed in {prs} were moved or replaced, not lost.",
    "rec.core-path-change": "Have {modules} owners re-review the core-path changes {prs} and watch the next nightly benchmarks for regressions.",
    "rec.revert": "Track the reverted work {prs}: open a tracking issue for the re-land with a test that reproduces the failure.",
    "rec.follow-up-fix": "{prs} fix PRs merged days earlier: add the tests that would have caught the original bugs.",
    "rec.dependency-change": "Check the dependency changes in {prs} against upstream release notes and the full CI matrix before the next release.",
    "rec.large-change": "Schedule a post-merge walkthrough of the large changes {prs} and document any new configuration switches.",
    "rec.security-sensitive": "Ask a security-minded reviewer to look at {prs}.",
    "rec.review-open": "Follow up on the review threads left open in {prs}.",
    "rec.no-human-approval": "Review {prs} after the fact: they merged without a human approval.",
    "rec.bot-review-flag": "Re-check the bot review findings left unaddressed in {prs}.",
    "rec.assert-runtime-check": "Replace runtime asserts with explicit checks in {prs} (asserts vanish under python -O).",
    "rec.trend": "{module} carried the most key-PR weight this week ({n} PRs, {lines} lines): its owners should skim the week's changes, led by {prs}.",
    # markdown
    "md.title": "{repo} weekly PR digest {week}",
    "md.meta": "Repository: {repo} · Window: {start} – {end} ({tz}) · Merged PRs: {total} · Key PRs: {nkey}",
    "md.generated": "Generated {at}",
    "md.skipped": "{n} invalid input record(s) were skipped.",
    "md.empty": "No PRs were merged in {week}.",
    "md.lead": "In {week}, {repo} merged {total} PRs; {labels} lead.",
    "md.lead.themes": " Main themes: {themes}.",
    "md.lead.reverted": " {n} PR(s) were reverted within the week.",
    "h.summary": "Executive summary",
    "h.highlights": "Highlights",
    "h.trends": "Module and theme trends",
    "h.risks": "Risk observations",
    "h.key_prs": "Key PRs",
    "h.recommendations": "Recommendations",
    "sum.total": "Merged PRs: **{total}**.",
    "sum.labels": "Top labels: {labels}.",
    "sum.key": "{nkey} key PRs; average importance of all PRs {avg}.",
    "sum.directions": "Main directions: {themes}.",
    "sum.risk": "Risk headline: {risks}.",
    "sum.none": "none",
    "trend.labels": "Label distribution: {labels}.",
    "trend.modules": "Most active modules (PRs, lines changed):",
    "trend.module": "{name} ({id}): {n} PRs, {lines}",
    "colon": ": ",
    "sep": ", ",
    "trend.hot_files": "Hot files (PRs touching them): {items}.",
    "trend.hot_dirs": "Hot directories: {items}.",
    "trend.contributors": "Most active authors: {items} ({n} authors in all, bots excluded).",
    "trend.coauthors": "PRs with AI co-authors: {ai}; with bot co-authors: {bot}.",
    "kp.pr": "PR",
    "kp.title": "Title",
    "kp.importance": "Importance",
    "kp.module": "Module",
    "kp.author": "Author",
    "kp.gist": "Gist",
    "none_yet": "none",
}

_ZH: dict[str, str] = {
    "risk.core-path-change": "核心路径变更",
    "risk.missing-tests": "缺少测试覆盖",
    "risk.tests-removed": "删除测试",
    "risk.large-change": "大规模变更",
    "risk.dependency-change": "外部依赖变更",
    "risk.revert": "回滚",
    "risk.follow-up-fix": "紧急修复",
    "risk.security-sensitive": "安全相关",
    "risk.review-open": "评审意见未闭合",
    "risk.no-human-approval": "无人工批准",
    "risk.bot-review-flag": "机器人评审问题未处理",
    "risk.assert-runtime-check": "assert 校验在 -O 下失效",
    "reason.core": "核心路径 {path}（{lines}）",
    "reason.more_files": "{text} 等另 {n} 处",
    "reason.missing_tests": "源码改动 {lines} 行，最大 {path}（{flines}），未改动测试",
    "reason.tests_removed_file": "测试文件 {path} 被清空（{lines}）",
    "reason.tests_removed_net": "测试净删 {net} 行（最大 {path}，{lines}）",
    "reason.large": "{files} 个文件，{lines} 行（最大 {path}，{flines}）",
    "reason.truncated": "文件列表被截断（共 {changed} 个，分析 {listed} 个）",
    "reason.dependency": "依赖文件 {path}（{lines}）",
    "reason.revert_pr": "回滚 #{number}",
    "reason.revert_title": "回滚“{title}”",
    "reason.reland": "重新合入被 #{revert} 回滚的变更",
    "reason.follow_up": "修复 {date} 合并的 #{number}",
    "reason.security_path": "安全相关路径 {path}（{lines}）",
    "reason.security_keyword": "{where}含安全关键词“{word}”",
    "where.title": "标题",
    "where.body": "描述",
    "reason.review_open": "合并时有 {n} 个未解决的评审线程，首个位于 {path}",
    "reason.no_human_approval": "没有人工 APPROVED 评审",
    "reason.bot_review_flag": "{reviewer} 在 {path} 标记 {severity}，其后无提交修改该文件",
    "reason.assert": "在 {path} 新增 assert",
    "risk_detail": "{n} 个 PR：{reason_head}。最值得关注 #{top}：{reason}",
    "risk_detail.paths": "{n} 个 PR；最常见路径 {path}（{k} 个 PR 共 {lines}）。最值得关注 #{top}：{reason}",
    "risk_detail.reverted": " 本周被回滚：{pairs}。",
    "gist.files": "{n} 个文件",
    "gist.file": "1 个文件",
    "theme.summary": "{n} 个 PR，{lines} 行",
    "rec.missing-tests": "为 {prs} 补充回归测试：它们各自改动了至少 {min} 行源码却未改动测试（本周共 {n} 个此类 PR）。",
    "rec.tests-removed": "确认 {prs} 中删除的测试是迁移或替换，而不是丢失。",
    "rec.core-path-change": "请 {modules} 的维护者复查核心路径变更 {prs}，并关注下一次夜间基准测试是否回退。",
    "rec.revert": "跟踪被回滚的工作 {prs}：建立重新合入的跟踪 issue，并附上能复现问题的测试。",
    "rec.follow-up-fix": "{prs} 修复了几天前刚合并的 PR：补上本能发现原始问题的测试。",
    "rec.dependency-change": "在下个版本前，对照上游发布说明和完整 CI 矩阵检查 {prs} 中的依赖变更。",
    "rec.large-change": "为大规模变更 {prs} 安排合并后走查，并为新增的配置开关补充文档。",
    "rec.security-sensitive": "请熟悉安全的评审者检查 {prs}。",
    "rec.review-open": "跟进 {prs} 中未闭合的评审线程。",
    "rec.no-human-approval": "事后评审 {prs}：它们在没有人工批准的情况下合并。",
    "rec.bot-review-flag": "复查 {prs} 中未处理的机器人评审问题。",
    "rec.assert-runtime-check": "将 {prs} 中作运行时校验的 assert 改为显式 if/raise（python -O 下 assert 会被移除）。",
    "rec.trend": "{module} 是本周重点 PR 最集中的模块（{n} 个 PR，{lines} 行）：建议其维护者通读本周变更，重点是 {prs}。",
    "md.title": "{repo} 周报 {week}",
    "md.meta": "仓库：{repo} · 周期：{start} 至 {end}（{tz}）· 来源 PR：{total} · 重点 PR：{nkey}",
    "md.generated": "生成于 {at}",
    "md.skipped": "已跳过 {n} 条无效输入记录。",
    "md.empty": "{week} 没有合并任何 PR。",
    "md.lead": "{week} {repo} 共合并 {total} 个 PR，以 {labels} 为主线。",
    "md.lead.themes": "主要方向：{themes}。",
    "md.lead.reverted": "本周有 {n} 个 PR 被回滚。",
    "h.summary": "执行摘要",
    "h.highlights": "本周亮点",
    "h.trends": "模块与主题趋势",
    "h.risks": "风险观察",
    "h.key_prs": "重点 PR 速览",
    "h.recommendations": "后续建议",
    "sum.total": "合并 PR：**{total}** 个。",
    "sum.labels": "主要标签：{labels}。",
    "sum.key": "重点 PR {nkey} 个；全部 PR 平均重要度 {avg}。",
    "sum.directions": "主要方向：{themes}。",
    "sum.risk": "风险概览：{risks}。",
    "sum.none": "无",
    "trend.labels": "标签分布：{labels}。",
    "trend.modules": "最活跃的模块（PR 数，改动行数）：",
    "trend.module": "{name}（{id}）：{n} 个 PR，{lines}",
    "colon": "：",
    "sep": "、",
    "trend.hot_files": "热点文件（涉及的 PR 数）：{items}。",
    "trend.hot_dirs": "热点目录：{items}。",
    "trend.contributors": "最活跃的作者：{items}（共 {n} 位作者，不含机器人）。",
    "trend.coauthors": "含 AI 共同作者的 PR 占比：{ai}；含机器人共同作者的 PR 占比：{bot}。",
    "kp.pr": "PR",
    "kp.title": "标题",
    "kp.importance": "重要度",
    "kp.module": "模块",
    "kp.author": "作者",
    "kp.gist": "要点",
    "none_yet": "无",
}

_CATALOGS = {"en": _EN, "zh": _ZH}


def tr(lang: str, key: str, **values: Any) -> str:
    """The catalog text for ``key`` in ``lang`` (falls back to English), formatted with ``values``.

    Raises:
        KeyError: ``key`` is in no catalog (a programming error, caught by the catalog test).
    """
    catalog = _CATALOGS.get(lang, _EN)
    text = catalog.get(key)
    if text is None:
        text = _EN[key]
    return text.format(**values) if values else text


def catalog_keys(lang: str) -> set[str]:
    """Keys defined for ``lang`` (for tests that keep the catalogs in step)."""
    return set(_CATALOGS[lang])


def lines_text(additions: int, deletions: int) -> str:
    """``+1,234/-56``: added and deleted line counts, ASCII signs, thousands separators."""
    return f"+{additions:,}/-{deletions:,}"
