"""The Atom reader against real arXiv API responses, and variants built from them."""

from __future__ import annotations

import io
import random
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from pipeline.ingest.atom import read_atom
from pipeline.ingest.records import FIELDS, ReadContext, SourceError

FORMATS = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "formats"
TWO = FORMATS / "arxiv-api-atom_cs.RO_2entries.xml"
EMPTY = FORMATS / "arxiv-api-atom_empty.xml"
ATOM_NS = "http://www.w3.org/2005/Atom"
ARXIV_NS = "http://arxiv.org/schemas/atom"


def _read(data: bytes, name: str = "response.xml") -> tuple[list[dict], ReadContext]:
    ctx = ReadContext(name=name)
    return list(read_atom(io.BytesIO(data), ctx)), ctx


def _without_line(records: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if k != "line"} for r in records]


@pytest.fixture(scope="module")
def two() -> list[dict]:
    records, ctx = _read(TWO.read_bytes(), TWO.name)
    assert ctx.warnings == []
    return records


# --- the real responses --------------------------------------------------------------------------
def test_ids_versions_and_lines(two):
    assert [(r["arxiv_id"], r["line"]) for r in two] == [("2510.14968v1", 10), ("2510.14827v1", 56)]
    assert [r["url"] for r in two] == [
        "http://arxiv.org/abs/2510.14968v1", "http://arxiv.org/abs/2510.14827v1",
    ]
    assert all(set(r) == set(FIELDS) and r["error"] is None and r["warnings"] == [] for r in two)


def test_titles_and_abstracts_stay_as_found(two):
    assert two[0]["title"] == (
        "RDD: Retrieval-Based Demonstration Decomposer for Planner Alignment in\n  Long-Horizon Tasks"
    )
    assert two[1]["title"] == "Neural Implicit Flow Fields for Spatio-Temporal Motion Mapping"
    assert two[0]["abstract"].startswith(
        "To tackle long-horizon tasks, recent hierarchical vision-language-action\n"
    )
    assert two[0]["abstract"].endswith("available at rdd-neurips.github.io.")
    assert two[1]["abstract"].startswith("Safe and efficient robot operation in complex human environments")


def test_authors_and_no_affiliations(two):
    assert two[0]["authors"] == ["Mingxuan Yan", "Yuping Wang", "Zechun Liu", "Jiachen Li"]
    assert two[1]["authors"] == [
        "Yufei Zhu", "Shih-Min Yang", "Andrey Rudenko", "Tomasz P. Kucner", "Achim J. Lilienthal",
        "Martin Magnusson",
    ]
    assert [r["affiliations"] for r in two] == [[], []]


def test_categories_primary_comment_and_dates(two):
    assert two[0]["categories"] == ["cs.RO", "cs.AI", "cs.CV", "cs.LG", "cs.SY", "eess.SY"]
    assert two[1]["categories"] == ["cs.RO"]
    assert [r["primary_category"] for r in two] == ["cs.RO", "cs.RO"]
    assert two[0]["comment"] == (
        "39th Conference on Neural Information Processing Systems (NeurIPS\n  2025); "
        "Project Website: rdd-neurips.github.io"
    )
    assert two[1]["comment"] is None
    assert (two[0]["published"], two[0]["updated"]) == ("2025-10-16T17:59:37Z", "2025-10-16T17:59:37Z")
    assert (two[1]["published"], two[1]["updated"]) == ("2025-10-16T16:04:01Z", "2025-10-16T16:04:01Z")
    assert all(r["journal_ref"] is None and r["doi"] is None and r["announced"] is None for r in two)


def test_feed_level_elements_are_not_records(two):
    # The feed has its own <title>, <id>, <updated> and <link>: none of them leaks into a record.
    assert not any("ArXiv Query" in (r["title"] or "") for r in two)


def test_empty_response_gives_no_records():
    records, ctx = _read(EMPTY.read_bytes(), EMPTY.name)
    assert records == []
    assert ctx.warnings == []


# --- element order -------------------------------------------------------------------------------
def _reordered(order) -> bytes:
    """The real response with each entry's (and author's) children put in another order."""
    ET.register_namespace("", ATOM_NS)
    ET.register_namespace("arxiv", ARXIV_NS)
    tree = ET.parse(TWO)  # our own trusted test input
    for entry in tree.getroot().iter(f"{{{ATOM_NS}}}entry"):
        for parent in (entry, *entry.iter(f"{{{ATOM_NS}}}author")):
            children = list(parent)
            for child in children:
                parent.remove(child)
            for child in order(children):
                parent.append(child)
    return ET.tostring(tree.getroot(), encoding="utf-8", xml_declaration=True)


def _new_generation(children: list[ET.Element]) -> list[ET.Element]:
    """Title and summary first, then authors, categories, dates, id last (as a newer API might)."""
    rank = {"title": 0, "summary": 1, "author": 2, "category": 3, "primary_category": 4, "updated": 5,
            "published": 6, "comment": 7, "link": 8, "id": 9}
    return sorted(children, key=lambda c: rank.get(c.tag.rsplit("}", 1)[-1], 10))


def _local(element: ET.Element) -> str:
    return element.tag.rsplit("}", 1)[-1]


def _interleaved(children: list[ET.Element]) -> list[ET.Element]:
    """A random order that keeps elements of the same name in their order (authors, categories)."""
    groups: dict[str, list[ET.Element]] = {}
    for child in children:
        groups.setdefault(_local(child), []).append(child)
    rng = random.Random(7)
    out: list[ET.Element] = []
    while groups:
        name = rng.choice(sorted(groups))
        out.append(groups[name].pop(0))
        if not groups[name]:
            del groups[name]
    return out


def _names_reversed(children: list[ET.Element]) -> list[ET.Element]:
    names = list(dict.fromkeys(_local(c) for c in children))[::-1]
    return sorted(children, key=lambda c: names.index(_local(c)))


ORDERS = pytest.mark.parametrize(
    "order", [_new_generation, _interleaved, _names_reversed], ids=["new-api", "interleaved", "reversed"]
)


@ORDERS
def test_element_order_does_not_matter(two, order):
    data = _reordered(order)
    assert data != TWO.read_bytes()
    if order is _new_generation:
        title, updated = data.index(b"<title>RDD"), data.index(b"<updated>2025-10-16T17:59:37Z")
        assert title < updated < data.index(b"<id>http://arxiv.org/abs/2510.14968v1")
    records, _ = _read(data)
    # Same fields (lines differ: the reserialised document is laid out differently).
    assert _without_line(records) == _without_line(two)


def test_interleaved_variant_really_moves_elements():
    data = _reordered(_interleaved).decode()
    entry = data[data.index("<entry>") : data.index("</entry>")]
    tags = [t.split(">")[0].split()[0] for t in entry.split("<")[1:] if not t.startswith("/")]
    assert tags[:3] != ["id", "updated", "published"]
    assert tags.index("category") < tags.index("id") or tags.index("author") < tags.index("updated")


# --- affiliations --------------------------------------------------------------------------------
def test_affiliations_per_author_with_blanks():
    aff = '<arxiv:affiliation xmlns:arxiv="http://arxiv.org/schemas/atom">{}</arxiv:affiliation>'
    data = TWO.read_text(encoding="utf-8")
    data = data.replace(
        "<name>Mingxuan Yan</name>", "<name>Mingxuan Yan</name>" + aff.format("Purdue University")
    )
    data = data.replace(
        "<name>Jiachen Li</name>",
        "<name>Jiachen Li</name>" + aff.format("UC Riverside") + aff.format("Meta"),
    )
    records, _ = _read(data.encode())
    assert records[0]["authors"] == ["Mingxuan Yan", "Yuping Wang", "Zechun Liu", "Jiachen Li"]
    assert records[0]["affiliations"] == ["Purdue University", "", "", "UC Riverside; Meta"]
    assert records[1]["affiliations"] == []


# --- API errors ----------------------------------------------------------------------------------
API_ERROR = b"""<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <link href="http://arxiv.org/api/query?search_query%3D%26id_list%3D1234.12345%26start%3D0"
    rel="self" type="application/atom+xml"/>
  <title type="html">ArXiv Query: search_query=&amp;id_list=1234.12345&amp;start=0&amp;max_results=10</title>
  <id>http://arxiv.org/api/kvuntZ8c9a4Eq5CF7KY03nMug+Q</id>
  <updated>2025-01-15T00:00:00-05:00</updated>
  <opensearch:totalResults xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">1</opensearch:totalResults>
  <entry>
    <id>http://arxiv.org/api/errors#incorrect_id_format_for_1234.12345</id>
    <title>Error</title>
    <summary>incorrect id format for 1234.12345</summary>
    <updated>2025-01-15T00:00:00-05:00</updated>
    <link href="http://arxiv.org/api/errors#incorrect_id_format_for_1234.12345" rel="alternate"
      type="text/html"/>
    <author>
      <name>arXiv api core</name>
    </author>
  </entry>
</feed>
"""


def test_api_error_entry_becomes_an_error_record():
    records, _ = _read(API_ERROR)
    assert len(records) == 1
    (rec,) = records
    assert rec["error"] == "arXiv API error: incorrect id format for 1234.12345"
    assert rec["line"] == 9 == API_ERROR.split(b"<entry>")[0].count(b"\n") + 1
    assert rec["arxiv_id"] is None and rec["title"] is None and rec["authors"] == []


# --- streaming and breaks ------------------------------------------------------------------------
class _CountingStream(io.BytesIO):
    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.consumed = 0

    def read(self, size: int | None = -1) -> bytes:
        chunk = super().read(size)
        self.consumed += len(chunk)
        return chunk


def test_streams_a_large_feed_entry_by_entry():
    text = TWO.read_text(encoding="utf-8")
    head, rest = text.split("  <entry>", 1)
    entry = "  <entry>" + rest.split("</entry>", 1)[0] + "</entry>\n"
    n = 600  # ~1.6 MB: many read chunks, entries cut by chunk boundaries
    body = "".join(entry.replace("2510.14968v1", f"2510.{i:05d}v1") for i in range(n))
    data = (head + body + "</feed>\n").encode()
    stream = _CountingStream(data)
    records = read_atom(stream, ReadContext(name="big.xml"))
    first = next(records)
    assert first["arxiv_id"] == "2510.00000v1"
    assert stream.consumed < len(data) // 4  # the first record came before the whole file was read
    rest_records = list(records)
    assert [r["arxiv_id"] for r in [first, *rest_records]] == [f"2510.{i:05d}v1" for i in range(n)]
    entry_lines = entry.count("\n")
    assert [r["line"] for r in rest_records[:2]] == [10 + entry_lines, 10 + 2 * entry_lines]


def test_broken_xml_raises_after_the_entries_before_it():
    data = TWO.read_bytes()
    cut = data[: data.index(b"Neural Implicit")]
    stream_records = []
    with pytest.raises(SourceError) as info:
        for rec in read_atom(io.BytesIO(cut), ReadContext(name="cut.xml")):
            stream_records.append(rec)
    assert [r["arxiv_id"] for r in stream_records] == ["2510.14968v1"]
    assert info.value.line == cut.count(b"\n") + 1
    assert "inside the <entry> that starts at line 56" in info.value.message


def test_entity_declaration_is_refused_without_expanding():
    data = b"""<?xml version="1.0"?>
<!DOCTYPE feed [<!ENTITY who "Someone Expanded">]>
<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>http://arxiv.org/abs/2501.00001v1</id>
<title>&who;</title></entry></feed>"""
    with pytest.raises(SourceError) as info:
        list(read_atom(io.BytesIO(data), ReadContext(name="entity.xml")))
    assert "entity 'who'" in info.value.message and "Someone Expanded" not in info.value.message
    assert info.value.line == 2
