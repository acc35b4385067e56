"""The ingest driver: format detection, input listing, filters, positions, the stage run."""

from __future__ import annotations

import datetime as dt
import gzip
import io
import json
import logging
import shutil
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipeline import config
from pipeline.config import IngestConfig
from pipeline.ingest import (
    Filter,
    IngestError,
    IngestStats,
    detect_format,
    ingest,
    list_inputs,
    read_file,
    run,
)
from pipeline.ingest.records import SourceError, record
from pipeline.io import read_table
from pipeline.schemas import Listings

REPO = Path(__file__).resolve().parents[2]
SEEDS = REPO / "data" / "raw"
DATA = REPO.parent / "shared" / "data"
DAILY = DATA / "arxiv-daily"
FORMATS = DATA / "formats"
ATOM = FORMATS / "arxiv-api-atom_cs.RO_2entries.xml"
ATOM_EMPTY = FORMATS / "arxiv-api-atom_empty.xml"
KAGGLE = FORMATS / "arxiv-metadata-oai-snapshot_head200.jsonl"
DIGEST = SEEDS / "000_db5e420608efce7d.txt"
API_TEXT = SEEDS / "001_604093044f557937.txt"
LISTING = SEEDS / "002_37170d3f66719629.txt"
MARCH_18 = DAILY / "2025-03-18.jsonl.gz"
MARCH_19 = DAILY / "2025-03-19.jsonl.gz"


def _head(path: Path) -> bytes:
    data = path.read_bytes()
    return (gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data)[: 1 << 16]


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in gzip.decompress(path.read_bytes()).splitlines() if line.strip()]


def _read(path: Path, shown: str | None = None, **cfg) -> tuple[list[dict], IngestStats]:
    stats = IngestStats()
    cfg_ = IngestConfig(**cfg)
    records = list(read_file(path, shown or path.name, cfg_, Filter.from_config(cfg_), stats))
    return records, stats


# --- format detection ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("path", "fmt"),
    [
        (ATOM, "atom"), (ATOM_EMPTY, "atom"), (API_TEXT, "api-text"), (DIGEST, "digest"),
        (LISTING, "listing-page"), (MARCH_18, "daily-jsonl"), (KAGGLE, "kaggle"),
    ],
    ids=lambda v: v.name if isinstance(v, Path) else v,
)
def test_detect_format_of_real_files(path, fmt):
    assert detect_format(_head(path), path.name) == fmt


def test_detect_every_daily_layout():
    for path in (MARCH_18, DAILY / "2025-11-15.jsonl.gz", DAILY / "2025-12-31.jsonl.gz"):
        assert detect_format(_head(path), path.name) == "daily-jsonl"


def test_detect_csv_by_name_and_parquet_by_magic(tmp_path):
    assert detect_format(b"id,title,abstract\r\n1,T,A\r\n", "papers.csv") == "csv"
    assert detect_format(b"id,title,abstract\r\n1,T,A\r\n", "papers.csv.gz") == "csv"
    sink = io.BytesIO()
    pq.write_table(pa.table({"title": ["T"]}), sink)
    assert detect_format(sink.getvalue()[:100], "papers.bin") == "parquet"


def test_detect_kaggle_line_with_a_long_abstract():
    obj = json.loads(KAGGLE.read_bytes().splitlines()[0])
    obj["abstract"] = "word " * 40_000  # "versions" and "authors_parsed" come after it, past the sniffed head
    head = json.dumps(obj).encode()[: 1 << 16]
    assert b'"versions"' not in head
    assert detect_format(head, "snapshot.jsonl") == "kaggle"


@pytest.mark.parametrize(
    ("head", "message"),
    [
        (b"  \n\n", "empty file"),
        (b'<?xml version="1.0"?>\n<html><body>Not found</body></html>', "not an Atom feed"),
        (b'{"name": "x", "value": 1}\n', "without title/summary fields"),
        (b"PK\x03\x04\x14\x00\x00\x00\x08\x00", "binary data"),
        (b"# paper-trends\n\nTopic trends over research papers.\n", "--format"),
    ],
)
def test_detect_refuses_with_a_clear_message(head, message):
    with pytest.raises(SourceError, match=message):
        detect_format(head, "input")


# --- listing inputs ------------------------------------------------------------------------------
def test_list_inputs_recursive_sorted_hidden_skipped(tmp_path):
    names = ["b.txt", "a.txt", "sub/c.jsonl", "sub/deeper/d.xml", ".hidden.txt", ".git/config", "sub/.c/x"]
    for name in names:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    found = list_inputs([tmp_path])
    assert [p.relative_to(tmp_path).as_posix() for p in found] == [
        "a.txt", "b.txt", "sub/c.jsonl", "sub/deeper/d.xml",
    ]


def test_list_inputs_files_named_and_read_once(tmp_path):
    (tmp_path / "sub").mkdir()
    for name in ["a.txt", "sub/b.txt"]:
        (tmp_path / name).write_text("x")
    named = tmp_path / "sub" / "b.txt"
    found = list_inputs([named, tmp_path, tmp_path / "sub"])
    assert found == [named, tmp_path / "a.txt"]


def test_list_inputs_named_hidden_file_is_read(tmp_path):
    hidden = tmp_path / ".listing.jsonl"
    hidden.write_text("x")
    assert list_inputs([hidden]) == [hidden]


def test_list_inputs_missing_path(tmp_path):
    with pytest.raises(IngestError, match=r"nowhere\.jsonl: no such file or folder"):
        list_inputs([tmp_path / "nowhere.jsonl"])


# --- the filter ----------------------------------------------------------------------------------
def _filter(**cfg) -> Filter:
    return Filter.from_config(IngestConfig(**cfg))


def test_filter_category_matches_any_listed_or_primary():
    keep = _filter(categories=("cs.RO",))
    assert keep.keeps(record(categories=["cs.CV", "cs.RO"]))
    assert keep.keeps(record(primary_category="cs.RO"))
    assert not keep.keeps(record(categories=["cs.CV"], primary_category="cs.CV"))
    assert not keep.keeps(record(categories=["cs.ROB"]))  # exact, not a prefix


def test_filter_since_until_inclusive():
    keep = _filter(since=dt.date(2025, 3, 18), until=dt.date(2025, 3, 19))
    assert keep.keeps(record(published="2025-03-18T00:00:00Z"))
    assert keep.keeps(record(published="2025-03-19T23:59:59Z"))
    assert keep.keeps(record(announced="2025-03-19"))
    assert not keep.keeps(record(published="2025-03-17T23:59:59Z"))
    assert not keep.keeps(record(published="2025-03-20T00:00:00Z"))
    assert not keep.keeps(record(published="Thu, 20 Mar 2025 00:00:01 GMT"))  # the Kaggle style
    assert keep.keeps(record(published="Wed, 19 Mar 2025 10:00:00 GMT"))


def test_filter_keeps_what_it_cannot_judge():
    keep = _filter(categories=("cs.RO",), since=dt.date(2025, 3, 18), until=dt.date(2025, 3, 18))
    assert keep.keeps(record(title="no categories, no dates"))
    assert keep.keeps(record(categories=["cs.RO"], published="not a date"))
    assert keep.keeps(record(categories=["cs.CV"], error="unreadable"))  # errors always go to quarantine
    # An unparseable published date falls back to the announcement day.
    assert not keep.keeps(record(categories=["cs.RO"], published="garbled", announced="2025-03-20"))


def test_filter_counts_on_real_daily_files():
    truth = [p for p in _jsonl(MARCH_18) if "cs.RO" in p["categories"]]
    records, stats = _read(MARCH_18, categories=("cs.RO",))
    assert [r["arxiv_id"] for r in records] == [p["id"] for p in truth]
    assert stats.filtered + len(records) == 465
    _, outside = _read(MARCH_18, since=dt.date(2025, 3, 19))
    assert outside.records == 0 and outside.filtered == 465


def test_kaggle_category_prefilter_counted_as_filtered():
    lines = [json.loads(line) for line in KAGGLE.read_bytes().splitlines()]
    wanted = [o["id"] for o in lines if "hep-ph" in o["categories"].split()]
    records, stats = _read(KAGGLE, categories=("hep-ph",))
    assert [r["arxiv_id"].rsplit("v", 1)[0] for r in records] == wanted
    assert stats.filtered == 200 - len(wanted)
    assert stats.records == len(wanted)
    assert [r["position"] for r in records] == list(range(len(wanted)))


def test_kaggle_date_filter_uses_first_version():
    # 0704.0001: v1 2007-04-02, v2 2007-07-24, update_date 2008-11-26.
    records, _ = _read(KAGGLE, since=dt.date(2007, 4, 2), until=dt.date(2007, 4, 2))
    assert "0704.0001v2" in [r["arxiv_id"] for r in records]
    assert all(r["published"].startswith("Mon, 2 Apr 2007") for r in records)


# --- positions, formats, display -----------------------------------------------------------------
def test_ingest_positions_per_file_and_source_file_display(tmp_path):
    paths = config.load(tmp_path).paths
    paths.raw.mkdir(parents=True)
    inside = paths.raw / "listing.txt"
    shutil.copy(LISTING, inside)
    files = [MARCH_18, MARCH_19, ATOM, KAGGLE, inside]
    stats = IngestStats()
    df = pd.concat(list(ingest(files, paths, IngestConfig(batch_rows=500), stats)), ignore_index=True)
    assert stats.files == 5 and stats.records == len(df) and stats.unreadable_files == 0
    shown = df.groupby("source_file", sort=False)
    assert list(shown.groups) == [p.resolve().as_posix() for p in files[:4]] + ["data/raw/listing.txt"]
    for name, group in shown:
        assert group["position"].tolist() == list(range(len(group))), name
    formats = df.groupby("source_file", sort=False)["source_format"].first().tolist()
    assert formats == ["daily-jsonl", "daily-jsonl", "atom", "kaggle", "listing-page"]
    assert stats.by_format == {"daily-jsonl": 465 + len(_jsonl(MARCH_19)), "atom": 2, "kaggle": 200,
                               "listing-page": 80}
    Listings.validate(df)


def test_format_override(tmp_path):
    named = tmp_path / "feed.data"
    named.write_bytes(gzip.compress(ATOM.read_bytes()))  # no telling name, and gzipped
    records, _ = _read(named)
    assert [r["source_format"] for r in records] == ["atom", "atom"]
    forced, _ = _read(MARCH_18, format="daily-jsonl")
    assert len(forced) == 465
    with pytest.raises(config.ConfigError, match="ingest.format = 'xml': use one of atom"):
        _read(ATOM, format="xml")


def test_run_writes_listings_and_skips_when_current(tmp_path, caplog):
    cfg = config.load(tmp_path, overrides={"ingest": {"inputs": [str(MARCH_19), str(ATOM), str(ATOM_EMPTY)]}})
    with caplog.at_level(logging.WARNING, logger="pipeline.ingest"):
        result = run(cfg)
    assert caplog.records == []
    assert result.ran
    n = len(_jsonl(MARCH_19)) + 2
    assert result.counts == {
        "files": 3, "records": n, "filtered out": 0, "unreadable files": 0, "warnings": 0,
    }
    df = read_table(cfg.paths.listings, Listings)
    assert len(df) == n and df["error"].isna().all()
    assert set(df["announced"].dropna()) == {"2025-03-19"}
    again = run(cfg)
    assert not again.ran and again.counts == result.counts


def test_unexpected_reader_failure_is_named_and_placed(monkeypatch, caplog):
    import pipeline.ingest as driver
    from pipeline.ingest.atom import read_atom

    def breaks_on_the_second(stream, ctx):
        yield from list(read_atom(stream, ctx))[:1]
        raise KeyError("surprise")

    monkeypatch.setitem(driver.FORMATS, "atom", breaks_on_the_second)
    with caplog.at_level(logging.WARNING, logger="pipeline.ingest"):
        records, stats = _read(ATOM, "feed.xml")
    assert [r["arxiv_id"] for r in records] == ["2510.14968v1", None]
    assert records[1]["error"].startswith("unexpected KeyError while reading after the record at line 10: ")
    assert stats.unreadable_files == 1 and stats.records == 2
    assert caplog.records[0].getMessage().startswith("feed.xml: unexpected KeyError")
    assert caplog.records[0].exc_info is not None  # the traceback is logged for a bug report
    with pytest.raises(IngestError, match="feed.xml: unexpected KeyError"):
        _read(ATOM, "feed.xml", strict=True)


def test_what_a_folder_holds_that_cannot_be_read_is_named(tmp_path, monkeypatch):
    import os

    (tmp_path / "good.txt").write_text("x")
    (tmp_path / "gone").symlink_to(tmp_path / "nowhere.jsonl")  # dangling
    (tmp_path / "loop").mkdir()
    (tmp_path / "loop" / "back").symlink_to(tmp_path)  # a link back up: a loop
    (tmp_path / "self").symlink_to(tmp_path / "self")  # a link to itself
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "inside.txt").write_text("x")
    real_scandir = os.scandir

    def scandir(path):
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    said: list[tuple[str, str]] = []
    found = list_inputs([tmp_path], lambda path, why: said.append((path.name, why)))
    assert found == [tmp_path / "good.txt"]
    reasons = dict(said)
    assert "does not exist or loops" in reasons["gone"] and "nowhere.jsonl" in reasons["gone"]
    assert "loops" in reasons["self"]
    assert "loop" in reasons["back"]
    assert "folder cannot be read (Permission denied)" in reasons["locked"]


def test_a_file_name_with_a_newline_stays_on_one_line(tmp_path, caplog):
    import logging

    from pipeline import config
    from pipeline.ingest import run

    raw = tmp_path / "data" / "raw"
    raw.mkdir(parents=True)
    (raw / "bad\nname.txt").write_text("nothing a listing would hold\n")
    (raw / "2025-03-18.jsonl").write_text('{"id": "2503.00001", "title": "T", "summary": "S"}\n')
    caplog.set_level(logging.WARNING, logger="pipeline.ingest")
    run(config.load(tmp_path), force=True)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    named = [w for w in warnings if "name.txt" in w]
    assert named and all("\n" not in w for w in named)
    assert any(w.startswith("data/raw/bad\\nname.txt: ") for w in named), named
