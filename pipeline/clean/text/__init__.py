"""Text cleaning for titles, abstracts, authors and comments.

``clean_text`` repairs mojibake, unescapes HTML entities, turns LaTeX into readable text, strips page
chrome, normalises to Unicode NFC and collapses whitespace. It never raises on any ``str`` and is
idempotent: ``clean_text(clean_text(s)) == clean_text(s)``.

What a reader sees, by example::

    "1.49$\\times$ faster, 1.30$-$4.01"    ->  "1.49× faster, 1.30-4.01"
    "$o\\left({n}/{\\log^2 n}\\right)$"    ->  "o(n/log² n)"
    "C. Bal\\'azs", "{\\O}bro"              ->  "C. Balázs", "Øbro"
    "ResiHP lifts speed 1–4Γ—"              ->  "ResiHP lifts speed 1–4×"  (UTF-8 read as cp1253)
    "costs $5 and $10", "by ~2.2%"          ->  unchanged (currency and "approximately" survive)
"""

from __future__ import annotations

import html
import html.entities
import re
import unicodedata


from pipeline.clean.text.latex import has_latex_hint, latex_to_text
from pipeline.clean.text.mojibake import repair_mojibake

__all__ = ["clean_text", "repair_mojibake", "latex_to_text"]


_CHROME = re.compile(
    r"(?im)^[ \t]*(?:abstract click to expand|figure from the paper(?: full image)?|pdf)[ \t]*$"
)
_INVISIBLE = re.compile("[\u200b\u200c\u200d\u2060\ufeff\u00ad]")
# control characters and lone surrogates (which could not even be written as UTF-8)
_CONTROL = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
# Entities need their ";": html.unescape alone would read "&para" in "&parameter" as "¶".
_ENTITY = re.compile(r"&(?:#[0-9]{1,8}|#[xX][0-9a-fA-F]{1,8}|[A-Za-z][A-Za-z0-9]{0,31});")


def _entity(match: re.Match[str]) -> str:
    entity = match.group(0)
    if entity[1] == "#":
        return html.unescape(entity)
    return html.entities.html5.get(entity[1:], entity)


def _unescape_html(text: str) -> str:
    while "&" in text:  # "&amp;lt;" is "<" after two rounds
        unescaped = _ENTITY.sub(_entity, text)
        if unescaped == text:
            break
        text = unescaped
    return text


def _may_have_chrome(text: str) -> bool:
    """A cheap, exact pre-check for _CHROME on ASCII text (IGNORECASE folds some non-ASCII letters,
    such as a dotless "ı", to ASCII ones, so other text always gets the full pattern)."""
    if not text.isascii():
        return True
    lower = text.lower()
    return "pdf" in lower or "abstract click to expand" in lower or "figure from the paper" in lower


def _one_pass(text: str) -> str:
    """Every step once; clean_text repeats this until nothing changes."""
    if _may_have_chrome(text):
        text = _CHROME.sub("", text)
    text = _unescape_html(text)
    text = repair_mojibake(text)
    text = latex_to_text(text)
    if not text.isascii():
        text = unicodedata.normalize("NFC", _INVISIBLE.sub("", text))
    return " ".join(_CONTROL.sub(" ", text).split())


def _settled(text: str) -> bool:
    """True when another pass provably changes nothing, for a pass's output: plain ASCII with nothing
    left to convert. Most fields are such and stop after one pass instead of two."""
    return (
        text.isascii()
        and "&" not in text
        and not has_latex_hint(text)
        and not (len(text) < 40 and _may_have_chrome(text) and _CHROME.match(text))
    )


def clean_text(text: str | None) -> str | None:
    """Clean one field; None stays None. Idempotent and total over ``str``."""
    if text is None:
        return None
    # Each step reaches its own fixed point, but one can feed another ("\$x\$" -> "$x$" -> "x"), so
    # passes repeat until nothing changes: at most four on everything hypothesis has found.
    for _ in range(16):
        cleaned = _one_pass(text)
        if cleaned == text or _settled(cleaned):
            return cleaned
        text = cleaned
    return text
