"""arXiv API Atom responses (``export.arxiv.org/api/query``), parsed by element name, streamed.

The parser is defusedxml's: a document that declares entities (the "billion laughs" bomb) or
references external ones is refused before anything is expanded. Element order differs between
API generations, so every field is looked up by its (namespace-free) name.

The daily feeds of rss.arxiv.org (``/atom/<category>``) are Atom too, with their own entry shape:
ids ``oai:arXiv.org:2501.01234v1``, the summary prefixed ``arXiv:2501.01234v1 Announce Type: new
Abstract:``, authors in one comma-separated ``<dc:creator>``, ``<published>`` the announcement day
(not the submission day) and ``<arxiv:announce_type>`` new, cross, replace or replace-cross. A new
or cross-listed paper is dated by its announcement; a replacement's announcement says nothing about
when the paper was submitted, so it becomes the record's ``updated`` date only (with a warning):
clean merges it into the paper when a dated listing of the paper is held, and quarantines it
("no date") when none is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import BinaryIO
from xml.etree.ElementTree import Element, ParseError

from defusedxml import DefusedXmlException, EntitiesForbidden, ExternalReferenceForbidden
from defusedxml.ElementTree import DefusedXMLParser

from pipeline import arxiv
from pipeline.ingest.records import ReadContext, SourceError, record

_CHUNK = 1 << 16
_DATED_BY_ANNOUNCEMENT = ("new", "cross")


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _text(element: Element | None) -> str | None:
    if element is None:
        return None
    text = "".join(element.itertext()).strip()
    return text or None


class _EntryCollector:
    """Parser target that builds only ``<entry>`` elements, noting the line each starts on.

    Everything outside entries is dropped as it streams past, so memory stays bounded by one entry.
    """

    def __init__(self) -> None:
        self.parser: DefusedXMLParser | None = None
        self.entries: list[tuple[int, Element]] = []
        self._stack: list[Element] = []
        self._line = 0

    def start(self, tag: str, attrs: dict[str, str]) -> None:
        if not self._stack and _local(tag) != "entry":
            return
        element = Element(tag, attrs)
        if self._stack:
            self._stack[-1].append(element)
        elif self.parser is not None:
            self._line = self.parser.parser.CurrentLineNumber
        self._stack.append(element)

    @property
    def open_entry(self) -> int | None:
        """The line of the ``<entry>`` being built, if the parser is inside one."""
        return self._line if self._stack else None

    def end(self, tag: str) -> None:
        if self._stack:
            element = self._stack.pop()
            if not self._stack:
                self.entries.append((self._line, element))

    def data(self, text: str) -> None:
        if not self._stack:
            return
        element = self._stack[-1]
        if len(element):
            element[-1].tail = (element[-1].tail or "") + text
        else:
            element.text = (element.text or "") + text

    def close(self) -> None:
        return None


def _entry_record(line: int, entry: Element) -> dict:
    children: dict[str, list[Element]] = {}
    for child in entry:
        children.setdefault(_local(child.tag), []).append(child)

    def first(name: str) -> str | None:
        found = children.get(name)
        return _text(found[0]) if found else None

    entry_id = first("id")
    if entry_id and "/api/errors" in entry_id:
        return record(line=line, arxiv_id=None, error=f"arXiv API error: {first('summary') or entry_id}")
    if entry_id and entry_id.startswith(arxiv.FEED_ID_PREFIX):
        return _feed_entry_record(line, entry_id, children, first)
    authors, affiliations = [], []
    for author in children.get("author", []):
        name = next((_text(c) for c in author if _local(c.tag) == "name"), None)
        affiliation = [t for c in author if _local(c.tag) == "affiliation" and (t := _text(c))]
        if name:
            authors.append(name)
            affiliations.append("; ".join(affiliation))
    if not any(affiliations):
        affiliations = []
    primary = children.get("primary_category")
    links = {link.get("title") or link.get("rel"): link.get("href") for link in children.get("link", [])}
    return record(
        line=line,
        arxiv_id=entry_id.rstrip("/").rsplit("/abs/", 1)[-1] if entry_id else None,
        title=first("title"),
        abstract=first("summary"),
        authors=authors,
        affiliations=affiliations,
        categories=[c.get("term") for c in children.get("category", []) if c.get("term")],
        primary_category=primary[0].get("term") if primary else None,
        published=first("published"),
        updated=first("updated"),
        comment=first("comment"),
        journal_ref=first("journal_ref"),
        doi=first("doi"),
        url=links.get("alternate") or entry_id,
    )


def _feed_entry_record(
    line: int, entry_id: str, children: dict[str, list[Element]], first: Callable[[str], str | None]
) -> dict:
    """An entry of a daily feed of rss.arxiv.org (see the module's docstring)."""
    announce_type = (first("announce_type") or "").lower()
    announced = first("published")
    updated, warnings = None, []
    if announce_type not in _DATED_BY_ANNOUNCEMENT:
        warnings.append(
            f"feed entry announced as {announce_type or 'unknown'!r} on {announced}: the feed gives no "
            "submission date for it; it joins the paper if a dated listing of it is held, else quarantine"
        )
        updated, announced = announced, None
    abstract = first("summary")
    links = {link.get("rel"): link.get("href") for link in children.get("link", [])}
    return record(
        line=line,
        arxiv_id=entry_id[len(arxiv.FEED_ID_PREFIX):],
        title=first("title"),
        abstract=arxiv.FEED_SUMMARY.sub("", abstract, count=1) if abstract else None,
        authors=[name.strip() for name in (first("creator") or "").split(",") if name.strip()],
        categories=[c.get("term") for c in children.get("category", []) if c.get("term")],
        announced=announced,
        updated=updated,
        journal_ref=first("journal_reference") or first("journal_ref"),
        doi=first("DOI") or first("doi"),
        url=links.get("alternate"),
        warnings=warnings,
    )


def read_atom(stream: BinaryIO, ctx: ReadContext) -> Iterator[dict]:
    """Yield one record per ``<entry>``; raise SourceError where the XML breaks or is hostile."""
    collector = _EntryCollector()
    parser = DefusedXMLParser(target=collector, forbid_dtd=False, forbid_entities=True, forbid_external=True)
    collector.parser = parser
    offset = 0
    try:
        while chunk := stream.read(_CHUNK):
            parser.feed(chunk)
            offset += len(chunk)
            yield from (_entry_record(line, el) for line, el in collector.entries)
            collector.entries.clear()
        parser.close()
    except DefusedXmlException as exc:
        raise SourceError(_refusal(exc), line=parser.parser.CurrentLineNumber) from exc
    except ParseError as exc:
        line = exc.position[0]
        yield from (_entry_record(line_, el) for line_, el in collector.entries)
        entry = collector.open_entry
        inside = f", inside the <entry> that starts at line {entry}" if entry is not None else ""
        raise SourceError(f"XML broken{inside}: {exc}", line=line) from exc
    yield from (_entry_record(line, el) for line, el in collector.entries)


def _refusal(exc: DefusedXmlException) -> str:
    """Why a hostile document was refused, naming the entity (never its content)."""
    if isinstance(exc, EntitiesForbidden):
        kind = f"external entity {exc.name!r} (SYSTEM {exc.sysid!r})" if exc.sysid else f"entity {exc.name!r}"
        return (
            f"XML refused: it declares {kind}; entity declarations are not accepted "
            "(they can expand into gigabytes or read local files), nothing was expanded"
        )
    if isinstance(exc, ExternalReferenceForbidden):
        return f"XML refused: it references an external resource {exc.sysid!r}; nothing was fetched"
    return f"XML refused: {type(exc).__name__} ({exc})"
