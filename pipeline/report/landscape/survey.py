"""The research landscape survey over a period: a map of the themes, their sizes, how they relate,
how they moved week by week and by arXiv category.

The map gives each area a region: areas are placed by multidimensional scaling of their centroids'
cosine distances and packed so that none overlaps another, each area's themes are placed the same
way inside it, and each paper sits around its theme by the two main directions of that theme's own
embeddings, within a disc sized by the theme's papers. Every paper is drawn, themes close in meaning
are close on the map, and the layout costs seconds for 40,000 papers (a 2-D UMAP of the whole corpus
would cost minutes and would not keep an area in one region).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from pipeline.report import plots
from pipeline.report.landscape import mapplot
from pipeline.dates import week_label
from pipeline.report.data import (
    Corpus,
    areas_of,
    at_level,
    carried_by,
    theme_by_category,
    weekly_topic_counts,
)
from pipeline.report.render import md_escape as esc
from pipeline.report.render import md_paper_links
from pipeline.config import ReportConfig
from pipeline.report.watched import Matches
from pipeline.schemas import Papers, TopicInfo


def _mds(vectors: np.ndarray, seed: int) -> np.ndarray:
    """2-D places of unit ``vectors`` by metric MDS of their cosine distances."""
    from sklearn.manifold import MDS

    if len(vectors) == 1:
        return np.zeros((1, 2))
    distance = np.clip(1 - vectors @ vectors.T, 0, 2)
    np.fill_diagonal(distance, 0)
    if len(vectors) == 2:
        return np.array([[-0.5, 0.0], [0.5, 0.0]]) * max(float(distance[0, 1]), 1e-3)
    return MDS(n_components=2, metric="precomputed", init="random", random_state=seed, n_init=1,
               normalized_stress="auto").fit_transform(distance)


def pack(places: np.ndarray, radii: np.ndarray, iterations: int = 400) -> np.ndarray:
    """Discs at ``places`` moved until none overlaps another (10 % gap) and drawn together so that
    no space is wasted between them, each keeping its side of the others: the layout keeps its shape."""
    out = places.astype(float).copy()
    if len(out) < 2:
        return out - out.mean(axis=0)
    spread = np.median(np.linalg.norm(out[:, None] - out[None], axis=2)[np.triu_indices(len(out), 1)])
    out *= 2 * radii.mean() / max(spread, 1e-9)  # neighbours about two radii apart to start with
    turn = np.arange(len(out))  # discs that start on one spot get apart in different directions
    out += 1e-3 * radii.mean() * np.c_[np.cos(turn), np.sin(turn)]
    need = 1.1 * (radii[:, None] + radii[None])
    for step in range(iterations):
        if step < iterations * 3 // 4:  # gravity, then only separation to settle
            out -= 0.03 * (out - np.average(out, axis=0, weights=radii ** 2))
        delta = out[:, None] - out[None]
        dist = np.linalg.norm(delta, axis=2)
        np.fill_diagonal(dist, np.inf)
        overlap = np.clip(need - dist, 0, None)
        np.fill_diagonal(overlap, 0)
        if step >= iterations * 3 // 4 and overlap.max() < 1e-6 * radii.max():
            break
        out += (delta / np.maximum(dist, 1e-9)[..., None] * overlap[..., None]).sum(axis=1) / 2
    return out - out.mean(axis=0)


def landmark_layout(embeddings: np.ndarray, topics: np.ndarray, centroids: dict[int, np.ndarray],
                    seed: int = 0, areas: dict[int, int] | None = None) -> np.ndarray:
    """2-D positions: each area a disc (areas placed by MDS of their centroids, then packed so no two
    overlap), its themes packed inside it by MDS of their centroids, each paper around its theme by
    the two main directions of the theme's own embeddings. An area is one region of the map; discs
    are sized by papers. Without ``areas`` (theme -> area) every theme is its own area."""
    ids = sorted(t for t in centroids if (topics == t).any())
    xy = np.zeros((len(topics), 2))
    if not ids:
        return xy
    areas = areas or {}
    group = {t: areas.get(t, -1 - t) for t in ids}  # a theme without an area is an area of its own
    sizes = {t: float((topics == t).sum()) for t in ids}
    radius = {t: np.sqrt(sizes[t]) for t in ids}  # area in proportion to papers
    theme_place: dict[int, np.ndarray] = {}
    members = {g: [t for t in ids if group[t] == g] for g in dict.fromkeys(group[t] for t in ids)}
    inner: dict[int, np.ndarray] = {}
    outer = {}
    for g, themes in members.items():
        local = pack(_mds(np.stack([centroids[t] for t in themes]), seed), np.array([radius[t] for t in themes]))
        inner[g] = local
        outer[g] = max(float(np.max(np.linalg.norm(local, axis=1) + np.array([radius[t] for t in themes]))), 1e-9)
    groups = list(members)
    area_vectors = np.stack([sum(centroids[t] * sizes[t] for t in members[g]) for g in groups])
    area_vectors /= np.linalg.norm(area_vectors, axis=1, keepdims=True).clip(1e-12)
    area_place = pack(_mds(area_vectors, seed), np.array([outer[g] for g in groups]) * 1.08)
    for g, place in zip(groups, area_place):
        for t, local in zip(members[g], inner[g]):
            theme_place[t] = place + local
    rng = np.random.default_rng(seed)
    for t in ids:
        rows = np.flatnonzero(topics == t)
        local = embeddings[rows] - embeddings[rows].mean(axis=0)
        if len(rows) > 2:
            _, _, vt = np.linalg.svd(local, full_matrices=False)
            coords = local @ vt[:2].T
            coords /= np.abs(coords).max(axis=0).clip(1e-9) + 1e-9
        else:
            coords = rng.normal(scale=0.3, size=(len(rows), 2))
        xy[rows] = theme_place[t] + 0.9 * radius[t] * coords
    unassigned = np.flatnonzero(~np.isin(topics, ids))
    if len(unassigned):  # beside their nearest theme
        near = np.argmax(embeddings[unassigned] @ np.stack([centroids[t] for t in ids]).T, axis=1)
        spots = np.stack([theme_place[ids[k]] for k in near])
        angle = rng.uniform(0, 2 * np.pi, len(unassigned))
        reach = np.array([radius[ids[k]] for k in near]) * rng.uniform(1.0, 1.4, len(unassigned))
        xy[unassigned] = spots + reach[:, None] * np.c_[np.cos(angle), np.sin(angle)]
    return xy


MAP_LABELS = 60  # themes named on the map, largest first


def _largest(shown: int, total: int, verb: str = "", noun: str = "themes") -> str:
    """The end of a caption: which themes (or areas) a figure leaves out, if any."""
    return f"; the {shown} largest of the {total} {noun}{verb}." if total > shown else "."


@dataclass
class Survey:
    since: pd.Timestamp
    until: pd.Timestamp
    papers: pd.DataFrame
    themes: pd.DataFrame  # label, keywords, size in period, representative papers, growth
    labels: dict[int, str]
    primary_only: bool
    level: str = "theme"
    groups: list[tuple[str | None, int, pd.DataFrame]] = field(default_factory=list)  # area, papers, theme rows
    figures: dict[str, tuple[Figure, str]] = field(default_factory=dict)
    xy: np.ndarray | None = None  # each paper's place on the map (rows of ``papers``)
    areas: dict[int, tuple[int, str]] = field(default_factory=dict)  # theme -> (area id, area label)
    watched: list[dict] = field(default_factory=list)  # name, sentence, papers in period, moves, papers to read
    carried: dict[int, tuple[str, int, int]] = field(default_factory=dict)  # data.carried_by of the period
    growth: pd.DataFrame = field(default_factory=pd.DataFrame)  # growth_table: first third against last

    @property
    def period(self) -> str:
        return f"{self.since:%Y-%m-%d}_{self.until:%Y-%m-%d}"


def growth_table(period: pd.DataFrame, mondays: list[pd.Timestamp], cfg: ReportConfig = ReportConfig()) -> pd.DataFrame:
    """How each theme's share moved from the first third of the period's weeks to the last third,
    by the weekly report's rules (``movement.compare``): its evidence counted by author groups,
    against what the categories' mix predicts, a move that one author carries or a rise with no
    paper in the last 4 weeks set apart, a theme without papers in the first third new rather than
    growing. One row per theme with papers: the raw shares (``first_share``, ``last_share``,
    ``delta``) and, where tested, the shrunk ratio (``estimate``, ``low``, ``high``), ``q_value``,
    ``mover``, ``carried`` and ``eligible`` (may be listed among the fastest-growing or shrinking)."""
    from pipeline.report.statistics.levels import placed_units
    from pipeline.report.statistics.movement import compare

    third = max(1, len(mondays) // 3)
    first, last = mondays[:third], mondays[-third:]
    counts = period[period["topic"] >= 0].groupby([Papers.week_start, "topic"]).size().unstack(fill_value=0)
    counts = counts.reindex(mondays, fill_value=0)
    totals = counts.sum(axis=1)
    table = pd.DataFrame({"topic": counts.columns.astype(int),
                          "first_share": (counts.loc[first].sum() / max(totals.loc[first].sum(), 1)).to_numpy(),
                          "last_share": (counts.loc[last].sum() / max(totals.loc[last].sum(), 1)).to_numpy()})
    table = table.assign(delta=table["last_share"] - table["first_share"])
    tests = compare([placed_units(period, mondays)], last, first, cfg)
    tests = tests.assign(topic=tests["unit"].astype(int)).set_index("topic")
    keep = ["estimate", "low", "high", "q_value", "mover", "carried", "direction", "ended"]
    table = table.join(tests[keep], on="topic")
    table[["estimate", "low", "high", "q_value"]] = table[["estimate", "low", "high", "q_value"]].astype(float)
    eligible = table["estimate"].notna() & table["carried"].isna() & ~(
        (table["direction"] == "up") & table["ended"].fillna(False).astype(bool))
    return table.assign(eligible=eligible)


def fastest(growth: pd.DataFrame, most: int = 8) -> pd.DataFrame:
    """The fastest-growing and the fastest-shrinking themes that may be listed (``eligible``), by the
    shrunk ratio of their shares, ``most`` of each."""
    if growth.empty or "eligible" not in growth.columns:
        return growth.iloc[:0]
    fair = growth[growth["eligible"].astype(bool)]
    up = fair[fair["direction"] == "up"].nlargest(most, "estimate")
    down = fair[fair["direction"] == "down"].nsmallest(most, "estimate")
    return pd.concat([down, up]).drop_duplicates("topic")


def area_centroids(corpus: Corpus, centroids: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
    """Each area's centroid: its themes' centroids weighted by their sizes, unit length."""
    out: dict[int, np.ndarray] = {}
    for t, (area, _) in areas_of(corpus).items():
        if t in centroids:
            out[area] = out.get(area, 0) + centroids[t] * max(int(corpus.themes.loc[t, TopicInfo.size]), 1)
    return {a: v / max(float(np.linalg.norm(v)), 1e-12) for a, v in out.items()}


def theme_events(corpus: Corpus, weeks: list[str]) -> pd.DataFrame:
    """Births (weekly updates), splits, merges and retirements (refits) of ``topic_lineage`` in
    ``weeks``: one row per event with its theme, relation, week and parent (the theme split from)."""
    lineage = corpus.lineage
    columns = ["topic", "relation", "week", "parent"]
    if lineage.empty or "mode" not in lineage.columns or not weeks:
        return pd.DataFrame(columns=columns)
    rows = lineage[lineage["mode"].isin(["update", "refit"]) & lineage["relation"].isin(plots.EVENT_MARKS)
                   & lineage["week"].isin(weeks)]
    ends = rows["relation"].isin(["merged", "retired"])
    events = pd.DataFrame({
        "topic": rows["to_topic"].where(~ends, rows["from_topic"]),
        "relation": rows["relation"], "week": rows["week"],
        "parent": rows["from_topic"].where(rows["relation"] == "split"),
    }).dropna(subset=["topic"])
    events["topic"] = events["topic"].astype(int)
    return events.reset_index(drop=True)[columns]


def watched_section(papers: pd.DataFrame, inside: pd.Series, watched: Matches, cfg: ReportConfig,
                    ) -> tuple[list[dict], pd.DataFrame]:
    """For each watched theme: its papers in the period, its movement at every horizon as of the
    period's last week (the weeks before it included, the ones after it not), and the papers to read
    (the closest to its sentence first); and the weekly counts of the period's papers on each
    watched theme (rows: Mondays)."""
    from pipeline.report.statistics.levels import watched_units
    from pipeline.report.statistics.movement import movement
    from pipeline.report.watched import weekly_counts

    names = watched.names
    period = papers[inside]
    if period.empty or not names:
        return [], pd.DataFrame()
    last = period[Papers.week_start].max()
    upto = (papers[Papers.week_start] <= last).to_numpy() & (papers[Papers.published] < period[Papers.published].max()
                                                           + pd.Timedelta(seconds=1)).to_numpy()
    mondays = list(pd.date_range(papers.loc[upto, Papers.week_start].min(), last, freq="7D"))
    moves = movement([watched_units(papers[upto], mondays, Matches(watched.on[upto], watched.z[upto]))], last, cfg)
    out = []
    for name in names:
        mine = watched.on[name].to_numpy() & inside.to_numpy()
        chosen = papers[mine].assign(_z=watched.evidence(name)[mine].to_numpy()).sort_values("_z", ascending=False)
        out.append({"name": name, "sentence": dict(cfg.watch).get(name, ""), "count": int(mine.sum()),
                    "moves": moves[moves["unit"] == name], "papers": chosen})
    first = period[Papers.week_start].min()
    period_mondays = [m for m in mondays if m >= first]
    inside_counts = weekly_counts(watched.on[inside.to_numpy()], period[Papers.week_start], names, period_mondays)
    return out, inside_counts


def build_survey(corpus: Corpus, embeddings: np.ndarray, centroids: dict[int, np.ndarray], since: pd.Timestamp,
          until: pd.Timestamp, *, primary_only: bool = False, level: str = "theme", watched: Matches | None = None,
          cfg: ReportConfig = ReportConfig()) -> Survey:
    """The survey of [since, until]. At ``level="area"`` areas take the place of themes everywhere;
    at ``"theme"`` the table of themes is grouped under their areas. ``watched``: ``watched.match``
    of ``corpus.papers`` (same rows), when the configuration names watched themes."""
    areas = areas_of(corpus)
    if level == "area":
        centroids = area_centroids(corpus, centroids)
    corpus = at_level(corpus, level)
    papers = corpus.papers
    inside = (papers[Papers.published] >= since) & (papers[Papers.published] < until + pd.Timedelta(days=1))
    period = papers[inside]
    emb = embeddings[np.flatnonzero(inside.to_numpy())]
    labels = corpus.labels
    topics = period["topic"].to_numpy()
    weeks = sorted(period[Papers.week_start].unique())
    mondays = list(pd.date_range(weeks[0], weeks[-1], freq="7D")) if weeks else []
    counts = weekly_topic_counts(Corpus(period, corpus.themes), mondays) if mondays else pd.DataFrame()
    sizes = pd.Series(topics[topics >= 0]).value_counts()
    growth = growth_table(period, mondays, cfg) if len(mondays) >= 3 else pd.DataFrame(columns=["topic", "delta"])
    themes = corpus.themes.assign(size_in_period=sizes.reindex(corpus.themes.index, fill_value=0))
    themes = themes.join(growth.set_index("topic")[["delta"]] if not growth.empty else pd.DataFrame(columns=["delta"]))
    survey = Survey(since, until, period, themes.sort_values("size_in_period", ascending=False), labels, primary_only,
                    level)
    survey.carried = carried_by(period) if level == "theme" else {}
    if watched is not None:
        survey.watched, watched_counts = watched_section(papers, inside, watched, cfg)
        if len(watched_counts):
            totals = papers[inside].groupby(Papers.week_start).size().reindex(watched_counts.index, fill_value=0)
            shares = watched_counts.div(totals.where(totals > 0), axis=0)
            shares.index = [week_label(m) for m in shares.index]
            names = {i: n for i, n in enumerate(shares.columns)}
            shares.columns = list(names)
            survey.figures["watched"] = (
                plots.theme_series(shares, list(names), names, title="Watched themes: weekly share"),
                "Weekly share of the period's papers on each watched theme ([report.watch]); the dot is the last week.")
    shown = survey.themes[survey.themes["size_in_period"] > 0]
    if level == "theme" and not shown.empty:
        area = shown.index.map(lambda t: areas.get(int(t), (-1, "No area"))[1])
        totals = shown.groupby(area, sort=False)["size_in_period"].sum().sort_values(ascending=False, kind="stable")
        survey.groups = [(name, int(total), shown[area == name]) for name, total in totals.items()]
    elif not shown.empty:
        survey.groups = [(None, int(shown["size_in_period"].sum()), shown)]
    noun = f"{level}s"
    span = f"{since:%Y-%m-%d} to {until:%Y-%m-%d}"
    counting = "primary category only" if primary_only else "every category a paper is listed in"
    xy = landmark_layout(emb, topics, centroids, areas={t: a for t, (a, _) in areas.items()} if level == "theme" else None)
    survey.xy, survey.areas = xy, (areas if level == "theme" else {})
    survey.figures["map"] = (mapplot.theme_map(xy, topics, labels, title=f"The landscape, {span}: {len(period):,} papers",
                                             max_labels=MAP_LABELS,
                                             areas={t: name for t, (_, name) in areas.items()} if level == "theme" else None),
                             f"Every paper, coloured by {level}; {level}s close in meaning are close on the map"
                             + (", each area a shaded region named above it" if level == "theme" and areas else "")
                             + _largest(MAP_LABELS, len(sizes), " are named", noun))
    if level == "theme" and len(survey.groups) > 1:
        tree = [(name, [(int(t), labels.get(int(t), str(t)), int(n)) for t, n in rows["size_in_period"].items()])
                for name, _, rows in survey.groups]
        survey.figures["areas"] = (plots.area_treemap(tree, title=f"Areas and their themes, {span}"),
                                   "Each area (outlined, named in bold) holds its themes; every box is sized by its "
                                   "papers in the period. Themes too small to name here are in the table below.")
    survey.figures["sizes"] = (plots.sizes(sizes, labels, title=f"{noun.capitalize()} by size"),
                               f"Papers per {level} in the period" + _largest(plots.TOP_THEMES, len(sizes), noun=noun))
    present = [t for t in sorted(centroids) if t in sizes.index]
    survey.figures["hierarchy"] = (plots.hierarchy(np.stack([centroids[t] for t in present]) if present else np.zeros((0, 1)),
                                                   present, labels, title=f"Which {noun} are close"),
                                   f"{noun.capitalize()} joined by the cosine distance of their centroids (average linkage).")
    if not counts.empty:
        counts.index = [week_label(m) for m in counts.index]
    events = theme_events(corpus, list(counts.index) if not counts.empty else []) if level == "theme" else None
    if events is not None:
        survey.figures["history"] = (plots.history(events, counts, labels, title="How themes were born, split and ended"),
                                     "Themes born in a weekly update, split off, merged away or retired by a refit in "
                                     "the period (topic_lineage.parquet), each over its weekly papers (hatched: papers that waited in "
                                     "the pool of unexplained papers before the theme was born); latest first.")
    survey.figures["sparklines"] = (plots.sparklines(counts, labels, title=f"Papers per week, by {level}"),
                                    f"Weekly papers per {level}, {span}; the number is the total"
                                    + _largest(plots.TOP_THEMES, len(sizes), noun=noun))
    survey.figures["categories"] = (plots.heatmap(theme_by_category(period, primary_only=primary_only), labels,
                                                  title=f"{noun.capitalize()} by arXiv category", note=f"Counts use {counting}."),
                                    f"Papers of each {level} in each arXiv category ({counting}).")
    survey.growth = growth
    survey.figures["growth"] = (plots.growth(fastest(growth), labels, title=f"Fastest-growing and shrinking {noun}"),
                                f"Change of each {level}'s share from the first third of the period's weeks to the last "
                                "third, against what the mix of primary arXiv categories predicts, counting one author's papers "
                                "of a week once, shrunk towards 1 (90 % interval); solid: beyond the weekly report's "
                                f"test. Left out: {level}s too young to compare, moves one author carries, and rises "
                                "with no paper in the last 4 weeks.")
    return survey


def map_page(s: Survey) -> dict:
    """The data of the survey's interactive map (``explore.map_data``)."""
    from pipeline.report.landscape.explore import map_data

    shown = int((s.themes["size_in_period"] > 0).sum())
    within = f" in {len(s.groups)} areas" if s.level == "theme" and s.areas else ""
    return map_data(s.papers, s.xy if s.xy is not None else np.zeros((len(s.papers), 2)), s.papers["topic"].to_numpy(),
                    s.labels, s.areas, title=f"The landscape, {s.since:%d %b %Y} – {s.until:%d %b %Y}",
                    subtitle=f"{len(s.papers):,} papers in {shown} {s.level}s{within}; "
                             f"{s.level}s close in meaning are close on the map")


def to_markdown(s, titles: pd.DataFrame) -> str:  # noqa: ANN001
    lines = [f"# Research landscape, {s.since:%Y-%m-%d} to {s.until:%Y-%m-%d}", "",
             f"{len(s.papers):,} papers in {(s.themes['size_in_period'] > 0).sum()} {s.level}s.", "",
             f"| {s.level} | papers | change in share | strongest phrases |", "|---|---:|---:|---|"]
    for area, total, rows in s.groups:
        if area:
            lines.append(f"| **{esc(area)}** | {total} | | |")
        for _, row in rows.iterrows():
            delta = f"{100 * row['delta']:+.1f} pt" if row["delta"] == row["delta"] else ""
            one = s.carried.get(int(row.name))
            voice = f" (mostly one author's: {esc(one[0])}, {one[1]} of {one[2]} papers)" if one else ""
            lines.append(f"| {esc(row['label'])}{voice} | {row['size_in_period']} | {delta} | "
                         f"{esc(row['description'])} |")
    if s.watched:
        lines += ["", "## Watched", ""]
        for w in s.watched:
            moved = [f"{m.horizon} {m.estimate:.1f}×" + (" (moved)" if m.mover else "") for m in w["moves"].itertuples()]
            lines.append(f"- **{esc(w['name'])}**: {w['count']} papers" + (f"; {', '.join(moved)}" if moved else ""))
            lines += md_paper_links(w["papers"], 5)
    lines += ["", "## Representative papers", ""]
    for _, row in s.themes[s.themes["size_in_period"] > 0].iterrows():
        lines.append(f"**{esc(row['label'])}**")
        for pid in row["representative_ids"]:
            if pid in titles.index:
                title, url = titles.loc[pid, "title"], titles.loc[pid, "url"]
                lines.append(f"- [{esc(title)}]({url})" if url else f"- {esc(title)}")
        lines.append("")
    lines += ["## Charts", ""] + [f"![{caption}](figures/{name}.png)" for name, (_, caption) in s.figures.items()]
    return "\n".join(lines) + "\n"
