"""The report stage's wiring: which week or period, skip when the same report of the same tables
is written (``stage.Step``), build, render and write the folder whole or not at all."""

from __future__ import annotations

import datetime as dt
import json
import logging
import time
from pathlib import Path

import numpy as np
import pandas as pd

from pipeline.config import Config, as_dict
from pipeline.io import FigureDrawing, TableError, atomic_folder, read_table, table_columns, write_text
from pipeline.report import data, plots
from pipeline.report.week import feed
from pipeline.report.load import load_corpus, load_embeddings, require_tables
from pipeline.report.render import render, save_figures
from pipeline.schemas import Papers
from pipeline.stage import StageResult, Step, code_version, fingerprint

log = logging.getLogger("pipeline.report")  # the stage's one logger


def _step(cfg: Config, name: str, record: str, folder: Path, files: list[str], options: dict) -> Step:
    """A report's run in the stage skeleton: current while the theme tables, the fitted state, the
    report's code and templates, ``[report]`` and the report's own ``options`` are unchanged."""
    paths = cfg.paths
    inputs = [paths.papers, paths.doc_topics, paths.topic_info, paths.topic_lineage, paths.topic_tree,
              paths.topic_model / "state.json"]
    code = code_version("pipeline.report", "pipeline.topics", "pipeline.schemas", "pipeline.dates")
    config = {**as_dict(cfg.report), **options}  # the templates are in code_version: every file of the package
    fp = fingerprint(code, config, [p for p in inputs if p.exists()])
    return Step(name, fp, [folder / f for f in files], paths.run_record(record))


class ReportError(ValueError):
    """A report asked for something the listings cannot give (a week outside them, a day that is
    none): one line naming the option."""


def _day(option: str, value: str) -> pd.Timestamp:
    try:
        return pd.Timestamp(dt.date.fromisoformat(str(value)), tz="UTC")
    except (ValueError, OverflowError, pd.errors.OutOfBoundsDatetime):
        raise ReportError(f"{option} {value}: not a day (YYYY-MM-DD, e.g. 2025-06-30)") from None


def _week_in_listings(week: str, papers: pd.DataFrame) -> pd.Timestamp:
    """Monday of ``week``, which must lie within the weeks the listings cover (an empty week inside
    them gets a report that says so); ReportError in one line otherwise."""
    weeks = papers[Papers.week].dropna()
    span = f"{weeks.min()} to {weeks.max()}" if not weeks.empty else "none: the store holds no papers"
    try:
        monday = data.monday_of(week)
        monday + pd.Timedelta(days=7)  # the report shows the week's Sunday too
    except (ValueError, OverflowError, pd.errors.OutOfBoundsDatetime) as exc:
        raise ReportError(f"--week {week}: {exc if 'ISO week' in str(exc) else 'not a week a report can show'}; "
                         f"the listings cover {span}") from exc
    if weeks.empty or not (weeks.min() <= data.week_label(monday) <= weeks.max()):
        raise ReportError(f"--week {week} lies outside the listings, which cover {span}")
    return monday


def write_weekly(cfg: Config, week: str | None = None, *, primary_only: bool = False, now: pd.Timestamp | None = None,
                 level: str = "theme", force: bool = False) -> StageResult:
    """Write the weekly report for ``week`` (default: the latest ISO week that has ended and has papers),
    by theme (grouped under areas) or, with ``level="area"``, by area into ``<week>-areas/``; skipped
    when the same report of the same tables is already written, unless ``force``."""
    from pipeline.report.week.digest import opening, to_markdown
    from pipeline.report.week.weekly import COLUMNS, MOST_MOVERS, PHRASES, READ, build_week
    from pipeline.voice import SERIES_PAPERS

    start = time.perf_counter()
    require_tables(cfg.paths)
    # which week, from the papers' weeks alone: a skipped report reads nothing more
    weeks = read_table(cfg.paths.papers, Papers, columns=[Papers.week, Papers.week_start])
    now = now or pd.Timestamp.now(tz="UTC")
    if week is None:
        monday = data.latest_complete_week(weeks, now)
        if monday is None:
            monday = (now.normalize() - pd.Timedelta(days=now.weekday() + 7))
    else:
        monday = _week_in_listings(week, weeks)
    label = data.week_label(monday) + ("-areas" if level == "area" else "")
    final = cfg.paths.weekly_reports / label
    name = f"report weekly {data.week_label(monday)}" + (" (areas)" if level == "area" else "")
    step = _step(cfg, name, f"report-weekly-{label}", final, ["index.html", "report.md"],
                 {"week": label, "level": level, "primary_only": primary_only})
    if (skipped := step.skipped(force)) is not None:
        return skipped
    watch = dict(cfg.report.watch)
    # figures are drawn beside the rest of the work (by processes forked before the tables are read);
    # a failure leaves the previous report, never half of one
    with FigureDrawing() as drawing, atomic_folder(final) as folder:
        corpus = load_corpus(cfg, COLUMNS + (_watched_columns(cfg) if watch else []))
        report = build_week(corpus, monday, cfg.report, primary_only=primary_only, level=level,
                            watched=watched_matches(cfg, corpus) if watch else None, start_drawing=drawing.start)
        figures = save_figures(report.figures, folder / "figures", drawing)
        papers = report.papers.sort_values(Papers.title)
        links = papers[[Papers.title, Papers.url]].rename(columns={Papers.title: "title", Papers.url: "url"}).fillna("")
        by_theme = {int(t): rows for t, rows in links.groupby(papers["topic"], sort=False)}
        html = render(
            "weekly.html.j2", r=report, figures=figures, color=plots.theme_color,
            opening=opening(report), phrases=PHRASES, read=READ, most_movers=MOST_MOVERS, week_label=data.week_label,
            series_papers=SERIES_PAPERS,
            papers_of=lambda t: by_theme.get(int(t), links.iloc[:0]),
            unassigned=papers[papers["topic"] == -1],
            generated=dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        )
        write_text(folder / "index.html", html)
        write_text(folder / "report.md", to_markdown(report))
        write_text(folder / feed.SUMMARY, json.dumps(feed.summary(
            data.week_label(monday),
            opening(report) if not report.empty else [f"No papers were published in {report.week}."],
            [f"{report.move_text(r)} {PHRASES[r.horizon]}" for r in report.active_movers.itertuples()]
            + [report.move_text(r) for r in report.quiet.itertuples()],  # a silence says its horizon itself
            [f"{w['name']}: {w['count']} paper{'s' if w['count'] != 1 else ''} this week" for w in report.watched],
            level)))
    # the feed lists every weekly report written so far (written after the report's folder is in place)
    write_text(cfg.paths.weekly_reports / "feed.xml", feed.feed(cfg.paths.weekly_reports, cfg.report.publish_url))
    write_text(cfg.paths.weekly_reports / "index.html", feed.archive(cfg.paths.weekly_reports))
    folder = final
    if report.empty:
        log.warning("report: no papers in %s; the report says so", report.week)
    counts = {"papers this week": len(report.papers), "moved": len(report.movers),
              "new": len(report.by_status("new"))}
    if report.watched:
        counts["on watched themes"] = sum(w["count"] for w in report.watched)
    log.info("report: %s", cfg.paths.openable(folder / "index.html"))
    return step.done(counts, time.perf_counter() - start)


def _watched_columns(cfg: Config) -> list[str]:
    """The paper columns watched themes need: the text's hash (the abstracts then read only when
    some paper is not kept), or the abstracts where the papers table predates the hash."""
    return [Papers.text_hash] if Papers.text_hash in table_columns(cfg.paths.papers) else [Papers.abstract]


def watched_matches(cfg: Config, corpus: data.Corpus, embeddings=None):  # noqa: ANN001, ANN201 - watched.Matches
    """``watched.match`` of every paper of ``corpus`` against the configured watched themes
    (``embeddings``: the papers' vectors, when already loaded); each paper's text is read and its
    cosines computed once and kept in ``data/interim/watched/``, known by its ``text_hash``: a report
    reads the abstracts only when some paper is not kept (the column then, once), and matches and
    loads the vectors of those papers only; a papers table cleaned before ``text_hash`` existed is
    hashed here."""
    from pipeline.report.watched import PaperTexts, TextCache, Thresholds, match
    from pipeline.schemas import paper_text, text_hash
    from pipeline.topics import fitted

    watch = dict(cfg.report.watch)
    papers = corpus.papers
    read: list[pd.Series] = []  # the abstracts, in the rows of papers: read when first asked for

    def abstracts() -> pd.Series:
        if Papers.abstract in papers:
            return papers[Papers.abstract]
        if not read:
            table = read_table(cfg.paths.papers, Papers, columns=[Papers.paper_id, Papers.abstract])
            read.append(table.set_index(Papers.paper_id)[Papers.abstract].reindex(papers[Papers.paper_id]))
        return read[0]

    def with_text(rows: np.ndarray) -> tuple[pd.DataFrame, list[str]]:
        """The rows with their abstracts, and their texts (``paper_text``), checked against their hashes."""
        some = papers.iloc[rows].assign(**{Papers.abstract: abstracts().iloc[rows].to_numpy()})
        whole = not some[Papers.abstract].isna().any()
        texts = list(map(paper_text, some[Papers.title].tolist(), some[Papers.abstract].tolist())) if whole else []
        if not whole or (Papers.text_hash in some and not np.array_equal(
                text_hash(texts), some[Papers.text_hash].to_numpy(dtype=np.uint64))):
            raise TableError(f"{cfg.paths.display(cfg.paths.papers)}: changed while the report read it "
                             "(a paper's abstract is not the one its text_hash names); run the report again")
        return some, texts

    def texts_of(rows: np.ndarray) -> pd.Series:
        some, texts = with_text(rows)
        return pd.Series(texts, index=some.index, dtype=object)

    if Papers.text_hash in papers:
        keys = papers[Papers.text_hash].to_numpy(dtype=np.uint64)
    else:  # a papers table cleaned before the hash existed: its texts hashed here, as the clean stage would
        keys = text_hash(with_text(np.arange(len(papers)))[1])
    # vectors only for the papers the cache has not compared yet (a week's new papers)
    vectors = embeddings if embeddings is not None else (lambda rows: fitted.load(cfg, with_text(rows)[0]).embeddings)
    return match(PaperTexts(papers.index, keys, texts_of), vectors, watch,
                 lambda: fitted.embed_texts(cfg, list(watch.values())), limits=Thresholds.of(cfg.report),
                 cache=TextCache(cfg.paths.watched, fitted.identity(cfg)), also=cfg.report.also())


def write_survey(cfg: Config, since: str | None = None, until: str | None = None, *, primary_only: bool = False,
                 level: str = "theme", force: bool = False) -> StageResult:
    """Write the landscape survey over [since, until] (default: every paper), by theme (grouped under
    areas) or, with ``level="area"``, by area into ``<since>_<until>-areas/``; skipped when the same
    survey of the same tables is already written, unless ``force``."""
    from pipeline.report.landscape.explore import map_html
    from pipeline.report.statistics.movement import phrases, spans_text
    from pipeline.report.landscape.survey import build_survey, map_page, to_markdown

    start = time.perf_counter()
    corpus = load_corpus(cfg)
    papers = corpus.papers
    if papers.empty:
        raise TableError("no papers: nothing to survey")
    # whole days: the period is named and fingerprinted by its days
    first = (_day("--since", since) if since else papers[Papers.published].min()).normalize()
    last = (_day("--until", until) if until else papers[Papers.published].max()).normalize()
    if since and until and first > last:
        raise ReportError(f"--since {since} is after --until {until}: no day lies between them")
    label = f"{first:%Y-%m-%d}_{last:%Y-%m-%d}" + ("-areas" if level == "area" else "")
    final = cfg.paths.surveys / label
    step = _step(cfg, f"report survey {first:%Y-%m-%d}_{last:%Y-%m-%d}", f"report-survey-{label}", final,
                 ["index.html", "report.md", "map.html"], {"period": label, "level": level, "primary_only": primary_only})
    if (skipped := step.skipped(force)) is not None:
        return skipped
    embeddings, centroids = load_embeddings(cfg, corpus)
    result = build_survey(corpus, embeddings, centroids, first, last, primary_only=primary_only, level=level,
                          watched=watched_matches(cfg, corpus, embeddings) if cfg.report.watch else None, cfg=cfg.report)
    with atomic_folder(final) as folder:
        figures = save_figures(result.figures, folder / "figures")
        titles = papers.set_index(Papers.paper_id)[[Papers.title, Papers.url]].fillna("")
        html = render("survey.html.j2", s=result, figures=figures, color=plots.theme_color, titles=titles, np=np,
                      phrases=phrases(cfg.report), spans=spans_text(cfg.report),
                      generated=dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"))
        write_text(folder / "index.html", html)
        write_text(folder / "report.md", to_markdown(result, titles))
        write_text(folder / "map.html", map_html(map_page(result)))
    folder = final
    log.info("report: %s", cfg.paths.openable(folder / "index.html"))
    return step.done({"papers": len(result.papers), "themes": int((result.themes["size_in_period"] > 0).sum())},
                     time.perf_counter() - start)


def run(cfg: Config, *, force: bool = False) -> StageResult:
    """The report step of ``paper-trends run``: the weekly report of the latest complete week."""
    return write_weekly(cfg, force=force)
