"""clean_text against the real seed listings and the Kaggle snapshot, then property tests.

Each expected output is what a reader of the rendered page sees, written out in full. Decisions:

* LaTeX: ``1.49$\\times$`` -> ``1.49×``; ``1.30$-$4.01`` -> ``1.30-4.01`` (a hyphen, as one would type
  it, not U+2212); numeric exponents become superscripts (``2^{15}`` -> ``2¹⁵``, ``\\log^2`` -> ``log²``);
  other scripts keep ``^``/``_`` (``Λ_α``); unknown macros read as their name (``\\cgbn{}`` -> ``cgbn``);
  ``\\cite{...}`` goes with the tie or space before it; ````quotes''`` become “quotes”.
* A spaced or leading ``~`` means "approximately" and stays (``by ~2.2%``); ``~`` between words is a
  tie and becomes a space (``Fig.~3``), but ``3~5x`` and ``(r~0)`` keep it.
* ``$`` pairs that hold amounts (``costs $5 and $10``) are not formulas.
"""

from __future__ import annotations

import json
import string
import unicodedata
from pathlib import Path

import ftfy
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.clean import text as textclean
from pipeline.clean.text import clean_text, latex_to_text, mojibake, repair_mojibake

RAW = Path(__file__).parents[2] / "data" / "raw"
DIGEST = RAW / "000_db5e420608efce7d.txt"
API_TEXT = RAW / "001_604093044f557937.txt"
LISTING = RAW / "002_37170d3f66719629.txt"


def _seed(path: Path, snippet: str) -> str:
    """The snippet, after checking that the seed really holds it."""
    assert snippet in path.read_text(encoding="utf-8"), f"{snippet!r} is not in {path.name}"
    return snippet


@pytest.fixture(scope="module")
def snapshot(formats_dir: Path) -> dict[str, dict]:
    path = formats_dir / "arxiv-metadata-oai-snapshot_head200.jsonl"
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return {record["id"]: record for record in records}


# --- mojibake: UTF-8 read as Windows-1253 (seed 002) ------------------------------------------------
@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("ResiHP lifts LLM training speed 1–4Γ— under real GPU failures",
         "ResiHP lifts LLM training speed 1–4× under real GPU failures"),
        ("PPO controller tracks optimal embedding-KV cache ratio at 32 ΞΌs latency, delivering 93-99% "
         "SLOs on 32-node production clusters without H2D b",
         "PPO controller tracks optimal embedding-KV cache ratio at 32 μs latency, delivering 93-99% "
         "SLOs on 32-node production clusters without H2D b"),
        ("browse all of cs.DC β†’ full archive Β· search Β· sub-categories",
         "browse all of cs.DC → full archive · search · sub-categories"),
        ("Formalizing AMM pools as dynamical systems yields replicas that support instant forking and "
         "replay while bounding divergence from the liveι“Ύ.",
         "Formalizing AMM pools as dynamical systems yields replicas that support instant forking and "
         "replay while bounding divergence from the live链."),
    ],
)
def test_cp1253_mojibake_from_the_listing_seed(line: str, expected: str) -> None:
    assert clean_text(_seed(LISTING, line)) == expected


def test_every_line_of_the_listing_seed_loses_its_mojibake() -> None:
    cleaned = [clean_text(line) for line in LISTING.read_text(encoding="utf-8").splitlines()]
    text = "\n".join(cleaned)
    for damage in ("Γ—", "ΞΌ", "β†’", "Β·", "ι“Ύ"):
        assert damage not in text
    assert "1–4×" in text and "32 μs" in text


def test_mojibake_of_mojibake_peels_off_layer_by_layer() -> None:
    # "©" read as cp1253 three times over; found by hypothesis (each pass used to peel one layer only)
    assert clean_text("Β" * 20 + "©") == "©"
    assert clean_text("ΒΒ©") == "©"


def test_latin1_and_windows1252_mojibake_is_left_to_ftfy() -> None:
    assert clean_text("cafÃ© naÃ¯ve") == "café naïve"
    assert clean_text("â€œquotedâ€\x9d and itâ€™s") == "“quoted” and it’s"
    assert repair_mojibake("Ã¼ber") == "über"


@pytest.mark.parametrize(
    "text",
    [
        "Φ(G)",
        "αβγ",
        "μ-law companding",
        "Η γρήγορη καφέ αλεπού πηδάει πάνω από τον τεμπέλη σκύλο.",
        "Ένα μικρό παράδειγμα: Ο Σωκράτης ήταν φιλόσοφος και δάσκαλος στην Αθήνα.",
        "ΟΜΟΣΠΟΝΔΙΑ ΕΛΛΑΔΑΣ — ΑΘΗΝΑ",
        "我们提出了一种新的方法来解决这个问题。",
        "Мы предлагаем новый метод обучения.",
        "Løvenskjold",
        "García-López",
        "Ünal Çelik, Ångström, Øbro, Šrámek, Nguyễn",
        "深層学習による画像認識",
        "a 3×3 kernel, ±0.5 dB, ≤ 7B parameters, 45° and 2 µm",
        "“curly quotes” and ‘single’ ones stay",
    ],
)
def test_genuine_text_passes_through_unchanged(text: str) -> None:
    assert clean_text(text) == text


# --- LaTeX: the API seed (001) ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("snippet", "expected"),
    [
        ("delivering 1.49$\\times$ improvement over non-balancing, while reducing the final inter-rank "
         "imbalance from 1.30$-$4.01 to 1.01$-$1.04.",
         "delivering 1.49× improvement over non-balancing, while reducing the final inter-rank "
         "imbalance from 1.30-4.01 to 1.01-1.04."),
        ("It specifies the role architecture, \\texttt{did:oan} identity objects, registration workflow",
         "It specifies the role architecture, did:oan identity objects, registration workflow"),
        ("integer precisions from $2^{15}$ to $2^{18}$ -- sizes not supported by \\cgbn{} division.",
         "integer precisions from 2¹⁵ to 2¹⁸ – sizes not supported by cgbn division."),
        ("if the second largest eigenvalue is $o(1/\\log^2 n)$ and $K$ is $o\\left({n}/{\\log^2 n}\\right)$, "
         "then w.h.p.\\ DIV converges",
         "if the second largest eigenvalue is o(1/log² n) and K is o(n/log² n), then w.h.p. DIV converges"),
        ("the expected convergence time is "
         "${O}\\left({n\\left(K\\log (Kn)+γ(G) n \\right)}/{Φ(G)^2}\\right)$.",
         "the expected convergence time is O(n(K log (Kn)+γ(G) n )/Φ(G)²)."),
        ("if the graph has conductance $Φ(G)$, the ratio of the average to smallest degree is $γ(G)$",
         "if the graph has conductance Φ(G), the ratio of the average to smallest degree is γ(G)"),
    ],
)
def test_latex_from_the_api_seed(snippet: str, expected: str) -> None:
    assert clean_text(_seed(API_TEXT, snippet)) == expected


# --- LaTeX: the Kaggle snapshot ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("paper", "field", "expected"),
    [
        ("0704.0001", "authors", "C. Balázs, E. L. Berger, P. M. Nadolsky, C.-P. Yuan"),
        ("0704.0001", "title",
         "Calculation of prompt diphoton production cross sections at Tevatron and LHC energies"),
        ("0704.0005", "title", "From dyadic Λ_α to Λ_α"),
        ("0704.0019", "title",
         "Approximation for extinction probability of the contact process based on the Gröbner basis"),
        ("0704.0028", "authors", "Péter E. Frenkel"),
        ("0704.0032", "authors", "A. Esteban-Pretel, R. Tomàs and J. W. F. Valle"),
        ("0704.0049", "authors", "Mikkel Øbro"),
        ("0704.0062", "authors", "Rastislav Šrámek, Broňa Brejová, Tomáš Vinař"),
        ("0704.0073", "title", "A transcendental approach to Kollár's injectivity theorem"),
    ],
)
def test_snapshot_fields(snapshot: dict[str, dict], paper: str, field: str, expected: str) -> None:
    assert clean_text(snapshot[paper][field]) == expected


@pytest.mark.parametrize(
    ("paper", "snippet", "expected"),
    [
        ("0704.0002", "the $(k,\\ell)$-pebble game with colors", "the (k,ℓ)-pebble game with colors"),
        ("0704.0005", "compute the $\\Lambda_{\\alpha}$ norm, $\\alpha\\ge\n0$, using",
         "compute the Λ_α norm, α ≥ 0, using"),
        ("0704.0010", "Djokovi\\'{c}'s and Winkler's relations", "Djoković's and Winkler's relations"),
        ("0704.0011", "$\\Q(\\sqrt{5})$", "Q(√5)"),
        ("0704.0032", "a few$\\times 10^{-5}$.", "a few×10⁻⁵."),
        ("0704.0059", "$P=2.230736 \\pm 0.000010$ days", "P=2.230736 ± 0.000010 days"),
        ("0704.0059", "$R_{\\rm A} = 1.28 \\pm 0.04$ \\rsun", "R_A = 1.28 ± 0.04 rsun"),
        ("0704.0068", "A. Petojevi\\' c verified", "A. Petojević verified"),
        ("0704.0041", "double torus defined in \\cite{hajac} as the", "double torus defined in as the"),
    ],
)
def test_snapshot_abstract_latex(snapshot: dict[str, dict], paper: str, snippet: str, expected: str) -> None:
    assert snippet in snapshot[paper]["abstract"]
    assert clean_text(snippet) == expected


def test_every_snapshot_field_cleans_without_latex_left(snapshot: dict[str, dict]) -> None:
    for record in snapshot.values():
        for field in ("title", "authors", "abstract"):
            cleaned = clean_text(record[field])
            assert clean_text(cleaned) == cleaned
            # a stray "$" survives where the source lost one ("order \cal{O}(\alpha_{s}^2)$ in"),
            # but no formula and no accent macro does
            assert cleaned.count("$") <= 1, cleaned
            assert not any(macro in cleaned for macro in ("\\'", '\\"', "\\alpha", "\\times", "\\pm"))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # what arXiv listings really hold (from the shared daily corpus)
        ("we introduce \\textbf{SCOPE} (Self-evolving Context", "we introduce SCOPE (Self-evolving Context"),
        ("rates from 14.23\\% to 38.64\\%", "rates from 14.23% to 38.64%"),
        ("on GenEval (0.73$\\rightarrow$0.90)", "on GenEval (0.73→0.90)"),
        ("consumption ($17,529\\pm 1,650$ data", "consumption (17,529 ± 1,650 data"),
        ("modules for $N \\times M$ grids", "modules for N × M grids"),
        ("larger datasets ($\\sim$21M samples)", "larger datasets (∼21M samples)"),
        ("outputs scoring $\\geq 0.6$", "outputs scoring ≥0.6"),
        ("in 360{\\deg} rotation and $45^\\circ$", "in 360° rotation and 45°"),
        ("Top-$k$~\\cite{shazeer2017} and Top-$p$~\\cite{huang-2024} routing",
         "Top-k and Top-p routing"),
        ("compared to LlavaGuard\n\\citep{helff2024llavaguard}, GPT-4o", "compared to LlavaGuard, GPT-4o"),
        ("two metrics: {\\it target similarity} and {\\em backdoor attacks}",
         "two metrics: target similarity and backdoor attacks"),
        ("code: $\\href{https://github.com/x/PhaseGen}{\\text{available here}}$.", "code: available here."),
        ("data: $\\href{https://example.github.io/IAUNet/}{\\text{this https URL}}$",
         "data: https://example.github.io/IAUNet/"),
        ("at \\textcolor{red}{https://github.com/x/y}.", "at https://github.com/x/y."),
        ("Biofouling$\\unicode{x2013}$communities", "Biofouling–communities"),
        ("\\ding{182} Current MLLMs", "❶ Current MLLMs"),
        ("(\\r{ho} = 0.34), Fleiss' \\k{appa}, \\c{opyright} 2025 IEEE",
         "(ρ = 0.34), Fleiss' κ, © 2025 IEEE"),
        ("dataset $\\tilde C$, $\\lambda_{\\min}(\\hat{\\Sigma})$, $\\bar\\nu_e$, $A\\not\\equiv s$",
         "dataset C̃, λ_min(Σ̂), ν̄_e, A ≢ s"),
        ("$\\frac{dT}{\\lambda + (N \\wedge T)}$, $\\sqrt{5}$, $\\sqrt{MNT}$",
         "dT/(λ + (N ∧ T)), √5, √(MNT)"),
        ("the task of ``robust dataset distillation''", "the task of “robust dataset distillation”"),
        ("i.e., ''motion events'' to", "i.e., “motion events” to"),
        ("rely on \\eg, \\ie. and \\etal", "rely on e.g., i.e. and et al."),
        ('delimiters like "\\n\\n" in text', 'delimiters like "\\n\\n" in text'),
        ("mAP\\@0.50 and i.i.d.\\@ data", "mAP@0.50 and i.i.d. data"),
        ("Nguy\\~ên and Mikkel {\\O}bro", "Nguyễn and Mikkel Øbro"),
        ("method P(u,\\ Ds)\\ \\rightarrow\\ R\\widehat, where", "method P(u, Ds) → R, where"),
        ("$\\{0,1\\}^n$ and $\\left\\{ x \\right.$", "{0,1}^n and { x"),
    ],
)
def test_latex_as_listings_write_it(text: str, expected: str) -> None:
    assert clean_text(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("improves accuracy by ~2.2% on average", "improves accuracy by ~2.2% on average"),
        ("costs $5 and $10", "costs $5 and $10"),
        ("from $0.398 to $0.228 per call", "from $0.398 to $0.228 per call"),
        ("cost (\\$500 vs. $\\geq$ \\$100,000)", "cost ($500 vs. ≥ $100,000)"),
        ("at just $4 per test", "at just $4 per test"),
        ("Humanoid Policy ~ Human Policy", "Humanoid Policy ~ Human Policy"),
        ("see Fig.~3 and Table~2, by Eric~Granger", "see Fig. 3 and Table 2, by Eric Granger"),
        ("speedups of 1.6~9.8x in (0~9), text similarity (r~0)",
         "speedups of 1.6~9.8x in (0~9), text similarity (r~0)"),
        ("https://www.robots.ox.ac.uk/~vgg/research", "https://www.robots.ox.ac.uk/~vgg/research"),
        ("plain {braces} and x^2 stay in plain text", "plain {braces} and x^2 stay in plain text"),
        ("the model -- trained on 25--26 May --- works", "the model – trained on 25–26 May — works"),
    ],
)
def test_dollars_tildes_and_dashes(text: str, expected: str) -> None:
    assert clean_text(text) == expected


# --- HTML, chrome, whitespace ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("AT&amp;T &lt;b&gt; caf&eacute;", "AT&T <b> café"),
        ("&amp;amp;lt; is two layers deep", "< is two layers deep"),
        ("&#x2192; and &#8594; and &para;", "→ and → and ¶"),
        ("the &parameter and Q&A and R&D stay", "the &parameter and Q&A and R&D stay"),
        ("a&nbsp;b", "a b"),
    ],
)
def test_html_entities(text: str, expected: str) -> None:
    assert clean_text(text) == expected


def test_page_chrome_lines_go_from_the_listing_seed() -> None:
    lines = LISTING.read_text(encoding="utf-8").splitlines()
    start = lines.index("Figure from the paper full image")
    block = "\n".join(lines[start : start + 3])
    assert block.startswith("Figure from the paper full image\nabstract click to expand\nMany important")
    assert clean_text(block).startswith("Many important real-world applications, such as System")


def test_pdf_lines_go_from_the_digest_seed() -> None:
    cleaned = clean_text(DIGEST.read_text(encoding="utf-8"))
    assert " PDF " not in cleaned
    assert cleaned.startswith("Eidola: Modeling Multi-GPU Network Communication Traffic")
    assert "2026-06-14 Eidola addresses" in cleaned


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("PDF", ""),
        ("  pdf  ", ""),
        ("Title\nPDF\nNext", "Title Next"),
        ("We parse PDF files", "We parse PDF files"),
        ("Abstract click to expand", ""),
        ("  spaced\t\tout \n text\u00a0here\u200b ", "spaced out text here"),
        ("soft\u00adhyphen and e\u0301 composed", "softhyphen and é composed"),
        ("bell\x07 and nul\x00 and tab\tand form\x0cfeed", "bell and nul and tab and form feed"),
        ("wait\x85", "wait…"),  # ftfy: a C1 "next line" is Windows-1252's ellipsis read as Latin-1
        ("", ""),
    ],
)
def test_chrome_whitespace_and_controls(text: str, expected: str) -> None:
    assert clean_text(text) == expected


def test_none_stays_none() -> None:
    assert clean_text(None) is None


def test_plain_ascii_takes_the_fast_exit() -> None:
    text = "We study a problem in distributed systems and show a method that works well in practice."
    assert textclean._settled(text)
    for special in ("costs $5", "a \\emph{b}", "a~b", "a--b", "``a''", "a &amp; b", "PDF"):
        assert not textclean._settled(special)


# --- properties ------------------------------------------------------------------------------------
_TOKENS = list("$\\{}^_~&;#-'`\" .,()[]=0123456789abcxyzOikrΞΌΓ—β†’Β·ι“Ύ€Ã©â\n") + [
    "\\times", "&amp;", "&lt;", "&#", "&#x", "&para;", "&#x2192;", "&#0;", "&#xD800;", "&#36;", "&#92;",
    "\\texttt{", "$$", "PDF", "\\hat", "\\hat{", "\\tilde ", "\\bar", "\\not", "\\not\\equiv", "\\unicode{x",
    "\\ding{18", "\\k{appa}", "\\textsuperscript{", "``", "''", "\\left.", "\\left", "\\right", "\\mkern-2mu",
    "\\cite{", "~\\cite{x}", "\\n", "\\textbackslash", "\\frac{", "\\sqrt[", "\\sqrt{", "\\href{", "}{",
    "\\textcolor{", "\\eg", "\\rm ", "\\(", "\\)", "\\[", "\\]", "^{", "^\\circ", "\\log", "\\alpha",
    "\\'", '\\"', "\\v{", "\\i", "\\deg", "\\\\", "\\$", "\\{", "\\%", "--", "---",
    "abstract click to expand", "\u0301", "\u0338", "\x9c", "\u00ad", "ΰ", "Ο", "Β",
]
# LaTeX, HTML and mojibake fragments that interact: escapes that make "$", entities that make "\\".
tricky_text = st.lists(st.sampled_from(_TOKENS), max_size=40).map("".join)
mojibake_text = st.text(alphabet=st.sampled_from(list(
    "ΞΌΓ—β†’Β·ι“Ύ€Ã©âÂ¢£¥§¨ª«¬®¯°±²³´µ¶·¸º»¼½¾¿ÀÁÄÅÆÇÈÉÎÏÐÑÒÓÖ×ØÙÚÜÝÞßàáäåæçèéêëìíîïðñòóöøùúüýþÿ"
    "ΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩαβγδεζηθικλμνξοπρστυφχψωΆΈΉΊΌΎΏάέήίόύώ‘’“”•–—™›‚„…†‡‰‹ВГРСЂвў√≈"
    "\x80\x81\x8d\x8f\x90\x9d\x9c\u0303\u0301\r\n\x1b\ufb01 a1."
)))

# No example database: the tests write nothing into the repository.
PROPERTIES = settings(
    max_examples=300, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
TRICKY = settings(PROPERTIES, max_examples=1000)


def _check_output(text: str) -> str:
    cleaned = clean_text(text)
    assert clean_text(cleaned) == cleaned, "not idempotent"
    assert cleaned == cleaned.strip() and "  " not in cleaned
    assert not any(unicodedata.category(ch) in ("Cc", "Cs") for ch in cleaned), "control or surrogate left"
    cleaned.encode("utf-8")  # no lone surrogates
    return cleaned


@PROPERTIES
@given(st.text())
def test_any_text_cleans_idempotently(text: str) -> None:
    _check_output(text)


@TRICKY
@given(tricky_text)
def test_latex_html_mojibake_soup_cleans_idempotently(text: str) -> None:
    _check_output(text)


@PROPERTIES
@given(mojibake_text)
def test_mojibake_soup_cleans_idempotently(text: str) -> None:
    _check_output(text)


_ASCII_WORDS = st.sampled_from(
    ["$", "\\", "~", "-", "`", "'", "&", ";", "#", "PDF", "pdf", "amp", "lt", " ", "x", "5"]
)
_ASCII = string.ascii_letters + string.digits + string.punctuation + " "


@PROPERTIES
@given(st.lists(_ASCII_WORDS).map("".join) | st.text(alphabet=_ASCII))
def test_settled_text_is_a_fixed_point(text: str) -> None:
    # _settled lets clean_text stop after a pass; for a pass's output (single spaces, no controls)
    # it must never claim a fixed point wrongly
    text = " ".join(text.split())
    if textclean._settled(text):
        assert textclean._one_pass(text) == text


@PROPERTIES
@given(mojibake_text | st.text())
def test_ftfy_shortcut_is_exactly_ftfy(text: str) -> None:
    assert mojibake._fix_other_codepages(text) == ftfy.fix_text(text, mojibake._FTFY_CONFIG)


def _as_cp1253(text: str) -> str:
    """UTF-8 bytes decoded as Windows-1253 the way browsers do: bytes 0x80-0x9F that the code page
    leaves undefined come through as C1 controls."""
    return "".join(bytes([b]).decode("cp1253", errors="ignore") or chr(b) for b in text.encode("utf-8"))


def _repairable(ch: str) -> bool:
    encoded = ch.encode("utf-8")
    # 0xAA is undefined in cp1253 and decodes to U+FFFD: that damage cannot be undone
    lead_ok = encoded[0] in (0xC2, 0xC3, 0xCE, 0xCF) or len(encoded) >= 3
    return lead_ok and 0xAA not in encoded


_REPAIRABLE = st.characters(
    codec="utf-8", categories=["Ll", "Lu", "Lo", "Nd", "Sm", "So", "Sc", "Pd", "Po"], min_codepoint=0xA0
).filter(_repairable)


@PROPERTIES
@given(st.lists(_REPAIRABLE, min_size=1, max_size=5).map("".join))
def test_cp1253_mojibake_is_undone(word: str) -> None:
    assert clean_text(f"a {_as_cp1253(word)} b") == clean_text(f"a {word} b")


def test_latex_to_text_leaves_plain_text_alone() -> None:
    text = "A plain sentence, with (parentheses) and 100% ASCII."
    assert latex_to_text(text) is text
