"""CSV and parquet readers, on tables built from real daily listing records."""

from __future__ import annotations

import csv
import gzip
import io
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipeline.ingest.records import FIELDS, ReadContext, SourceError
from pipeline.ingest.tabular import read_csv, read_parquet

DAILY = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "arxiv-daily"
MARCH_18 = DAILY / "2025-03-18.jsonl.gz"


@pytest.fixture(scope="module")
def papers() -> list[dict]:
    """The first six records of a real daily listing (abstracts hold line breaks)."""
    with gzip.open(MARCH_18, "rt", encoding="utf-8") as fh:
        return [json.loads(next(fh)) for _ in range(6)]


def _csv(header: list[str], rows: list[list[str]], encoding: str = "utf-8") -> bytes:
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue().encode(encoding)


def _read(reader, data: bytes, columns: dict[str, str] | None = None) -> tuple[list[dict], ReadContext]:
    ctx = ReadContext(name="table", columns=dict(columns or {}))
    return list(reader(io.BytesIO(data), ctx)), ctx


def _their_rows(papers: list[dict]) -> list[list[str]]:
    return [
        [p["id"], p["title"], p["summary"], "; ".join(p["authors"]), " ".join(p["categories"]), "2025-03-18"]
        for p in papers
    ]


THEIR_HEADER = ["Paper ID", "Heading", "Text", "Writers", "Subjects", "Day"]
THEIR_MAPPING = {
    "arxiv_id": "Paper ID", "title": "Heading", "abstract": "Text", "authors": "Writers",
    "categories": "Subjects", "published": "Day",
}


def _line_starts(papers: list[dict]) -> list[int]:
    """The line each data row starts on: row 1 on line 2, then after every line break in the cells."""
    starts, line = [], 2
    for p in papers:
        starts.append(line)
        line += 1 + p["summary"].count("\n") + p["title"].count("\n")
    return starts


def test_csv_with_column_mapping(papers):
    records, ctx = _read(read_csv, _csv(THEIR_HEADER, _their_rows(papers)), THEIR_MAPPING)
    assert ctx.warnings == []
    assert len(records) == len(papers)
    for rec, paper in zip(records, papers, strict=True):
        assert set(rec) == set(FIELDS) and rec["error"] is None
        assert rec["arxiv_id"] == paper["id"]
        assert rec["title"] == paper["title"]
        assert rec["abstract"] == paper["summary"]  # multi-line quoted cell, line breaks kept
        assert rec["authors"] == paper["authors"]
        assert rec["categories"] == paper["categories"]
        assert rec["primary_category"] == paper["categories"][0]
        assert rec["published"] == "2025-03-18"


def test_csv_multi_line_cells_give_the_starting_line(papers):
    assert any("\n" in p["summary"] for p in papers)
    records, _ = _read(read_csv, _csv(THEIR_HEADER, _their_rows(papers)), THEIR_MAPPING)
    assert [r["line"] for r in records] == _line_starts(papers)


def test_csv_without_mapping_uses_aliases(papers):
    header = ["ID", "Title", "Summary", "Authors", "Categories", "Comments", "abs"]
    rows = [
        [p["id"], p["title"], p["summary"], ", ".join(p["authors"]), ",".join(p["categories"]),
         p["comment"] or "", p["abs"]]
        for p in papers
    ]
    records, _ = _read(read_csv, _csv(header, rows))
    assert [r["arxiv_id"] for r in records] == [p["id"] for p in papers]
    assert [r["authors"] for r in records] == [p["authors"] for p in papers]
    assert [r["categories"] for r in records] == [p["categories"] for p in papers]
    assert [r["comment"] for r in records] == [p["comment"] for p in papers]  # empty cell -> None
    assert records[0]["url"] == "https://arxiv.org/abs/2503.11731"
    assert records[0]["abstract"] == papers[0]["summary"]


def test_csv_blank_lines_and_byte_order_mark(papers):
    rows = [[p["id"], p["title"], "short"] for p in papers[:2]]
    data = b"\xef\xbb\xbf" + _csv(["id", "title", "abstract"], rows)
    header, first, second = data.split(b"\r\n")[:3]
    data = header + b"\r\n\r\n" + first + b"\r\n\r\n\r\n" + second + b"\r\n"
    records, _ = _read(read_csv, data)
    assert [(r["line"], r["arxiv_id"]) for r in records] == [(3, papers[0]["id"]), (6, papers[1]["id"])]


def test_csv_windows_1252_is_decoded_with_a_warning(papers):
    title = "Caf\u00e9 \u201cmodels\u201d cost 5\u20ac \u2013 na\u00efve"
    rows = [[papers[0]["id"], papers[0]["title"], "plain"], [papers[1]["id"], title, "r\u00e9sum\u00e9"]]
    data = _csv(["id", "title", "abstract"], rows, encoding="cp1252")
    records, ctx = _read(read_csv, data)
    assert [r["title"] for r in records] == [papers[0]["title"], title]
    assert records[1]["abstract"] == "r\u00e9sum\u00e9"
    offset = data.index("\u00e9".encode("cp1252"))
    assert ctx.warnings == [f"not valid UTF-8 from byte {offset}: decoded as Windows-1252/Latin-1"]


def test_csv_row_with_too_many_cells_is_an_error_record(papers):
    rows = [[papers[0]["id"], "A", "B", "extra"], [papers[1]["id"], "C", "D"]]
    data = _csv(["id", "title", "abstract"], rows)
    records, _ = _read(read_csv, data)
    assert records[0]["error"] == "line 2: 1 more cell(s) than the header has"
    assert records[1]["error"] is None and records[1]["line"] == 3


def test_csv_mapping_naming_a_missing_column():
    data = _csv(["id", "Heading", "abstract"], [["2503.1", "T", "A"]])
    with pytest.raises(SourceError) as info:
        _read(read_csv, data, {"title": "Title"})
    message = info.value.message
    assert "--columns maps title='Title'" in message and "no such column" in message
    assert message.endswith("its columns are 'id', 'Heading', 'abstract'")
    assert info.value.line == 1


def test_csv_mapping_naming_an_unknown_field():
    with pytest.raises(SourceError, match=r"unknown field\(s\) \['headline'\]"):
        _read(read_csv, _csv(["id", "title"], [["1", "T"]]), {"headline": "title"})


def test_csv_without_title_or_abstract_column_says_how_to_map():
    with pytest.raises(SourceError, match="--columns title=COLUMN,abstract=COLUMN"):
        _read(read_csv, _csv(["Paper", "Text"], [["1", "T"]]))


def test_csv_header_only_gives_no_records():
    records, _ = _read(read_csv, b"id,title,abstract\r\n")
    assert records == []


# --- parquet -------------------------------------------------------------------------------------
def _parquet(table: pa.Table) -> bytes:
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


def test_parquet_with_list_columns(papers):
    table = pa.table({
        "arxiv": [p["id"] for p in papers],
        "title": [p["title"] for p in papers],
        "summary": [p["summary"] for p in papers],
        "authors": pa.array([p["authors"] for p in papers], type=pa.list_(pa.string())),
        "categories": pa.array([p["categories"] for p in papers], type=pa.list_(pa.string())),
        "n_pages": list(range(len(papers))),
    })
    records, ctx = _read(read_parquet, _parquet(table), {"arxiv_id": "arxiv"})
    assert ctx.warnings == []
    assert [r["arxiv_id"] for r in records] == [p["id"] for p in papers]
    assert [r["authors"] for r in records] == [p["authors"] for p in papers]
    assert [r["categories"] for r in records] == [p["categories"] for p in papers]
    assert [r["primary_category"] for r in records] == [p["categories"][0] for p in papers]
    assert records[0]["abstract"] == papers[0]["summary"]
    assert all(r["line"] is None and r["error"] is None for r in records)


def test_parquet_nulls_and_string_lists():
    table = pa.table({
        "title": ["One", None],
        "abstract": ["A", "B"],
        "authors": ["Ann Author; Bob Writer", None],
        "categories": pa.array([None, ["cs.AI"]], type=pa.list_(pa.string())),
    })
    records, _ = _read(read_parquet, _parquet(table))
    assert [r["title"] for r in records] == ["One", None]
    assert [r["authors"] for r in records] == [["Ann Author", "Bob Writer"], []]
    assert [r["categories"] for r in records] == [[], ["cs.AI"]]


def test_parquet_mapping_naming_a_missing_column():
    table = pa.table({"title": ["T"], "abstract": ["A"]})
    expected = r"--columns maps authors='Writers'.*columns are 'title', 'abstract'"
    with pytest.raises(SourceError, match=expected):
        _read(read_parquet, _parquet(table), {"authors": "Writers"})


def test_parquet_cut_short_is_a_source_error():
    data = _parquet(pa.table({"title": ["T"] * 100, "abstract": ["A"] * 100}))
    with pytest.raises(SourceError, match="not a readable parquet file"):
        _read(read_parquet, data[: len(data) // 2])
