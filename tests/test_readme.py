"""The README's commands name what the project really has."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_notebooks_extra_installs_a_front_end_and_the_readme_opens_them_with_it():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert any(re.match(r"(notebook|jupyterlab)==", pin) for pin in extras["notebooks"])
    readme = (ROOT / "README.md").read_text()
    assert "pip install -e '.[notebooks]'" in readme and "jupyter notebook notebooks/" in readme


def test_the_cron_line_keeps_progress_in_its_log():
    cron = [line for line in (ROOT / "README.md").read_text().splitlines() if line.startswith("0 7 * * 2")]
    assert len(cron) == 1 and " -q " not in cron[0] and ">> reports/cron.log 2>&1" in cron[0]
