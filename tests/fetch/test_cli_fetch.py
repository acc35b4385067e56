"""``paper-trends fetch`` and ``paper-trends run --fetch`` end to end, in a temporary root."""

from __future__ import annotations

import socket

import pytest
from click.testing import CliRunner

from pipeline.cli import cli
from pipeline.io import read_table
from pipeline.schemas import Papers, Quarantine

from .fake_arxiv import FEED_DAY, config_file, tree


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.strip()]


@pytest.mark.parametrize(("command", "example"), [
    ("fetch", "paper-trends fetch --category cs.DC --feed"), ("run", "paper-trends run --fetch cs.DC"),
])
def test_help_shows_fetching_with_examples(command, example):
    result = invoke(command, "--help")
    assert result.exit_code == 0
    assert example in result.output


def test_fetch_command_stores_pages_and_prints_one_summary_line(tmp_path, arxiv, caplog):
    config = config_file(tmp_path / "fetch.toml", arxiv)
    result = invoke("--root", str(tmp_path), "--config", str(config), "-q",
                    "fetch", "--category", "cs.DC", "--since", "2025-05-01", "--until", "2026-06-09")
    assert result.exit_code == 0, result.output
    summaries = [r.getMessage() for r in caplog.records if r.getMessage().startswith("fetch:")]
    assert len(summaries) == 1
    assert summaries[0].startswith("fetch: categories 1, queries 1, pages fetched 4, pages already held 0, entries 15")
    assert len(list((tmp_path / "data/raw/arxiv-api/cs.DC").glob("*.xml"))) == 4


def test_not_a_category_is_a_usage_error(tmp_path):
    result = CliRunner().invoke(cli, ["--root", str(tmp_path), "fetch", "--category", "cs.DC OR all:x"])
    assert result.exit_code == 2 and "is not an arXiv category" in result.output


def test_unreachable_network_is_one_line_exit_1_and_the_store_as_it_was(project, arxiv):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = config_file(project / "offline.toml", arxiv, api_url=f"http://127.0.0.1:{port}/api/query", retries=1)
    before = tree(project)
    result = CliRunner().invoke(cli, ["--root", str(project), "--config", str(config), "-q", "run", "--fetch", "cs.DC"])
    assert result.exit_code == 1
    assert len(lines(result.output)) == 1
    line = lines(result.output)[0]
    assert line.startswith("paper-trends: error: cannot reach 127.0.0.1 after 2 tries (")
    assert "check the network connection" in line and line.endswith("; nothing was written")
    assert tree(project) == before  # no partial files, and no stage ran


def test_run_with_paths_and_fetch_is_refused(tmp_path):
    result = CliRunner().invoke(cli, ["--root", str(tmp_path), "run", str(tmp_path), "--fetch", "cs.DC"])
    assert result.exit_code == 2 and "--fetch stores papers in data/raw/" in result.output


@pytest.mark.model
def test_run_fetch_end_to_end_writes_the_weekly_report(tmp_path, arxiv, caplog):
    """The weekly cron job on an empty store: fetch (API and feed), ingest, clean, topics, report."""
    arxiv.recorded = True  # recorded responses: every cs.DC entry, whatever the window
    arxiv.feeds["cs.DC"] = FEED_DAY.read_bytes()
    config = config_file(tmp_path / "fetch.toml", arxiv)
    result = invoke("--root", str(tmp_path), "--config", str(config), "-q", "run", "--fetch", "cs.DC", "--feed")
    assert result.exit_code == 0, result.output
    messages = [r.getMessage() for r in caplog.records]
    assert any(m.startswith("fetch: categories 1, queries 1, pages fetched 4") and "feeds stored 1" in m for m in messages)
    assert any(m.startswith("ingest: files 5, records 19") for m in messages)
    assert (tmp_path / "reports/weekly/2026-W23/index.html").exists()
    papers = read_table(tmp_path / "data/processed/papers.parquet", Papers)
    assert len(papers) == 15 and papers[Papers.paper_id].is_unique
    # the feed's replacement notice has no submission date of its own: it joins the paper that the
    # API listed (and dated), rather than being quarantined or lost
    quarantine = read_table(tmp_path / "data/processed/quarantine.parquet", Quarantine)
    assert quarantine.empty
    sources = papers.set_index(Papers.paper_id).loc["2606.04101", Papers.sources]
    assert any("arxiv-feed" in s for s in sources) and any("arxiv-api" in s for s in sources)
