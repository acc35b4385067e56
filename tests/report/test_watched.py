"""Watched themes: the configuration, the matching, the Watched sections, and the weekly feed."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from pipeline import clean, config, ingest, report, topics
from pipeline.report.watched import Doc, TextCache, Thresholds, match, read_text, theme

WATCH = '[report.watch]\n"MoE serving" = "serving mixture-of-experts models for inference"\n' \
        '"Edge offloading" = "offloading computation from devices to edge servers"\n'


def test_watched_themes_are_read_from_the_config_in_the_order_written(tmp_path):
    path = tmp_path / "watch.toml"
    path.write_text(WATCH)
    cfg = config.load(tmp_path, path)
    assert cfg.report.watch == (("MoE serving", "serving mixture-of-experts models for inference"),
                                ("Edge offloading", "offloading computation from devices to edge servers"))
    assert config.load(tmp_path).report.watch == ()


def written(name: str, sentence: str, text: str) -> bool:
    """Whether ``text`` (an abstract) writes the watched theme's name or a variant of it."""
    return read_text(Doc("\n" + text), theme(name, sentence))[0] > 0


KV = ("KV cache", "compressing the key-value cache of large language models during inference")
MEMORY = ("Agent memory", "memory that lets LLM-based agents store and recall information across interactions")
DLM = ("Diffusion language models", "language models that generate text by discrete or masked diffusion")


def test_the_name_is_read_in_its_usual_variants():
    for text in ("We compress the KV-cache.", "Managing KV caches at scale", "its kvcache grows", "KV   Cache",
                 "the key-value caches of the model", "the key-value (KV) cache", "KV caching"):
        assert written(*KV, text), text
    for text in ("A dual-process memory system for LLM agents", "latent factual memory for LLM-based agents",
                 "coordinating the memory cycle of memory-augmented agents", "the agents' memory", "agent memory"):
        assert written(*MEMORY, text), text
    for text in ("diffusion large language models (dLLMs)", "masked diffusion language models",
                 "diffusion-based language models"):
        assert written(*DLM, text), text
    # the words apart are not the name: across a conjunction, a clause's end, or far from each other
    for name, text in ((DLM, "we combine diffusion models and language models"), (KV, "the KV store. A cache"),
                       (MEMORY, "agents trained with reinforcement learning under a fixed budget of GPU memory"),
                       (KV, "key, value and query caches")):
        assert not written(*name, text), text


def test_other_names_are_read_as_the_name_is(tmp_path):
    edge = ("Edge offloading", "offloading computation from devices to edge servers")
    text = "\nWe study task-offloading from phones to nearby servers."
    assert read_text(Doc(text), theme(*edge))[0] == 0
    assert read_text(Doc(text), theme(*edge, ("task offloading", "MEC")))[0] == 1
    assert read_text(Doc("\nA MEC testbed"), theme(*edge, ("task offloading", "MEC")))[0] == 1
    # the config's spelling of the name need not match; other names are another theme to the cache
    path = tmp_path / "w.toml"
    path.write_text('[report.watch]\n"Edge offloading" = "s"\n[report.watch_also]\n"edge Offloading" = "MEC"\n')
    assert config.load(tmp_path, path).report.also() == {"Edge offloading": ("MEC",)}
    assert theme(*edge).key != theme(*edge, ("MEC",)).key


def test_the_definitions_qualifier_must_be_written_beside_the_name():
    t = theme(*KV)
    assert ("llm",) in t.qualifiers and ("languag", "model") in t.qualifiers  # "language models", as matching reads it
    vision = read_text(Doc("\nA KV cache for streaming video generation with autoregressive diffusion"), t)
    llm = read_text(Doc("\nA KV cache for long-context LLMs"), t)
    vlm = read_text(Doc("\nKV cache eviction in vision-language models"), t)
    assert vision[0] and not vision[3]  # the name, but not what it is of
    assert llm[3] and vlm[3]
    assert theme(*MEMORY).qualifiers == ()  # nothing after the name to qualify it: no qualifier asked
    # a qualifier is a short noun group, without joiners ("-based") or what a verb says after it
    assert theme("Agent memory", "memory for LLM-based agents").qualifiers == (("llm",),)
    assert theme("KV cache", "the key-value cache of large language models serving long contexts").qualifiers[0] == (
        "larg", "languag", "model")


def unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def test_nothing_matches_when_no_paper_is_close_however_far_out_in_the_tail():
    rng = np.random.default_rng(0)
    dim, n = 384, 300  # random papers' cosines to the sentence spread by about 0.05, as a real store's do
    sentence = unit(rng.standard_normal(dim))
    vectors = unit(rng.standard_normal((n, dim)))
    texts = pd.Series([f"\nAn unrelated paper {i} on graphs for quantum computers" for i in range(n)])
    watch = {"Quantum error correction": "decoding and correcting errors in quantum computers"}
    # the nearest paper lies far out in the tail of the store's cosines, yet not close: cosine ~0.3
    vectors[0] = unit(sentence + 2.5 * unit(rng.standard_normal(dim)))
    loose = Thresholds(floor=-1.0, z_far=3.0, named=0.0)
    cosine = float(vectors[0] @ sentence)
    assert 0.2 < cosine < 0.45
    found = match(texts, vectors, watch, sentence[None, :], limits=replace(loose, floor=cosine - 0.01))
    assert found.on.iloc[0, 0] and found.z.iloc[0, 0] >= 3.0  # the tail alone would match it
    found = match(texts, vectors, watch, sentence[None, :], limits=replace(loose, floor=cosine + 0.01))
    assert not found.on.to_numpy().any()  # the floor: nothing close, nothing matched


def test_a_paper_close_to_two_themes_is_on_the_nearest_unless_it_writes_both_names():
    rng = np.random.default_rng(1)
    dim, n = 64, 300
    a, b = unit(rng.standard_normal(dim)), unit(rng.standard_normal(dim))
    vectors = unit(rng.standard_normal((n, dim)))
    texts = pd.Series([f"\nAn unrelated paper {i}" for i in range(n)])
    watch = {"KV cache": KV[1], "Speculative decoding": "drafting tokens and verifying them with the target model"}
    vectors[0] = unit(1.2 * a + b)  # close to both, nearer the first
    texts[0] = "\nA study of KV memory, speculative tricks, cache reuse and decoding of LLM tokens"
    vectors[1] = vectors[0]
    texts[1] = "Speculative decoding with a compressed KV cache for LLMs\nWe draft tokens."  # both names written
    limits = Thresholds(floor=0.0, z_name=0.0, z_alone=2.0, z_words=2.0, z_far=2.5, named=0.5)
    found = match(texts, vectors, watch, np.stack([a, b]), limits=limits)
    assert found.z.iloc[0].min() >= 2.5  # close enough to be on either alone
    assert found.on.iloc[0].tolist() == [True, False]
    assert found.on.iloc[1].tolist() == [True, True] and found.by_name.iloc[1].all()
    assert found.evidence("KV cache")[1] > found.evidence("KV cache")[0]  # by its name first


def test_a_name_written_once_in_the_abstract_counts_only_where_the_title_says_a_word_of_it():
    rng = np.random.default_rng(2)
    dim, n = 64, 300
    sentence = unit(rng.standard_normal(dim))
    vectors = unit(rng.standard_normal((n, dim)))
    texts = pd.Series([f"Paper {i}\nAn unrelated paper on graphs" for i in range(n)])
    passing = "Our attention layer cuts the KV cache of LLMs by half and doubles the throughput."
    texts[0] = "A linear attention architecture\n" + passing  # a result in passing: not its subject
    texts[1] = "Cache-aware attention for long contexts\n" + passing  # the title says "cache"
    texts[2] = "A linear attention architecture\n" + passing + " Each KV cache block is kept in low precision."
    texts[3] = "Validation of long-context reasoning\n" + passing  # "Validation" is not "value", nor "Cacti" "cache"
    for i in range(4):
        vectors[i] = unit(sentence + 0.8 * unit(rng.standard_normal(dim)))  # close (no z_* threshold is reachable here)
    limits = Thresholds(floor=0.0, z_name=0.0, z_alone=99.0, z_words=99.0, z_far=99.0)
    found = match(texts, vectors, {"KV cache": KV[1]}, sentence[None, :], limits=limits)
    assert found.z.iloc[:4, 0].min() > 0
    assert found.by_name["KV cache"].iloc[:4].tolist() == [False, True, True, False]
    assert found.on["KV cache"].iloc[:4].tolist() == [False, True, True, False]


def test_each_papers_text_is_read_once_and_again_only_when_it_changes(tmp_path, monkeypatch):
    from pipeline.report import watched as module

    themes = [theme(*KV), theme(*MEMORY)]
    cache = TextCache(tmp_path)
    texts = pd.Series(["\nKV cache of LLMs", "\nmemory for LLM agents", "\nnothing"])
    first, read = cache.read(texts, themes)
    assert read == 3 and first.count.to_numpy().tolist() == [[1, 0], [0, 1], [0, 0]]
    calls = []
    real = module.read_texts
    monkeypatch.setattr(module, "read_texts", lambda t, th: calls.append(list(t)) or real(t, th))
    again, read = cache.read(texts, themes)
    assert read == 0 and calls == [] and again.count.equals(first.count)
    more = pd.Series(["\nKV cache of LLMs", "\nmemory for LLM agents", "\nnow a KV cache of LLMs", "\nagent memory"])
    _, read = cache.read(more, themes)
    assert read == 2 and calls == [["\nnow a KV cache of LLMs", "\nagent memory"]]  # the changed one and the new one
    # another sentence is another theme: read afresh, the first kept
    _, read = cache.read(texts, [theme("KV cache", "the key-value cache of language models")])
    assert read == 3 and len(list(tmp_path.glob("*.parquet"))) == 3


def test_each_papers_cosines_are_computed_once_and_only_new_papers_vectors_are_asked_for(tmp_path):
    themes = [theme(*KV), theme(*MEMORY)]
    asked = []

    def cosine_of(rows):
        asked.append(rows.tolist())
        return np.tile(rows[:, None] / 10, (1, 2))

    texts = pd.Series(["\nKV cache of LLMs", "\nmemory for LLM agents", "\nnothing"])
    first = TextCache(tmp_path, "model-a").readings(texts, themes, cosine_of)
    assert asked == [[0, 1, 2]] and first.cosine[:, 1].tolist() == [0.0, 0.1, 0.2] and first.embedded == 3
    week = TextCache(tmp_path, "model-a").readings(pd.Series(["\nagent memory", *texts]), themes, cosine_of)
    assert asked[1:] == [[0]] and week.read == 1 and week.embedded == 1  # the new paper only
    assert week.cosine[1:, 0].tolist() == [0.0, 0.1, 0.2]  # the others' as kept
    TextCache(tmp_path, "model-b").readings(texts, themes, cosine_of)  # another model: compared afresh
    assert asked[2:] == [[0, 1, 2]]


def test_matching_from_a_partly_kept_cache_is_matching_afresh(tmp_path):
    rng = np.random.default_rng(3)
    dim, n = 32, 200
    sentences = unit(rng.standard_normal((2, dim)))
    vectors = unit(rng.standard_normal((n, dim)))
    vectors[:20] = unit(sentences[0] + 0.3 * unit(rng.standard_normal((20, dim))))
    texts = pd.Series([f"Cache paper {i}\nWe compress the KV cache of LLMs." if i % 3 == 0 else f"Paper {i}\nagent memory"
                       for i in range(n)], index=np.arange(n) * 7 + 5)  # not a 0..n range: rows, not labels
    watch = {"KV cache": KV[1], "Agent memory": MEMORY[1]}
    limits = Thresholds(floor=0.0)
    fresh = match(texts, vectors, watch, sentences, limits=limits)
    by_rows = lambda rows: vectors[rows]  # noqa: E731 - the stage's loader: the vectors of the rows asked for
    cold = match(texts, by_rows, watch, lambda: sentences, limits=limits, cache=TextCache(tmp_path, "m"))
    kept = np.flatnonzero(np.arange(n) % 2 == 0)[::-1]  # half the papers kept, in another order
    part = tmp_path / "part"
    TextCache(part, "m").readings(texts.iloc[kept], [theme(*KV), theme(*MEMORY)],
                                   lambda rows: vectors[kept[rows]] @ sentences.T)
    warm = match(texts, by_rows, watch, lambda: sentences, limits=limits, cache=TextCache(part, "m"))
    for got in (cold, warm):
        assert got.on.equals(fresh.on) and np.allclose(got.z.to_numpy(), fresh.z.to_numpy())
    assert fresh.on.to_numpy().any()


def test_kept_tables_no_report_has_read_for_a_month_are_removed(tmp_path):
    import os
    import time

    themes = [theme(*KV)]
    texts = pd.Series(["\nKV cache of LLMs"])
    cache = TextCache(tmp_path, "m")
    cache.read(texts, themes)
    kept = cache.path(themes[0])
    gone = TextCache(tmp_path, "m").path(theme(*MEMORY))  # a theme watched once, then no more
    TextCache(tmp_path, "m").read(texts, [theme(*MEMORY)])
    month = time.time() - (TextCache.KEEP_DAYS + 1) * 86400
    for path in (kept, gone):
        os.utime(path, (month, month))
    _, read = cache.read(texts, themes)
    assert read == 0 and kept.exists() and not gone.exists()  # the table read now stays, the other goes
    # a table is marked each time it is read: a report of other themes leaves it alone
    TextCache(tmp_path, "m").read(texts, [theme(*MEMORY)])
    assert kept.exists()


@pytest.fixture
def watched(project, hash_embedder, monkeypatch):
    """The seeds through every stage, with two watched themes (test embedder everywhere)."""
    (project / "watch.toml").write_text(WATCH)
    cfg = config.load(project, project / "watch.toml")
    ingest.run(cfg)
    clean.run(cfg)
    topics.run(cfg, embedder=hash_embedder)
    monkeypatch.setattr("pipeline.topics.embedding.embed.make_embedder", lambda c: hash_embedder)
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
    from pipeline.report.week.digest import opening
    from pipeline.report.week.weekly import build_week

    from pipeline.topics import fitted

    loaded = []
    real = fitted.load
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fitted, "load", lambda cfg, papers: loaded.append(len(papers)) or real(cfg, papers))
        matches = watched_matches(watched, corpus)
    assert loaded == []  # the report compared every paper already: no vector is loaded again
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


def test_a_report_reads_the_abstracts_only_while_some_paper_is_not_kept(watched, monkeypatch):
    import dataclasses

    from pipeline.report import stage
    from pipeline.report.week.weekly import COLUMNS
    from pipeline.schemas import Papers

    corpus = report.load_corpus(watched, COLUMNS + [Papers.text_hash])  # as the weekly report reads it
    assert Papers.abstract not in corpus.papers
    asked = []
    real = stage.read_table
    monkeypatch.setattr(stage, "read_table", lambda path, model, columns=None: asked.append(columns) or real(path, model, columns))
    first = stage.watched_matches(watched, corpus)
    assert [c for c in asked if Papers.abstract in (c or [])]  # nothing kept yet: the abstracts read
    asked.clear()
    again = stage.watched_matches(watched, corpus)
    assert asked == [] and again.on.equals(first.on) and np.allclose(again.z, first.z)  # every paper kept
    # the rows in another order, under other labels: each paper still gets its own abstract and readings
    shuffled = corpus.papers.iloc[::-1].set_axis(np.arange(len(corpus.papers)) * 3 + 7)
    moved = stage.watched_matches(watched, dataclasses.replace(corpus, papers=shuffled))
    assert np.array_equal(moved.on.to_numpy()[::-1], first.on.to_numpy())
    # a papers table cleaned before the hash existed: hashed here from the texts, every paper still kept
    from pipeline.report import watched as module

    matched = []
    real_read = module.read_texts
    monkeypatch.setattr(module, "read_texts", lambda texts, themes: matched.append(len(texts)) or real_read(texts, themes))
    older = dataclasses.replace(corpus, papers=corpus.papers.drop(columns=Papers.text_hash))
    assert stage.watched_matches(watched, older).on.equals(first.on) and matched == []
    assert report.load_corpus(watched).papers[Papers.text_hash].notna().all()


def test_a_papers_table_changed_while_the_report_reads_it_is_a_clear_error(watched):
    from pipeline.io import TableError, read_table, write_table
    from pipeline.report import stage
    from pipeline.report.week.weekly import COLUMNS
    from pipeline.schemas import Papers

    corpus = report.load_corpus(watched, COLUMNS + [Papers.text_hash])
    table = read_table(watched.paths.papers, Papers)
    table.loc[0, Papers.abstract] = "Another abstract, written after the report read the hashes."
    write_table(table, watched.paths.papers, Papers)
    with pytest.raises(TableError, match="papers.parquet: changed while the report read it"):
        stage.watched_matches(watched, corpus)


def test_watched_themes_refuse_a_model_other_than_the_themes_at_once(watched, hash_embedder, monkeypatch):
    from pipeline.io import TableError
    from pipeline.report.stage import watched_matches

    corpus = report.load_corpus(watched)
    watched_matches(watched, corpus)  # every paper kept: the next report would embed nothing
    other = type("Other", (type(hash_embedder),), {"identity": "another-model"})()
    monkeypatch.setattr("pipeline.topics.embedding.embed.make_embedder", lambda c: other)
    with pytest.raises(TableError, match="fitted with hash-embedder-test, the configuration embeds with another-model"):
        watched_matches(watched, corpus)


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
    from pipeline.report.week.feed import feed

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

    from pipeline.report.week.feed import feed

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


def test_a_horizon_added_in_the_one_place_is_said_in_the_report_and_the_survey(watched, monkeypatch):
    from pipeline.report.statistics import movement
    from pipeline.report.stage import watched_matches
    from pipeline.report.week.weekly import build_week

    monkeypatch.setattr(movement, "HORIZONS", movement.HORIZONS + (("half", 26, 26, "over half a year"),))
    corpus = report.load_corpus(watched)
    built = build_week(corpus, report.data.monday_of("2026-W24"), watched.report, watched=watched_matches(watched, corpus))
    assert "4 horizons" in built.method_text and "over half a year (26 weeks against the 26 before)" in built.method_text
    report.write_weekly(watched, "2026-W24", force=True)
    assert "over half a year (26 weeks against the 26 before)" in (
        watched.paths.weekly_reports / "2026-W24" / "index.html").read_text()
    report.write_survey(watched, force=True)
    survey = next(p for p in watched.paths.surveys.iterdir()) / "index.html"
    assert "13 weeks against the 13 before, 26 weeks against the 26 before" in survey.read_text()


def test_a_cache_file_of_other_columns_or_unreadable_is_read_afresh_and_one_text_is_kept_once(tmp_path):
    themes = [theme(*KV)]
    cache = TextCache(tmp_path)
    (tmp_path / f"{themes[0].key}.parquet").write_bytes(b"not a parquet file")
    texts = pd.Series(["\nKV cache of LLMs", "\nnothing", "\nKV cache of LLMs"])
    found, read = cache.read(texts, themes)
    assert read == 3 and found.count["KV cache"].tolist() == [1, 0, 1]
    _, read = cache.read(texts, themes)
    assert read == 0 and len(pd.read_parquet(cache.path(themes[0]))) == 2  # kept under its text, once


def test_other_names_leave_the_names_qualifier_as_it_is():
    assert theme(*KV, ("language model cache", "model memory")).qualifiers == theme(*KV).qualifiers
