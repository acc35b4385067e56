from __future__ import annotations

import subprocess
import sys

import pytest
from click.testing import CliRunner

from pipeline.cli import cli
from pipeline.io import read_fingerprint, read_table
from pipeline.schemas import Listings, Papers


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.mark.parametrize("command", [[], ["ingest"], ["clean"], ["run"]])
def test_help_has_an_example(command):
    result = invoke(*command, "--help")
    assert result.exit_code == 0
    assert "Example" in result.output and "paper-trends" in result.output


def test_help_is_fast_and_imports_no_heavy_modules():
    code = "import sys, pipeline.cli; print(sorted(m for m in ('pandas', 'torch', 'bertopic', 'pyarrow') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_run_end_to_end_then_skip_then_force(project, caplog):
    root = str(project)
    first = invoke("--root", root, "-q", "run")
    assert first.exit_code == 0, first.output
    papers = read_table(project / "data/processed/papers.parquet", Papers)
    assert len(papers) == 94
    assert len(read_table(project / "data/interim/listings.parquet", Listings)) == 100
    fingerprint = read_fingerprint(project / "data/processed/papers.parquet")

    caplog.clear()
    second = invoke("--root", root, "-q", "run")
    assert second.exit_code == 0
    summaries = [r.getMessage() for r in caplog.records if r.getMessage().startswith(("ingest:", "clean:"))]
    assert len(summaries) == 2 and all("skipped" in s for s in summaries)
    assert "raw records 100, papers 94, duplicates 6, quarantined 0" in summaries[1]

    caplog.clear()
    assert invoke("--root", root, "-q", "clean", "--force").exit_code == 0
    assert any("clean:" in r.getMessage() and "ran" in r.getMessage() for r in caplog.records)
    assert read_fingerprint(project / "data/processed/papers.parquet") == fingerprint


def test_config_change_reruns_only_the_stage_it_belongs_to(project, caplog):
    root = str(project)
    assert invoke("--root", root, "-q", "run").exit_code == 0
    config = project / "strict.toml"
    config.write_text("[clean]\nmin_abstract_chars = 100000\nmax_abstract_chars = 200000\n")
    caplog.clear()
    result = CliRunner().invoke(cli, ["--root", root, "--config", str(config), "-q", "run"])
    # every paper quarantined: the run stops at topics and says so (exit 1), after ingest and clean
    assert result.exit_code == 1 and "holds no papers" in result.output
    messages = [r.getMessage() for r in caplog.records]
    assert any(m.startswith("ingest:") and "skipped" in m for m in messages)
    assert any(m.startswith("clean:") and "ran" in m and "papers 0" in m and "quarantined 100" in m for m in messages)


def test_changed_input_reruns(project, caplog):
    root = str(project)
    assert invoke("--root", root, "-q", "run").exit_code == 0
    (project / "data/raw/000_db5e420608efce7d.txt").unlink()
    caplog.clear()
    assert invoke("--root", root, "-q", "run").exit_code == 0
    assert any("papers 89" in r.getMessage() for r in caplog.records)


def test_missing_path_is_one_line_error(tmp_path):
    result = CliRunner().invoke(cli, ["--root", str(tmp_path), "ingest", str(tmp_path / "nope")])
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert lines == [f"paper-trends: error: {tmp_path / 'nope'}: no such file or folder"]


def test_strict_fails_naming_file_and_place(project, formats_dir):
    broken = project / "data/raw/broken.xml"
    broken.write_bytes((formats_dir / "arxiv-api-atom_cs.RO_2entries.xml").read_bytes()[:4000])
    result = CliRunner().invoke(cli, ["--root", str(project), "ingest", "--strict"])
    assert result.exit_code == 1
    assert "data/raw/broken.xml" in result.output and "line" in result.output
    assert not (project / "data/interim/listings.parquet").exists()


def test_lenient_run_quarantines_unreadable_file(project, formats_dir):
    broken = project / "data/raw/broken.xml"
    broken.write_bytes((formats_dir / "arxiv-api-atom_cs.RO_2entries.xml").read_bytes()[:4000])
    result = CliRunner().invoke(cli, ["--root", str(project), "-q", "run"])
    assert result.exit_code == 0
    quarantine = read_table(project / "data/processed/quarantine.parquet", __import__("pipeline.schemas").schemas.Quarantine)
    row = quarantine[quarantine["source_file"] == "data/raw/broken.xml"].iloc[0]
    assert row["reason"] == "unreadable" and "line" in row["detail"]
    papers = read_table(project / "data/processed/papers.parquet", Papers)
    assert "2510.14968" in set(papers["paper_id"])  # the entry before the break is kept


def test_clean_without_ingest_says_what_to_do(tmp_path):
    result = CliRunner().invoke(cli, ["--root", str(tmp_path), "clean"])
    assert result.exit_code == 1
    assert "listings.parquet: not found; run the stage that writes it first" in result.output


def test_bad_config_is_one_line_error(project):
    config = project / "bad.toml"
    config.write_text("[clean]\nmin_abstract = 3\n")
    result = CliRunner().invoke(cli, ["--root", str(project), "--config", str(config), "clean"])
    assert result.exit_code == 1
    assert "unknown setting(s): clean.min_abstract" in result.output


def test_console_script_module_entry(project):
    out = subprocess.run(
        [sys.executable, "-m", "pipeline", "--root", str(project), "-q", "ingest"],
        capture_output=True, text=True,
    )
    assert out.returncode == 0, out.stderr
    assert "ingest: files 3, records 100" in out.stderr


def test_since_after_until_is_refused_in_one_line(project):
    result = CliRunner().invoke(cli, ["--root", str(project), "ingest", "--since", "2025-02-01", "--until", "2025-01-01"])
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "--since 2025-02-01 is after --until 2025-01-01" in lines[0]
    assert not (project / "data/interim/listings.parquet").exists()


def test_survey_since_after_until_is_refused_in_one_line(project, hash_embedder, monkeypatch):
    from pipeline.topics.embedding import embed

    monkeypatch.setattr(embed, "make_embedder", lambda cfg: hash_embedder)
    assert CliRunner().invoke(cli, ["--root", str(project), "-q", "ingest"]).exit_code == 0
    assert CliRunner().invoke(cli, ["--root", str(project), "-q", "clean"]).exit_code == 0
    assert CliRunner().invoke(cli, ["--root", str(project), "-q", "topics"]).exit_code == 0
    result = CliRunner().invoke(cli, ["--root", str(project), "report", "survey", "--since", "2026-06-10",
                                      "--until", "2026-06-01"])
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "--since 2026-06-10 is after --until 2026-06-01" in lines[0]
    assert not (project / "reports" / "survey").exists()


def test_one_writer_per_root_and_a_killed_runs_lock_is_no_obstacle(project):
    from pipeline.stage import root_lock

    with root_lock(project.resolve(), "paper-trends run (the other one)"):
        result = CliRunner().invoke(cli, ["--root", str(project), "ingest"])
        assert result.exit_code == 1
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert len(lines) == 1 and "is being written by pid " in lines[0] and "(paper-trends run (the other one)" in lines[0]
        assert not (project / "data/interim/listings.parquet").exists()
    # the lock file stays behind, as after a killed run: it says who held it, and stops no one
    lock = project / "data" / ".paper-trends.lock"
    lock.write_text("pid 999999 (cli run, since 2026-01-01 00:00:00 UTC)")
    assert CliRunner().invoke(cli, ["--root", str(project), "-q", "ingest"]).exit_code == 0
    assert (project / "data/interim/listings.parquet").exists()


def test_two_runs_at_once_on_one_root_one_waits_its_turn_or_fails(project, tmp_path):
    import subprocess
    import sys as _sys
    import time as _time

    holder = subprocess.Popen([_sys.executable, "-c", (
        "import sys, time; from pathlib import Path; from pipeline.stage import root_lock\n"
        f"with root_lock(Path({str(project.resolve())!r}), 'paper-trends run'):\n"
        "    print('held', flush=True); time.sleep(30)")], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        result = CliRunner().invoke(cli, ["--root", str(project), "clean"])
        assert result.exit_code == 1 and f"pid {holder.pid} (paper-trends run" in result.output
    finally:
        holder.kill()
        holder.wait()
    _time.sleep(0.1)
    assert CliRunner().invoke(cli, ["--root", str(project), "-q", "ingest"]).exit_code == 0  # killed: no obstacle


def test_a_root_that_does_not_exist_is_refused_and_left_as_it_was(tmp_path, seeds_dir):
    missing = tmp_path / "nowhere" / "project"
    result = CliRunner().invoke(cli, ["--root", str(missing), "run"])
    assert result.exit_code == 1 and "data/raw: no such file or folder" in result.output
    assert not (tmp_path / "nowhere").exists()  # no data/ folder, no lock file left behind
    made = tmp_path / "new"
    assert CliRunner().invoke(cli, ["--root", str(made), "-q", "ingest", str(seeds_dir)]).exit_code == 0
    assert (made / "data" / "interim" / "listings.parquet").exists()  # a run that writes keeps its folders


def test_a_run_that_keeps_no_paper_stops_at_topics_and_says_so(project):
    result = CliRunner().invoke(cli, ["--root", str(project), "-q", "run", "--since", "2030-01-01"])
    assert result.exit_code == 1
    error = [line for line in result.output.splitlines() if line.startswith("paper-trends: error")]
    assert len(error) == 1 and "papers.parquet holds no papers" in error[0] and "quarantine.parquet" in error[0]
    assert not (project / "data" / "processed" / "doc_topics.parquet").exists()


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["ingest", "--columns", "foo"], "Invalid value for '--columns': expected FIELD=COLUMN pairs"),
        (["ingest", "--columns", "title=T,bogus=X"], "Invalid value for '--columns': 'bogus' is no field"),
        (["ingest", "--category", "12"], "Invalid value for '--category': '12' is not an arXiv category"),
        (["run", "--category", "x.1"], "Invalid value for '--category'"),
        (["topics", "--cluster", "foo"], "Invalid value for '--cluster': 'foo' is not a scheduler address"),
    ],
)
def test_a_bad_option_value_is_refused_against_its_option(tmp_path, args, says):
    result = CliRunner().invoke(cli, ["--root", str(tmp_path), *args])
    assert result.exit_code == 2 and says in result.output, result.output
    assert not (tmp_path / "data").exists()


def test_a_command_leaves_its_objects_out_of_the_interpreters_last_collection(monkeypatch):
    """At exit the interpreter collects every object once more (0.3 s after a weekly report of a 40k
    store); a command freezes them first, at exit only, as they go with the process anyway."""
    import atexit
    import gc
    import sys

    from pipeline import cli as entry

    registered = []
    monkeypatch.setattr(atexit, "register", lambda fn, *a, **k: registered.append(fn) or fn)
    monkeypatch.setattr(sys, "argv", ["paper-trends", "--help"])
    before = gc.get_freeze_count()
    with pytest.raises(SystemExit):
        entry.main()
    assert gc.freeze in registered and gc.get_freeze_count() == before  # frozen at exit, not now
