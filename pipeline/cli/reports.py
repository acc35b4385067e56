"""The commands that read the themes: ``evaluate`` and ``report weekly|survey``."""

from __future__ import annotations

import click

from pipeline.cli.common import Obj, guard, log, with_options


@click.command()
@click.option("--no-stability", is_flag=True, help="Skip the two refits that measure stability across seeds.")
@click.pass_obj
def evaluate(obj: Obj, no_stability: bool) -> None:
    """Score the current themes; prints and writes reports/evaluation/metrics.json.

    Reports the number of themes and areas, the unassigned share, the largest theme's share, NPMI of
    each theme's top-10 keywords (document co-occurrence), topic diversity (top-25 keywords), NMI and
    ARI against the arXiv primary category with NMI's two parts (homogeneity: how much of the
    category a paper's theme tells; completeness: how much of the theme its category tells), the
    label measures (label accuracy: share of labels that,
    embedded with the papers' model, lie nearest their own theme; median and lowest label support:
    share of a theme's papers containing every content word of its label; duplicate labels), each
    label used as a reader uses it, as a search query (lexical F1 of the papers holding its words;
    R-precision of the papers nearest its embedding), with what the best title phrase picked with
    hindsight and the theme's own centroid reach, and stability: the ARI between fits with two
    different seeds. Then each theme's label with its two figures, largest theme first, and each
    area's: named by a phrase its themes share (the share of its papers in themes that write it,
    and how many such themes) or by the list of its largest themes.

    \b
    Example:
      paper-trends evaluate
    """
    def go() -> None:
        from pipeline.topics.quality.evaluate import evaluate as score

        result = score(obj.config(), stability=not no_stability)
        themes, areas = result.pop("themes", []), result.pop("areas", [])
        width = max(len(k) for k in result)
        for key, value in result.items():
            click.echo(f"{key:<{width}}  {value}")
        if themes:  # each label as a search query: its hits' F1, its embedding's R-precision
            click.echo("\nlabel (papers)  lexical F1  R-precision  best title phrase (F1)")
            for row in themes:
                click.echo(f"{row['label']} ({row['papers']})  {row['lexical_f1']:.2f}  {row['r_precision']:.2f}  "
                           f"{row['hindsight_phrase']} ({row['hindsight_f1']:.2f})")
        if areas:  # named for what the area's themes share, or by the list of its largest themes
            click.echo("\narea (papers, themes)  named by")
            for row in areas:
                how = ("the list of its largest themes" if row["named_by"] == "themes" else
                       f"a phrase {row['themes_writing']} of its themes write, {row['shared']:.0%} of its papers")
                click.echo(f"{row['label']} ({row['papers']}, {row['themes']})  {how}")

    guard(obj, go)


@click.group()
def report() -> None:
    """Write the weekly trend report or the landscape survey (HTML, Markdown, PNG and SVG figures)."""


def _report_options(folder: str) -> list:
    """The options every report takes; ``folder``: where its area-level version goes."""
    return [
        click.option("--primary-only", is_flag=True,
                     help="Count papers by primary category only (default: every category listed)."),
        click.option("--level", type=click.Choice(["theme", "area"]), default="theme", show_default=True,
                     help="theme: themes, grouped under their areas in the table; area: areas in place of "
                          f"themes (fewer, broader rows and chart lines), written to {folder}-areas/."),
        click.option("--force", is_flag=True, help="Write it again even if the tables, config and code are unchanged."),
    ]


@report.command("weekly")
@click.option("--week", default=None, metavar="YYYY-Www",
              help="ISO week, e.g. 2026-W23 [default: the latest week that has ended and has papers].")
@with_options(_report_options("<week>"))
@click.pass_obj
def report_weekly(obj: Obj, week: str | None, primary_only: bool, level: str, force: bool) -> None:
    """What was published in one ISO week: what moved, what is new, the watched themes, what to read.

    Writes reports/weekly/<YYYY-Www>/index.html (self-contained), report.md and figures/, and
    refreshes reports/weekly/feed.xml (Atom, one entry per weekly report) and the archive page
    reports/weekly/index.html. Each theme, area and watched theme ([report.watch] in the config) is
    tested at every horizon of the report against what the mix of primary arXiv categories predicts, one
    author's papers of a week counted once; a mover must change by [report] min_change or more, with
    the false discovery rate held at [report] alpha within each family. One author's series is said
    apart, never as a mover (docs/design/weekly-report.md).

    \b
    Examples:
      paper-trends report weekly
      paper-trends report weekly --week 2025-W40 --primary-only
      paper-trends report weekly --level area
    """
    def go() -> None:
        from pipeline.report import write_weekly

        log.info(write_weekly(obj.config(), week, primary_only=primary_only, level=level, force=force).summary())

    guard(obj, go)


@report.command("survey")
@click.option("--since", default=None, metavar="YYYY-MM-DD", help="First day [default: the first paper's].")
@click.option("--until", default=None, metavar="YYYY-MM-DD", help="Last day [default: the last paper's].")
@with_options(_report_options("<since>_<until>"))
@click.pass_obj
def report_survey(obj: Obj, since: str | None, until: str | None, primary_only: bool, level: str, force: bool) -> None:
    """The research landscape over a period: a map of the themes, sizes, relations, weekly movement.

    Writes reports/survey/<since>_<until>/index.html, report.md, figures/ and map.html (the
    interactive map: hover, search, zoom, switch areas and themes; works offline).

    \b
    Examples:
      paper-trends report survey
      paper-trends report survey --since 2025-04-01 --until 2025-09-30
      paper-trends report survey --level area
    """
    def go() -> None:
        from pipeline.report import write_survey

        log.info(write_survey(obj.config(), since, until, primary_only=primary_only, level=level, force=force).summary())

    guard(obj, go)
