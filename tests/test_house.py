"""The house rules that keep ``pipeline/topics/`` readable (issue #49): no module over 400 lines, no
function over 60, and no private name imported from another module anywhere in the code or tests."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MODULE_LINES, FUNCTION_LINES = 400, 60


def test_no_topics_module_or_function_is_too_long_to_read():
    long = []
    for path in sorted((REPO / "pipeline" / "topics").rglob("*.py")):
        source = path.read_text()
        if len(source.splitlines()) > MODULE_LINES:
            long.append(f"{path.relative_to(REPO)}: {len(source.splitlines())} lines")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > FUNCTION_LINES:
                    long.append(f"{path.relative_to(REPO)}:{node.lineno} {node.name}: {lines} lines")
    assert not long, long


def test_no_private_name_is_imported_from_another_module():
    found = []
    for folder in ("pipeline", "tests", "benchmarks"):
        for path in sorted((REPO / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(("pipeline", "tests")):
                    found += [f"{path.relative_to(REPO)}:{node.lineno} {node.module}.{a.name}" for a in node.names
                              if a.name.startswith("_") and not a.name.startswith("__")]
    assert not found, found
