from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from pipeline.io import tables as io_tables
from pipeline.io import TableError, read_fingerprint, read_table, write_batches, write_table
from pipeline.schemas import Duplicates, Listings
from tests.helpers import ABSTRACT, listings, record


def dup_rows(n: int) -> pd.DataFrame:
    return pd.DataFrame({
        "source_file": ["a.jsonl"] * n, "position": range(n), "arxiv_id": [None] * n,
        "paper_id": ["2501.00001"] * n, "reason": ["same id"] * n,
    })


def test_round_trip_keeps_types_and_fingerprint(tmp_path):
    df = listings(dict(arxiv_id="2501.00001v1", title="T", abstract=ABSTRACT, authors=["A B", "C D"], line=3))
    path = tmp_path / "x" / "listings.parquet"
    write_table(df, path, Listings, fingerprint="abc123")
    back = read_table(path, Listings)
    assert back["authors"].iloc[0] == ["A B", "C D"]
    assert back["line"].iloc[0] == 3 and back["error"].isna().all()
    assert read_fingerprint(path) == "abc123"
    assert read_fingerprint(tmp_path / "missing.parquet") is None


def test_write_rejects_rows_that_break_the_schema(tmp_path):
    bad = dup_rows(2).assign(reason=["same id", "because"])
    with pytest.raises(TableError, match="Duplicates"):
        write_table(bad, tmp_path / "d.parquet", Duplicates)
    assert not (tmp_path / "d.parquet").exists()


def test_read_rejects_a_table_that_no_longer_matches(tmp_path):
    path = tmp_path / "d.parquet"
    pq.write_table(__import__("pyarrow").Table.from_pandas(dup_rows(1).drop(columns="reason")), path)
    with pytest.raises(TableError, match="d.parquet: does not match schema Duplicates"):
        read_table(path, Duplicates)


def test_unreadable_and_missing_tables_are_named(tmp_path):
    garbage = tmp_path / "g.parquet"
    garbage.write_bytes(b"not parquet at all")
    with pytest.raises(TableError, match="g.parquet: unreadable parquet file"):
        read_table(garbage, Duplicates)
    with pytest.raises(TableError, match="not found"):
        read_table(tmp_path / "none.parquet", Duplicates)


def test_crash_mid_write_leaves_old_table_and_no_temp_file(tmp_path, monkeypatch):
    path = tmp_path / "d.parquet"
    write_table(dup_rows(3), path, Duplicates, fingerprint="old")

    def boom(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(io_tables.pq, "write_table", boom)
    with pytest.raises(OSError, match="disk full"):
        write_table(dup_rows(5), path, Duplicates, fingerprint="new")
    assert len(read_table(path, Duplicates)) == 3 and read_fingerprint(path) == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["d.parquet"]


def test_streamed_batches(tmp_path):
    path = tmp_path / "d.parquet"
    batches = (dup_rows(4).assign(position=lambda d, i=i: d["position"] + 4 * i) for i in range(3))
    assert write_batches(batches, path, Duplicates, fingerprint="fp") == 12
    assert read_table(path, Duplicates)["position"].tolist() == list(range(12))
    assert read_fingerprint(path) == "fp"


def test_streamed_batches_failing_midway_leave_nothing(tmp_path):
    path = tmp_path / "d.parquet"

    def batches():
        yield dup_rows(2)
        raise RuntimeError("reader broke")

    with pytest.raises(RuntimeError):
        write_batches(batches(), path, Duplicates)
    assert list(tmp_path.iterdir()) == []


def test_plain_pandas_can_read_every_table(tmp_path):
    df = listings(dict(arxiv_id="2501.00001v1", title="T", abstract=ABSTRACT, authors=["A B"], line=3))
    path = tmp_path / "listings.parquet"
    write_table(df, path, Listings)
    plain = pd.read_parquet(path)  # what a notebook user does first
    assert list(plain.loc[0, "authors"]) == ["A B"] and plain.loc[0, "title"] == "T"


def test_written_files_get_normal_permissions_not_mkstemps_private_ones(tmp_path):
    import os

    from pipeline.io import atomic_path, write_new_file

    with atomic_path(tmp_path / "a.txt") as tmp:
        tmp.write_text("x")
    assert write_new_file(b"y", tmp_path / "b.xml")
    mask = os.umask(0)
    os.umask(mask)
    for name in ("a.txt", "b.xml"):
        assert (tmp_path / name).stat().st_mode & 0o777 == 0o666 & ~mask  # 0o644 under the usual umask


def test_a_folder_swap_killed_half_way_leaves_the_old_folder_to_be_put_back(tmp_path):
    import os

    from pipeline.io import atomic_folder, restore_folder

    folder = tmp_path / "topics"
    folder.mkdir()
    (folder / "state.json").write_text("old")
    os.replace(folder, tmp_path / ".topics.old-12345")  # killed right after moving the old one aside
    restore_folder(folder)
    assert (folder / "state.json").read_text() == "old"
    os.replace(folder, tmp_path / ".topics.old-12345")
    with atomic_folder(folder) as tmp:  # the next writer puts it back before it swaps its own in
        assert (folder / "state.json").read_text() == "old"
        (tmp / "state.json").write_text("new")
    assert (folder / "state.json").read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["topics"]


def _figures() -> dict:
    from matplotlib.figure import Figure

    figures = {}
    for k in range(3):
        fig = Figure(figsize=(3, 2), layout="constrained")
        ax = fig.add_subplot()
        ax.plot(range(10), [(i * (k + 2)) % 7 for i in range(10)])
        ax.set_title(f"figure {k} <&>")
        figures[f"f{k}"] = fig
    return figures


def test_figures_drawn_by_forked_processes_are_the_ones_drawn_here(tmp_path, monkeypatch):
    from pipeline.io import files

    parallel = files.write_figures(_figures(), tmp_path / "parallel")
    monkeypatch.setattr(files, "_cores", lambda: 1)  # one core: drawn here, one by one
    serial = files.write_figures(_figures(), tmp_path / "serial")
    assert list(parallel) == ["f0", "f1", "f2"] and parallel == serial
    assert parallel["f0"] != parallel["f1"] and parallel["f0"].startswith(b"\x89PNG")
    for name in ("f0", "f1", "f2"):
        assert (tmp_path / "parallel" / f"{name}.png").read_bytes() == parallel[name]
        # an SVG's clip-path ids hash objects' identities, which differ from one drawing to the next
        svg = [re.sub(r"\b[pm][0-9a-f]{10}\b", "ID", (tmp_path / side / f"{name}.svg").read_text())
               for side in ("parallel", "serial")]
        assert svg[0] == svg[1] and "<dc:date>" not in svg[0]
    assert "figure 1 &lt;&amp;&gt;" in (tmp_path / "parallel" / "f1.svg").read_text()  # text stays text
    assert not [p for p in (tmp_path / "parallel").iterdir() if p.suffix not in (".png", ".svg")]


def test_figures_are_drawn_here_when_the_drawing_processes_die(tmp_path, monkeypatch):
    import os

    from pipeline.io import files

    pid = os.getpid()
    draw = files._figure_bytes

    def dies_in_a_child(fig, fmt):
        if os.getpid() != pid:
            os._exit(1)
        return draw(fig, fmt)

    monkeypatch.setattr(files, "_figure_bytes", dies_in_a_child)
    monkeypatch.setattr(files, "_cores", lambda: 2)
    pngs = files.write_figures(_figures(), tmp_path)
    assert sorted(pngs) == ["f0", "f1", "f2"] and all(p.startswith(b"\x89PNG") for p in pngs.values())
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"f{k}.{x}" for k in range(3) for x in ("png", "svg"))


def test_figures_are_drawn_by_processes_forked_before_they_were_handed_over(tmp_path, monkeypatch):
    """The drawing processes start when the drawing is made, before the caller reads its data: a
    change made afterwards in this process (here, to how a figure is drawn) does not reach them. The
    jobs no process has begun when the caller waits are drawn by the caller, the last first."""
    import time

    from pipeline.io import files

    draw = files._figure_bytes

    begun = tmp_path / "begun"

    def slow(fig, fmt):  # the processes inherit this: the first figure keeps them busy
        if fig.axes[0].get_title().startswith("figure 0"):
            begun.touch()
            time.sleep(2)
        return draw(fig, fmt)

    monkeypatch.setattr(files, "_cores", lambda: 2)
    monkeypatch.setattr(files, "_figure_bytes", slow)
    drawing = files.FigureDrawing()
    monkeypatch.setattr(files, "_figure_bytes", lambda fig, fmt: b"drawn here")
    with drawing:
        for name, fig in _figures().items():
            drawing.start(name, fig)
        deadline = time.monotonic() + 30
        while not begun.exists() and time.monotonic() < deadline:  # a process has begun the first job
            time.sleep(0.05)
        assert begun.exists(), "no drawing process began the first job"
        pngs = drawing.write(tmp_path / "out")
    tmp_path = tmp_path / "out"
    assert list(pngs) == ["f0", "f1", "f2"]
    assert pngs["f0"].startswith(b"\x89PNG")  # the first job, drawn by the process as it was forked
    assert pngs["f2"] == b"drawn here" == (tmp_path / "f2.svg").read_bytes()  # the last ones, taken back


def test_figures_are_drawn_here_with_one_core(tmp_path, monkeypatch):
    from pipeline.io import files

    monkeypatch.setattr(files, "_cores", lambda: 1)
    with files.FigureDrawing() as drawing:
        monkeypatch.setattr(files, "_figure_bytes", lambda fig, fmt: f"here {fmt}".encode())
        drawing.start("f0", _figures()["f0"])
        assert drawing.write(tmp_path) == {"f0": b"here png"}


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads a process's children from Linux's /proc")
def test_a_drawing_process_ends_when_its_caller_is_killed(tmp_path):
    """A caller killed without cleaning up (SIGKILL, the OOM killer) leaves no drawing process behind."""
    import subprocess
    import sys
    import time

    code = ("import os, time; from pipeline.io import files; files._cores = lambda: 2; d = files.FigureDrawing(); "
            "time.sleep(0.5); me = os.getpid(); print(open(f'/proc/{me}/task/{me}/children').read(), flush=True); "
            "os._exit(0)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60).stdout
    children = [int(pid) for pid in out.split()]
    assert children  # the drawing process was running

    def alive(pid: int) -> bool:
        try:
            return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
        except FileNotFoundError:
            return False

    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in children) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(alive(pid) for pid in children)


def test_the_weekly_figures_can_be_sent_to_a_drawing_process():
    """A figure that will not pickle is drawn in the caller's process, silently slower: the weekly
    report's kinds of figure must pickle."""
    import pickle

    from pipeline.report import plots

    shares = pd.DataFrame({0: [0.2, 0.3, None], 1: [0.5, 0.4, None]}, index=["2025-W01", "2025-W02", "2025-W03"])
    figures = [plots.category_volume(pd.Series({"cs.DC": 3}), pd.Series({"cs.DC": 2.0}), title="t", note="n"),
               plots.share_by_week(shares, {0: "a", 1: "b"}, title="t"),
               plots.theme_series(shares, [0, 1], {0: "a", 1: "b"}, title="t"),
               plots.heatmap(pd.DataFrame({"cs.DC": [2, 1]}, index=[0, 1]), {0: "a", 1: "b"}, title="t", note="n")]
    for fig in figures:
        assert pickle.loads(pickle.dumps(fig)).axes


def test_reading_a_table_imports_no_other_dataframe_library(tmp_path):
    """pandera would import dask.dataframe (about a second) to build a schema whenever Dask is
    installed; our schemas are built for pandas alone."""
    import subprocess
    import sys

    pytest.importorskip("dask")  # installed with the cluster extra, as the test command does
    write_table(listings(record(arxiv_id="2506.00001")),
                tmp_path / "l.parquet", Listings)
    code = ("import sys; from pipeline.io import read_table; from pipeline.schemas import Listings; "
            f"read_table(__import__('pathlib').Path({str(tmp_path / 'l.parquet')!r}), Listings); "
            "print(sorted(m for m in ('dask', 'dask.dataframe', 'modin', 'pyspark') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
