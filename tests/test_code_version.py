"""``stage.code_version``: what makes a stage run again when its code changes."""

from __future__ import annotations

import sys

from pipeline.stage import code_version


def test_moving_a_module_into_a_sub_package_or_editing_a_template_changes_the_code_version(tmp_path, monkeypatch):
    package = tmp_path / "toypkg"
    (package / "templates").mkdir(parents=True)
    (package / "__init__.py").write_text('"""A toy stage."""\n')
    (package / "steps.py").write_text("def step():\n    return 1\n")
    (package / "templates" / "page.html.j2").write_text("<p>{{ x }}</p>\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "toypkg", raising=False)
    first = code_version("toypkg")
    assert code_version("toypkg") == first  # the same files, the same version
    (package / "room").mkdir()
    (package / "room" / "__init__.py").write_text("")
    (package / "steps.py").rename(package / "room" / "steps.py")  # the same source, one floor down
    moved = code_version("toypkg")
    assert moved != first
    (package / "templates" / "page.html.j2").write_text("<p>{{ x }}!</p>\n")
    assert code_version("toypkg") != moved
    (package / "room" / "__pycache__").mkdir()
    (package / "room" / "__pycache__" / "steps.cpython-311.pyc").write_bytes(b"compiled")
    edited = code_version("toypkg")
    (package / "room" / "__pycache__" / "steps.cpython-311.pyc").write_bytes(b"compiled again")
    assert code_version("toypkg") == edited  # compiled files are not the code
