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


IO_CALLS = {"read_text", "write_text", "read_bytes", "write_bytes", "open", "unlink", "rmtree", "mkdir", "to_parquet",
            "read_parquet", "rename", "touch"}
# files outside pipeline/io/ that touch the disk themselves, and why
IO_ALLOWED = {
    "pipeline/config.py": "reads the configuration's TOML (io/ imports config)",
    "pipeline/stage.py": "the stage skeleton: the root's lock file, and the package sources code_version hashes",
    "pipeline/topics/embedding/bert.py": "reads the embedding model's own folder (config.json, weights)",
    "pipeline/topics/embedding/weights.py": "hashes the embedding model's weights file to name its identity (or reads pip's RECORD of it)",
    "pipeline/topics/embedding/hardware.py": "reads /proc/cpuinfo and the device tree for the machine's name",
}


def test_disk_io_goes_through_pipeline_io():
    found = []
    for path in sorted((REPO / "pipeline").rglob("*.py")):
        where = path.relative_to(REPO).as_posix()
        if where.startswith("pipeline/io/") or where in IO_ALLOWED:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            if isinstance(node.func, ast.Name):  # the builtin open(); io's own functions are called by name
                if node.func.id == "open":
                    found.append(f"{where}:{node.lineno} open")
            elif isinstance(node.func, ast.Attribute) and node.func.attr in IO_CALLS and not _is_frame_rename(node):
                found.append(f"{where}:{node.lineno} {node.func.attr}")
    assert not found, found


def _is_frame_rename(node: ast.Call) -> bool:
    """``frame.rename(columns=...)``: a table's columns, not a file."""
    return any(k.arg in ("columns", "index") for k in node.keywords)


def test_a_themes_label_changes_only_in_naming_lifecycle():
    """Once chosen, a label changes in one documented step (``naming/lifecycle.py``): no other module of
    ``pipeline/topics/`` assigns to a theme's label (``<state>.labels[t] = …``, ``<state>.labels = …``)."""
    found = []
    for path in sorted((REPO / "pipeline" / "topics").rglob("*.py")):
        if path.name == "lifecycle.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
                node, (ast.AugAssign, ast.AnnAssign)) else []
            for target in targets:
                for part in ast.walk(target):
                    where = part.value if isinstance(part, ast.Subscript) else part
                    if isinstance(where, ast.Attribute) and where.attr == "labels":
                        found.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert not found, found
