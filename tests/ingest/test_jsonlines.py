"""JSON-lines readers: real daily listing files and the real Kaggle snapshot sample."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import pytest

from pipeline.ingest.jsonlines import read_daily, read_kaggle
from pipeline.ingest.records import FIELDS, ReadContext, SourceError

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"
DAILY = SHARED / "arxiv-daily"
MARCH_18 = DAILY / "2025-03-18.jsonl.gz"  # 465 records, keys: id, pdf, abs, authors, title, ...
NOVEMBER_15 = DAILY / "2025-11-15.jsonl.gz"  # 16 records, a later layout: categories come second
KAGGLE = SHARED / "formats" / "arxiv-metadata-oai-snapshot_head200.jsonl"


def _read(reader, data: bytes, name: str, **ctx_fields) -> tuple[list[dict], ReadContext]:
    ctx = ReadContext(name=name, **ctx_fields)
    return list(reader(io.BytesIO(data), ctx)), ctx


def _daily_lines(path: Path = MARCH_18) -> list[bytes]:
    return gzip.decompress(path.read_bytes()).splitlines(keepends=True)


# --- daily listings ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def march18() -> list[dict]:
    with gzip.open(MARCH_18, "rb") as stream:
        ctx = ReadContext(name=MARCH_18.name)
        records = list(read_daily(stream, ctx))
    assert ctx.warnings == []
    return records


def test_daily_first_record(march18):
    first = march18[0]
    assert set(first) == set(FIELDS)
    assert first["arxiv_id"] == "2503.11731"
    assert first["title"] == (
        "Industrial-Grade Sensor Simulation via Gaussian Splatting: A Modular Framework for Scalable "
        "Editing and Full-Stack Validation"
    )
    assert first["abstract"].startswith(
        "Sensor simulation is pivotal for scalable validation of autonomous driving\n"
    )
    assert first["authors"][:3] == ["Xianming Zeng", "Sicong Du", "Qifeng Chen"]
    assert len(first["authors"]) == 16
    assert first["categories"] == ["cs.CV", "cs.RO"] and first["primary_category"] == "cs.CV"
    assert first["announced"] == "2025-03-18" and first["published"] is None
    assert first["url"] == "https://arxiv.org/abs/2503.11731"
    assert first["comment"] is None and first["line"] == 1


def test_daily_every_line_is_a_record(march18):
    assert len(march18) == 465
    assert [r["line"] for r in march18] == list(range(1, 466))
    assert all(r["error"] is None and r["warnings"] == [] for r in march18)
    assert {r["announced"] for r in march18} == {"2025-03-18"}
    assert all(r["primary_category"] == r["categories"][0] for r in march18)
    assert march18[1]["comment"] == "Work in progress"
    assert march18[-1]["arxiv_id"] == "2503.13446"


def test_daily_gzipped_and_plain_give_the_same(march18):
    plain, ctx = _read(read_daily, b"".join(_daily_lines()), "2025-03-18.jsonl")
    assert plain == march18
    assert ctx.warnings == []


def test_daily_later_layout():
    records, _ = _read(read_daily, b"".join(_daily_lines(NOVEMBER_15)), NOVEMBER_15.name)
    assert len(records) == 16
    assert records[0]["arxiv_id"] == "2511.10627"
    assert records[0]["categories"] == ["cs.AI", "cs.CV", "cs.FL", "cs.LG"]
    assert records[0]["primary_category"] == "cs.AI"
    assert records[0]["authors"][:2] == ["Edward Kim", "Devan Shanker"]
    assert records[0]["announced"] == "2025-11-15"


def test_daily_file_name_without_date_warns():
    records, ctx = _read(read_daily, _daily_lines()[0], "listing.jsonl")
    assert records[0]["announced"] is None
    assert ctx.warnings == ["file name has no YYYY-MM-DD date, so its announcement day is unknown"]


def test_daily_invalid_json_line_in_the_middle_is_an_error_record():
    lines = _daily_lines()[:5]
    lines[2] = b'{"id": "2503.99999", "title": "cut off in the mid\n'
    records, _ = _read(read_daily, b"".join(lines), MARCH_18.name.removesuffix(".gz"))
    assert len(records) == 5
    assert [r["line"] for r in records] == [1, 2, 3, 4, 5]
    bad = records[2]
    assert bad["error"].startswith("invalid JSON at line 3, column ")
    assert bad["arxiv_id"] is None and bad["announced"] == "2025-03-18"
    assert all(r["error"] is None and r["arxiv_id"] for i, r in enumerate(records) if i != 2)
    assert records[3]["arxiv_id"] == json.loads(lines[3])["id"]


@pytest.mark.parametrize(
    ("line", "kind"), [(b"[1, 2, 3]", "list"), (b'"just text"', "str"), (b"null", "NoneType"), (b"42", "int")]
)
def test_daily_non_object_line(line, kind):
    lines = _daily_lines()[:2]
    records, _ = _read(read_daily, lines[0] + line + b"\n" + lines[1], "2025-03-18.jsonl")
    assert len(records) == 3
    assert records[1]["error"] == f"line 2 is JSON but not an object ({kind})"
    assert records[2]["line"] == 3 and records[2]["error"] is None


def test_daily_blank_lines_skipped_but_counted():
    lines = _daily_lines()[:2]
    records, _ = _read(read_daily, b"\n" + lines[0] + b"   \n\n" + lines[1], "2025-03-18.jsonl")
    assert [r["line"] for r in records] == [2, 5]


def test_daily_byte_order_mark_and_crlf():
    lines = [line.rstrip(b"\n") + b"\r\n" for line in _daily_lines()[:3]]
    records, ctx = _read(read_daily, b"\xef\xbb\xbf" + b"".join(lines), "2025-03-18.jsonl")
    assert [r["error"] for r in records] == [None, None, None]
    assert records[0]["arxiv_id"] == "2503.11731"
    assert ctx.warnings == []


def test_daily_windows_1252_line_decoded_with_file_offset():
    lines = _daily_lines()[:3]
    obj = json.loads(lines[1])
    obj["title"] = "Caf\u00e9 \u201cquotes\u201d"
    lines[1] = json.dumps(obj, ensure_ascii=False).encode("cp1252") + b"\n"
    records, ctx = _read(read_daily, b"".join(lines), "2025-03-18.jsonl")
    assert records[1]["title"] == "Caf\u00e9 \u201cquotes\u201d"
    assert records[1]["authors"][0] == "Moreno D'Inc\u00e0"  # the first byte that is not UTF-8
    offset = len(lines[0]) + lines[1].index("\u00e0".encode("cp1252"))
    expected = f"not valid UTF-8 from byte {offset}: decoded as Windows-1252/Latin-1 (line 2)"
    assert records[1]["warnings"] == [expected]
    assert ctx.warnings == [expected]  # once per file, for the log
    assert records[0]["warnings"] == records[2]["warnings"] == []


def test_daily_summary_null_falls_back_to_abstract():
    line = b'{"id": "2503.1", "title": "T", "summary": null, "abstract": "The abstract."}\n'
    records, _ = _read(read_daily, line, "2025-03-18.jsonl")
    assert records[0]["abstract"] == "The abstract."


def test_daily_truncated_gzip_raises_after_the_complete_lines():
    data = gzip.compress(b"".join(_daily_lines()[:40]))
    stream = gzip.GzipFile(fileobj=io.BytesIO(data[: len(data) // 2]))
    got = []
    with pytest.raises(SourceError) as info:
        for rec in read_daily(stream, ReadContext(name="2025-03-18.jsonl.gz")):
            got.append(rec)
    assert got and [r["line"] for r in got] == list(range(1, len(got) + 1))
    assert info.value.line == len(got) + 1
    assert "gzip data cut short" in info.value.message


# --- the Kaggle snapshot -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def kaggle() -> list[dict]:
    records, ctx = _read(read_kaggle, KAGGLE.read_bytes(), KAGGLE.name)
    assert ctx.warnings == [] and ctx.skipped == 0
    return records


def test_kaggle_all_200_lines(kaggle):
    assert len(kaggle) == 200
    assert [r["line"] for r in kaggle] == list(range(1, 201))
    assert all(r["error"] is None and r["warnings"] == [] for r in kaggle)
    assert all(r["published"] and r["title"] and r["abstract"] and r["authors"] for r in kaggle)


def test_kaggle_dates_from_versions_not_update_date(kaggle):
    first = kaggle[0]
    assert first["arxiv_id"] == "0704.0001v2"  # the snapshot's text is of the latest version
    assert first["published"] == "Mon, 2 Apr 2007 19:18:42 GMT"  # versions[0].created
    assert first["updated"] == "Tue, 24 Jul 2007 20:10:27 GMT"  # versions[-1].created
    assert "2008-11-26" not in {first["published"], first["updated"], first["announced"]}  # update_date
    third = kaggle[2]
    assert third["arxiv_id"] == "0704.0003v3"
    assert third["published"] == "Sun, 1 Apr 2007 20:46:54 GMT"


def test_kaggle_authors_from_authors_parsed(kaggle):
    # The raw string says "C. Bal\\'azs"; authors_parsed has the name as Unicode.
    assert kaggle[0]["authors"] == ["C. Bal\u00e1zs", "E. L. Berger", "P. M. Nadolsky", "C. -P. Yuan"]
    assert kaggle[0]["affiliations"] == []
    by_id = {r["arxiv_id"].rsplit("v", 1)[0]: r for r in kaggle}
    assert by_id["0704.0009"]["authors"][5] == "Neal J. Evans II"  # suffix
    # The fourth place is what stood in parentheses after the name: kept as an affiliation, not in the name.
    assert by_id["0704.0052"]["authors"] == ["Arthur Jaffe", "Gordon Ritter"]
    assert by_id["0704.0052"]["affiliations"] == ["Harvard University", "Harvard University"]
    assert by_id["0704.0025"]["authors"] == ["A. S. Mishchenko", "N. Nagaosa"]
    assert by_id["0704.0025"]["affiliations"] == ["1 and 2", "1 and 3"]


def test_kaggle_raw_author_string_stays_raw_without_authors_parsed():
    obj = json.loads(KAGGLE.read_bytes().splitlines()[0])
    del obj["authors_parsed"]
    records, _ = _read(read_kaggle, json.dumps(obj).encode() + b"\n", KAGGLE.name)
    assert records[0]["authors"] == ["C. Bal\\'azs", "E. L. Berger", "P. M. Nadolsky", "C.-P. Yuan"]


def test_kaggle_categories_split_on_spaces(kaggle):
    second = kaggle[1]
    assert second["arxiv_id"] == "0704.0002v2"
    assert second["categories"] == ["math.CO", "cs.CG"] and second["primary_category"] == "math.CO"
    assert kaggle[0]["categories"] == ["hep-ph"]
    assert kaggle[0]["comment"] == "37 pages, 15 figures; published version"
    assert kaggle[0]["journal_ref"] == "Phys.Rev.D76:013009,2007"
    assert kaggle[0]["doi"] == "10.1103/PhysRevD.76.013009"


def test_kaggle_category_prefilter_skips_unread_lines():
    records, ctx = _read(read_kaggle, KAGGLE.read_bytes(), KAGGLE.name, categories=("cs.CG",))
    assert [r["arxiv_id"] for r in records] == ["0704.0002v2"]
    assert ctx.skipped == 199


def test_kaggle_prefilter_keeps_lines_it_cannot_judge():
    lines = KAGGLE.read_bytes().splitlines(keepends=True)[:3]
    no_categories = json.loads(lines[0])
    no_categories["categories"] = ""
    data = b"".join([
        lines[0],
        json.dumps(no_categories).encode() + b"\n",
        b'{"id": "0704.9999", "title": "broken line", "categories": "hep-ph"\n',  # cut short
        lines[1],
    ])
    records, ctx = _read(read_kaggle, data, KAGGLE.name, categories=("cs.CG",))
    assert [(r["line"], r["arxiv_id"], r["error"] is not None) for r in records] == [
        (2, "0704.0001v2", False),  # no categories: the filter keeps it, so must the pre-filter
        (3, None, True),  # broken: quarantined, not skipped
        (4, "0704.0002v2", False),
    ]
    assert ctx.skipped == 1


def test_kaggle_odd_value_types_do_not_stop_reading():
    odd = [
        {"id": "0704.9001", "title": "T", "abstract": "A", "versions": 5, "categories": 7,
         "authors_parsed": [[]], "authors": "Ann Author and Bob Writer"},
        {"id": "0704.9002", "title": "T", "abstract": "A", "versions": [{"version": "v1", "created": None}],
         "categories": ["cs.AI", None], "authors_parsed": [["Solo"], ["Last", None, None]]},
    ]
    real = KAGGLE.read_bytes().splitlines(keepends=True)[0]
    data = b"".join(json.dumps(o).encode() + b"\n" for o in odd) + real
    records, _ = _read(read_kaggle, data, KAGGLE.name)
    assert len(records) == 3 and all(r["error"] is None for r in records)
    assert records[0]["published"] is None and records[0]["categories"] == ["7"]
    assert records[0]["authors"] == ["Ann Author", "Bob Writer"]
    assert records[1]["arxiv_id"] == "0704.9002v1" and records[1]["categories"] == ["cs.AI"]
    assert records[1]["authors"] == ["Solo", "Last"]
    assert records[2]["arxiv_id"] == "0704.0001v2"
