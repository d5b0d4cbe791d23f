"""The codebase's shape, kept: tests mirror the source module for module, share code only through tests/support,
and no file or function grows into a monster.

The size limits are a backstop, not a target: a module splits where its concept ends, not where a count is reached.
So they sit well above the size a module of one concept reaches here, and catch only the file or function nobody can
hold in their head any more."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.support import PROJECT_ROOT

SOURCES = sorted(
    p for d in ("components", "tools") for p in (PROJECT_ROOT / d).rglob("*.py") if p.name != "__init__.py"
)
PYTHON = sorted(p for d in ("components", "tools", "tests", "policies") for p in (PROJECT_ROOT / d).rglob("*.py"))
ORACLES = {PROJECT_ROOT / "tests/support/seeds.py", PROJECT_ROOT / "tests/support/kueue_examples.py"}
"""The vendors' example objects typed in as test oracles: data, not code."""
MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 80


def relative(path: Path) -> str:
    return str(path.relative_to(PROJECT_ROOT))


@pytest.mark.parametrize("source", SOURCES, ids=relative)
def test_every_source_module_has_its_test_module(source):
    rel = source.relative_to(PROJECT_ROOT)
    assert (PROJECT_ROOT / "tests" / rel.parent / f"test_{source.stem}.py").is_file()


def test_tests_share_code_only_through_tests_support():
    for test in (PROJECT_ROOT / "tests").rglob("test_*.py"):
        for module in re.findall(r"^from (tests\.[\w.]+) import|^import (tests\.[\w.]+)", test.read_text(), re.M):
            name = module[0] or module[1]
            assert name == "tests.support" or name.startswith("tests.support."), f"{relative(test)} imports {name}"


def functions(node: ast.AST) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """Every function defined under ``node``, nested ones too. A ``def`` is a statement, and statements sit only in
    the statement lists of other statements (``except`` and ``case`` clauses included), so only those are walked:
    the expressions, most of a tree, cannot hold one."""
    found = []
    for _, value in ast.iter_fields(node):
        for child in value if isinstance(value, list) else ():
            if isinstance(child, ast.stmt | ast.excepthandler | ast.match_case):
                if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                    found.append(child)
                found += functions(child)
    return found


def test_functions_are_found_at_any_depth_of_statements():
    tree = ast.parse(
        "def a():\n    def b(): pass\nclass C:\n    async def d(self): pass\n"
        "try:\n    pass\nexcept E:\n    def e(): pass\nelse:\n    def f(): pass\n"
        "match x:\n    case 1:\n        def g(): pass\nif y:\n    pass\nelse:\n    def h(): pass\n"
    )
    assert (
        sorted(f.name for f in functions(tree))
        == sorted(n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef))
        == list("abdefgh")
    )


@pytest.mark.parametrize("path", [p for p in PYTHON if p not in ORACLES], ids=relative)
def test_no_file_over_600_lines_and_no_function_over_80(path):
    text = path.read_text()
    assert len(text.splitlines()) <= MAX_FILE_LINES
    long = [
        f"{node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for node in functions(ast.parse(text))
        if node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]
    assert long == []
