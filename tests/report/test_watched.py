"""Watched themes: the configuration, the matching, the Watched sections, and the weekly feed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pipeline import clean, config, ingest, report, topics
from pipeline.report.watched import match, phrase_pattern, stems

WATCH = '[report.watch]\n"MoE serving" = "serving mixture-of-experts models for inference"\n' \
        '"Edge offloading" = "offloading computation from devices to edge servers"\n'


def test_watched_themes_are_read_from_the_config_in_the_order_written(tmp_path):
    path = tmp_path / "watch.toml"
    path.write_text(WATCH)
    cfg = config.load(tmp_path, path)
    assert cfg.report.watch == (("MoE serving", "serving mixture-of-experts models for inference"),
                                ("Edge offloading", "offloading computation from devices to edge servers"))
    assert config.load(tmp_path).report.watch == ()


def test_the_name_is_found_as_written_and_sentence_words_by_their_stems():
    pattern = phrase_pattern("MoE serving")
    for text in ("Fast MoE serving at scale", "moe-serving systems", "MoE   Serving"):
        assert pd.Series([text]).str.contains(pattern, case=False, regex=True).all()
    assert not pd.Series(["MoE training for serving"]).str.contains(pattern, case=False, regex=True).any()
    assert stems("offloading computation from devices to edge servers") == ["offload", "computat", "devi", "edg",
                                                                              "serv"]


def unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def test_a_paper_matches_by_its_phrase_by_a_far_tail_cosine_or_a_near_tail_one_with_the_sentences_words():
    rng = np.random.default_rng(0)
    dim, n = 32, 200
    sentence = unit(rng.standard_normal(dim))
    vectors = unit(rng.standard_normal((n, dim)))
    texts = pd.Series([f"An unrelated paper {i} on graphs" for i in range(n)])
    vectors[0] = sentence  # far out in the tail, words or not
    vectors[1] = unit(sentence + 1.6 * unit(rng.standard_normal(dim)))  # nearer tail...
    texts[1] = "Offloading computation from IoT devices to edge servers"  # ...writing the sentence's words
    vectors[2] = vectors[1]  # as near, without the words
    texts[3] = "A study of edge offloading"  # the name as written, its vector anywhere
    found = match(texts, vectors, {"Edge offloading": "offloading computation from devices to edge servers"},
                  sentence[None, :], z_alone=3.0, z_words=1.5)
    z = found.z["Edge offloading"]
    assert z[0] >= 3.0 and 1.5 <= z[1] < 3.0
    assert found.on["Edge offloading"].tolist()[:4] == [True, True, False, True]
    assert found.on["Edge offloading"].sum() == 3 and found.names == ["Edge offloading"]


@pytest.fixture
def watched(project, hash_embedder, monkeypatch):
    """The seeds through every stage, with two watched themes (test embedder everywhere)."""
    (project / "watch.toml").write_text(WATCH)
    cfg = config.load(project, project / "watch.toml")
    ingest.run(cfg)
    clean.run(cfg)
    topics.run(cfg, embedder=hash_embedder)
    monkeypatch.setattr("pipeline.topics.embed.make_embedder", lambda c: hash_embedder)
    return cfg


def test_the_weekly_report_and_the_survey_have_a_watched_section(watched):
    result = report.write_weekly(watched, "2026-W20")
    folder = watched.paths.weekly_reports / "2026-W20"
    html, md = (folder / "index.html").read_text(), (folder / "report.md").read_text()
    assert "<h2>Watched</h2>" in html and "## Watched" in md
    for name in ("MoE serving", "Edge offloading"):
        assert f"<h3>{name} " in html and f"- **{name}**:" in md
    assert "on watched themes" in result.counts
    corpus = report.load_corpus(watched)
    from pipeline.report.stage import watched_matches
    from pipeline.report.digest import opening
    from pipeline.report.weekly import build_week

    matches = watched_matches(watched, corpus)
    built = build_week(corpus, report.data.monday_of("2026-W20"), watched.report, watched=matches)
    this = (corpus.papers["week"] == "2026-W20").to_numpy()
    for w in built.watched:
        assert w["count"] == int(matches.on[w["name"]].to_numpy()[this].sum())  # every match of the week, counted
        assert set(w["moves"]["horizon"]) <= {"week", "month", "quarter"}
    total = sum(w["count"] for w in built.watched)
    on = sum(1 for w in built.watched if w["count"])
    assert f"Watched: {total} paper{'s' if total != 1 else ''} on {on} of your {len(built.watched)} themes this week." \
        in opening(built)  # counted, not named: the opening names at most OPENING_UNITS units
    report.write_survey(watched)
    survey = next(p for p in watched.paths.surveys.iterdir()) / "index.html"
    assert "<h2>Watched</h2>" in survey.read_text() and "Edge offloading" in survey.read_text()


def test_the_feed_is_atom_with_an_entry_linking_to_every_weekly_report(watched):
    import feedparser

    for week in ("2026-W20", "2026-W23", "2026-W24"):
        report.write_weekly(watched, week)
    path = watched.paths.weekly_reports / "feed.xml"
    parsed = feedparser.parse(path.read_text())
    assert not parsed.bozo and parsed.version == "atom10"
    assert [e.title for e in parsed.entries] == ["Research trends, 2026-W24", "Research trends, 2026-W23",
                                                 "Research trends, 2026-W20"]
    for entry in parsed.entries:
        target = path.parent / entry.link
        assert target.name == "index.html" and target.exists()
        opening = (target.parent / "report.md").read_text().split("\n\n")[2]
        assert entry.summary.startswith(opening.split(" ×")[0]) and "Watched:" in entry.summary
        assert entry.id and entry.updated
    # a report of another level is an entry of its own, linking to its folder
    report.write_weekly(watched, "2026-W24", level="area")
    parsed = feedparser.parse(path.read_text())
    areas = next(e for e in parsed.entries if e.link.endswith("2026-W24-areas/index.html"))
    assert len(parsed.entries) == 4 and areas.title == "Research trends, 2026-W24: areas"
    # ids: unique per entry, permanent across rewrites, and unique to this project
    ids = [e.id for e in parsed.entries]
    assert len(set(ids)) == 4 and all(i.startswith("urn:uuid:") for i in ids)
    report.write_weekly(watched, "2026-W23", force=True)
    assert [e.id for e in feedparser.parse(path.read_text()).entries] == ids
    other = watched.paths.root / "elsewhere"
    (other / "2026-W24").mkdir(parents=True)
    (other / "2026-W24" / "summary.json").write_text('{"week": "2026-W24", "opening": "x", "updated": "2026-06-15T00:00:00Z"}')
    from pipeline.report.feed import feed

    assert feedparser.parse(feed(other)).entries[0].id not in ids


def test_the_archive_page_lists_every_weekly_report_newest_first_and_links_the_feed(watched):
    from html.parser import HTMLParser

    import feedparser

    for week in ("2026-W20", "2026-W24", "2026-W23"):
        report.write_weekly(watched, week)
    folder = watched.paths.weekly_reports
    html = (folder / "index.html").read_text()

    class Links(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.links, self.items, self.atom = [], [], []
            self._in_p = False

        def handle_starttag(self, tag, attrs):  # noqa: ANN001
            attrs = dict(attrs)
            if tag == "a":
                self.links.append(attrs["href"])
            if tag == "link" and attrs.get("type") == "application/atom+xml":
                self.atom.append(attrs["href"])
            self._in_p = tag == "p" and not attrs.get("class")

        def handle_data(self, data):  # noqa: ANN001
            if self._in_p and data.strip():
                self.items.append(data.strip())

    page = Links()
    page.feed(html)
    reports = [link for link in page.links if link.endswith("/index.html")]
    assert reports == ["2026-W24/index.html", "2026-W23/index.html", "2026-W20/index.html"]  # newest first
    assert all((folder / link).exists() for link in reports) and "feed.xml" in page.links and page.atom == ["feed.xml"]
    for link, text in zip(reports, page.items):  # each with its opening paragraph
        md = (folder / link).parent.joinpath("report.md").read_text()
        assert text.split(" ×")[0] in md.split("\n\n")[2].replace("\\", "")
    # the feed and every report link back to it
    parsed = feedparser.parse((folder / "feed.xml").read_text())
    assert any(link.href == "index.html" and link.rel == "alternate" for link in parsed.feed.links)
    assert 'href="../index.html"' in (folder / "2026-W23" / "index.html").read_text()


def test_the_feed_escapes_text_from_the_data_and_can_link_where_the_reports_are_published(tmp_path):
    import json

    import feedparser

    from pipeline.report.feed import feed

    (tmp_path / "2026-W24").mkdir()
    (tmp_path / "2026-W24" / "summary.json").write_text(json.dumps({
        "week": "2026-W24", "level": "theme", "opening": "R&D <script>alert(1)</script> rose.",
        "movers": ["A <b>theme</b> & co 2.0× (1.2–3.1) over 4 weeks"], "watched": [], "updated": "2026-06-15T07:00:00Z"}))
    (tmp_path / "2026-W23").mkdir()  # a summary that cannot be read is left out, not a failure
    (tmp_path / "2026-W23" / "summary.json").write_text("{not json")
    text = feed(tmp_path, "https://example.org/trends/weekly/")
    parsed = feedparser.parse(text)
    assert not parsed.bozo and len(parsed.entries) == 1
    entry = parsed.entries[0]
    assert entry.link == "https://example.org/trends/weekly/2026-W24/index.html"
    assert "<script>" not in text and "&lt;script&gt;" in text
    assert "R&D" in entry.summary and "<script>" not in entry.content[0].value
