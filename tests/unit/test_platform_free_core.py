"""The core and the scheduler know no chat platform: no identifier, import, attribute or string
literal in ``chatbot/`` or ``scheduler/`` names one (docstrings and comments may). Platforms are
known only to their adapters and to the registry in ``prhub/platforms.py``."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.conftest import ROOT

PLATFORM_WORDS = re.compile(r"slack|feishu|lark|discord|dingtalk|wecom|msteams", re.IGNORECASE)


def _docstrings(tree: ast.AST) -> set[int]:
    ids: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
        # attribute docstrings: a bare string right after an assignment
        for field in ("body", "orelse"):
            stmts = getattr(node, field, None)
            if isinstance(stmts, list):
                for prev, stmt in zip(stmts, stmts[1:]):
                    if (isinstance(prev, (ast.Assign, ast.AnnAssign)) and isinstance(stmt, ast.Expr)
                            and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)):
                        ids.add(id(stmt.value))
    return ids


def platform_mentions(source: str) -> list[tuple[int, str]]:
    """``(line, what)`` for every identifier, import, attribute, argument or string (not a
    docstring) that names a chat platform."""
    tree = ast.parse(source)
    docs = _docstrings(tree)
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Name):
            names = [node.id]
        elif isinstance(node, ast.Attribute):
            names = [node.attr]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, ast.arg):
            names = [node.arg]
        elif isinstance(node, ast.keyword) and node.arg:
            names = [node.arg]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            names = [node.value]
        found += [(getattr(node, "lineno", 0), n) for n in names if PLATFORM_WORDS.search(n)]
    return found


def test_the_checker_catches_each_kind_of_mention():
    src = ('"""Slack and Feishu may be named here."""\nimport slack_sdk\nfrom x import lark\nslack_id = 1\n'
           'def f(feishu): return obj.slack\nX = {"feishu": 1}\n"""an attribute docstring: Slack"""\n'
           'g(teams="dingtalk")\n# a comment about Slack\n')
    kinds = [w for _, w in platform_mentions(src)]
    assert kinds.count("slack_sdk") == 1 and "lark" in kinds and "slack_id" in kinds and "feishu" in kinds
    assert "slack" in kinds and "dingtalk" in kinds
    assert not any("Slack and Feishu" in w or "attribute docstring" in w for w in kinds)


def test_no_platform_named_in_chatbot_or_scheduler():
    offenders = []
    for pkg in ("chatbot", "scheduler"):
        for path in sorted((ROOT / pkg).rglob("*.py")):
            for line, what in platform_mentions(path.read_text(encoding="utf-8")):
                offenders.append(f"{path.relative_to(ROOT)}:{line}: {what!r}")
    assert offenders == []
