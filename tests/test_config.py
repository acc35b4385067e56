from __future__ import annotations

import datetime as dt

import pytest

from pipeline.config import ConfigError, load


def test_defaults_then_pyproject_then_file_then_overrides(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.pipeline.ingest]\ncategories = ["cs.DC"]\nbatch_rows = 10\n[tool.pipeline.clean]\nmin_abstract_chars = 5\n'
    )
    config_file = tmp_path / "c.toml"
    config_file.write_text('[clean]\nmin_abstract_chars = 7\n[ingest]\nsince = "2025-01-01"\n')
    cfg = load(tmp_path, config_file, {"ingest": {"batch_rows": 99, "format": None}})
    assert cfg.ingest.categories == ("cs.DC",)
    assert cfg.ingest.batch_rows == 99
    assert cfg.ingest.since == dt.date(2025, 1, 1)
    assert cfg.clean.min_abstract_chars == 7 and cfg.clean.max_abstract_chars == 20_000
    assert cfg.paths.papers == tmp_path / "data" / "processed" / "papers.parquet"
    with pytest.raises(AttributeError):
        cfg.clean.min_abstract_chars = 1  # frozen


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[clean]\nmin_abstract = 1\n", r"unknown setting\(s\): clean\.min_abstract"),
        ("[cleaning]\n", "unknown config section"),
        ("[clean]\nmin_abstract_chars = 'ten'\n", "must be an integer"),
        ("[ingest]\nstrict = 'yes'\n", "must be true or false"),
        ("[clean\n", "invalid TOML"),
        # every bad value is named by its setting, with the file that set it
        ("[topics]\nmin_cluster_size = 'x'\n", r"c\.toml: topics\.min_cluster_size must be an integer, got 'x'"),
        ("[ingest]\nsince = '2025-13-01'\n", r"c\.toml: ingest\.since must be a day written YYYY-MM-DD, got '2025-13-01'"),
        ("[report]\nalpha = 'x'\n", r"report\.alpha must be a number"),
        ("[topics]\nstop_words = [1, 2]\n", r"topics\.stop_words must be a list of text"),
        ("[topics]\nembedder = 3\n", r"topics\.embedder must be text"),
        ("topics = 3\n", r"\[topics\] must be a table of settings"),
        ("[ingest]\ncategories = ['12']\n", r"ingest\.categories: '12' is not an arXiv category"),
        ("[ingest]\nformat = 'jsonl'\n", r"ingest\.format = 'jsonl': use one of"),
        ("[topics]\ncluster = 'foo'\n", r"topics\.cluster = 'foo': not a scheduler address"),
        ("[topics]\nresolutoin = 5\n", r"unknown setting\(s\): topics\.resolutoin"),
        ("[topics]\ngraph_neighbors = 1\n", "topics.graph_neighbors = 1"),
        ("[topics]\nresolution = 0\n", "topics.resolution = 0"),
        # settings measurement rejected, or made constants, are named with the note that says why
        ("[topics]\nsplit_themes = true\n", "topics.split_themes was removed: docs/decisions/split-themes.md"),
        ("[topics]\nemerge_novelty = 0.1\n", "topics.emerge_novelty was removed: docs/decisions/fixed-detection"),
        # a watched theme is a name = a sentence, both text, the name holding a word to look for
        ('[report.watch]\n"MoE serving" = 3\n', "report.watch"),
        ('[report.watch]\n"MoE serving" = ""\n', "report.watch"),
        ('[report]\nwatch = "MoE serving"\n', "report.watch"),
        ('[report]\nwatch = "ab"\n', "report.watch"),
        ('[report.watch]\n"++" = "a sentence"\n', "holds no word"),
        ('[report.watch]\n"MoE serving" = "a"\n"moe Serving" = "b"\n', "'MoE serving' and 'moe Serving' are the same"),
        ("[report]\nwatch_z = -1\n", "report.watch_z = -1"),
        ("[report]\nwatch_z = nan\n", "report.watch_z = nan"),
        ("[report]\nwatch_z_far = 3.0\nwatch_z = 2.0\nwatch_z_words = 3.5\n", "report.watch_z_words = 3.5"),
        ("[report]\nwatch_z_far = 2.0\nwatch_z = 2.5\n", "report.watch_z = 2.5: must not exceed"),
        ("[report]\nwatch_floor = 1.5\n", "report.watch_floor = 1.5"),
        ("[report]\nwatch_share = 2\n", "report.watch_share = 2"),
        ("[report]\nwatch_z_name = inf\n", "report.watch_z_name = inf"),
        # other names of a watched theme: a list of text, for a theme that is watched
        ('[report.watch]\n"Edge offloading" = "s"\n[report.watch_also]\n"MoE" = ["x y"]\n', "'MoE' is not a watched theme"),
        ('[report.watch]\n"Edge offloading" = "s"\n[report.watch_also]\n"Edge offloading" = [3]\n', "report.watch_also"),
        ('[report.watch]\n"Edge offloading" = "s"\n[report.watch_also]\n"Edge offloading" = ["++"]\n', "holds no word"),
        ('[report]\nwatch_also = ["task offloading"]\n', "report.watch_also must be a table"),
        ('[report]\npublish_url = "javascript:alert(1)"\n', "report.publish_url"),
    ],
)
def test_bad_config_is_rejected(tmp_path, text, message):
    config_file = tmp_path / "c.toml"
    config_file.write_text(text)
    with pytest.raises(ConfigError, match=message):
        load(tmp_path, config_file)


def test_report_section_sets_the_trend_test_and_refuses_nonsense(tmp_path):
    (tmp_path / "c.toml").write_text("[report]\nwindow = 4\nalpha = 0.1\n")
    cfg = load(tmp_path, tmp_path / "c.toml")
    assert (cfg.report.window, cfg.report.alpha) == (4, 0.1)
    (tmp_path / "bad.toml").write_text("[report]\nalpha = 1.5\n")
    with pytest.raises(ConfigError, match="report.alpha = 1.5"):
        load(tmp_path, tmp_path / "bad.toml")
