"""Mojibake: text decoded with the wrong code page. ftfy repairs the common cases; UTF-8 read as
Windows-1253 (Greek), which ftfy misses, is repaired here."""

from __future__ import annotations

import re
import unicodedata

import ftfy
from ftfy.badness import BADNESS_RE
from ftfy.chardata import CONTROL_CHARS, LIGATURES

# UTF-8 bytes decoded as Windows-1253 (Greek) turn "→" into "β†’" and "链" into "ι“Ύ". ftfy does not
# undo this code page, so runs of non-ASCII characters are re-encoded as cp1253 and decoded as UTF-8
# where, and only where, that yields valid UTF-8 sequences. ftfy then handles Windows-1252, Latin-1
# and the other common cases.
_NON_ASCII_RUN = re.compile(r"[^\x00-\x7f]{2,}")
_MOJIBAKE_CODEPAGE = "cp1253"
# Lead bytes accepted for two-byte sequences: U+0080..U+00FF (symbols, accented Latin) and Greek.
# Other two-byte decodes are too easily produced by genuine Greek text to be trusted.
_TWO_BYTE_LEADS = frozenset({0xC2, 0xC3, 0xCE, 0xCF})

_FTFY_CONFIG = ftfy.TextFixerConfig(
    unescape_html=False,  # done separately, to a fixed point
    uncurl_quotes=False,  # typographic quotes are information, not damage
    fix_character_width=False,
    normalization="NFC",
    explain=False,
)
# Characters that one of ftfy's fixers other than the mojibake detector acts on (C1 controls, line
# breaks, surrogates, terminal escapes, Latin ligatures, control characters).
_FTFY_TRIGGER = re.compile(
    "[\x80-\x9f\r\x1b\u2028\u2029\ud800-\udfff"
    + "".join(re.escape(chr(c)) for c in sorted(set(LIGATURES) | set(CONTROL_CHARS)))
    + "]"
)
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
# Every pattern of ftfy's mojibake detector holds a non-ASCII character and spans at most 7
# characters, so it can only match within this many characters of a non-ASCII run.
_BADNESS_REACH = 8
_FTFY_MAX_SEGMENT = 1_000_000  # ftfy's max_decode_length: longer lines are split differently


def _byte_of(ch: str) -> int | None:
    code = ord(ch)
    if 0x80 <= code <= 0x9F:  # bytes cp1253 leaves undefined come through as C1 controls (WHATWG)
        return code
    try:
        encoded = ch.encode(_MOJIBAKE_CODEPAGE)
    except UnicodeEncodeError:
        return None
    return encoded[0]


def _sequence_length(lead: int) -> int:
    if 0xC2 <= lead <= 0xDF:
        return 2
    if 0xE0 <= lead <= 0xEF:
        return 3
    if 0xF0 <= lead <= 0xF4:
        return 4
    return 0


def _repair_run(run: str) -> str:
    """Decode every cp1253-read UTF-8 sequence in a run, to a fixed point: mojibake of mojibake
    ("ΒΒ©" -> "Β©" -> "©") peels off layer by layer. Each layer shortens the run, so this ends."""
    while True:
        repaired = _repair_layer(run)
        if repaired == run:
            return run
        run = repaired


def _repair_layer(run: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(run):
        lead = _byte_of(run[i])
        length = _sequence_length(lead) if lead is not None else 0
        if length == 2 and lead not in _TWO_BYTE_LEADS:
            length = 0
        if length and i + length <= len(run):
            raw = [lead] + [_byte_of(ch) for ch in run[i + 1 : i + length]]
            if all(b is not None and 0x80 <= b <= 0xBF for b in raw[1:]):
                try:
                    out.append(bytes(raw).decode("utf-8"))
                    i += length
                    continue
                except UnicodeDecodeError:
                    pass
        out.append(run[i])
        i += 1
    return "".join(out)


def _looks_bad(text: str) -> bool:
    """ftfy's mojibake detector, run per line as ftfy does, but only near non-ASCII characters.

    Searching a whole abstract costs about a millisecond; the windows cost microseconds.
    """
    windows: list[list[int]] = []  # [start, end, line start]
    for run in _NON_ASCII.finditer(text):
        line_start = text.rfind("\n", 0, run.start()) + 1
        line_end = text.find("\n", run.end())
        line_end = len(text) if line_end < 0 else line_end + 1
        start = max(run.start() - _BADNESS_REACH, line_start)
        end = min(run.end() + _BADNESS_REACH, line_end)
        if windows and windows[-1][2] == line_start and start <= windows[-1][1]:
            windows[-1][1] = end
        else:
            windows.append([start, end, line_start])
    # A window that starts mid-line may let "^" match where ftfy's would not: a false alarm at
    # worst, which only costs the full ftfy call.
    return any(BADNESS_RE.search(text, 0, end) if start == 0 else BADNESS_RE.search(text[start:end])
               for start, end, _ in windows)


def _ftfy_may_act(text: str) -> bool:
    return len(text) > _FTFY_MAX_SEGMENT or bool(_FTFY_TRIGGER.search(text)) or _looks_bad(text)


def _fix_other_codepages(text: str) -> str:
    """Exactly ``ftfy.fix_text(text, _FTFY_CONFIG)``, skipped where it would only normalise to NFC.

    ftfy fixes a line, normalises it and repeats until nothing changes; where no fixer can act on the
    text nor on its NFC form, that is NFC alone.
    """
    normal = unicodedata.normalize("NFC", text)
    if _ftfy_may_act(normal) or (normal != text and _ftfy_may_act(text)):
        return ftfy.fix_text(text, _FTFY_CONFIG)
    return normal


def repair_mojibake(text: str) -> str:
    """Undo UTF-8 read as Windows-1253, then let ftfy fix the other common code pages."""
    if text.isascii():
        return text
    text = _NON_ASCII_RUN.sub(lambda m: _repair_run(m.group(0)), text)
    return _fix_other_codepages(text)
