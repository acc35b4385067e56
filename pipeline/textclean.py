"""Text cleaning for titles, abstracts, authors and comments.

``clean_text`` repairs mojibake, unescapes HTML entities, turns LaTeX into readable text, strips page
chrome, normalises to Unicode NFC and collapses whitespace. It never raises on any ``str`` and is
idempotent: ``clean_text(clean_text(s)) == clean_text(s)``.
"""

from __future__ import annotations

import html
import re
import unicodedata

import ftfy

__all__ = ["clean_text", "repair_mojibake", "latex_to_text"]

# --- mojibake ------------------------------------------------------------------------------------
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


def _byte_of(ch: str) -> int | None:
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


def repair_mojibake(text: str) -> str:
    """Undo UTF-8 read as Windows-1253, then let ftfy fix the other common code pages."""
    if text.isascii():
        return text
    text = _NON_ASCII_RUN.sub(lambda m: _repair_run(m.group(0)), text)
    return ftfy.fix_text(text, _FTFY_CONFIG)


# --- LaTeX ---------------------------------------------------------------------------------------
_SYMBOLS = {
    "times": "×", "cdot": "·", "pm": "±", "mp": "∓", "approx": "≈", "simeq": "≃", "sim": "∼",
    "leq": "≤", "le": "≤", "geq": "≥", "ge": "≥", "neq": "≠", "ne": "≠", "ll": "≪", "gg": "≫",
    "infty": "∞", "rightarrow": "→", "to": "→", "leftarrow": "←", "gets": "←", "Rightarrow": "⇒",
    "Leftarrow": "⇐", "leftrightarrow": "↔", "Leftrightarrow": "⇔", "mapsto": "↦", "uparrow": "↑",
    "downarrow": "↓", "in": "∈", "notin": "∉", "subset": "⊂", "subseteq": "⊆", "cup": "∪",
    "cap": "∩", "emptyset": "∅", "forall": "∀", "exists": "∃", "sum": "∑", "prod": "∏", "int": "∫",
    "partial": "∂", "nabla": "∇", "propto": "∝", "ldots": "…", "dots": "…", "cdots": "⋯",
    "ell": "ℓ", "circ": "∘", "degree": "°", "star": "⋆", "ast": "∗", "oplus": "⊕", "otimes": "⊗",
    "wedge": "∧", "vee": "∨", "neg": "¬", "lnot": "¬", "equiv": "≡", "perp": "⊥", "prime": "′",
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε",
    "zeta": "ζ", "eta": "η", "theta": "θ", "vartheta": "ϑ", "iota": "ι", "kappa": "κ",
    "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π", "rho": "ρ", "sigma": "σ",
    "tau": "τ", "upsilon": "υ", "phi": "φ", "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω",
    "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π", "Sigma": "Σ",
    "Upsilon": "Υ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω", "ss": "ß", "o": "ø", "O": "Ø",
    "ae": "æ", "AE": "Æ", "aa": "å", "AA": "Å", "l": "ł", "L": "Ł", "i": "ı", "S": "§",
    "textbackslash": "\\", "textasciitilde": "~", "LaTeX": "LaTeX", "TeX": "TeX",
}
_SPACING = {"quad", "qquad", "enspace", "thinspace", "medspace", "thickspace", "newline", "linebreak"}
# Macros whose argument is dropped with them; sizing and delimiter macros vanish, their delimiter stays.
_DROP_WITH_ARGUMENT = {"cite", "citep", "citet", "ref", "eqref", "label", "footnote", "vspace", "hspace"}
_DROP = {
    "left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr", "displaystyle",
    "textstyle", "scriptstyle", "limits", "nolimits", "noindent", "centering", "em", "it", "bf",
    "rm", "tt", "sf", "sc", "normalfont", "small", "large", "Large", "footnotesize", "tiny",
    "relax", "protect", "mathstrut", "strut", "phantom",
}
_KEEP_ARGUMENT = {
    "text", "textrm", "texttt", "textbf", "textit", "textsc", "textsf", "textup", "textnormal", "emph",
    "mathrm", "mathbf", "mathit", "mathcal", "mathbb", "mathsf", "mathtt", "mathfrak", "mathscr",
    "boldsymbol", "bm", "mbox", "hbox", "operatorname", "underline", "overline", "url", "uline",
}
_ACCENTS = {
    "'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303", "=": "\u0304",
    ".": "\u0307", "u": "\u0306", "v": "\u030c", "H": "\u030b", "c": "\u0327", "k": "\u0328",
    "r": "\u030a",
}
_ESCAPED = {"%": "%", "&": "&", "_": "_", "#": "#", "$": "$", "{": "{", "}": "}", ",": " ",
            ";": " ", ":": " ", "!": "", " ": " ", "\\": " ", "/": "", "-": ""}

_ACCENT = re.compile(r"""\\(['`^"~=.]|[uvHckr](?![A-Za-z]))\s*(?:\{\s*(\\?[A-Za-z])\s*\}|(\\?[A-Za-z]))""")
_FRAC = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_SQRT = re.compile(r"\\sqrt\s*\{([^{}]*)\}")
_HREF = re.compile(r"\\href\s*\{[^{}]*\}\s*\{([^{}]*)\}")
_MACRO = re.compile(r"\\([A-Za-z]+)\*?(?:\s*\{([^{}]*)\})?")
_ESCAPE = re.compile(r"\\([%&_#${},;:! \\/-])")
_MATH = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$|\\\((.+?)\\\)|\\\[(.+?)\\\]", re.S)
_SCRIPT_BRACES = re.compile(r"([_^])\{([^{}]*)\}")
_TIE = re.compile(r"(?<=[\w.,;:)\]])~(?=[\w(\[])")


def _accent(match: re.Match[str]) -> str:
    base = match.group(2) or match.group(3)
    base = {"\\i": "i", "\\j": "j"}.get(base, base.lstrip("\\"))
    return unicodedata.normalize("NFC", base + _ACCENTS[match.group(1)])


def _macro(match: re.Match[str]) -> str:
    name, argument = match.group(1), match.group(2)
    if name in _DROP_WITH_ARGUMENT:
        return ""
    if name in _SPACING:
        return " "
    if name in _DROP:
        return argument or ""
    if name in _SYMBOLS:
        symbol = _SYMBOLS[name]
        return symbol if argument is None else symbol + argument
    if name in _KEEP_ARGUMENT:
        return argument or ""
    return argument or name  # unknown macros such as \cgbn{} read as their name


def _math(match: re.Match[str]) -> str:
    body = next(g for g in match.groups() if g is not None)
    body = _SCRIPT_BRACES.sub(r"\1\2", body)
    body = _expand_macros(body)
    return body.replace("{", "").replace("}", "")


def _expand_macros(text: str) -> str:
    text = _ACCENT.sub(_accent, text)
    for _ in range(4):  # nested arguments such as \textbf{\emph{x}} resolve from the inside out
        expanded = _HREF.sub(r"\1", _FRAC.sub(r"\1/\2", _SQRT.sub(r"√(\1)", text)))
        expanded = _MACRO.sub(_macro, expanded)
        if expanded == text:
            break
        text = expanded
    return _ESCAPE.sub(lambda m: _ESCAPED[m.group(1)], text)


def latex_to_text(text: str) -> str:
    """Turn LaTeX math and macros into readable Unicode: ``$1.49\\times$`` becomes ``1.49×``."""
    if "$" not in text and "\\" not in text and "~" not in text and "--" not in text:
        return text
    text = _MATH.sub(_math, text)
    text = _expand_macros(text)
    text = _TIE.sub(" ", text)
    return text.replace("---", "\u2014").replace("--", "\u2013")


# --- the rest ------------------------------------------------------------------------------------
_CHROME = re.compile(
    r"(?im)^[ \t]*(?:abstract click to expand|figure from the paper(?: full image)?|pdf)[ \t]*$"
)
_INVISIBLE = re.compile("[\u200b\u200c\u200d\u2060\ufeff\u00ad]")
# control characters and lone surrogates (which could not even be written as UTF-8)
_CONTROL = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


def _unescape_html(text: str) -> str:
    while "&" in text:
        unescaped = html.unescape(text)
        if unescaped == text:
            break
        text = unescaped
    return text


def _one_pass(text: str) -> str:
    text = _CHROME.sub("", text)
    text = _unescape_html(text)
    text = repair_mojibake(text)
    text = latex_to_text(text)
    if not text.isascii():
        text = unicodedata.normalize("NFC", _INVISIBLE.sub("", text))
    return " ".join(_CONTROL.sub(" ", text).split())


def _settled(text: str) -> bool:
    """True when another pass provably changes nothing: plain ASCII with nothing left to convert."""
    return (
        text.isascii()
        and not any(ch in text for ch in "&$\\~")
        and "--" not in text
        and not (len(text) < 40 and _CHROME.match(text))
    )


def clean_text(text: str | None) -> str | None:
    """Clean one field; None stays None. Idempotent and total over ``str``."""
    if text is None:
        return None
    for _ in range(8):  # each step is near-idempotent; iterate to a fixed point to make the whole so
        cleaned = _one_pass(text)
        if cleaned == text or _settled(cleaned):
            return cleaned
        text = cleaned
    return text
