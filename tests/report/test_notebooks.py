"""The notebooks run top to bottom on the seed corpus, so they never rot."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from pipeline import topics
from tests.helpers import HashEmbedder, cleaned_copy

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


@pytest.fixture(scope="module")
def seed_project(tmp_path_factory):
    root = tmp_path_factory.mktemp("nb") / "project"
    topics.run(cleaned_copy(root), embedder=HashEmbedder())
    return root


def test_there_are_four_notebooks():
    assert [p.name for p in NOTEBOOKS] == ["01_themes.ipynb", "02_week_trends.ipynb", "03_landscape.ipynb", "04_questions.ipynb"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path, seed_project, monkeypatch):
    monkeypatch.setenv("PAPER_TRENDS_ROOT", str(seed_project))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    book = nbformat.read(path, as_version=4)
    NotebookClient(book, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    outputs = [o for cell in book.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    # nothing on stderr: no warning (a progress-bar widget's, IPython's about iframes) reaches the reader
    assert not ["".join(o.get("text", "")) for o in outputs if o.get("name") == "stderr"]
    assert any("papers" in "".join(o.get("text", "")) for o in outputs)
    if path.name == "03_landscape.ipynb":  # the interactive map, inline with its data and script
        pages = [o["data"]["text/html"] for o in outputs if "text/html" in o.get("data", {})]
        assert any("<iframe srcdoc=" in page and "map-data" in page and "paperMap" in page for page in pages)
    if path.name == "04_questions.ipynb":
        assert (seed_project / "reports" / "exports" / "themes.csv").exists()


def test_notebooks_do_not_redefine_package_functions():
    for path in NOTEBOOKS:
        source = "\n".join(c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code")
        assert "def " not in source, f"{path.name} defines a function; move it into pipeline/ with a test"
