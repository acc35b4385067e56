from __future__ import annotations

import dataclasses

import pandas as pd
import pytest

from pipeline import clean, config, ingest
from pipeline.clean import AccountingError, check_accounting, clean_listings
from pipeline.config import CleanConfig
from pipeline.io import read_table
from pipeline.schemas import Duplicates, Papers, Quarantine
from tests.helpers import ABSTRACT, listings

CFG = CleanConfig()
TS = pd.Timestamp


def by_id(result: clean.CleanResult) -> pd.DataFrame:
    return result.papers.set_index("paper_id")


# --- the seeds, end to end -----------------------------------------------------------------------
@pytest.fixture
def seeds_result(project):
    cfg = config.load(project)
    ingest.run(cfg)
    clean.run(cfg)
    paths = cfg.paths
    return (
        read_table(paths.papers, Papers).set_index("paper_id"),
        read_table(paths.duplicates, Duplicates),
        read_table(paths.quarantine, Quarantine),
    )


def test_seeds_counts(seeds_result):
    papers, duplicates, quarantine = seeds_result
    files = [{src.split("#")[0].rsplit("/", 1)[-1][:3] for src in s} for s in papers["sources"]]
    assert files.count({"000"}) == 5
    assert files.count({"001"}) == 15
    # 80 listing entries: six papers are listed twice (consecutive entries with the same title)
    assert files.count({"002"}) == 74
    assert len(duplicates) == 6 and set(duplicates["reason"]) == {"same title"}
    assert quarantine.empty
    assert len(papers) == 94


def test_seeds_api_text_exact(seeds_result):
    papers, _, _ = seeds_result
    ultra = papers.loc["2606.04101"]
    assert ultra["title"] == (
        "UltraEP: Unleash MoE Training and Inference on Rack-Scale Nodes with Near-Optimal Load Balancing"
    )
    assert ultra["abstract"].startswith("Large-scale expert parallelism (EP) is becoming pivotal for training and serving")
    assert (
        "delivering 1.49× improvement over non-balancing, while reducing the final inter-rank imbalance "
        "from 1.30-4.01 to 1.01-1.04." in ultra["abstract"]
    )
    assert ultra["abstract"].endswith("in production MoE training with 2560 GPUs.")
    assert "\n" not in ultra["abstract"] and "  " not in ultra["abstract"]
    assert ultra["published"] == TS("2026-06-02 18:07:51", tz="UTC")
    assert ultra["updated"] == TS("2026-06-05 06:53:34", tz="UTC")
    assert ultra["version"] == 2
    assert ultra["week"] == "2026-W23" and ultra["week_start"] == TS("2026-06-01", tz="UTC")
    assert ultra["url"] == "https://arxiv.org/abs/2606.04101"
    assert list(ultra["authors"][:3]) == ["Xinming Wei", "Chao Jin", "Tuo Dai"]
    assert ultra["comment"].startswith("The authors have identified issues related to information disclosure")

    oan = papers.loc["2606.03163"]
    assert "It specifies the role architecture, did:oan identity objects, registration workflow" in oan["abstract"]
    gpu = papers.loc["2606.06386"]
    assert "supported by cgbn division." in gpu["abstract"]
    assert list(gpu["authors"]) == [
        "Martin B. Marchioro", "Aske N. Raahauge", "Marc I. Løvenskjold", "Cosmin E. Oancea", "Stephen M. Watt",
    ]
    old = papers.loc["2505.07833"]
    assert old["published"] == TS("2025-05-01 18:58:26", tz="UTC") and old["week"] == "2025-W18"


def test_seeds_listing_page_has_no_mojibake(seeds_result):
    papers, _, _ = seeds_result
    listing = papers[papers["sources"].map(lambda s: "002_" in s[0])]
    text = " ".join(listing[["title", "abstract", "headline", "tldr"]].fillna("").to_numpy().ravel())
    for broken in ("Γ—", "ΞΌ", "β†", "Β·", "ι“"):
        assert broken not in text
    first = listing[listing["title"].str.startswith("Comparing the Performance of Heterogeneous Conjugate")].iloc[0]
    assert first["primary_category"] == "cs.DC" and list(first["categories"]) == ["cs.DC"]
    assert first["published"] == TS("2026-05-14", tz="UTC") and first["week"] == "2026-W20"
    assert first["url"] is None or pd.isna(first["url"])
    assert first["abstract"].startswith("Many important real-world applications, such as System Identification")
    assert listing["tldr"].str.contains("tracks optimal embedding-KV cache ratio at 32 μs latency").any()


def test_seeds_listing_page_all_80_records_repaired(project):
    from pipeline.schemas import Listings

    cfg = config.load(project)
    ingest.run(cfg)
    raw = read_table(cfg.paths.listings, Listings)
    page = clean.clean_fields(raw[raw["source_format"] == "listing-page"])
    assert len(page) == 80
    text = " ".join(page[["title", "abstract", "headline", "tldr"]].fillna("").to_numpy().ravel())
    for broken in ("Γ—", "ΞΌ", "β†", "Β·", "ι“"):
        assert broken not in text
    # the page is UTF-8 read as Windows-1253: "1–4Γ—" must read "1–4×"
    assert "ResiHP lifts LLM training speed 1–4× under real GPU failures" in set(page["headline"])


def test_seeds_digest(seeds_result):
    papers, _, _ = seeds_result
    digest = papers[papers["sources"].map(lambda s: "000_" in s[0])]
    eidola = digest[digest["title"].str.startswith("Eidola")].iloc[0]
    assert eidola.name.startswith("title:")
    assert list(eidola["authors"]) == [
        "Ranganath R. Selagamsetty", "Matthew Poremba", "Bradford M. Beckmann", "Joshua San Miguel",
    ]
    assert eidola["published"] == TS("2026-06-14", tz="UTC") and eidola["week"] == "2026-W24"
    assert "1.45× speedup" in digest[digest["title"].str.startswith("Harnessing")].iloc[0]["abstract"]


# --- identity and merging ------------------------------------------------------------------------
def test_same_id_two_files_different_versions():
    df = listings(
        dict(arxiv_id="2501.00001v1", title="Old title", abstract="Old " + ABSTRACT, published="2025-01-02T10:00:00Z",
             updated="2025-01-02T10:00:00Z", categories=["cs.DC"], primary_category="cs.DC", _file="a.xml", _format="atom"),
        dict(arxiv_id="2501.00001v3", title="New title", abstract="New " + ABSTRACT, published="2025-01-02T10:00:00Z",
             updated="2025-03-01T00:00:00Z", categories=["cs.DC", "cs.NI"], primary_category="cs.DC",
             comment="12 pages", _file="b.xml", _format="atom"),
    )
    result = clean_listings(df, CFG)
    paper = by_id(result).loc["2501.00001"]
    assert paper["title"] == "New title" and paper["abstract"].startswith("New ")
    assert paper["version"] == 3 and paper["comment"] == "12 pages"
    assert paper["published"] == TS("2025-01-02 10:00", tz="UTC")
    assert list(paper["sources"]) == ["a.xml#0", "b.xml#0"]
    assert list(paper["categories"]) == ["cs.DC", "cs.NI"]
    assert result.duplicates[["source_file", "reason", "paper_id"]].values.tolist() == [
        ["a.xml", "older version", "2501.00001"]
    ]


def test_each_paper_keeps_the_hash_of_the_text_it_keeps():
    from pipeline.schemas import paper_text, text_hash

    old = dict(arxiv_id="2501.00001v1", title="A title", abstract="Old " + ABSTRACT, published="2025-01-02T10:00:00Z",
               updated="2025-01-02T10:00:00Z", categories=["cs.DC"], primary_category="cs.DC", _file="a.xml", _format="atom")
    first = by_id(clean_listings(listings(old), CFG)).loc["2501.00001"]
    assert first["text_hash"] == text_hash([paper_text("A title", first["abstract"])])[0]
    new = dict(old, arxiv_id="2501.00001v2", abstract="New " + ABSTRACT, updated="2025-02-01T00:00:00Z", _file="b.xml")
    second = by_id(clean_listings(listings(old, new), CFG)).loc["2501.00001"]
    assert second["abstract"].startswith("New ") and second["text_hash"] != first["text_hash"]  # the text changed


def test_version_beats_file_order_and_earliest_date_wins():
    df = listings(
        dict(arxiv_id="2501.00001v2", title="v2", abstract=ABSTRACT, updated="2025-02-01", published="2025-01-05"),
        dict(arxiv_id="2501.00001", title="daily", abstract=ABSTRACT, announced="2025-01-03", _file="2025-01-03.jsonl"),
    )
    paper = by_id(clean_listings(df, CFG)).loc["2501.00001"]
    assert paper["title"] == "v2"  # updated 2025-02-01 is newer than the 2025-01-03 announcement
    assert paper["published"] == TS("2025-01-03", tz="UTC")


def test_title_only_record_joins_arxiv_paper_and_keeps_its_abstract():
    df = listings(
        dict(title="Eidola: Modeling Multi-GPU Traffic", abstract="Digest summary: " + ABSTRACT,
             published="2026-06-14", _file="digest.txt", _format="digest"),
        dict(arxiv_id="2606.00001v1", title="EIDOLA — modeling multi-GPU traffic", abstract="Real abstract. " + ABSTRACT,
             published="2026-06-10T00:00:00Z", _file="api.xml", _format="atom"),
    )
    result = clean_listings(df, CFG)
    assert list(result.papers["paper_id"]) == ["2606.00001"]
    paper = result.papers.iloc[0]
    assert paper["abstract"].startswith("Real abstract.")
    assert result.duplicates["reason"].tolist() == ["same title"]


def test_title_ids_are_stable_and_merge_same_titles():
    df = listings(
        dict(title="A Paper", abstract=ABSTRACT, published="2026-01-01"),
        dict(title="a   paper!", abstract=ABSTRACT, published="2026-01-02"),
    )
    first = clean_listings(df, CFG).papers
    second = clean_listings(df, CFG).papers
    assert len(first) == 1 and first["paper_id"].iloc[0].startswith("title:")
    assert first["paper_id"].tolist() == second["paper_id"].tolist()


def test_categories_keep_primary_first_and_drop_non_arxiv_codes():
    df = listings(
        dict(arxiv_id="2501.00002", title="T", abstract=ABSTRACT, announced="2025-01-01",
             categories=["cs.CL", "I.2.6; I.2.7; J.5"], primary_category="cs.CL"),
        dict(arxiv_id="2501.00002", title="T", abstract=ABSTRACT, announced="2025-01-02",
             categories=["cs.AI", "cs.CL"], primary_category="cs.AI"),
    )
    paper = by_id(clean_listings(df, CFG)).loc["2501.00002"]
    assert paper["primary_category"] == "cs.AI"
    assert list(paper["categories"]) == ["cs.AI", "cs.CL"]


def test_old_style_ids():
    df = listings(dict(arxiv_id="hep-th/9901001v2", title="Strings", abstract=ABSTRACT, published="1999-01-04"))
    paper = clean_listings(df, CFG).papers.iloc[0]
    assert paper["paper_id"] == "hep-th/9901001" and paper["version"] == 2
    assert paper["url"] == "https://arxiv.org/abs/hep-th/9901001"


# --- quarantine and accounting -------------------------------------------------------------------
def test_quarantine_reasons_and_accounting():
    df = listings(
        dict(arxiv_id="2501.00010", title="Good", abstract=ABSTRACT, announced="2025-01-01"),
        dict(arxiv_id="2501.00011", title="No abstract", abstract="  ", announced="2025-01-01"),
        dict(arxiv_id="2501.00012", title=None, abstract=ABSTRACT, announced="2025-01-01"),
        dict(arxiv_id="2501.00013", title="No date", abstract=ABSTRACT),
        dict(arxiv_id="2501.00014", title="Bad date", abstract=ABSTRACT, published="the 31st of Smarch"),
        dict(arxiv_id="not-an-id", title="Bad id", abstract=ABSTRACT, announced="2025-01-01"),
        dict(error="XML broken: no element found: line 66, column 15 (at line 66)", line=66),
        dict(arxiv_id="2501.00015", title="Short", abstract="Too short.", announced="2025-01-01"),
        dict(arxiv_id="2501.00016", title="Long", abstract="x" * 20_001, announced="2025-01-01"),
        dict(arxiv_id="2501.00017", title="PDF only", abstract="PDF\nabstract click to expand", announced="2025-01-01"),
    )
    result = clean_listings(df, CFG)
    assert result.papers["paper_id"].tolist() == ["2501.00010"]
    reasons = dict(zip(result.quarantine["position"], result.quarantine["reason"]))
    assert reasons == {
        1: "no abstract", 2: "no title", 3: "no date", 4: "unparseable date", 5: "invalid arXiv id",
        6: "unreadable", 7: "abstract too short", 8: "abstract too long", 9: "no abstract",
    }
    detail = dict(zip(result.quarantine["position"], result.quarantine["detail"]))
    assert "Smarch" in detail[4] and "line 66" in detail[6] and "20,001" in detail[8]
    assert all(isinstance(d, str) and " (in " in d or d.startswith("in ") for d in detail.values())  # what, and where
    assert detail[2].startswith("the record has no title (in ") and detail[1].startswith("the record has no abstract")
    assert result.quarantine.set_index("position").loc[6, "line"] == 66
    assert result.counts(len(df)) == {"raw records": 10, "papers": 1, "duplicates": 0, "quarantined": 9}


def test_accounting_error_when_a_record_goes_missing():
    df = listings(
        dict(arxiv_id="2501.00010", title="A", abstract=ABSTRACT, announced="2025-01-01"),
        dict(arxiv_id="2501.00011", title="B", abstract=ABSTRACT, announced="2025-01-01"),
    )
    result = clean_listings(df, CFG)
    internal = df.assign(_key=df["source_file"] + "#" + df["position"].astype(str))
    tampered = dataclasses.replace(result, papers=result.papers.iloc[:1])
    with pytest.raises(AccountingError, match="unaccounted"):
        check_accounting(internal, tampered)


def test_input_frame_is_not_modified():
    df = listings(dict(arxiv_id="2501.00010", title="A  $x$", abstract=ABSTRACT + "\n", announced="2025-01-01"))
    before = df.copy(deep=True)
    clean_listings(df, CFG)
    pd.testing.assert_frame_equal(df, before)


def test_empty_listings():
    df = listings(dict(error="empty file (no records)"))
    result = clean_listings(df, CFG)
    assert result.papers.empty and len(result.quarantine) == 1


def test_an_undated_replacement_joins_its_dated_paper_and_is_quarantined_without_one():
    df = listings(
        dict(arxiv_id="2501.00010v1", title="Paper", abstract=ABSTRACT, published="2025-01-01T10:00:00Z"),
        dict(arxiv_id="2501.00010v2", title="Paper, revised", abstract=ABSTRACT, updated="2025-02-03T00:00:00-05:00"),
        dict(arxiv_id="2501.00020v2", title="Never listed here", abstract=ABSTRACT, updated="2025-02-03T00:00:00-05:00"),
        dict(arxiv_id="2501.00030v1", title="Undated twin", abstract=ABSTRACT),
        dict(arxiv_id="2501.00030v2", title="Its only dated record is bad", abstract="  ", published="2025-01-01"),
    )
    result = clean_listings(df, CFG)
    paper = by_id(result).loc["2501.00010"]
    # the revision's text wins; the paper keeps the submission date of its dated listing
    assert paper["title"] == "Paper, revised" and paper["published"] == pd.Timestamp("2025-01-01T10:00:00Z")
    assert result.duplicates["arxiv_id"].tolist() == ["2501.00010v1"]
    reasons = dict(zip(result.quarantine["arxiv_id"], result.quarantine["reason"]))
    assert reasons == {"2501.00020v2": "no date", "2501.00030v1": "no date", "2501.00030v2": "no abstract"}


def test_dates_that_cannot_be_a_listings_date_are_quarantined_never_redated():
    raw = ["2025-03-17 10:00 EST", "1742200000", "2025-02-30", "0001-01-01", "-0001-01-01", "2099-01-01",
           "Mon, 17 Mar 2025 10:00:00 EST", "2025-03-17"]
    df = listings(*[dict(arxiv_id=f"2501.0000{i + 1}", title=f"Title {i}", abstract=ABSTRACT, published=d)
                    for i, d in enumerate(raw)])
    result = clean_listings(df, CFG)
    reasons = result.quarantine.set_index("arxiv_id")[["reason", "detail"]]
    assert reasons.loc["2501.00001", "reason"] == "unparseable date"  # a zone abbreviation ISO does not know
    assert reasons.loc["2501.00002", "reason"] == "unparseable date"  # a bare number is not a date
    assert reasons.loc["2501.00003", "reason"] == "unparseable date"  # no 30 February
    assert reasons.loc["2501.00004", "reason"] == "implausible date"
    assert reasons.loc["2501.00004", "detail"].startswith("date '0001-01-01': before arXiv began (1991-08) (in ")
    assert reasons.loc["2501.00005", "reason"] == "implausible date"  # not 1970
    assert reasons.loc["2501.00006", "detail"].startswith("date '2099-01-01': after tomorrow (in ")
    papers = by_id(result)
    assert papers.loc["2501.00007", "published"] == TS("2025-03-17 15:00", tz="UTC")  # RFC 2822 EST is -05:00
    assert papers.loc["2501.00008", "week"] == "2025-W12"
    assert len(result.papers) + len(result.quarantine) == len(raw)


@pytest.mark.parametrize("raw", ["2025-03-17 10:00 EST", "1742200000", "2025-02-30", "0001-01-01"])
def test_a_file_whose_only_date_is_bad_is_quarantined_not_a_crash(raw):
    result = clean_listings(listings(dict(arxiv_id="2501.00001", title="T", abstract=ABSTRACT, published=raw)), CFG)
    assert result.papers.empty and result.quarantine["reason"].tolist() in (["unparseable date"], ["implausible date"])


def test_clean_killed_before_its_record_runs_again(project, monkeypatch):
    cfg = config.load(project)
    ingest.run(cfg)
    clean.run(cfg)
    # new input; clean writes its tables, then is killed before clean.json
    (project / "data" / "raw" / "extra.csv").write_text(
        "arxiv_id,title,abstract,published\n2501.00009,An extra paper," + ABSTRACT + ",2025-01-02\n")
    ingest.run(cfg)

    def killed(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("pipeline.io.write_json", killed)  # the run record, written last (stage.Step)
    with pytest.raises(KeyboardInterrupt):
        clean.run(cfg)
    monkeypatch.undo()
    result = clean.run(cfg)
    assert result.ran  # not skipped with the old summary
    assert result.counts["raw records"] == len(read_table(cfg.paths.listings, __import__("pipeline.schemas").schemas.Listings))


def test_an_undated_version_does_not_lean_on_an_implausibly_dated_one():
    df = listings(dict(arxiv_id="2501.00001v1", title="T", abstract=ABSTRACT, published="1970-01-01"),
                  dict(arxiv_id="2501.00001v2", title="T", abstract=ABSTRACT))
    result = clean_listings(df, CFG)
    assert result.papers.empty
    assert sorted(result.quarantine["reason"]) == ["implausible date", "no date"]
