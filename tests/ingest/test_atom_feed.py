"""The Atom reader on a daily feed of rss.arxiv.org (as ``paper-trends fetch --feed`` stores it).

The fixture follows arXiv's "ATOM feed Specifications": ids ``oai:arXiv.org:<id>v<n>``, the summary
prefixed ``arXiv:<id> Announce Type: <type> Abstract:``, ``<dc:creator>`` with the authors,
``<published>`` the announcement day, ``<arxiv:announce_type>``.
"""

from __future__ import annotations

import io
from pathlib import Path

from pipeline.ingest import detect_format
from pipeline.ingest.atom import read_atom
from pipeline.ingest.records import ReadContext

FEED = Path(__file__).resolve().parents[1] / "fetch" / "fixtures" / "feed_cs.DC_2026-06-08.xml"


def _records() -> list[dict]:
    return list(read_atom(io.BytesIO(FEED.read_bytes()), ReadContext(name=FEED.name)))


def test_feed_is_detected_as_atom():
    assert detect_format(FEED.read_bytes()[:65536], FEED.name) == "atom"


def test_feed_entries_give_ids_authors_and_the_abstract_without_its_prefix():
    records = _records()
    assert [r["arxiv_id"] for r in records] == ["2606.06910v1", "2606.06818v1", "2606.06751v1", "2606.04101v2"]
    assert records[1]["authors"] == ["Sing-Yao Wu", "Fengshuo Song", "Eli Bozorgzadeh"]
    assert records[0]["abstract"].startswith("In this paper we describe a communication-strategy study")
    assert not any("Announce Type" in r["abstract"] or r["abstract"].startswith("arXiv:") for r in records)
    assert records[2]["categories"] == ["cs.DC", "cs.NI"] and records[2]["primary_category"] is None
    assert records[0]["url"] == "https://arxiv.org/abs/2606.06910"
    assert all(r["error"] is None and r["published"] is None for r in records)


def test_new_and_cross_are_dated_by_announcement_a_replacement_only_as_an_update():
    records = _records()
    assert [r["announced"] for r in records] == ["2026-06-08T00:00:00-04:00"] * 3 + [None]
    assert [r["updated"] for r in records] == [None] * 3 + ["2026-06-08T00:00:00-04:00"]
    assert [r["warnings"] for r in records[:3]] == [[], [], []]
    assert "announced as 'replace' on 2026-06-08T00:00:00-04:00" in records[3]["warnings"][0]


def test_api_entries_read_as_before(formats_dir):
    data = (formats_dir / "arxiv-api-atom_cs.RO_2entries.xml").read_bytes()
    records = list(read_atom(io.BytesIO(data), ReadContext(name="x.xml")))
    assert [r["arxiv_id"] for r in records] == ["2510.14968v1", "2510.14827v1"]
    assert records[0]["published"] == "2025-10-16T17:59:37Z" and records[0]["announced"] is None
