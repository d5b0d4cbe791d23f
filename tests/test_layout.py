"""The codebase's shape, kept: modules sit in the package of their concept, tests mirror the source module for
module, share code only through tests/support, and no file or function grows into a monster.

The size limits are a backstop, not a target: a module splits where its concept ends, not where a count is reached.
So they sit well above the size a module of one concept reaches here, and catch only the file or function nobody can
hold in their head any more."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.support import PROJECT_ROOT

SOURCES = sorted(
    p for d in ("components", "tools") for p in (PROJECT_ROOT / d).rglob("*.py") if p.name != "__init__.py"
)
PYTHON = sorted(p for d in ("components", "tools", "tests", "policies") for p in (PROJECT_ROOT / d).rglob("*.py"))
ORACLES = {PROJECT_ROOT / "tests/support/vendor_examples.py", PROJECT_ROOT / "tests/support/kueue_examples.py"}
"""The vendors' example objects typed in as test oracles: data, not code."""
MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 80
MAX_TOP_LEVEL_MODULES = 12
"""Modules beside the packages of components/ and of components/config/: more, and a concept is missing a package."""


def relative(path: Path) -> str:
    return str(path.relative_to(PROJECT_ROOT))


def test_every_source_module_has_its_test_module():
    missing = [
        f"{relative(source)}: no tests/{relative(source.parent)}/test_{source.stem}.py"
        for source in SOURCES
        if not (PROJECT_ROOT / "tests" / source.parent.relative_to(PROJECT_ROOT) / f"test_{source.stem}.py").is_file()
    ]
    assert missing == []


def test_components_and_their_config_keep_their_modules_in_concept_packages():
    crowded = {
        folder: modules
        for folder in ("components", "components/config")
        if len(modules := sorted(p.name for p in (PROJECT_ROOT / folder).glob("*.py") if p.name != "__init__.py"))
        > MAX_TOP_LEVEL_MODULES
    }
    assert crowded == {}


def test_tests_share_code_only_through_tests_support():
    outside = [
        f"{relative(test)} imports {name}"
        for test in sorted((PROJECT_ROOT / "tests").rglob("test_*.py"))
        for found in re.findall(r"^from (tests\.[\w.]+) import|^import (tests\.[\w.]+)", test.read_text(), re.M)
        for name in [found[0] or found[1]]
        if name != "tests.support" and not name.startswith("tests.support.")
    ]
    assert outside == []


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


def oversized(path: Path) -> list[str]:
    """What in ``path`` is over the limits, with its size: the file, and each function (nested ones too)."""
    text = path.read_text()
    lines = len(text.splitlines())
    found = [f"{relative(path)}: {lines} lines (at most {MAX_FILE_LINES})"] if lines > MAX_FILE_LINES else []
    return found + [
        f"{relative(path)}: {node.name} is {node.end_lineno - node.lineno + 1} lines (at most {MAX_FUNCTION_LINES})"
        for node in functions(ast.parse(text))
        if node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]


def test_no_file_over_600_lines_and_no_function_over_80():
    assert [problem for path in PYTHON if path not in ORACLES for problem in oversized(path)] == []
