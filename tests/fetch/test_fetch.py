"""The fetch stage against a local stand-in for arXiv: pages stored unchanged, faults survived,
interrupted fetches resumed, large windows split, nothing lost or stored twice."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections import Counter

import pytest

from pipeline import fetch
from pipeline.fetch.query import FetchError, Window, page_file, query_name
from pipeline.io import read_table
from pipeline.schemas import Duplicates, Papers

from .fake_arxiv import (
    DUPLICATE,
    EMPTY,
    FEED_DAY,
    FEED_EMPTY,
    RESET,
    SHORT,
    TIMEOUT,
    TRUNCATED,
    UNAVAILABLE,
    SEED_ENTRIES,
    fetch_config,
    stored_ids,
    synthetic_entries,
    tree,
)

UTC = dt.UTC
SINCE, UNTIL = dt.date(2025, 5, 1), dt.date(2026, 6, 9)
NOW = dt.datetime(2026, 6, 10, 12, 0, tzinfo=UTC)
NAME = "cs.DC_202505010000-202606092359"


def run(cfg, **kwargs):
    options = {"categories": ["cs.DC"], "since": SINCE, "until": UNTIL, "now": NOW, **kwargs}
    return fetch.run(cfg, **options)


def gaps(hits) -> list[float]:
    return [b.at - a.at for a, b in zip(hits, hits[1:])]


def manifest(root, name=NAME) -> dict:
    return json.loads((root / "data/raw/arxiv-api/cs.DC" / f".{name}.json").read_text())


def all_ids(arxiv) -> list[str]:
    return [e.arxiv_id for e in arxiv.entries]


def test_every_page_is_stored_unchanged_and_named_by_query_and_page(tmp_path, arxiv):
    cfg = fetch_config(tmp_path, arxiv)
    result = run(cfg)
    folder = tmp_path / "data/raw/arxiv-api/cs.DC"
    names = sorted(p.name for p in folder.iterdir())
    assert names == [f".{NAME}.json"] + [page_file(NAME, s, 4) for s in (0, 4, 8, 12)]
    # unchanged: byte for byte what the server sent, which the manifest's hashes also say
    query = "cat:cs.DC AND submittedDate:[202505010000 TO 202606092359]"
    every = arxiv.matching(query)
    for record in manifest(tmp_path)["pages"]:
        sent = arxiv.page(query, record["start"], 4, every[record["start"]:record["start"] + 4], 15)
        assert (folder / record["file"]).read_bytes() == sent
        assert hashlib.sha256(sent).hexdigest() == record["sha256"]
    assert manifest(tmp_path)["complete"] and manifest(tmp_path)["total_results"] == 15
    assert stored_ids(folder) == all_ids(arxiv)  # each once, in submission order
    assert arxiv.starts() == [0, 4, 8, 12] and min(gaps(arxiv.api_hits())) >= 0.2
    assert result.summary().startswith(
        "fetch: categories 1, queries 1, pages fetched 4, pages already held 0, entries 15, requests 4, retries 0 ("
    )
    assert not list(tmp_path.rglob("*.tmp"))


def test_faults_are_survived_and_nothing_is_lost_or_stored_twice(tmp_path, arxiv):
    cfg = fetch_config(tmp_path, arxiv)
    arxiv.faults.update({0: [UNAVAILABLE], 4: [EMPTY, TIMEOUT], 8: [RESET, TRUNCATED], 12: [SHORT]})
    result = run(cfg)
    assert arxiv.starts() == [0, 0, 4, 4, 4, 8, 8, 8, 12, 12]
    assert result.counts["retries"] == 6 and result.counts["pages fetched"] == 4
    assert stored_ids(tmp_path / "data/raw/arxiv-api") == all_ids(arxiv)
    hits = arxiv.api_hits()
    assert min(gaps(hits)) >= cfg.fetch.delay_s
    assert gaps(hits)[0] >= arxiv.retry_after  # after the 503
    assert not list(tmp_path.rglob("*.tmp"))


def test_an_empty_page_mid_set_is_an_error_after_retries_and_the_next_run_resumes(tmp_path, arxiv):
    cfg = fetch_config(tmp_path, arxiv)
    arxiv.faults[8] = [EMPTY] * 4  # the first try and all 3 retries
    with pytest.raises(FetchError) as failure:
        run(cfg)
    message = str(failure.value)
    assert "0 of the 4 entries due from result 8 of 15" in message
    assert "gave up after 4 tries; the 2 file(s) stored before the failure are kept; run the same command again" in message
    assert not manifest(tmp_path)["complete"] and [p["start"] for p in manifest(tmp_path)["pages"]] == [0, 4]
    before = tree(tmp_path / "data/raw")

    arxiv.hits.clear()
    result = run(cfg, now=NOW + dt.timedelta(days=1))  # the same command, a day later
    assert arxiv.starts() == [8, 12]  # the stored pages are not asked for again
    assert result.counts["pages already held"] == 2 and result.counts["pages fetched"] == 2
    after = tree(tmp_path / "data/raw")
    assert all(after[name] == stat for name, stat in before.items() if name.endswith(".xml"))  # never rewritten
    assert stored_ids(tmp_path / "data/raw/arxiv-api") == all_ids(arxiv)
    assert manifest(tmp_path)["complete"]


def test_default_window_resume_finishes_the_old_query_before_asking_for_new_days(tmp_path, arxiv):
    cfg = fetch_config(tmp_path, arxiv)
    arxiv.faults[4] = [EMPTY] * 4
    with pytest.raises(FetchError):
        fetch.run(cfg, categories=["cs.DC"], now=NOW)  # empty store: the last 8 ISO weeks
    first_query = arxiv.api_hits()[0].args["search_query"]
    assert first_query == "cat:cs.DC AND submittedDate:[202604130000 TO 202606101200]"

    arxiv.hits.clear()
    fetch.run(cfg, categories=["cs.DC"], now=NOW + dt.timedelta(hours=20))
    asked = [(h.args["search_query"], int(h.args["start"])) for h in arxiv.api_hits()]
    due = len(arxiv.matching(first_query))
    assert asked[: (due - 1) // 4] == [(first_query, s) for s in range(4, due, 4)]
    # then from 2 days before the end of the finished window, up to now: empty, so asked twice
    assert asked[(due - 1) // 4:] == [("cat:cs.DC AND submittedDate:[202606080000 TO 202606110800]", 0)] * 2
    old = [i for i in stored_ids(tmp_path / "data/raw/arxiv-api") if i in {e.arxiv_id for e in arxiv.matching(first_query)}]
    assert sorted(old) == sorted(e.arxiv_id for e in arxiv.matching(first_query))


def test_a_page_stored_just_before_a_crash_is_kept_not_fetched_again(tmp_path, arxiv):
    cfg = fetch_config(tmp_path, arxiv)
    arxiv.faults[8] = [EMPTY] * 4
    with pytest.raises(FetchError):
        run(cfg)
    # the crash came after page 3 was stored and before the manifest said so
    query = "cat:cs.DC AND submittedDate:[202505010000 TO 202606092359]"
    page3 = tmp_path / "data/raw/arxiv-api/cs.DC" / page_file(NAME, 8, 4)
    page3.write_bytes(arxiv.page(query, 8, 4, arxiv.matching(query)[8:12], 15))
    arxiv.hits.clear()
    run(cfg)
    assert arxiv.starts() == [12]
    assert [p["start"] for p in manifest(tmp_path)["pages"]] == [0, 4, 8, 12]
    assert stored_ids(tmp_path / "data/raw/arxiv-api") == all_ids(arxiv)


def test_a_finished_window_is_not_asked_for_again(tmp_path, arxiv):
    cfg = fetch_config(tmp_path, arxiv)
    run(cfg)
    arxiv.hits.clear()
    result = run(cfg)
    assert arxiv.hits == [] and result.counts["pages already held"] == 4 and result.counts["requests"] == 0


def test_a_duplicate_entry_stays_in_raw_and_clean_keeps_each_paper_once(tmp_path, arxiv):
    from pipeline import clean, ingest

    cfg = fetch_config(tmp_path, arxiv)
    arxiv.faults[4] = [DUPLICATE]
    run(cfg)
    ids = stored_ids(tmp_path / "data/raw/arxiv-api")
    assert len(ids) == 16 and Counter(ids).most_common(1)[0] == (all_ids(arxiv)[3], 2)
    ingest.run(cfg)
    clean.run(cfg)
    papers = read_table(cfg.paths.papers, Papers)
    assert len(papers) == 15 and papers[Papers.paper_id].is_unique
    assert set(papers[Papers.paper_id]) == {i.rsplit("v", 1)[0] for i in all_ids(arxiv)}
    duplicates = read_table(cfg.paths.duplicates, Duplicates)
    assert list(duplicates[Duplicates.paper_id]) == [all_ids(arxiv)[3].rsplit("v", 1)[0]]


def test_a_window_over_30000_results_is_split_and_nothing_is_lost(tmp_path, arxiv):
    # 30,001 papers, one every 2 minutes from 2026-05-01 00:00:30 (about 42 days)
    arxiv.entries = synthetic_entries(30_001, dt.datetime(2026, 5, 1, 0, 0, 30, tzinfo=UTC), dt.timedelta(minutes=2))
    cfg = fetch_config(tmp_path, arxiv, page_size=2000, delay_s=0.05)
    assert cfg.fetch.max_results_per_query == 30_000
    result = fetch.run(cfg, categories=["cs.DC"], since=dt.date(2026, 5, 1), until=dt.date(2026, 6, 12), now=NOW.replace(month=7))
    top = manifest(tmp_path, "cs.DC_202605010000-202606122359")
    assert top["total_results"] == 30_001 and top["complete"] and len(top["split_into"]) == 2
    halves = [manifest(tmp_path, name) for name in top["split_into"]]
    assert all(h["complete"] and h["total_results"] <= 30_000 for h in halves)
    assert result.counts["windows split"] == 1
    folder = tmp_path / "data/raw/arxiv-api/cs.DC"
    assert not list(folder.glob("cs.DC_202605010000-202606122359_page*"))  # the probe of the whole window is not stored
    assert all(int(h.args["max_results"]) <= 2000 for h in arxiv.api_hits())
    ids = stored_ids(folder)
    assert set(ids) == set(all_ids(arxiv))
    # the halves share their middle minute; only a paper submitted in it can come twice
    middle = Window.parse(halves[0]["window"]).end
    twice = {i for i, n in Counter(ids).items() if n > 1}
    assert all(e.submitted.replace(second=0) == middle for e in arxiv.entries if e.arxiv_id in twice)
    assert len(ids) == 30_001 + len(twice)


def test_default_since_follows_the_newest_paper_held(tmp_path, arxiv):
    from pipeline import clean, ingest

    cfg = fetch_config(tmp_path, arxiv)
    raw = tmp_path / "data/raw/listings"
    raw.mkdir(parents=True)
    (raw / "older.xml").write_bytes(SEED_ENTRIES.read_bytes())  # newest cs.DC paper: 2026-06-05
    ingest.run(cfg)
    clean.run(cfg)
    fetch.run(cfg, categories=["cs.DC"], now=dt.datetime(2026, 6, 20, 9, 30, tzinfo=UTC))
    assert arxiv.api_hits()[0].args["search_query"] == "cat:cs.DC AND submittedDate:[202606030000 TO 202606200930]"


def test_the_daily_feed_is_stored_once_per_announcement_day(tmp_path, arxiv):
    cfg = fetch_config(tmp_path, arxiv)
    arxiv.feeds["cs.DC"] = FEED_DAY.read_bytes()
    first = run(cfg, feed=True)
    stored = tmp_path / "data/raw/arxiv-feed/cs.DC/cs.DC_announced-2026-06-08.xml"
    assert stored.read_bytes() == FEED_DAY.read_bytes()
    assert first.counts["feeds stored"] == 1 and first.counts["entries"] == 15 + 4
    assert [h.path for h in arxiv.hits][-1] == "/atom/cs.DC"
    assert min(gaps(arxiv.hits)) >= cfg.fetch.delay_s  # the feed is paced too

    second = run(cfg, feed=True)
    assert (second.counts["feeds stored"], second.counts["feeds already held"]) == (0, 1)
    arxiv.feeds["cs.DC"] = FEED_EMPTY.read_bytes()  # a weekend
    third = run(cfg, feed=True)
    assert third.counts["feeds stored"] == 0
    assert sorted(p.name for p in stored.parent.iterdir()) == [stored.name]


def test_categories_are_checked_before_anything_is_asked(tmp_path, arxiv):
    with pytest.raises(FetchError, match="not an arXiv category: 'cs.DC OR all:x'"):
        run(fetch_config(tmp_path, arxiv), categories=["cs.DC OR all:x"])
    assert arxiv.hits == [] and not (tmp_path / "data").exists()


def test_query_name_of_the_default_window(tmp_path):
    assert query_name("cs.DC", Window(NOW.replace(hour=0), NOW)) == "cs.DC_202606100000-202606101200"


# --- resuming when the store or the result set changed -------------------------------------------
def test_a_set_that_shrank_between_runs_is_continued_not_stuck_and_nothing_is_lost(tmp_path, arxiv):
    cfg = fetch_config(tmp_path, arxiv)
    arxiv.faults[8] = [EMPTY] * 4
    with pytest.raises(FetchError):
        run(cfg)  # pages 0 and 4 stored
    arxiv.entries.pop(2)  # then a paper of page 1 leaves cs.DC: every later result moves back by one
    arxiv.hits.clear()
    result = run(cfg)
    top = manifest(tmp_path)
    assert top["complete"] and len(top["split_into"]) == 1 and result.counts["queries continued"] == 1
    rest = manifest(tmp_path, top["split_into"][0])
    # the continuation starts at the minute of the last result held (the 8th), so it holds that one again
    assert Window.parse(rest["window"]).start == arxiv.entries[6].submitted.replace(second=0)
    assert rest["complete"] and rest["total_results"] == 8
    stored = stored_ids(tmp_path / "data/raw/arxiv-api")
    assert set(all_ids(arxiv)) <= set(stored)  # the 9th result, which moved to page 2's place, is there
    assert run(cfg).counts["requests"] == 0  # and the next run has nothing left to finish


def test_an_empty_first_page_is_asked_again_before_a_window_counts_as_empty(tmp_path, arxiv):
    cfg = fetch_config(tmp_path, arxiv)
    arxiv.faults[0] = [EMPTY]  # the quirk, on the first page: "no results at all"
    result = run(cfg)
    assert arxiv.starts() == [0, 0, 4, 8, 12] and result.counts["pages fetched"] == 4
    assert stored_ids(tmp_path / "data/raw/arxiv-api") == all_ids(arxiv)


def test_an_empty_window_does_not_move_the_default_start_on(tmp_path, arxiv):
    cfg = fetch_config(tmp_path, arxiv)
    fetch.run(cfg, categories=["cs.DC"], since=dt.date(2026, 6, 7), now=NOW)  # nothing after 06-05
    assert manifest(tmp_path, "cs.DC_202606070000-202606101200")["total_results"] == 0
    assert fetch.newest_held(cfg, "cs.DC") is None  # so the next default run still asks 8 weeks back


def test_a_page_the_manifest_lists_but_the_disk_lacks_is_fetched_again(tmp_path, arxiv):
    cfg = fetch_config(tmp_path, arxiv)
    arxiv.faults[8] = [EMPTY] * 4
    with pytest.raises(FetchError):
        run(cfg)
    (tmp_path / "data/raw/arxiv-api/cs.DC" / page_file(NAME, 4, 4)).unlink()  # moved aside by hand
    arxiv.hits.clear()
    run(cfg)
    assert arxiv.starts() == [4, 8, 12]
    assert [p["start"] for p in manifest(tmp_path)["pages"]] == [0, 4, 8, 12]
    assert stored_ids(tmp_path / "data/raw/arxiv-api") == all_ids(arxiv)


def test_a_stop_right_after_the_first_page_is_written_is_resumed_by_a_later_run(tmp_path, arxiv, monkeypatch):
    from pipeline.fetch import paging

    cfg = fetch_config(tmp_path, arxiv)
    real = paging.write_new_file

    def write_then_stop(data, path):
        real(data, path)
        raise KeyboardInterrupt  # power cut between storing the page and noting it

    monkeypatch.setattr(paging, "write_new_file", write_then_stop)
    with pytest.raises(KeyboardInterrupt):
        run(cfg)
    monkeypatch.setattr(paging, "write_new_file", real)
    arxiv.hits.clear()
    # a later run whose own window differs still finds the query and finishes it first
    fetch.run(cfg, categories=["cs.DC"], since=dt.date(2026, 6, 9), now=NOW)
    assert [(h.args["search_query"][-30:], h.args["start"]) for h in arxiv.api_hits()][:3] == [
        ("[202505010000 TO 202606092359]", "4"), ("[202505010000 TO 202606092359]", "8"),
        ("[202505010000 TO 202606092359]", "12"),
    ]
    assert manifest(tmp_path)["complete"] and [p["start"] for p in manifest(tmp_path)["pages"]] == [0, 4, 8, 12]


# --- splitting -----------------------------------------------------------------------------------
def test_splitting_recurses_until_every_window_fits_with_no_gap_between_halves(tmp_path, arxiv):
    # 60 papers, one every 7 minutes and 13 s over 7 hours, a cap of 10: several levels of halves
    arxiv.entries = synthetic_entries(60, dt.datetime(2026, 6, 1, 0, 0, 13, tzinfo=UTC), dt.timedelta(minutes=7, seconds=13))
    cfg = fetch_config(tmp_path, arxiv, max_results_per_query=10, delay_s=0.0)
    result = fetch.run(cfg, categories=["cs.DC"], since=dt.date(2026, 6, 1), until=dt.date(2026, 6, 1), now=NOW)
    folder = tmp_path / "data/raw/arxiv-api/cs.DC"
    manifests = {m.name: json.loads(m.read_text()) for m in folder.glob(".*.json")}
    leaves = [m for m in manifests.values() if m["split_into"] is None]
    assert result.counts["windows split"] >= 4 and all(m["complete"] for m in manifests.values())
    assert all(m["total_results"] <= 10 for m in leaves)
    # the leaves tile the day: each starts at the minute the one before ends
    spans = sorted(Window.parse(m["window"]) for m in leaves)
    assert spans[0].start == dt.datetime(2026, 6, 1, tzinfo=UTC) and spans[-1].end == dt.datetime(2026, 6, 1, 23, 59, tzinfo=UTC)
    assert all(a.end == b.start for a, b in zip(spans, spans[1:]))
    assert Counter(stored_ids(folder)).keys() == set(all_ids(arxiv))


def test_a_window_too_short_to_split_and_still_over_the_cap_is_a_clear_error(tmp_path, arxiv):
    at = dt.datetime(2026, 6, 1, 0, 0, tzinfo=UTC)
    arxiv.entries = synthetic_entries(11, at.replace(second=5), dt.timedelta(seconds=5))  # 11 in 00:00
    cfg = fetch_config(tmp_path, arxiv, max_results_per_query=10, delay_s=0.0)
    with pytest.raises(FetchError, match=r"11 results within 202606010000-20260601000[01], more than the 10 .* cannot be split further"):
        fetch.run(cfg, categories=["cs.DC"], since=dt.date(2026, 6, 1), now=at.replace(minute=3))
    assert not list((tmp_path / "data/raw/arxiv-api/cs.DC").glob("*.xml"))  # probes are not stored


@pytest.mark.parametrize(("setting", "message"), [
    ({"page_size": 2001}, "page_size = 2001: must be 1 to 2,000"),
    ({"page_size": 0}, "page_size = 0: must be 1 to 2,000"),
    ({"max_results_per_query": 50_000}, "max_results_per_query = 50000: must be page_size to 30,000"),
    ({"api_url": "https://export.arxiv.org/api/query", "delay_s": 1.0}, "delay_s = 1.0: arXiv asks for at most one request every 3 s"),
    ({"retries": -1}, "retries = -1: must not be negative"),
])
def test_settings_that_break_arxivs_terms_or_the_paging_are_refused_before_asking(tmp_path, arxiv, setting, message):
    with pytest.raises(FetchError, match=message):
        run(fetch_config(tmp_path, arxiv, **setting))
    assert arxiv.hits == [] and not (tmp_path / "data").exists()


def test_a_paper_indexed_late_among_pages_already_served_is_asked_for_again(tmp_path, arxiv):
    import dataclasses

    cfg = fetch_config(tmp_path, arxiv)
    # after page 2 (results 4..7) is served, arXiv indexes a paper submitted between results 1 and 2:
    # the set grows by one, page 3 starts with result 7 again, and the new paper sits in page 1
    before = arxiv.entries[1]
    late = dataclasses.replace(before, arxiv_id="2605.99999v1", submitted=before.submitted + dt.timedelta(seconds=1),
                               xml=before.xml.replace(before.arxiv_id, "2605.99999v1"))
    arxiv.after[4].append(lambda: arxiv.entries.insert(2, late))
    result = run(cfg)
    stored = stored_ids(tmp_path / "data/raw/arxiv-api")
    assert set(all_ids(arxiv)) <= set(stored) and "2605.99999v1" in stored  # the set stored = the set listed
    assert result.counts["queries continued"] == 1
    top = manifest(tmp_path)
    assert top["complete"] and len(top["split_into"]) == 2
    assert run(cfg).counts["requests"] == 0  # nothing left to finish
    # clean keeps each paper once
    from pipeline import clean, ingest

    ingest.run(cfg)
    clean.run(cfg)
    papers = read_table(cfg.paths.papers, Papers)
    assert len(papers) == len(all_ids(arxiv)) and papers["paper_id"].is_unique


def test_a_fetch_is_recorded_like_every_stage_and_never_skipped(tmp_path, arxiv):
    cfg = fetch_config(tmp_path, arxiv)
    first = run(cfg)
    record = json.loads(cfg.paths.run_record("fetch").read_text())
    assert record["counts"] == first.counts and record["asked"]["categories"] == ["cs.DC"]
    assert run(cfg).ran  # what is new is on the server: a fetch always asks
