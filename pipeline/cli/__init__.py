"""``paper-trends`` command line: one command per stage, and ``run`` for all of them in order.

A thin shell over the stage modules: it builds the config, calls the stage's ``run``, prints the
summary line, and turns every failure into one line on stderr and a non-zero exit
(``common.guard``). Each command imports the stage it runs inside its body (and with it pandas and
pyarrow), so ``--help`` is instant. ``reports.py`` holds ``evaluate`` and ``report``.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import click

from pipeline import __version__
from pipeline.cli import reports
from pipeline.cli.common import Obj, guard, log, run_stage, with_options
from pipeline.config import FORMAT_NAMES, Config


def _default_root() -> Path:
    """The project root: the folder holding this package's pyproject.toml, else the working folder."""
    here = Path(__file__).resolve().parent.parent
    return here if (here / "pyproject.toml").exists() else Path.cwd()


def _configure_logging(verbose: bool) -> None:
    """One stderr handler on the package logger (records still propagate, e.g. to pytest's caplog)."""
    logger = logging.getLogger("pipeline")
    logger.setLevel(logging.DEBUG if verbose else logging.INFO)
    for handler in [h for h in logger.handlers if getattr(h, "_paper_trends", False)]:
        logger.removeHandler(handler)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s" if verbose else "%(message)s"))
    handler._paper_trends = True  # type: ignore[attr-defined]
    logger.addHandler(handler)


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="paper-trends")
@click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder holding data/ and reports/ [default: the project root].")
@click.option("--config", "config_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="TOML file with [ingest], [clean] ... sections overriding pyproject.toml's [tool.pipeline].")
@click.option("-q", "--quiet", is_flag=True, help="No progress: no bars on a terminal, no lines every 10 s in a log.")
@click.option("-v", "--verbose", is_flag=True, help="Debug logging and full tracebacks.")
@click.pass_context
def cli(ctx: click.Context, root: Path | None, config_file: Path | None, quiet: bool, verbose: bool) -> None:
    """paper-trends: topic trends over research-paper listings.

    \b
    Stages, in order:
      fetch    new arXiv listings of categories -> data/raw/arxiv-api/ (and arxiv-feed/)
      ingest   listings (arXiv API, listing pages, digests, daily JSONL, Kaggle, CSV)
               -> data/interim/listings.parquet
      clean    -> data/processed/papers.parquet (+ duplicates.parquet, quarantine.parquet)
      topics   -> data/processed/doc_topics.parquet, topic_info.parquet, topic_tree.parquet,
               topic_lineage.parquet
      report   -> reports/weekly/<YYYY-Www>/ and reports/survey/<since>_<until>/
      run      every stage in order (the report step writes the latest weekly report);
               with --fetch CAT it fetches first
      evaluate scores the current themes

    \b
    Example:
      paper-trends run                       # the sample listings in data/raw/
      paper-trends run --fetch cs.DC         # this week's cs.DC papers, then every stage
      paper-trends --root /tmp/x ingest ~/feeds --category cs.DC
    """
    from pipeline.progress import set_progress

    _configure_logging(verbose)
    set_progress(not quiet)
    ctx.obj = Obj((root or _default_root()).resolve(), config_file, verbose)


def _check_categories(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> tuple[str, ...]:
    if not values:
        return values
    from pipeline import arxiv

    for value in values:
        if not arxiv.CATEGORY.fullmatch(value):
            raise click.BadParameter(f"{value!r} is not an arXiv category (e.g. cs.DC, hep-th, math.QA)")
    return values


def _check_address(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A Dask scheduler's address: PROTOCOL://HOST:PORT or HOST:PORT ("" runs here)."""
    from pipeline.config import SCHEDULER

    if value and not SCHEDULER.fullmatch(value):
        raise click.BadParameter(f"{value!r} is not a scheduler address like tcp://scheduler:8786")
    return value


def _columns(ctx: click.Context, param: click.Parameter, value: str | None) -> dict[str, str] | None:
    """``--columns title=Title,abstract=Abstract`` as a mapping; a malformed pair or an unknown field is
    refused against the option."""
    if not value:
        return None
    from pipeline.ingest.tabular import MAPPABLE

    mapping = {}
    for part in value.split(","):
        ours, sep, theirs = part.partition("=")
        if not sep or not ours.strip() or not theirs.strip():
            raise click.BadParameter(f"expected FIELD=COLUMN pairs separated by commas, got {part!r}")
        if ours.strip() not in MAPPABLE:
            raise click.BadParameter(f"{ours.strip()!r} is no field; fields are {', '.join(MAPPABLE)}")
        mapping[ours.strip()] = theirs.strip()
    return mapping


def _ingest_overrides(paths, fmt, columns, category, since, until, strict) -> dict:  # noqa: ANN001
    return {
        "inputs": [str(p) for p in paths] or None,
        "format": fmt,
        "columns": columns,
        "categories": list(category) or None,
        "since": since.date() if since else None,
        "until": until.date() if until else None,
        "strict": strict or None,
    }


_ingest_options = [
    click.option("--format", "fmt", type=click.Choice(FORMAT_NAMES), default=None,
                 help="Read every file as this format instead of detecting it."),
    click.option("--columns", default=None, metavar="FIELD=COLUMN,...", callback=_columns,
                 help="CSV/parquet: which column holds each field, e.g. title=Title,abstract=Abstract."),
    click.option("--category", multiple=True, metavar="CAT", callback=_check_categories,
                 help="Keep only records listed in CAT (repeatable), e.g. cs.DC."),
    click.option("--since", type=click.DateTime(["%Y-%m-%d"]), default=None, help="Keep records dated on or after."),
    click.option("--until", type=click.DateTime(["%Y-%m-%d"]), default=None, help="Keep records dated on or before."),
    click.option("--strict", is_flag=True, help="Fail on the first unreadable file instead of quarantining it."),
]


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@with_options(_ingest_options)
@click.option("--force", is_flag=True, help="Re-run even if inputs, config and code are unchanged.")
@click.pass_obj
def ingest(obj: Obj, paths, fmt, columns, category, since, until, strict, force) -> None:  # noqa: ANN001
    """Read listing files and folders [default: data/raw/] into data/interim/listings.parquet.

    Each file's format is detected (or given with --format): arXiv API Atom XML, an API response
    saved as text, paper-digest and category listing pages, daily listing JSONL (.gz too), the
    Kaggle arXiv snapshot, CSV or parquet. Files that cannot be read are named in a warning and
    quarantined (or, with --strict, stop the run).

    \b
    Examples:
      paper-trends ingest
      paper-trends ingest ../shared/data/arxiv-daily
      paper-trends ingest arxiv-metadata-oai-snapshot.json --category cs.DC --since 2025-01-01
      paper-trends ingest papers.csv --columns title=Title,abstract=Abstract,published=Date
    """
    def go() -> None:
        from pipeline.ingest import run as ingest_run

        cfg = obj.config(ingest=_ingest_overrides(paths, fmt, columns, category, since, until, strict))
        run_stage(ingest_run, cfg, force)

    guard(obj, go)


def _fetch(obj: Obj, cfg: Config, categories, since, until, feed: bool) -> None:  # noqa: ANN001
    from pipeline.fetch import run as fetch_run

    log.info(fetch_run(cfg, categories=list(categories), since=since.date() if since else None,
                       until=until.date() if until else None, feed=feed).summary())


@cli.command()
@click.option("--category", "categories", multiple=True, required=True, metavar="CAT", callback=_check_categories,
              help="arXiv category to fetch (repeatable), e.g. cs.DC.")
@click.option("--since", type=click.DateTime(["%Y-%m-%d"]), default=None,
              help="First submission day (UTC) [default: 2 days before the newest paper held in the "
                   "category, or the last 8 ISO weeks on an empty store].")
@click.option("--until", type=click.DateTime(["%Y-%m-%d"]), default=None,
              help="Last submission day (UTC) [default: now].")
@click.option("--feed", is_flag=True,
              help="Also store the category's daily Atom feed (rss.arxiv.org): the latest day's "
                   "announcements, before the API lists them.")
@click.pass_obj
def fetch(obj: Obj, categories, since, until, feed) -> None:  # noqa: ANN001
    """Download new arXiv listings into data/raw/ (the ingest stage then reads them).

    Asks the arXiv API (export.arxiv.org/api/query) for every paper of each category submitted in
    the window and stores each response page unchanged under data/raw/arxiv-api/<category>/, named
    after the query and the page. At most one request every 3 s on one connection; pages of 2,000;
    windows with more than 30,000 results are split; failures are retried with backoff. An
    interrupted fetch resumes at its next page on the next run. Settings: [fetch] in the config.

    \b
    Examples:
      paper-trends fetch --category cs.DC
      paper-trends fetch --category cs.DC --category cs.NI --since 2026-06-01 --until 2026-06-30
      paper-trends fetch --category cs.DC --feed
    """
    guard(obj, lambda: _fetch(obj, obj.config(), categories, since, until, feed))


@cli.command()
@click.option("--force", is_flag=True, help="Re-run even if inputs, config and code are unchanged.")
@click.pass_obj
def clean(obj: Obj, force: bool) -> None:
    """Clean and deduplicate listings into data/processed/papers.parquet.

    Repairs mojibake, LaTeX and HTML entities, merges the same paper from several files, formats and
    versions, and puts records without title, abstract or date in quarantine.parquet with a reason.
    Prints the accounting: raw records = papers + duplicates + quarantined.

    \b
    Example:
      paper-trends clean
    """
    def go() -> None:
        from pipeline.clean import run as clean_run

        run_stage(clean_run, obj.config(), force)

    guard(obj, go)


@cli.command()
@click.option("--refit", is_flag=True, help="Cluster everything again; themes that persist keep their ids and labels.")
@click.option("--seed", type=int, default=None, help="Random seed of UMAP [default: config, 42].")
@click.option("--force", is_flag=True, help="Re-run even if papers, config and code are unchanged.")
@click.option("--cluster", metavar="ADDRESS", default=None, callback=_check_address,
              help="Embed and place papers on the workers of this Dask scheduler (tcp://host:8786) [default: config].")
@click.pass_obj
def topics(obj: Obj, refit: bool, seed: int | None, force: bool, cluster: str | None) -> None:
    """Cluster papers into themes with BERTopic, group them into areas, and name both
    (data/processed/doc_topics.parquet, topic_info.parquet, topic_tree.parquet).

    The first run fits themes on every paper: a theme above 5 % of them (and 50 papers) is cut again
    (Leiden, the default: on its own subgraph; HDBSCAN: along its cluster tree), and each is named by
    a phrase many of its papers contain that, embedded, lies nearest its own theme; themes are grouped
    into areas. Later runs keep every placed paper's theme and embed only new papers: a new paper
    joins the theme that explains it (as close to it as that theme's own papers are); the others wait
    in a pool of recent weeks, where a dense group far from every theme, among recent papers rather
    than the fit's, is born as a new theme (next free id, lineage row "new" or "split"). --refit,
    and the automatic refit every 13 weeks (refit_every_weeks) or when the embedding model changed,
    cluster everything again and match
    the new themes to the old ones: every theme that holds papers keeps its id and label, and a placed
    paper moves only into a theme that is new or split off its own, where the papers that go there
    lie apart from the rest of their theme (a mere re-cut moves nobody; refit_keeps_placed = false lets
    every paper move and themes merge); topic_lineage.parquet records what stayed, split, merged, was
    born or retired. The embedding model (all-MiniLM-L6-v2) is loaded from the installed
    package, never from the network.

    \b
    Examples:
      paper-trends topics
      paper-trends topics --refit
      paper-trends topics --cluster tcp://scheduler:8786
    """
    settings = {"seed": seed, "cluster": cluster}
    overrides = {"topics": {k: v for k, v in settings.items() if v is not None}}

    def go() -> None:
        from pipeline.topics import run as topics_run

        run_stage(topics_run, obj.config(**overrides), force, refit=refit)

    guard(obj, go)


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@with_options(_ingest_options)
@click.option("--fetch", "fetch_categories", multiple=True, metavar="CAT", callback=_check_categories,
              help="First fetch new arXiv papers of CAT (repeatable) into data/raw/, as `fetch --category CAT`.")
@click.option("--feed", is_flag=True, help="With --fetch: also store each category's daily feed.")
@click.option("--force", is_flag=True, help="Re-run every stage.")
@click.option("--cluster", metavar="ADDRESS", default=None, callback=_check_address,
              help="Embed and place papers on the workers of this Dask scheduler [default: config].")
@click.pass_obj
def run(obj: Obj, paths, fmt, columns, category, since, until, strict, fetch_categories, feed, force, cluster) -> None:  # noqa: ANN001
    """Run every stage in order: ingest, clean, topics, then the weekly report of the latest complete
    ISO week. Stages whose inputs did not change are skipped. With --fetch, new arXiv papers of the
    categories named are fetched first (the weekly cron job).

    \b
    Examples:
      paper-trends run
      paper-trends run --fetch cs.DC --fetch cs.NI
      paper-trends --root /tmp/survey run ../shared/data/arxiv-daily
    """
    if fetch_categories and paths:
        raise click.UsageError("--fetch stores papers in data/raw/, which run reads only when no PATH is given")
    if feed and not fetch_categories:
        raise click.UsageError("--feed goes with --fetch CAT")

    def go() -> None:
        from pipeline.clean import run as clean_run
        from pipeline.ingest import run as ingest_run
        from pipeline.report import run as report_run
        from pipeline.topics import run as topics_run

        cfg = obj.config(ingest=_ingest_overrides(paths, fmt, columns, category, since, until, strict),
                         topics={"cluster": cluster} if cluster is not None else {})
        if fetch_categories:
            _fetch(obj, cfg, fetch_categories, None, None, feed)
        for stage_run in (ingest_run, clean_run, topics_run, report_run):
            run_stage(stage_run, cfg, force)

    guard(obj, go)


def main() -> None:
    import atexit
    import gc

    # the interpreter's last collection would walk every object the command made (a 40k store's
    # tables: 0.3 s, measured); they go with the process, so at exit they are frozen first (at exit
    # only: a notebook or script that calls main() and goes on is not frozen)
    atexit.register(gc.freeze)
    cli(prog_name="paper-trends")


cli.add_command(reports.evaluate)
cli.add_command(reports.report)
