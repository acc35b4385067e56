"""Bad input through the ingest driver: each file is read, or named, placed and quarantined; none vanishes.

Each case runs the ingest stage in a temporary project root on one file in data/raw/, then checks
that the error row and the logged warning name the file (as ``Paths.display`` shows it) and the line
or byte where it broke, that the records before the break are kept, that the counts add up, and that
``strict`` turns the same file into an IngestError naming it.
"""

from __future__ import annotations

import gzip
import json
import logging
import random
import time
import tracemalloc
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest

from pipeline import config
from pipeline.config import IngestConfig
from pipeline.ingest import Filter, IngestError, IngestStats, read_file, run
from pipeline.ingest.records import fallback_warning
from pipeline.io import read_table
from pipeline.schemas import Listings

REPO = Path(__file__).resolve().parents[2]
DATA = REPO.parent / "shared" / "data"
ATOM = DATA / "formats" / "arxiv-api-atom_cs.RO_2entries.xml"
MARCH_18 = DATA / "arxiv-daily" / "2025-03-18.jsonl.gz"
DIGEST = REPO / "data" / "raw" / "000_db5e420608efce7d.txt"
LOGGER = "pipeline.ingest"


@dataclass
class Outcome:
    cfg: config.Config
    path: Path
    shown: str
    counts: dict[str, int]
    df: pd.DataFrame

    @property
    def errors(self) -> pd.DataFrame:
        return self.df[self.df["error"].notna()]

    @property
    def good(self) -> pd.DataFrame:
        return self.df[self.df["error"].isna()]


def _ingest(root: Path, name: str, data: bytes, **ingest) -> Outcome:
    """Write ``data`` to ``root/data/raw/name`` and run the ingest stage on data/raw/."""
    cfg = config.load(root, overrides={"ingest": ingest})
    path = cfg.paths.raw / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    result = run(cfg, force=True)
    df = read_table(cfg.paths.listings, Listings)
    return Outcome(cfg, path, cfg.paths.display(path), result.counts, df)


def _assert_quarantined(out: Outcome, caplog, *, kept: int, says: str, where: str) -> None:
    """One error row after ``kept`` good records; the row and the warning say what and where."""
    assert out.shown == f"data/raw/{out.path.name}"
    assert len(out.good) == kept
    assert len(out.errors) == 1
    row = out.errors.iloc[0]
    assert row["source_file"] == out.shown
    assert says in row["error"] and f"(at {where})" in row["error"], row["error"]
    assert row["position"] == kept  # after the records read before the break
    assert out.df["position"].tolist() == list(range(kept + 1))
    # counts add up: records read + error rows = rows written
    assert out.counts["records"] == len(out.df) == kept + 1
    assert out.counts["unreadable files"] == 1
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING and r.name == LOGGER]
    assert any(w.startswith(f"{out.shown}: ") and says in w and where in w for w in warnings), warnings


def _assert_strict(out: Outcome, where: str) -> None:
    cfg = config.load(out.cfg.paths.root, overrides={"ingest": {"strict": True}})
    with pytest.raises(IngestError) as info:
        run(cfg, force=True)
    assert str(info.value).startswith(f"{out.shown}: ") and where in str(info.value)


def _read_direct(path: Path, **cfg) -> tuple[list[dict], IngestStats]:
    stats = IngestStats()
    records = list(read_file(path, path.name, IngestConfig(**cfg), Filter(), stats))
    return records, stats


@pytest.fixture(autouse=True)
def _warnings(caplog):
    caplog.set_level(logging.WARNING, logger=LOGGER)


# --- files that are not listings at all ----------------------------------------------------------
@pytest.mark.parametrize("data", [b"", b"  \r\n\n\t\n"], ids=["zero-bytes", "whitespace"])
def test_empty_file(tmp_path, caplog, data):
    out = _ingest(tmp_path, "2025-03-18.jsonl", data)
    assert len(out.df) == 1 and out.counts["records"] == 1
    row = out.errors.iloc[0]
    assert row["error"] == "empty file (no records)" and row["source_format"] == "unknown"
    assert any(out.shown in r.getMessage() and "empty file" in r.getMessage() for r in caplog.records)
    _assert_strict(out, "empty file")


def test_binary_garbage(tmp_path, caplog):
    data = b"\x7fgarbage" + random.Random(3).randbytes(8192)
    nul = data.find(b"\x00")
    assert 0 < nul < 1 << 16
    out = _ingest(tmp_path, "listing.jsonl", data)
    _assert_quarantined(out, caplog, kept=0, says="binary data, not a listing", where=f"byte {nul}")
    _assert_strict(out, f"byte {nul}")


def test_unknown_format_says_how_to_name_it(tmp_path, caplog):
    readme = (
        b"# paper-trends\n\nTopic trends over research-paper listings.\n\n"
        b"Run `paper-trends run` to ingest, clean and cluster.\n"
    )
    out = _ingest(tmp_path, "README.md", readme)
    _assert_quarantined(out, caplog, kept=0, says="unknown format", where="line 1")
    assert "--format" in out.errors.iloc[0]["error"]
    assert "daily-jsonl" in out.errors.iloc[0]["error"]  # the formats are listed
    _assert_strict(out, "--format")


# --- broken in the middle ------------------------------------------------------------------------
def test_truncated_xml_keeps_the_first_entry(tmp_path, caplog):
    data = ATOM.read_bytes()
    cut = data[: data.index(b"Tomasz P. Kucner")]  # inside the second entry's author list
    line = cut.count(b"\n") + 1
    out = _ingest(tmp_path, "query.xml", cut)
    _assert_quarantined(out, caplog, kept=1, says="XML broken", where=f"line {line}")
    assert out.good["arxiv_id"].tolist() == ["2510.14968v1"]
    row = out.errors.iloc[0]
    assert row["line"] == line and row["source_format"] == "atom"
    assert "inside the <entry> that starts at line 56" in row["error"]
    _assert_strict(out, f"line {line}")


def test_truncated_gzip_keeps_the_records_before_the_break(tmp_path, caplog):
    data = MARCH_18.read_bytes()
    truth = [json.loads(x)["id"] for x in gzip.decompress(data).splitlines()]
    out = _ingest(tmp_path, MARCH_18.name, data[: len(data) * 3 // 5])  # the real file, cut short
    kept = len(out.good)
    assert 0 < kept < len(truth)
    assert out.good["arxiv_id"].tolist() == truth[:kept]
    _assert_quarantined(out, caplog, kept=kept, says="gzip data cut short", where=f"line {kept + 1}")
    _assert_strict(out, f"line {kept + 1}")


def test_small_truncated_gzip_still_detected(tmp_path, caplog):
    # The break falls inside the bytes read to detect the format: still daily-jsonl, records kept.
    lines = gzip.decompress(MARCH_18.read_bytes()).splitlines(keepends=True)[:30]
    data = gzip.compress(b"".join(lines))
    out = _ingest(tmp_path, MARCH_18.name, data[: len(data) // 2])
    kept = len(out.good)
    assert kept > 0 and set(out.df["source_format"]) == {"daily-jsonl"}
    _assert_quarantined(out, caplog, kept=kept, says="gzip data cut short", where=f"line {kept + 1}")
    _assert_strict(out, f"line {kept + 1}")


def test_corrupt_gzip_is_named(tmp_path, caplog):
    data = bytearray(MARCH_18.read_bytes())
    middle = len(data) // 2
    data[middle : middle + 64] = bytes(64)
    out = _ingest(tmp_path, MARCH_18.name, bytes(data))
    errors = out.errors
    assert len(out.good) > 0
    assert errors["error"].str.contains("gzip data corrupt").sum() == 1
    assert out.counts["records"] == len(out.df) and out.counts["unreadable files"] == 1
    assert (errors["source_file"] == out.shown).all()
    assert any(out.shown in r.getMessage() and "gzip data corrupt" in r.getMessage() for r in caplog.records)
    _assert_strict(out, "gzip data corrupt")


# --- encodings -----------------------------------------------------------------------------------
def _digest_text() -> str:
    text = DIGEST.read_text(encoding="utf-8")
    return text.replace("Eidola: Modeling", "Eidola\u2019s \u201cModeling\u201d")


@pytest.mark.parametrize("encoding", ["latin-1", "cp1252"])
def test_digest_page_in_a_legacy_encoding(tmp_path, caplog, encoding):
    text = DIGEST.read_text(encoding="utf-8") if encoding == "latin-1" else _digest_text()
    data = text.encode(encoding)
    offset = next(i for i, b in enumerate(data) if b >= 0x80)
    expected, _ = _read_direct(_write(tmp_path / "utf8" / DIGEST.name, text.encode("utf-8")))
    out = _ingest(tmp_path / "project", DIGEST.name, data)
    assert out.counts["unreadable files"] == 0 and out.errors.empty
    assert out.df["title"].tolist() == [r["title"] for r in expected]
    assert out.df["abstract"].tolist() == [r["abstract"] for r in expected]
    assert "\u00d7" in out.df["abstract"].iloc[2]  # "1.45× speedup"
    if encoding == "cp1252":
        assert out.df["title"].iloc[0].startswith("Eidola\u2019s \u201cModeling\u201d")
    warning = f"{out.shown}: not valid UTF-8 from byte {offset}: decoded as Windows-1252/Latin-1"
    assert warning in [r.getMessage() for r in caplog.records]
    assert out.counts["warnings"] == 1


@pytest.mark.parametrize("encoding", ["latin-1", "cp1252"])
def test_jsonl_in_a_legacy_encoding(tmp_path, caplog, encoding):
    lines = gzip.decompress(MARCH_18.read_bytes()).decode("utf-8").splitlines(keepends=True)[:40]
    if encoding == "cp1252":
        lines[0] = lines[0].replace("Industrial-Grade", "\u201cIndustrial\u201d-Grade")
    lines = [line for line in lines if _encodable(line, encoding)]
    data = "".join(lines).encode(encoding)
    offset = next(i for i, b in enumerate(data) if b >= 0x80)
    line = data[:offset].count(b"\n") + 1
    expected, _ = _read_direct(_write(tmp_path / "utf8" / "2025-03-18.jsonl", "".join(lines).encode("utf-8")))
    out = _ingest(tmp_path / "project", "2025-03-18.jsonl", data)
    assert out.errors.empty and len(out.df) == len(lines)
    assert out.df["title"].tolist() == [r["title"] for r in expected]
    assert out.df["authors"].map(list).tolist() == [r["authors"] for r in expected]
    assert "Moreno D'Inc\u00e0" in out.df["authors"].iloc[1]
    message = f"{out.shown}: " + fallback_warning(offset) + f" (line {line})"
    assert message in [r.getMessage() for r in caplog.records]
    flagged = out.df[out.df["warnings"].map(len) > 0]
    assert flagged["line"].tolist() == [i + 1 for i, x in enumerate(lines) if not x.isascii()]


def _encodable(text: str, encoding: str) -> bool:
    try:
        text.encode(encoding)
    except UnicodeEncodeError:
        return False
    return True


def _write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


# --- incomplete records are read, not judged -----------------------------------------------------
def test_entries_without_abstract_title_or_date_are_kept(tmp_path, caplog):
    text = ATOM.read_text(encoding="utf-8")
    first, second = text.index("<entry>"), text.rindex("<entry>")
    entry1, entry2 = text[first:second], text[second:]
    entry1 = entry1.replace(entry1[entry1.index("<summary>") : entry1.index("</summary>") + 10], "")
    entry2 = entry2.replace(entry2[entry2.index("<title>") : entry2.index("</title>") + 8], "")
    entry2 = entry2.replace(entry2[entry2.index("<published>") : entry2.index("</published>") + 12], "")
    out = _ingest(tmp_path, "query.xml", (text[:first] + entry1 + entry2).encode())
    assert out.errors.empty and len(out.df) == 2 and caplog.records == []
    assert out.df["arxiv_id"].tolist() == ["2510.14968v1", "2510.14827v1"]
    assert out.df["abstract"].isna().tolist() == [True, False]
    assert out.df["title"].isna().tolist() == [False, True]
    assert out.df["published"].isna().tolist() == [False, True]
    assert out.df["updated"].notna().all()


def test_jsonl_lines_without_fields_are_kept(tmp_path):
    lines = [
        b'{"id": "2503.00001", "title": "Only a title"}',
        b'{"id": "2503.00002", "summary": "Only text"}',
        b"{}",
    ]
    out = _ingest(tmp_path, "2025-03-18.jsonl", b"\n".join(lines) + b"\n")
    assert out.errors.empty and len(out.df) == 3
    assert out.df["arxiv_id"].isna().tolist() == [False, False, True]
    assert out.df["title"].tolist()[0] == "Only a title"
    assert out.df["abstract"].isna().tolist() == [True, False, True]


def test_same_id_in_two_files_with_different_versions(tmp_path):
    v2 = ATOM.read_text(encoding="utf-8").replace("2510.14968v1", "2510.14968v2")
    v2 = v2.replace("<updated>2025-10-16T17:59:37Z</updated>", "<updated>2025-10-20T09:00:00Z</updated>")
    _write(tmp_path / "data" / "raw" / "a_query.xml", ATOM.read_bytes())
    out = _ingest(tmp_path, "b_query.xml", v2.encode())
    assert out.counts["records"] == 4 and out.errors.empty
    same = out.df[out.df["arxiv_id"].str.startswith("2510.14968")]
    assert same[["source_file", "arxiv_id", "updated"]].values.tolist() == [
        ["data/raw/a_query.xml", "2510.14968v1", "2025-10-16T17:59:37Z"],
        ["data/raw/b_query.xml", "2510.14968v2", "2025-10-20T09:00:00Z"],
    ]


# --- hostile XML ---------------------------------------------------------------------------------
ATOM_BODY = (
    '<feed xmlns="http://www.w3.org/2005/Atom">\n<entry>\n<id>http://arxiv.org/abs/2501.00001v1</id>\n'
    "<title>&lol9;</title>\n</entry>\n</feed>\n"
)


def _bomb(root: str = "feed", body: str = ATOM_BODY) -> bytes:
    """The "billion laughs": lol9 expands to 10**9 "lol"s (3 GB). By default inside an Atom entry."""
    levels = ['<!ENTITY lol0 "lol">'] + [
        f'<!ENTITY lol{i} "{("&lol" + str(i - 1) + ";") * 10}">' for i in range(1, 10)
    ]
    doctype = f"<!DOCTYPE {root} [\n" + "\n".join(levels) + "\n]>\n"
    return ('<?xml version="1.0"?>\n' + doctype + body).encode()


def test_billion_laughs_is_refused_quickly_without_expanding(tmp_path, caplog):
    path = _write(tmp_path / "bomb.xml", _bomb())
    tracemalloc.start()
    started = time.perf_counter()
    try:
        records, stats = _read_direct(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - started < 2
    assert peak < 5 * 2**20  # fully expanded, lol9 would be 3 GB
    assert len(records) == 1 and stats.unreadable_files == 1
    error = records[0]["error"]
    assert error.startswith("XML refused: it declares entity 'lol0'") and "nothing was expanded" in error
    assert "(at line 3)" in error and "lollol" not in error
    out = _ingest(tmp_path / "project", "bomb.xml", _bomb())
    _assert_quarantined(out, caplog, kept=0, says="XML refused", where="line 3")
    _assert_strict(out, "line 3")


def test_billion_laughs_forced_as_atom_is_refused_too(tmp_path):
    path = _write(tmp_path / "lolz.xml", _bomb("lolz", "<lolz>&lol9;</lolz>\n"))
    detected, _ = _read_direct(path)
    assert "not an Atom feed" in detected[0]["error"]  # refused before any parsing
    forced, _ = _read_direct(path, format="atom")
    assert forced[0]["error"].startswith("XML refused: it declares entity 'lol0'")


@pytest.mark.parametrize(
    "doctype",
    [
        '<!DOCTYPE feed [<!ENTITY x SYSTEM "file:///etc/passwd">]>',
        '<!DOCTYPE feed [<!ENTITY % x SYSTEM "file:///etc/passwd"> %x;]>',
    ],
    ids=["general", "parameter"],
)
def test_external_entity_is_refused_and_never_read(tmp_path, caplog, doctype):
    data = (
        '<?xml version="1.0"?>\n' + doctype + '\n<feed xmlns="http://www.w3.org/2005/Atom"><entry>'
        "<id>http://arxiv.org/abs/2501.00001v1</id><title>&x;</title><summary>&x;</summary></entry></feed>\n"
    ).encode()
    out = _ingest(tmp_path, "xxe.xml", data)
    says = "XML refused: it declares external entity 'x'"
    _assert_quarantined(out, caplog, kept=0, says=says, where="line 2")
    passwd = Path("/etc/passwd")
    secret = passwd.read_text().splitlines()[0] if passwd.exists() else "root:x:0:0"
    everything = out.df.astype(str).to_string() + "\n".join(r.getMessage() for r in caplog.records)
    assert secret not in everything and "root:" not in everything
    _assert_strict(out, "line 2")


# --- very long lines -----------------------------------------------------------------------------
def test_ten_megabyte_jsonl_record_is_one_record(tmp_path):
    abstract = ("We study long inputs. " * 500_000)[: 10 * 2**20]
    line = json.dumps({"id": "2503.99999", "title": "A very long abstract", "summary": abstract,
                       "authors": ["Ann Author"], "categories": ["cs.DB"]})
    out = _ingest(tmp_path, "2025-03-18.jsonl", line.encode() + b"\n")
    assert out.errors.empty and out.counts["records"] == 1
    assert len(out.df["abstract"].iloc[0]) == 10 * 2**20
    assert list(out.df["categories"].iloc[0]) == ["cs.DB"]


def test_ten_megabyte_line_of_junk_is_an_unknown_format_row(tmp_path, caplog):
    junk = ("qwe rty uio pas dfg hjk lzx cvb nm " * 320_000)[: 10 * 2**20]
    out = _ingest(tmp_path, "dump.txt", junk.encode())
    _assert_quarantined(out, caplog, kept=0, says="unknown format", where="line 1")
    _assert_strict(out, "line 1")


# --- tables --------------------------------------------------------------------------------------
def test_csv_mapping_naming_a_missing_column_through_the_driver(tmp_path, caplog):
    data = b"id,Heading,abstract\r\n2503.00001,A title,An abstract\r\n"
    out = _ingest(tmp_path, "papers.csv", data, columns={"title": "Title"})
    says = "--columns maps title='Title', but the CSV file has no such column"
    _assert_quarantined(out, caplog, kept=0, says=says, where="line 1")
    assert "'id', 'Heading', 'abstract' (at line 1)" in out.errors.iloc[0]["error"]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-8-sig"])
@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gzip"])
def test_jsonl_with_a_byte_order_mark_is_read(tmp_path, encoding, compress):
    text = gzip.decompress(MARCH_18.read_bytes()).decode("utf-8")
    lines = text.splitlines(keepends=True)[:25]
    expected, _ = _read_direct(_write(tmp_path / "utf8" / "2025-03-18.jsonl", "".join(lines).encode("utf-8")))
    data = "".join(lines).encode(encoding)
    if encoding == "utf-16-be":
        data = b"\xfe\xff" + data  # Python writes no mark for an explicit byte order
    out = _ingest(tmp_path / "project", "2025-03-18.jsonl" + (".gz" if compress else ""),
                  gzip.compress(data) if compress else data)
    assert out.errors.empty and len(out.df) == 25
    assert out.df["title"].tolist() == [r["title"] for r in expected]
    assert out.df["warnings"].map(len).sum() == 0


def test_csv_in_utf16_is_read(tmp_path):
    rows = "arxiv_id,title,abstract,published\n2501.00001,Caf\u00e9 scheduling on GPUs,We schedule caf\u00e9s.,2025-01-02\n"
    out = _ingest(tmp_path / "project", "listing.csv", rows.encode("utf-16"))
    assert out.errors.empty and out.df["title"].tolist() == ["Caf\u00e9 scheduling on GPUs"]


def test_jsonl_fields_of_the_wrong_type_are_flagged_not_guessed(tmp_path, caplog):
    from pipeline import clean
    from pipeline.schemas import Quarantine

    good = {"id": "2503.00001", "title": "A title", "summary": "An abstract " * 5, "authors": ["A. Author"],
            "categories": ["cs.DC"]}
    lines = [good,
             {**good, "id": "2503.00002", "title": ["A", "list"]},
             {**good, "id": "2503.00003", "title": 42},
             {**good, "id": "2503.00004", "authors": [{"name": "An Object"}]},
             {**good, "id": 2503.0005},
             {**good, "id": "2503.00006", "summary": {"text": "nested"}}]
    out = _ingest(tmp_path, "2025-03-18.jsonl", "\n".join(json.dumps(x) for x in lines).encode() + b"\n")
    assert len(out.df) == 6 and out.good["arxiv_id"].tolist() == ["2503.00001"]
    errors = out.errors.set_index("line")["error"].to_dict()
    assert errors[2] == "wrong field type: line 2: 'title' is a list, not text"
    assert errors[3] == "wrong field type: line 3: 'title' is a number, not text (written 42)"
    assert errors[4] == "wrong field type: line 4: 'authors' holds an object, not text"
    assert errors[5] == "wrong field type: line 5: 'id' is a number, not text (written 2503.0005)"
    assert errors[6] == "wrong field type: line 6: 'summary' is an object, not text"
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any(w.startswith(f"{out.shown}: wrong field type (line 2:") for w in warnings), warnings
    clean.run(out.cfg, force=True)
    quarantine = read_table(out.cfg.paths.quarantine, Quarantine)
    assert quarantine["reason"].tolist() == ["wrong field type"] * 5
    assert quarantine["detail"].iloc[0] == "line 2: 'title' is a list, not text (in data/raw/2025-03-18.jsonl)"


def test_a_line_too_long_to_be_a_record_is_skipped_in_bounded_memory(tmp_path, monkeypatch):
    from pipeline.ingest import jsonlines

    monkeypatch.setattr(jsonlines, "MAX_LINE_BYTES", 4 * 2**20)  # the real limit is 32 MB; the same code path
    good = json.dumps({"id": "2503.00001", "title": "A title", "summary": "An abstract " * 5}).encode()
    huge = b'{"id": "2503.00002", "title": "' + b"x" * (60 * 2**20) + b'"}'
    path = _write(tmp_path / "2025-03-18.jsonl.gz", gzip.compress(good + b"\n" + huge + b"\n" + good.replace(
        b"00001", b"00003") + b"\n", compresslevel=1))
    tracemalloc.start()
    try:
        records, stats = _read_direct(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 24 * 2**20  # the line is 60 MB
    assert [r["arxiv_id"] for r in records] == ["2503.00001", None, "2503.00003"]
    assert records[1]["error"] == (f"line 2 is {len(huge) + 1:,} bytes long, more than the {4 * 2**20:,} a record "
                                   "may have; it was skipped unread")
    assert records[1]["line"] == 2


# --- a --format that does not fit the file ------------------------------------------------------
def _daily_lines(n: int = 5) -> bytes:
    with gzip.open(MARCH_18, "rb") as f:
        return b"".join(next(f) for _ in range(n))


@pytest.mark.parametrize("forced", ["kaggle", "csv"])
def test_a_forced_format_that_reads_nothing_usable_names_the_file_and_the_fitting_format(tmp_path, forced):
    cfg = config.load(tmp_path, overrides={"ingest": {"format": forced}})
    cfg.paths.raw.mkdir(parents=True)
    (cfg.paths.raw / "2025-03-18.jsonl").write_bytes(_daily_lines())
    with pytest.raises(IngestError) as info:
        run(cfg, force=True)
    message = str(info.value)
    assert message.startswith(f"data/raw/2025-03-18.jsonl: read as --format {forced}: ")
    assert "use --format daily-jsonl" in message
    assert "\n" not in message and len(message) < 600  # a JSON line read as CSV's header is cut, not quoted whole
    assert not cfg.paths.listings.exists()


def test_a_forced_format_that_fits_keeps_records_without_abstracts_for_quarantine(tmp_path):
    lines = [json.loads(line) for line in _daily_lines(3).splitlines()]
    for rec in lines[:2]:
        rec["summary"] = ""
    out = _ingest(tmp_path, "2025-03-18.jsonl", b"\n".join(json.dumps(r).encode() for r in lines), format="daily-jsonl")
    assert len(out.df) == 3 and out.errors.empty  # the two without abstracts are held, then kept in order
    assert out.df["position"].tolist() == [0, 1, 2] and out.df["abstract"].tolist()[:2] == ["", ""]
    assert out.counts["records"] == 3


def test_a_numeric_id_is_refused_with_its_digits_as_written(tmp_path):
    """2503.10000 read as JSON is the float 2503.1: another paper's id, so it is refused, quoting the line."""
    line = b'{"id": 2503.10000, "title": "A title", "summary": "An abstract that is long enough to keep.", "categories": ["cs.DC"]}\n'
    out = _ingest(tmp_path, "2025-03-18.jsonl", line)
    assert out.good.empty
    assert out.errors.iloc[0]["error"] == "wrong field type: line 1: 'id' is a number, not text (written 2503.10000)"
    assert out.errors.iloc[0]["arxiv_id"] is None or pd.isna(out.errors.iloc[0]["arxiv_id"])


def test_every_quarantined_row_says_what_and_where(tmp_path):
    """A daily listing without a day in its name: each record says why it has no date, and its file and line."""
    from pipeline import clean
    from pipeline.schemas import Quarantine

    out = _ingest(tmp_path, "listing.jsonl", _daily_lines(3))
    clean.run(out.cfg, force=True)
    quarantine = read_table(out.cfg.paths.quarantine, Quarantine)
    assert quarantine["reason"].tolist() == ["no date"] * 3
    for line, detail in zip(quarantine["line"], quarantine["detail"]):
        assert detail.startswith("no published date, and the file's name holds no announcement day"), detail
        assert detail.endswith(f"(in data/raw/listing.jsonl, line {line})"), detail


def test_a_forced_format_keeps_its_unusable_records_when_the_file_breaks(tmp_path, caplog):
    """Records held back while none was usable are kept for quarantine when a file of the named
    format breaks: none is lost, and the break is a quarantined file, not the option's error."""
    lines = [json.loads(line) for line in _daily_lines(400).splitlines()]
    for rec in lines:
        rec["summary"] = ""
    data = gzip.compress(b"\n".join(json.dumps(r).encode() for r in lines) + b"\n")
    out = _ingest(tmp_path, "2025-03-18.jsonl.gz", data[: len(data) * 3 // 5], format="daily-jsonl")
    kept = len(out.good)
    assert 0 < kept < 400 and (out.good["abstract"] == "").all()
    _assert_quarantined(out, caplog, kept=kept, says="gzip data cut short", where=f"line {kept + 1}")


def test_a_forced_format_decides_after_its_first_thousand_unusable_records(tmp_path, monkeypatch):
    from pipeline.ingest import stage

    monkeypatch.setattr(stage, "HOLD_MOST", 3)
    cfg = config.load(tmp_path, overrides={"ingest": {"format": "kaggle"}})
    cfg.paths.raw.mkdir(parents=True)
    (cfg.paths.raw / "2025-03-18.jsonl").write_bytes(_daily_lines(10))
    with pytest.raises(IngestError, match=r"read as --format kaggle: none of its first 3 records"):
        run(cfg, force=True)
