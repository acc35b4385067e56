"""The report stage on small corpora built in memory (the cheap test embedder), and on the seeds."""

from __future__ import annotations

import re

import dataclasses
import json
from html import escape as html_escape

import numpy as np
import pandas as pd
import pytest

from pipeline import clean, config, ingest, report, topics
from pipeline.io import read_table, write_table
from pipeline.report import data
from pipeline.schemas import Papers, TopicInfo
from tests.helpers import ABSTRACT


@pytest.fixture
def themed(project, hash_embedder):
    """The seeds through ingest, clean and topics (test embedder)."""
    cfg = config.load(project)
    ingest.run(cfg)
    clean.run(cfg)
    topics.run(cfg, embedder=hash_embedder)
    return cfg


def test_iso_week_edges():
    assert data.monday_of("2026-W01") == pd.Timestamp("2025-12-29", tz="UTC")
    assert data.week_label(pd.Timestamp("2025-12-29", tz="UTC")) == "2026-W01"
    assert data.week_label(pd.Timestamp("2027-01-01", tz="UTC")) == "2026-W53"
    with pytest.raises(ValueError, match="not an ISO week"):
        data.monday_of("2026-23")


def test_latest_complete_week():
    papers = pd.DataFrame({Papers.week_start: pd.to_datetime(["2026-06-01", "2026-06-08"], utc=True)})
    assert data.latest_complete_week(papers, pd.Timestamp("2026-06-15 00:00", tz="UTC")) == pd.Timestamp("2026-06-08", tz="UTC")
    assert data.latest_complete_week(papers, pd.Timestamp("2026-06-14 23:00", tz="UTC")) == pd.Timestamp("2026-06-01", tz="UTC")


def test_weekly_report_on_seeds(themed):
    result = report.write_weekly(themed, "2026-W24")
    folder = themed.paths.reports / "weekly" / "2026-W24"
    html = (folder / "index.html").read_text()
    md = (folder / "report.md").read_text()
    assert result.counts["papers this week"] == 5  # the digest's five papers, 2026-06-14
    assert "Research trends, 2026-W24" in html and "Mon 08 Jun 2026" in html
    assert "Eidola: Modeling Multi-GPU Network Communication Traffic" in html
    assert "exact conditional binomial test" in html and "Benjamini" in html
    # the seeds' latest week holds digest papers only: no arXiv category, said in one line, no empty figure
    assert "_None of this week's papers lists an arXiv category._" in md
    assert "None of this week's papers lists an arXiv category" in html
    drawn = sorted(p.stem for p in (folder / "figures").glob("*.png"))
    assert "share_by_week" in drawn and "categories" not in drawn
    for name in drawn:
        assert (folder / "figures" / f"{name}.png").stat().st_size > 1000
        assert (folder / "figures" / f"{name}.svg").exists()
    assert html.count("data:image/png;base64,") == len(drawn)
    assert ("movers" in drawn) == (result.counts["moved"] > 0)  # no movers, no figure of them
    # every section of the demo report says something: a heading is followed by text or a figure
    for section in html.split("<h2>")[1:]:
        heading, _, body = section.partition("</h2>")
        text = re.sub(r"<[^>]+>", " ", body.split("<h2>")[0])
        assert len(" ".join(text.split())) > 40 or "<img" in body, heading


def test_empty_week_says_so(themed):
    report.write_weekly(themed, "2026-W21")  # inside the listings (2025-W18 to 2026-W24), no papers
    html = (themed.paths.reports / "weekly" / "2026-W21" / "index.html").read_text()
    assert "No papers were published in 2026-W21" in html
    assert "Themes this week" not in html  # no empty table
    from pipeline.report.week.weekly import build_week

    empty = build_week(report.load_corpus(themed), data.monday_of("2024-W10"))
    assert "categories" not in empty.figures and "movers" not in empty.figures  # nothing to draw, none drawn


def test_text_from_the_data_is_escaped(themed):
    papers = read_table(themed.paths.papers, Papers)
    i = papers.index[papers["paper_id"] == "2606.04101"][0]
    papers.loc[i, "title"] = "<script>alert('x')</script> & friends"
    write_table(papers, themed.paths.papers, Papers)
    report.write_weekly(themed, "2026-W23")
    html = (themed.paths.reports / "weekly" / "2026-W23" / "index.html").read_text()
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; friends" in html
    md = (themed.paths.reports / "weekly" / "2026-W23" / "report.md").read_text()
    assert "<script>" not in md


def test_survey_on_seeds(themed, hash_embedder, monkeypatch):
    monkeypatch.setattr("pipeline.topics.embedding.embed.make_embedder", lambda cfg: hash_embedder)
    result = report.write_survey(themed)
    folder = next((themed.paths.reports / "survey").iterdir())
    html = (folder / "index.html").read_text()
    assert result.counts["papers"] == 94
    for name in ("map", "sizes", "hierarchy", "sparklines", "categories", "growth"):
        assert (folder / "figures" / f"{name}.png").exists()
    assert "Research landscape" in html and "representative papers" in html


def test_single_theme_corpus_reports_plainly(tmp_path, hash_embedder, monkeypatch):
    cfg = config.load(tmp_path)
    rows = [{"paper_id": f"2501.{i:05d}", "title": f"Paper {i}", "abstract": ABSTRACT, "authors": [], "categories": ["cs.DC"],
             "primary_category": "cs.DC", "published": pd.Timestamp("2025-01-06", tz="UTC") + pd.Timedelta(days=i),
             "updated": pd.Timestamp("2025-01-06", tz="UTC"), "version": 1, "url": None, "comment": None,
             "journal_ref": None, "doi": None, "headline": None, "tldr": None, "sources": ["x#0"]} for i in range(6)]
    papers = pd.DataFrame(rows)
    stamps = papers["published"]
    papers["week"] = stamps.dt.isocalendar().apply(lambda r: f"{r['year']}-W{r['week']:02d}", axis=1)
    papers["week_start"] = stamps.dt.normalize() - pd.to_timedelta(stamps.dt.day_of_week, unit="D")
    write_table(papers, cfg.paths.papers, Papers)
    topics.run(cfg, embedder=hash_embedder)
    monkeypatch.setattr("pipeline.topics.embedding.embed.make_embedder", lambda c: hash_embedder)
    report.write_weekly(cfg, "2025-W02")
    report.write_survey(cfg)
    from pipeline.report.landscape.survey import build_survey

    corpus = report.load_corpus(cfg)
    centroids = {0: np.ones(64, dtype=np.float32) / 8}
    embeddings = hash_embedder.encode([f"Paper {i}. {ABSTRACT}" for i in range(6)])
    survey = build_survey(corpus, embeddings, centroids, pd.Timestamp("2025-01-01", tz="UTC"), pd.Timestamp("2025-01-31", tz="UTC"))
    assert [t.get_text() for t in survey.figures["hierarchy"][0].axes[0].texts] == ["A single theme: nothing to relate."]
    assert len(corpus.themes) == 1


def test_weekly_themes_are_grouped_under_their_areas_and_areas_can_replace_them(themed):
    info = read_table(themed.paths.topic_info, TopicInfo)
    report.write_weekly(themed, "2026-W24")
    html = (themed.paths.reports / "weekly" / "2026-W24" / "index.html").read_text()
    from pipeline.report.week.weekly import build_week

    built = build_week(report.load_corpus(themed), data.monday_of("2026-W24"))
    week_areas = {area for area, _, _ in built.groups}
    assert week_areas and week_areas <= set(info["area_label"])
    assert sum(total for _, total, _ in built.groups) == built.trend["count"].sum()
    for area, _, rows in built.groups:  # every theme sits under its own area
        assert set(info.set_index("topic").loc[rows["topic"], "area_label"]) == {area}
        assert f'<tr class="area"><th colspan="7">{html_escape(area, quote=False)}' in html.replace("&#39;", "'")
    assert info.set_index("topic").loc[built.groups[0][2]["topic"].iloc[0], "description"] in html.replace("&#39;", "'")

    result = report.write_weekly(themed, "2026-W24", level="area")
    assert result.stage == "report weekly 2026-W24 (areas)"
    html = (themed.paths.reports / "weekly" / "2026-W24-areas" / "index.html").read_text()
    areas = build_week(report.load_corpus(themed), data.monday_of("2026-W24"), level="area")
    assert set(areas.labels.values()) == set(info["area_label"])  # rows are areas, not themes
    assert areas.trend["count"].sum() == built.trend["count"].sum()
    assert "Areas this week" in html and '<tr class="area">' not in html


def test_the_weekly_charts_are_handed_over_for_drawing_before_the_movement_tests(themed, monkeypatch):
    """So that other processes draw them while the tests run (``FigureDrawing``)."""
    from pipeline.report.week import weekly

    handed: list[str] = []
    tested_after: list[list[str]] = []
    movement = weekly.movement

    def tests(*args, **kwargs):  # noqa: ANN002, ANN003
        tested_after.append(list(handed))
        return movement(*args, **kwargs)

    monkeypatch.setattr(weekly, "movement", tests)
    built = weekly.build_week(report.load_corpus(themed), data.monday_of("2026-W24"),
                              start_drawing=lambda name, fig: handed.append(name))
    assert "share_by_week" in handed and tested_after == [[n for n in handed if n != "movers"]]
    assert handed == list(built.figures) and all(built.figures[n][0] is not None for n in handed)


def test_survey_groups_themes_under_areas_and_has_an_area_level(themed, hash_embedder, monkeypatch):
    monkeypatch.setattr("pipeline.topics.embedding.embed.make_embedder", lambda cfg: hash_embedder)
    info = read_table(themed.paths.topic_info, TopicInfo)
    report.write_survey(themed)
    report.write_survey(themed, level="area")
    folders = sorted((themed.paths.reports / "survey").iterdir())
    assert [f.name.endswith("-areas") for f in folders] == [False, True]
    html = (folders[0] / "index.html").read_text().replace("&#39;", "'")
    assert all(f"{html_escape(label, quote=False)} <span class=\"note\">(" in html for label in set(info["area_label"]))
    md = (folders[1] / "report.md").read_text()
    assert f"in {info['area'].nunique()} areas." in md


def test_a_theme_born_this_week_is_listed_as_new_with_its_papers(themed):
    from pipeline.schemas import DocTopics, TopicLineage

    papers = read_table(themed.paths.papers, Papers)
    doc = read_table(themed.paths.doc_topics, DocTopics)
    week = papers.merge(doc, on="paper_id")
    this = week[(week[Papers.week] == "2026-W24") & (week["topic"] >= 0)]
    born = int(this["topic"].iloc[0])
    info = read_table(themed.paths.topic_info, TopicInfo)
    info.loc[info["topic"] == born, "first_week"] = "2026-W24"
    write_table(info, themed.paths.topic_info, TopicInfo)
    lineage = read_table(themed.paths.topic_lineage, TopicLineage)
    row = {"run": "2026-06-15T00:00:00+00:00", "from_topic": None, "to_topic": born, "relation": "new",
           "similarity": 0.4, "shared_papers": 0, "mode": "update", "week": "2026-W24", "pool_size": 31,
           "pool_start": "2026-W21"}
    write_table(pd.concat([lineage, pd.DataFrame([row])], ignore_index=True), themed.paths.topic_lineage, TopicLineage)

    report.write_weekly(themed, "2026-W24")
    folder = themed.paths.reports / "weekly" / "2026-W24"
    html = (folder / "index.html").read_text().replace("&#39;", "'")
    label = info.set_index("topic").loc[born, "label"]
    new_section = html[html.index("<h2>New this week</h2>"):html.index("<h2>Themes this week</h2>")]
    assert label in new_section and "Born this week among papers that no earlier theme explained" in new_section
    assert "(the 31 such papers since 2026-W21)" in new_section
    members = week[week["topic"] == born]
    import html as html_module

    shown = html_module.unescape(new_section)
    for title in members[Papers.title]:  # all its papers, earlier weeks included
        assert title in shown
    md = (folder / "report.md").read_text()
    named = data.shown_labels(info.set_index("topic", drop=False))[born]  # as the reports show it
    assert named.startswith(label) and f"**New: {named}**" in md.replace("\\", "")
    # a theme is not new in the weeks after its birth
    from pipeline.report.week.weekly import build_week

    later = build_week(report.load_corpus(themed), data.monday_of("2026-W25"))
    assert later.born == {} and born not in later.by_status("new")["topic"].tolist()


def test_only_arxiv_links_become_links_and_markup_from_the_data_is_escaped_everywhere(themed):
    from pipeline.report.render import safe_url
    from pipeline.schemas import DocTopics

    assert safe_url("https://arxiv.org/abs/2506.01234") == "https://arxiv.org/abs/2506.01234"
    assert safe_url("http://export.arxiv.org/abs/2506.01234v2") is not None
    assert safe_url("https://doi.org/10.1145/(x)") == "https://doi.org/10.1145/%28x%29"
    for bad in ("javascript:alert(document.domain)", "JaVaScRiPt:alert(1)", "data:text/html,<b>x</b>",
                "https://arxiv.org.evil.example/abs/1", "https://evil.example/?u=arxiv.org", "//arxiv.org/abs/1",
                'https://arxiv.org/abs/1" onmouseover="x', None, 3):
        assert safe_url(bad) is None, bad

    # the column-wise check the reports use agrees with it value by value, None included
    from pipeline.report.render import safe_urls

    urls = ["https://arxiv.org/abs/2506.01234", "HTTPS://Export.ArXiv.org/abs/1", "https://doi.org/10.1145/(x)",
            "https://arxiv.org/abs/1\n", " https://arxiv.org/abs/1 ", "https://arxiv.org@evil.example/x",
            "https://evil.example@arxiv.org/x", "https://arxiv.org:443/abs/1", "https://arxiv.org", "javascript:x",
            'https://arxiv.org/abs/1" onmouseover="x', None, 3, float("nan")]
    checked = safe_urls(pd.Series(urls, index=range(10, 10 + len(urls)), dtype=object))
    assert list(checked.index) == list(range(10, 10 + len(urls)))
    assert [(type(u), u) for u in checked] == [(type(safe_url(u)), safe_url(u)) for u in urls]

    papers = read_table(themed.paths.papers, Papers)
    doc = read_table(themed.paths.doc_topics, DocTopics)
    themed_ids = set(doc.loc[doc["topic"] != -1, "paper_id"])  # a paper in a theme, so the theme is shown
    target = papers[(papers[Papers.week] == "2026-W24") & papers[Papers.paper_id].isin(themed_ids)].index[0]
    papers.loc[target, Papers.url] = "javascript:alert(document.domain)"
    write_table(papers, themed.paths.papers, Papers)
    theme = int(doc.set_index("paper_id").loc[papers.loc[target, Papers.paper_id], "topic"])
    info = read_table(themed.paths.topic_info, TopicInfo)
    hostile = "<img src=x onerror=alert(1)>"
    info.loc[info["topic"] == theme, "label"] = hostile
    info.loc[info["topic"] == theme, "keywords"] = pd.Series([[hostile]], index=info.index[info["topic"] == theme])
    write_table(info, themed.paths.topic_info, TopicInfo)
    report.write_weekly(themed, "2026-W24")
    folder = themed.paths.reports / "weekly" / "2026-W24"
    for text in ((folder / "index.html").read_text(), (folder / "report.md").read_text()):
        assert "javascript:" not in text
        assert "<img src=x" not in text
    assert papers.loc[target, Papers.title][:30] in (folder / "index.html").read_text().replace("&#39;", "'")


@pytest.mark.parametrize("week", ["9999-W52", "2024-W10", "2026-W40"])
def test_a_week_outside_the_listings_is_one_line_and_no_folder(themed, week):
    from click.testing import CliRunner

    from pipeline.cli import cli

    result = CliRunner().invoke(cli, ["--root", str(themed.paths.root), "report", "weekly", "--week", week])
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and f"--week {week} lies outside the listings, which cover 2025-W18 to 2026-W24" in lines[0]
    assert "Error" not in lines[0]  # the option and its value, no Python exception's name
    assert not (themed.paths.reports / "weekly").exists() or not any((themed.paths.reports / "weekly").iterdir())


@pytest.mark.parametrize(("option", "value"), [("--since", "2026-13-01"), ("--until", "30/06/2025")])
def test_a_survey_day_that_is_none_names_the_option(themed, option, value):
    from click.testing import CliRunner

    from pipeline.cli import cli

    result = CliRunner().invoke(cli, ["--root", str(themed.paths.root), "report", "survey", option, value])
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 1 and len(lines) == 1
    assert f"{option} {value}: not a day (YYYY-MM-DD" in lines[0] and "Error" not in lines[0]


def test_a_report_that_fails_midway_leaves_the_previous_one_whole(themed, monkeypatch):
    from pipeline.report.week import digest

    report.write_weekly(themed, "2026-W24")
    folder = themed.paths.reports / "weekly" / "2026-W24"
    before = {p.name: p.read_bytes() for p in folder.rglob("*") if p.is_file()}

    def broken(r):
        raise RuntimeError("disk full")

    monkeypatch.setattr(digest, "to_markdown", broken)
    with pytest.raises(RuntimeError, match="disk full"):
        report.write_weekly(themed, "2026-W24", force=True)  # forced: the same report is otherwise skipped
    assert {p.name: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in folder.parent.iterdir()) == [".feed-id", "2026-W24", "feed.xml", "index.html"]  # no temporary folder left
    with pytest.raises(RuntimeError):
        report.write_weekly(themed, "2026-W23")
    assert not (folder.parent / "2026-W23").exists()


def test_groups_still_forming_are_shown_as_such(themed):
    import json

    papers = read_table(themed.paths.papers, Papers)
    week = papers[papers[Papers.week] == "2026-W24"]
    state_file = themed.paths.models / "topics" / "state.json"
    state = json.loads(state_file.read_text())
    nearest = int(next(iter(state["labels"])))
    state["forming"] = [{"papers": week[Papers.paper_id].tolist()[:3], "nearest": nearest,
                         "label": "Quantum <b>annealing</b>", "week": "2026-W24"},
                        {"papers": week[Papers.paper_id].tolist()[3:4], "nearest": nearest, "label": "Old group",
                         "week": "2026-W23"}]
    state_file.write_text(json.dumps(state))
    report.write_weekly(themed, "2026-W24")
    folder = themed.paths.reports / "weekly" / "2026-W24"
    html = (folder / "index.html").read_text()
    section = html[html.index("<h2>New this week</h2>"):html.index("<h2>Themes this week</h2>")]
    assert "Forming, not yet themes" in section and "Quantum &lt;b&gt;annealing&lt;/b&gt;" in section
    assert "3 papers, nearest theme" in section and "Old group" not in html
    assert week[Papers.title].iloc[0][:30] in section.replace("&#39;", "'")
    assert "_Forming, not yet a theme:_ Quantum &lt;b&gt;annealing&lt;/b&gt; (3 papers" in (folder / "report.md").read_text()


def test_the_weekly_report_opens_with_a_paragraph_that_names_movers_or_what_it_would_take(themed):
    from pipeline.report.week.digest import opening
    from pipeline.report.week.weekly import build_week

    built = build_week(report.load_corpus(themed), data.monday_of("2026-W24"))
    sentences = opening(built)
    usual = built.trailing_papers / built.trailing_weeks
    assert sentences[0].startswith(f"5 papers, {5 / usual:.1f} × the usual week")
    if len(built.movers):
        assert sentences[1].startswith("Started moving ")
        assert all(built.name(row.level, row.unit) in sentences[1] for row in built.movers.head(3).itertuples())
    else:  # what it would have taken, never a list of non-results
        # (the seeds configure no watched theme: the sentence names what was tested)
        assert sentences[1].startswith("No theme or area moved beyond what chance explains at any "
                                       "horizon: with ")
        assert "would need" in sentences[1] or "could not count as rising even with all of them" in sentences[1]
    new = [built.labels[t] for t in built.by_status("new")["topic"]]
    novelty = next(s for s in sentences if s.startswith(("New:", "No theme is new")))
    assert novelty == (f"New: {', '.join(new[:-1]) + ' and ' + new[-1] if len(new) > 1 else new[0]}."
                       if new and len(new) <= 3 else novelty if new else "No theme is new this week.")
    report.write_weekly(themed, "2026-W24")
    folder = themed.paths.reports / "weekly" / "2026-W24"
    page = (folder / "index.html").read_text().replace("&#39;", "'")
    assert page.index('<p class="lead">5 papers,') < page.index("The week in numbers")
    md = (folder / "report.md").read_text()
    assert md.index("5 papers, ") < md.index("## The week in numbers")
    # the first weeks of the listings have nothing to compare with
    first = build_week(report.load_corpus(themed), data.monday_of("2025-W18"))
    assert opening(first)[0] == "1 paper; no earlier week holds papers to compare with."


def test_a_report_of_unchanged_tables_is_skipped_unless_forced(themed, hash_embedder):
    first = report.write_weekly(themed, "2026-W24")
    page = themed.paths.weekly_reports / "2026-W24" / "index.html"
    written = page.stat().st_mtime_ns
    again = report.write_weekly(themed, "2026-W24")
    assert first.ran and not again.ran and again.counts == first.counts
    assert page.stat().st_mtime_ns == written
    assert report.write_weekly(themed, "2026-W24", force=True).ran
    assert report.write_weekly(themed, "2026-W24", level="area").ran  # another report, not a rerun
    # new themes (here: a refit with another seed) make the report stale
    topics.run(dataclasses.replace(themed, topics=dataclasses.replace(themed.topics, seed=7)), refit=True,
               embedder=hash_embedder)
    latest = report.write_weekly(themed, "2026-W24")
    assert latest.ran
    assert json.loads(themed.paths.run_record("report-weekly-2026-W24").read_text())["counts"] == latest.counts


def test_the_category_chart_says_how_many_papers_of_the_week_list_no_category(themed):
    from pipeline.report.week.weekly import build_week

    # the digest's five papers of 2026-W24 carry no arXiv category: no chart at all (the page says why)
    week = build_week(report.load_corpus(themed), data.monday_of("2026-W24"))
    assert "categories" not in week.figures and not week.categorised
    corpus = report.load_corpus(themed)
    earlier = build_week(corpus, data.monday_of("2026-W20"))
    assert "no arXiv category" not in " ".join(t.get_text() for t in earlier.figures["categories"][0].texts)
    # one paper of that week without a category: the chart counts the others and says so
    papers = corpus.papers.copy()
    first = papers.index[papers[Papers.week] == "2026-W20"][0]
    papers[Papers.categories] = [[] if i == first else c for i, c in papers[Papers.categories].items()]
    n = int((papers[Papers.week] == "2026-W20").sum())
    partial = build_week(dataclasses.replace(corpus, papers=papers), data.monday_of("2026-W20"))
    notes = " ".join(t.get_text() for t in partial.figures["categories"][0].texts)
    assert f"1 of this week's {n} papers list no arXiv category" in notes


def test_the_weekly_report_lists_this_weeks_papers_that_wait_for_a_theme(themed):
    from pipeline.schemas import DocTopics

    doc = read_table(themed.paths.doc_topics, DocTopics)
    papers = read_table(themed.paths.papers, Papers)
    week = papers.loc[papers[Papers.week] == "2026-W24", [Papers.paper_id, Papers.title]]
    waiting = week.iloc[0]
    doc.loc[doc[DocTopics.paper_id] == waiting[Papers.paper_id], DocTopics.topic] = -1
    write_table(doc, themed.paths.doc_topics, DocTopics)
    report.write_weekly(themed, "2026-W24", force=True)
    folder = themed.paths.reports / "weekly" / "2026-W24"
    html = (folder / "index.html").read_text()
    waits = html.split("the 1 waiting paper</summary>", 1)[1].split("</details>", 1)[0]
    assert html_escape(waiting[Papers.title]) in waits and waits.count("<li>") == 1
    assert "1 paper this week\nbelongs to no theme yet" in html
    assert "- 1 in no theme yet" in (folder / "report.md").read_text()


def test_a_window_longer_than_the_quarter_counts_every_week_of_it(themed):
    from pipeline.report.week.weekly import build_week

    corpus = report.load_corpus(themed)
    monday = data.monday_of("2026-W24")
    for window in (8, 40):
        built = build_week(corpus, monday, config.ReportConfig(window=window))
        weeks = corpus.papers[Papers.week_start]
        before = weeks[(weeks < monday) & (weeks >= monday - pd.Timedelta(weeks=window))]
        assert built.trailing_papers == len(before) and built.trailing_weeks == before.nunique()
        week_test = built.tests[(built.tests["horizon"] == "week") & (built.tests["level"] == "theme")]
        assert week_test.empty or (week_test["papers_before"] <= len(before)).all()


def test_a_theme_that_went_quiet_is_said_once_not_also_among_the_movers(themed):
    from pipeline.report.week.digest import opening, to_markdown
    from pipeline.report.week.weekly import build_week

    built = build_week(report.load_corpus(themed), data.monday_of("2026-W24"))
    topic = int(built.trend["topic"].iloc[0])
    row = {"unit": topic, "level": "theme", "horizon": "month", "k": 0, "papers": 0, "k0": 30, "papers_before": 30,
           "expected": 10.0, "ratio": 0.0, "estimate": 0.2, "low": 0.1, "high": 0.4, "p_value": 1e-6, "q_value": 1e-5,
           "direction": "down", "mover": True}
    built.movers = pd.DataFrame([row])
    built.quiet = built.movers.copy()
    sentences = opening(built)
    label = built.labels[topic]
    assert not any(s.startswith(("Started moving", "Still")) for s in sentences)
    assert sum(s.count(label) for s in sentences) == 1
    assert f"Went quiet: {label}: no paper over 4 weeks (10.0 expected)." in sentences
    md = to_markdown(built)
    assert "## What moved" not in md and md.count(f"{label}: no paper over 4 weeks") == 2  # the opening, the list


def test_a_theme_one_author_carries_is_shown_as_such():
    from pipeline.report.data import carried_by

    essays = [["Ana Essayist"]] * 6 + [["B. Other"], ["C. Third", "Ana Essayist"]] + [["D. Fourth"]] * 4
    papers = pd.DataFrame({"topic": [0] * 12 + [1] * 10 + [-1],
                           "authors": essays + [["E. Many", f"F{i}"] for i in range(10)] + [["Ana Essayist"]]})
    # theme 0: Ana Essayist on 7 of its 12 papers; theme 1: E. Many on all 10, and carries it too
    assert carried_by(papers) == {0: ("Ana Essayist", 7, 12), 1: ("E. Many", 10, 10)}
    spread = papers.assign(authors=[[f"Author {i}"] for i in range(len(papers))])
    assert carried_by(spread) == {} and carried_by(papers.drop(columns="authors")) == {}
    few = papers[papers["topic"] == 1].head(2)
    assert carried_by(few) == {}  # 2 papers: under VOICE_PAPERS
    under_half = papers.assign(authors=[["Ana Essayist"]] * 5 + [[f"G{i}"] for i in range(7)]
                               + [["E. Many", f"F{i}"] for i in range(10)] + [["Ana Essayist"]])
    assert 0 not in carried_by(under_half)  # 5 of 12: under half


def test_one_authors_series_this_month_is_said_in_its_own_line_not_among_the_movers(themed):
    from pipeline.report.week.digest import opening, to_markdown
    from pipeline.report.week.weekly import build_week, series_of

    corpus = report.load_corpus(themed)
    monday = data.monday_of("2026-W24")
    placed = corpus.papers[(corpus.papers["topic"] >= 0) & (corpus.papers[Papers.week_start] <= monday)]
    rows = placed.sort_values(Papers.week_start).index[-6:]  # the six newest placed papers
    papers = corpus.papers.copy()
    papers.loc[rows, Papers.authors] = pd.Series([["Ana Batch", f"co {i}"] for i in range(6)], index=rows)
    papers.loc[rows, "topic"] = int(placed["topic"].iloc[0])
    papers.loc[rows[-1], Papers.week_start] = monday  # one of them this week
    found = series_of(papers, monday, corpus.labels)
    assert [(s["author"], len(s["papers"])) for s in found] == [("Ana Batch", 6)]  # its co-authors not again
    assert found[0]["papers"][Papers.week_start].iloc[0] == monday  # newest first
    assert series_of(papers, monday + pd.Timedelta(weeks=1), corpus.labels) == []  # none of it that week
    fewer = papers.copy()
    fewer.loc[rows[:2], Papers.authors] = pd.Series([["Someone Else"], ["Another"]], index=rows[:2])
    assert series_of(fewer, monday, corpus.labels) == []  # four papers are not a series (SERIES_PAPERS)
    built = build_week(dataclasses.replace(corpus, papers=papers), monday)
    assert built.series and built.series[0]["author"] == "Ana Batch"
    assert any(s.startswith("One author's series: Ana Batch, 6 papers on ") for s in opening(built))
    assert "## One author's series" in to_markdown(built)


def test_one_voice_needs_half_of_the_papers_and_three_of_them():
    from pipeline.voice import Voice, one_voice

    ana, other = ["Ana"], lambda i: [f"Other {i}"]
    assert one_voice([ana, ana, ana, *map(other, range(3))]) == Voice("Ana", 3, 6)
    assert one_voice([ana, ana, *map(other, range(2))]) is None  # half, but 2
    assert one_voice([ana, ana, ana, *map(other, range(4))]) is None  # 3 of 7
    assert one_voice([["Ana", "Ana"], ana, ana, None]) == Voice("Ana", 3, 4)  # once a paper
    assert one_voice([]) is None


def test_papers_that_share_an_author_in_a_group_are_one_piece_of_evidence():
    from pipeline.voice import evidence

    weights = evidence([1, 1, 1, 2, 2, 2], [["a", "b"], ["a"], ["b", "c"], ["a"], None, ["d"]])
    # group 1: a and b each on two papers, so each paper weighs a half; group 2: a once, no authors, d
    assert weights.tolist() == [0.5, 0.5, 0.5, 1.0, 1.0, 1.0]
    assert evidence([(0, 1)] * 5, [["x"]] * 5).sum() == pytest.approx(1.0)  # a batch of five: one
    assert evidence([], []).tolist() == []


def test_the_survey_says_which_theme_is_mostly_one_authors():
    from pipeline.report.landscape.survey import Survey, to_markdown

    themes = pd.DataFrame({"label": ["Category mistake", "Consensus"], "description": ["", ""],
                           "size_in_period": [12, 30], "delta": [float("nan")] * 2,
                           "representative_ids": [[], []]}, index=pd.Index([0, 1], name="topic"))
    s = Survey(pd.Timestamp("2025-06-02"), pd.Timestamp("2025-12-30"), pd.DataFrame({"x": range(42)}), themes,
               {0: "Category mistake", 1: "Consensus"}, False, groups=[("Area", 42, themes)],
               carried={0: ("Ana Essayist", 7, 12)})
    md = to_markdown(s, pd.DataFrame(columns=["title", "url"]))
    assert "| Category mistake (mostly one author's: Ana Essayist, 7 of 12 papers) | 12 |" in md
    assert "| Consensus | 30 |" in md


def test_the_report_path_printed_opens_from_where_the_user_stands(tmp_path, monkeypatch):
    from pipeline import config

    cfg = config.load(tmp_path / "project")
    page = cfg.paths.reports / "weekly" / "2026-W24" / "index.html"
    monkeypatch.chdir(tmp_path)
    assert cfg.paths.openable(page) == "project/reports/weekly/2026-W24/index.html"
    assert cfg.paths.display(page) == "reports/weekly/2026-W24/index.html"  # stored paths stay root-relative
    monkeypatch.chdir(tmp_path / "..")
    assert cfg.paths.openable(page) == f"{tmp_path.name}/project/reports/weekly/2026-W24/index.html"


def test_the_surveys_fastest_growing_and_shrinking_follow_the_weekly_reports_rules():
    from pipeline.report.landscape.survey import fastest, growth_table

    rng = np.random.default_rng(0)
    mondays = list(pd.date_range("2025-06-02", periods=24, freq="7D", tz="UTC"))
    rows = []
    for i, monday in enumerate(mondays):
        for topic in range(8):
            rate = {1: 20 if i >= 8 else 6, 2: 1, 3: 2 if i < 20 else 0}.get(topic, 20)  # 1 triples; 3 stops
            n = rng.poisson(rate)
            rows += [{"topic": topic, "week_start": monday, "authors": [f"a{topic}-{i}-{j}"]} for j in range(n)]
        if i >= 16:  # theme 2 (a paper a week): one author's weekly essay in the last third, half its papers
            rows += [{"topic": 2, "week_start": monday, "authors": ["Ana Essayist", f"co {i}"]}]
        if i == 17:  # theme 4: one author's batch of sixty papers in one week
            rows += [{"topic": 4, "week_start": monday, "authors": ["Bo Batch"]} for _ in range(60)]
        if i in (16, 17):  # theme 3: a burst that ended, nothing in the last 4 weeks
            rows += [{"topic": 3, "week_start": monday, "authors": [f"b{i}-{j}"]} for j in range(40)]
        if i >= 20:  # theme 8: born in the last weeks
            rows += [{"topic": 8, "week_start": monday, "authors": [f"c{i}-{j}"]} for j in range(10)]
    period = pd.DataFrame(rows).assign(primary_category="cs.DC", paper_id=lambda f: f.index.astype(str))
    growth = growth_table(period, mondays).set_index("topic")
    assert growth.loc[1, "mover"] and growth.loc[1, "eligible"] and growth.loc[1, "estimate"] > 2
    assert growth.loc[2, "carried"] == "Ana Essayist" and not growth.loc[2, "eligible"]
    assert growth.loc[4, "estimate"] < 1.2  # sixty papers of one author in one week count once
    assert growth.loc[3, "direction"] == "up" and growth.loc[3, "ended"] and not growth.loc[3, "eligible"]
    assert pd.isna(growth.loc[8, "estimate"]) and not growth.loc[8, "eligible"]  # too young: new, not growing
    listed = fastest(growth.reset_index())
    assert listed[listed["direction"] == "up"]["topic"].iloc[0] == 1  # the fastest-growing is the real rise
    assert not set(listed["topic"]) & {2, 3, 8}
    assert 4 not in set(listed[listed["direction"] == "up"]["topic"])


def test_the_opening_leads_with_what_started_names_at_most_six_and_says_the_rest_once(themed):
    from pipeline.report.week.digest import OPENING_UNITS, Budget, opening
    from pipeline.report.week.weekly import build_week

    built = build_week(report.load_corpus(themed), data.monday_of("2026-W24"))
    topics = list(range(100, 108))
    built.labels = {**built.labels, **{t: f"Subject {t}" for t in topics}}
    built.names = {**built.names, **{("theme", t): f"Subject {t}" for t in topics}}
    row = {"level": "theme", "horizon": "month", "k": 9, "papers": 9, "k0": 3, "papers_before": 3, "expected": 1.5,
           "ratio": 6.0, "estimate": 2.5, "low": 1.4, "high": 4.1, "p_value": 1e-4, "q_value": 1e-3, "direction": "up",
           "mover": True, "carried": None, "ended": False}
    built.movers = pd.DataFrame([{**row, "unit": t} for t in topics])
    built.quiet = built.movers.iloc[:0]
    earlier = built.monday - pd.Timedelta(weeks=3)
    built.since = {("theme", t): (earlier if i >= 5 else built.monday) for i, t in enumerate(topics)}  # 3 still rising
    budget = Budget()
    sentences = opening(built, budget)
    assert len(budget.named) == OPENING_UNITS == 6
    started = next(s for s in sentences if s.startswith("Started moving"))
    assert started.count("×") == 5 and "2.5×" in started  # the five that began this week, named
    still = next(s for s in sentences if s.startswith("Still rising"))
    assert f"(since {data.week_label(earlier)})" in still and "2 more" in still  # one named, the rest counted
    assert not any(built.labels[t] in " ".join(sentences) for t in topics[6:])


def test_a_category_gone_quiet_says_its_horizon_once(themed):
    """"cs.NE: no paper over the quarter (23.4 expected)", not "… over the quarter" twice."""
    from types import SimpleNamespace

    from pipeline.report.week.weekly import PHRASES, build_week

    built = build_week(report.load_corpus(themed), data.monday_of("2026-W24"))
    horizon = next(iter(PHRASES))
    quiet = SimpleNamespace(unit="cs.NE", level="category", k=0, direction="down", expected=23.4, horizon=horizon,
                            estimate=0.0, low=0.0, high=0.5)
    rising = SimpleNamespace(unit="cs.LG", level="category", k=40, direction="up", expected=20.0, horizon=horizon,
                             estimate=1.6, low=1.3, high=2.0)
    assert built.mix_text(quiet) == f"cs.NE: no paper {PHRASES[horizon]} (23.4 expected)"
    assert built.mix_text(rising) == f"cs.LG 1.6× (1.3–2.0) its usual share {PHRASES[horizon]}"
