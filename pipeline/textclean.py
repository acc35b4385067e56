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

import ftfy
from ftfy.badness import BADNESS_RE
from ftfy.chardata import CONTROL_CHARS, LIGATURES

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


# --- LaTeX ---------------------------------------------------------------------------------------
_SYMBOLS = {
    "times": "×", "cdot": "·", "pm": "±", "mp": "∓", "approx": "≈", "simeq": "≃", "sim": "∼",
    "leq": "≤", "le": "≤", "geq": "≥", "ge": "≥", "neq": "≠", "ne": "≠", "ll": "≪", "gg": "≫",
    "leqslant": "≤", "geqslant": "≥", "lesssim": "≲", "gtrsim": "≳", "cong": "≅", "div": "÷",
    "infty": "∞", "rightarrow": "→", "to": "→", "leftarrow": "←", "gets": "←", "Rightarrow": "⇒",
    "Leftarrow": "⇐", "leftrightarrow": "↔", "Leftrightarrow": "⇔", "mapsto": "↦", "uparrow": "↑",
    "downarrow": "↓", "longrightarrow": "⟶", "longleftarrow": "⟵", "Longrightarrow": "⟹",
    "implies": "⟹", "iff": "⟺", "hookrightarrow": "↪", "in": "∈", "notin": "∉", "ni": "∋",
    "subset": "⊂", "subseteq": "⊆", "supset": "⊃", "supseteq": "⊇", "cup": "∪", "cap": "∩",
    "bigcup": "⋃", "bigcap": "⋂", "setminus": "∖", "emptyset": "∅", "varnothing": "∅",
    "forall": "∀", "exists": "∃", "sum": "∑", "prod": "∏", "int": "∫", "oint": "∮",
    "partial": "∂", "nabla": "∇", "propto": "∝", "ldots": "…", "dots": "…", "cdots": "⋯",
    "vdots": "⋮", "ddots": "⋱", "ell": "ℓ", "hbar": "ℏ", "aleph": "ℵ", "circ": "∘", "bullet": "•",
    "degree": "°", "star": "⋆", "ast": "∗", "oplus": "⊕", "ominus": "⊖", "otimes": "⊗",
    "odot": "⊙", "wedge": "∧", "land": "∧", "vee": "∨", "lor": "∨", "neg": "¬", "lnot": "¬",
    "equiv": "≡", "perp": "⊥", "parallel": "∥", "prime": "′", "top": "⊤", "bot": "⊥",
    "models": "⊨", "vDash": "⊨", "vdash": "⊢", "prec": "≺", "succ": "≻", "preceq": "⪯",
    "succeq": "⪰", "triangleq": "≜", "coloneqq": "≔", "langle": "⟨", "rangle": "⟩", "mid": " | ",
    "vert": "|", "lvert": "|", "rvert": "|", "Vert": "‖", "lVert": "‖", "rVert": "‖",
    "lfloor": "⌊", "rfloor": "⌋", "lceil": "⌈", "rceil": "⌉", "checkmark": "✓", "dag": "†",
    "dagger": "†", "ddag": "‡", "ddagger": "‡", "Box": "□", "square": "□", "triangle": "△",
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε",
    "zeta": "ζ", "eta": "η", "theta": "θ", "vartheta": "ϑ", "iota": "ι", "kappa": "κ",
    "varkappa": "ϰ", "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "omicron": "ο", "pi": "π",
    "varpi": "ϖ", "rho": "ρ", "varrho": "ϱ", "sigma": "σ", "varsigma": "ς", "tau": "τ",
    "upsilon": "υ", "phi": "φ", "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω",
    "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π", "Sigma": "Σ",
    "Upsilon": "Υ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω", "ss": "ß", "o": "ø", "O": "Ø",
    "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ", "aa": "å", "AA": "Å", "l": "ł", "L": "Ł",
    "i": "ı", "S": "§", "P": "¶", "copyright": "©", "textcopyright": "©", "textregistered": "®",
    "circledR": "®", "texttrademark": "™", "textdegree": "°", "textmu": "μ", "textemdash": "—",
    "textendash": "–", "textbullet": "•", "textperthousand": "‰", "textpertenthousand": "‱",
    "texteuro": "€", "euro": "€", "pounds": "£", "textquotedblleft": "“", "textquotedblright": "”",
    "textquoteleft": "‘", "textquoteright": "’", "textless": "<", "textgreater": ">",
    "textbar": "|", "textunderscore": "_", "textasciicircum": "^",
    "textbackslash": "\\", "textasciitilde": "~", "LaTeX": "LaTeX", "TeX": "TeX",
}
# Read as these words; a space keeps them apart from a preceding letter ("K\log n" -> "K log n").
_OPERATORS = {
    "log", "ln", "lg", "exp", "sin", "cos", "tan", "cot", "sec", "csc", "sinh", "cosh", "tanh",
    "arcsin", "arccos", "arctan", "max", "min", "sup", "inf", "lim", "limsup", "liminf", "arg",
    "argmax", "argmin", "det", "dim", "ker", "hom", "gcd", "lcm", "Pr", "mod", "bmod", "deg",
}
_TEXT_MODE = {"deg": "°"}  # "360{\deg} rotation": outside math \deg is the degree sign
_SPACING = {"quad", "qquad", "enspace", "thinspace", "medspace", "thickspace", "newline", "linebreak"}
# Macros whose argument is dropped with them; sizing and delimiter macros vanish, their delimiter stays.
_DROP_WITH_ARGUMENT = {
    "cite", "citep", "citet", "citealp", "citeauthor", "citeyear", "parencite", "textcite",
    "autocite", "footcite", "nocite", "ref", "eqref", "autoref", "cref", "Cref", "pageref", "label",
    "footnote", "vspace", "hspace", "phantom", "hphantom", "vphantom", "color", "index",
}
_DROP = {
    "left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr", "biggl", "biggr",
    "Biggl", "Biggr", "middle", "displaystyle", "textstyle", "scriptstyle", "limits", "nolimits",
    "noindent", "centering", "em", "it", "bf", "rm", "tt", "sf", "sc", "sl", "normalfont", "small",
    "large", "Large", "LARGE", "huge", "Huge", "footnotesize", "scriptsize", "tiny", "normalsize",
    "relax", "protect", "mathstrut", "strut", "itshape", "bfseries", "upshape", "ttfamily",
}
_KEEP_ARGUMENT = {
    "text", "textrm", "texttt", "textbf", "textit", "textsc", "textsf", "textup", "textnormal",
    "textmd", "textsl", "emph", "mathrm", "mathbf", "mathit", "mathcal", "mathbb", "mathsf",
    "mathtt", "mathfrak", "mathscr", "mathnormal", "boldsymbol", "bm", "mbox", "hbox", "fbox",
    "operatorname", "underline", "overline", "url", "uline", "textsubscript", "widehat",
    "widetilde", "hat", "tilde", "bar", "vec", "dot", "ddot", "check", "breve", "acute", "grave",
    "mathring", "ensuremath",
}
_ABBREVIATIONS = {
    "eg": "e.g.", "ie": "i.e.", "etal": "et al.", "etc": "etc.", "wrt": "w.r.t.", "vs": "vs.",
    "cf": "cf.", "aka": "a.k.a.", "iid": "i.i.d.",
}
_ACCENTS = {
    "'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303", "=": "\u0304",
    ".": "\u0307", "u": "\u0306", "v": "\u030c", "H": "\u030b", "c": "\u0327", "k": "\u0328",
    "r": "\u030a",
}
_MATH_ACCENTS = {
    "hat": "\u0302", "widehat": "\u0302", "tilde": "\u0303", "widetilde": "\u0303", "bar": "\u0304",
    "overline": "\u0305", "vec": "\u20d7", "dot": "\u0307", "ddot": "\u0308", "check": "\u030c",
    "breve": "\u0306", "acute": "\u0301", "grave": "\u0300", "mathring": "\u030a",
}
_ESCAPED = {"%": "%", "&": "&", "_": "_", "#": "#", "$": "$", "{": "{", "}": "}", ",": " ",
            ";": " ", ":": " ", "!": "", " ": " ", "\\": " ", "/": "", "-": "", "@": "", "|": "‖",
            "~": "~", "^": "^", "'": "'", '"': '"', "`": "`", "=": "=", ".": "."}
_SUPERSCRIPTS = str.maketrans("0123456789+-−", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻")
# ZapfDingbats (pifont's \ding) 172-211: four series of ten circled digits.
_DINGBAT_SERIES = (0x2460, 0x2776, 0x2780, 0x278A)

_ACCENT = re.compile(
    r"""\\(['`^"~=.]|[uvHckr](?![A-Za-z]))\s*"""
    r"""(?:\{\s*(\\[ij](?![A-Za-z])|[^\W\d_])\s*\}|(\\[ij](?![A-Za-z])|[^\W\d_]))"""  # "Nguy\~ên"
)
_MATH_ACCENT = re.compile(
    r"\\(" + "|".join(_MATH_ACCENTS) + r")(?![A-Za-z])\s*"
    r"(?:\{\s*(\\[A-Za-z]+|[^{}\\\s])\s*\}|(\\[A-Za-z]+|[^\W_]))"
)
# Outside math, where "R\widehat, where" is a slip, a hat goes only onto a braced or named base.
_TEXT_MATH_ACCENT = re.compile(
    r"\\(" + "|".join(_MATH_ACCENTS) + r")(?![A-Za-z])\s*"
    r"(?:\{\s*(\\[A-Za-z]+|[^{}\\\s])\s*\}|(\\[A-Za-z]+))"
)
_NOT = re.compile(r"\\not(?![A-Za-z])\s*(?:(\\[A-Za-z]+)|([=<>]))")
_SPECIAL = re.compile(
    r"\\(unicode|ding|textsuperscript)\s*\{\s*([^{}]*?)\s*\}"
    r"|\\(" + "|".join(_ABBREVIATIONS) + r")(?![A-Za-z])(\.?)"
    r"|\\(?:m?kern|mskip|hskip)\s*-?[\d.]+\s*(?:mu|em|ex|pt)?\s?"
)
_INVISIBLE_DELIMITER = re.compile(r"\\(?:left|right|middle|[bB]igg?[lr]?)\s*\.")  # "\right." closes nothing
# Declarations (\rm, \displaystyle) and sizing (\left, \big) vanish with the space that ends them.
_DECLARATION = re.compile(r"\\(?:" + "|".join(sorted(_DROP, key=len, reverse=True)) + r")(?![A-Za-z])\s*")
_DROP_ARGUMENT = re.compile(
    r"\\(?:" + "|".join(sorted(_DROP_WITH_ARGUMENT, key=len, reverse=True)) + r")(?![A-Za-z])"
    r"\*?\s*(?:\[[^\[\]]*\]\s*)*\{[^{}]*\}"
)
_ARG = r"\{((?:[^{}]|\{[^{}]*\})*)\}"  # one argument, itself holding at most one level of braces
_FRAC = re.compile(r"\\[dt]?frac\s*" + _ARG + r"\s*" + _ARG)
_BINOM = re.compile(r"\\[dt]?binom\s*" + _ARG + r"\s*" + _ARG)
_SQRT = re.compile(r"\\sqrt\s*(?:\[([^\[\]{}]*)\])?\s*" + _ARG)
_TWO_ARGUMENTS = ("href", "hyperlink", "textcolor", "colorbox", "foreignlanguage")
_SECOND_ARGUMENT = re.compile(
    r"\\(href|hyperlink|textcolor|colorbox|foreignlanguage)\s*(?:\[[^\[\]]*\])?\s*\{([^{}]*)\}\s*" + _ARG
)
# arXiv's listings replace a link's text by "this https URL"; the address says more.
_PLACEHOLDER_LINK = re.compile(r"\s*(?:\\text\w*\s*\{)?\s*this\s+(?:https?\s+)?(?:URL|link)\s*\}?\s*", re.I)
_MACRO = re.compile(r"\\([A-Za-z]+)\*?(?:\s*\{([^{}]*)\})?")
_NEXT_BRACE = re.compile(r"\s*\{")
# Read by patterns of their own once their arguments are plain, so _MACRO leaves them until then.
_STRUCTURAL = {
    "frac", "dfrac", "tfrac", "binom", "dbinom", "tbinom", "sqrt", "unicode", "ding", "textsuperscript",
}
_ESCAPE = re.compile(r"""\\([%&_#${},;:! \\/\-@|~^'"`=.])""")
_BRACE = re.compile(r"(?<!\\)[{}]")
_ATOM = re.compile(r"(?:[\w.^_′]|\\[A-Za-z]+)+")  # "n", "dT", "\rho_E" stand without parentheses
_RADICAND_ATOM = re.compile(r"\d+(?:\.\d+)?|[^\W\d_]|\\[A-Za-z]+")  # "√5", "√n", "√(MN)"
# $$...$$ and $...$ (a "$" escaped as "\$" neither opens nor closes), \(...\) and \[...\].
_MATH = re.compile(r"\$(?:\$((?:\\.|[^$\\])+?)\$\$|((?:\\.|[^$\\])+?)\$)|\\\((.+?)\\\)|\\\[(.+?)\\\]", re.S)
# "2^{15}" -> "2¹⁵", "\log^2" -> "log²", "10^{-5}" -> "10⁻⁵", "45^\circ" -> "45°", "f^\prime" -> "f′"
_SUPERSCRIPT = re.compile(
    r"(?<!\\)\^\s*(?:\{\s*([+\-−]?\d+)\s*\}|(\d))"
    r"|(?<!\\)\^\s*(?:\{\s*\\(circ|prime)\s*\}|\\(circ|prime)(?![A-Za-z]))"
)
_SCRIPT_BRACES = re.compile(r"([_^])\{([^{}]*)\}")
_MATH_OPERATOR = re.compile(r"(\s*)([×±∓·≤≥≠≈≃∼≪≫≲≳≅→←⇒⇐↔⇔↦⟶⟹⟺∈∉⊂⊆⊃⊇∪∩∖≡≢∝∧∨⊕⊗⊙⪯⪰≺≻⊨⊢÷])(\s*)")
# A tie joins words ("Eric~Granger", "Fig.~3", "Task~6"); "by ~2%" is "approximately", "3~5x" and
# "(0~9)" are ranges, and "r~0" is "r is about 0": those keep their "~".
_TIE = re.compile(r"(?<=[\w.,;:%)\]])~(?!\d)|(?:(?<=[A-Za-z]{2})|(?<=[A-Za-z][.:]))~(?=\d)")
# LaTeX's '' closes a quote, but authors open with it too: "i.e., ''motion events''".
_OPENING_QUOTE = re.compile(r"(?<![^\s(\[])''(?=\S)")


def _has_latex_hint(text: str) -> bool:
    """Whether ``latex_to_text`` could change anything: a formula, a macro, a tie, "--", ``quotes''."""
    return (
        "$" in text or "\\" in text or "~" in text or "--" in text
        or ("`" in text and "``" in text) or "''" in text
    )


def _expand_base(base: str) -> str | None:
    """A single character, or a macro that stands for one ("\\Sigma"), as that character."""
    if not base.startswith("\\"):
        return base
    symbol = {"\\i": "ı", "\\j": "ȷ"}.get(base) or _SYMBOLS.get(base[1:])
    return symbol if symbol is not None and len(symbol) == 1 else None


def _accent(match: re.Match[str]) -> str:
    base = match.group(2) or match.group(3)
    base = {"\\i": "i", "\\j": "j"}.get(base, base)
    return unicodedata.normalize("NFC", base + _ACCENTS[match.group(1)])


def _math_accent(match: re.Match[str]) -> str:
    base = _expand_base(match.group(2) or match.group(3))
    if base is None:
        return match.group(0)
    return unicodedata.normalize("NFC", base + _MATH_ACCENTS[match.group(1)])


def _negated(match: re.Match[str]) -> str:
    base = match.group(2) or _expand_base(match.group(1))
    if base is None:
        return match.group(0)
    return unicodedata.normalize("NFC", base + "\u0338")


def _code_point(spec: str) -> str:
    spec = spec.strip()
    try:
        code = int(spec[1:], 16) if spec[:1] in "xX" else int(spec)
    except ValueError:
        return ""
    if not 0 < code <= 0x10FFFF or 0xD800 <= code <= 0xDFFF or unicodedata.category(chr(code)) == "Cc":
        return ""
    return chr(code)


def _dingbat(spec: str) -> str:
    if not spec.isdigit() or not 172 <= int(spec) <= 211:
        return ""
    series, offset = divmod(int(spec) - 172, 10)
    return chr(_DINGBAT_SERIES[series] + offset)


def _special(match: re.Match[str]) -> str:
    name, argument, abbreviation = match.group(1), match.group(2), match.group(3)
    if name == "unicode":
        return _code_point(argument)
    if name == "ding":
        return _dingbat(argument)
    if name == "textsuperscript":
        return argument.translate(_SUPERSCRIPTS) if re.fullmatch(r"[+\-]?\d+", argument) else argument
    if abbreviation:
        return _ABBREVIATIONS[abbreviation]
    return ""


def _second_argument(match: re.Match[str]) -> str:
    name, first, second = match.groups()
    if name in ("href", "hyperlink") and _PLACEHOLDER_LINK.fullmatch(second):
        return first
    return second


def _grouped(argument: str) -> str:
    argument = argument.strip()
    return argument if _ATOM.fullmatch(argument) else f"({argument})"


def _frac(match: re.Match[str]) -> str:
    return f"{_grouped(match.group(1))}/{_grouped(match.group(2))}"


def _sqrt(match: re.Match[str]) -> str:
    index = (match.group(1) or "").strip()
    root = {"": "√", "2": "√", "3": "∛", "4": "∜"}.get(index, f"{index}√")
    radicand = match.group(2).strip()
    return root + (radicand if _RADICAND_ATOM.fullmatch(radicand) else f"({radicand})")


def _superscript(match: re.Match[str]) -> str:
    digits = match.group(1) or match.group(2)
    if digits:
        return digits.translate(_SUPERSCRIPTS)
    return "°" if (match.group(3) or match.group(4)) == "circ" else "′"


def _macro(match: re.Match[str], math: bool, final: bool = False) -> str:
    name, argument = match.group(1), match.group(2)
    if not final and (
        name in _STRUCTURAL
        or ((argument is None or name in _TWO_ARGUMENTS) and _NEXT_BRACE.match(match.string, match.end()))
    ):
        # An argument still holds macros (\hat{\mathbf{x}} waits for \mathbf{x}), or a pattern of
        # its own reads this macro once its arguments are plain (\frac{\frac{a}{b}}{c}).
        return match.group(0)
    if name in _TWO_ARGUMENTS:  # a call without its second argument: a bare link shows its address
        return argument or "" if name in ("href", "hyperlink") else ""
    if name in _DROP_WITH_ARGUMENT:
        return ""
    if name in _SPACING:
        return " "
    if name in _DROP:
        return argument or ""
    if not math and name in _TEXT_MODE:
        return _TEXT_MODE[name] + (argument or "")
    if name in _SYMBOLS:
        symbol = _SYMBOLS[name]
        return symbol if argument is None else symbol + argument
    if name in _KEEP_ARGUMENT:
        return argument or ""
    if argument and len(name) == 1 and argument.isalpha() and name + argument in _SYMBOLS:
        return _SYMBOLS[name + argument]  # "\k{appa}", "\r{ho}": a macro split by an accent-happy tool
    if name in ("n", "t") and argument is None:
        return match.group(0)  # "\n\n" is an escape sequence that the authors quote
    if name not in _OPERATORS:
        return argument or name  # unknown: "\gls{UltrON}" reads as "UltrON", "\cgbn{}" as "cgbn"
    # An operator is a word of its own: "K\log n" -> "K log n".
    start = match.start()
    before = match.string[start - 1] if start else ""
    return (" " if before.isalnum() else "") + name + (argument or "")


def _drop_arguments(text: str) -> str:
    """Drop "\\cite{x}" and its kin, with the tie or spaces before them: "model~\\cite{x}." -> "model."."""
    pieces = []
    pos = 0
    for match in _DROP_ARGUMENT.finditer(text):
        before = text[pos : match.start()]
        pieces.append((before[:-1] if before.endswith("~") else before).rstrip())
        pos = match.end()
    if not pieces:
        return text
    pieces.append(text[pos:])
    return "".join(pieces)


def _escaped(match: re.Match[str]) -> str:
    char = match.group(1)
    if char == "@" and match.string[match.end() : match.end() + 1].isalnum():
        return "@"  # "mAP\@0.5" is an escaped "@"; "i.i.d.\@ " is LaTeX's end-of-sentence hint
    return _ESCAPED[char]


def _expand_macros(text: str, math: bool, strip_braces: bool) -> str:
    text = _DECLARATION.sub("", _drop_arguments(_INVISIBLE_DELIMITER.sub("", text)))
    # Arguments resolve from the inside out (\textbf{\emph{x}}): a macro whose argument still holds
    # braces waits a round. Every change removes a backslash or shortens the text, so this ends, and
    # the bound is only a guard; what still waits after it is read without waiting.
    for _ in range(64):
        expanded = _ACCENT.sub(_accent, _SPECIAL.sub(_special, text))
        expanded = (_MATH_ACCENT if math else _TEXT_MATH_ACCENT).sub(_math_accent, expanded)
        expanded = _NOT.sub(_negated, expanded)
        expanded = _SECOND_ARGUMENT.sub(_second_argument, expanded)
        expanded = _BINOM.sub(r"(\1 choose \2)", _FRAC.sub(_frac, _SQRT.sub(_sqrt, expanded)))
        expanded = _MACRO.sub(lambda m: _macro(m, math), expanded)
        if expanded == text:
            break
        text = expanded
    text = _MACRO.sub(lambda m: _macro(m, math, final=True), text)
    if strip_braces and ("{" in text or "}" in text):
        text = _BRACE.sub("", text)
    return _ESCAPE.sub(_escaped, text)


def _math_operator(match: re.Match[str]) -> str:
    if match.start() == 0:  # leading, as in "$\sim$21M" or "$\geq 0.6$": tight
        return match.group(2)
    if match.group(1) or match.group(3):
        return f" {match.group(2)} "
    return match.group(2)


def _math(body: str) -> str:
    if "^" in body:
        body = _SUPERSCRIPT.sub(_superscript, body)
    if "{" in body:
        body = _SCRIPT_BRACES.sub(r"\1\2", body)
    body = _expand_macros(body, math=True, strip_braces=True).replace("''", "″")  # f''(x)
    return _MATH_OPERATOR.sub(_math_operator, body)


def _is_currency(match: re.Match[str], text: str) -> bool:
    """'$5 and $10': a span that opens on a digit and closes right before one is two amounts."""
    body = match.group(2)
    return body is not None and body[:1].isdigit() and text[match.end() : match.end() + 1].isdigit()


def _math_spans(text: str) -> list[tuple[int, int, str]]:
    """(start, end, body) of each formula, left to right."""
    spans = []
    pos = 0
    while (match := _MATH.search(text, pos)) is not None:
        start = match.start()
        if (start and text[start - 1] == "\\" and match.group(0)[0] == "$") or _is_currency(match, text):
            pos = start + 1  # an escaped "$" opens nothing; after "$5 and $", "$10" may still open one
            continue
        body = next(g for g in match.groups() if g is not None)
        spans.append((match.start(), match.end(), body))
        pos = match.end()
    return spans


def _text_mode(text: str, latexish: bool) -> str:
    """The text between formulas; ``latexish`` says the whole field shows LaTeX, so braces group."""
    if "\\" in text:
        text = _expand_macros(text, math=False, strip_braces=latexish)
    elif latexish and ("{" in text or "}" in text):
        text = _BRACE.sub("", text)
    if "-" in text:
        text = text.replace("---", "\u2014").replace("--", "\u2013")
    return text


def latex_to_text(text: str) -> str:
    """Turn LaTeX math and macros into readable Unicode: ``$1.49\\times$`` becomes ``1.49×``.

    Braces are read as LaTeX grouping only in text that shows LaTeX (a macro or a formula), so plain
    text keeps its "{...}"; a "~" is a tie only between words, so "~2.2%" keeps its tilde.
    """
    if not _has_latex_hint(text):
        return text
    spans = _math_spans(text) if "$" in text or "\\" in text else []
    latexish = bool(spans) or "\\" in text
    pieces = []
    pos = 0
    for start, end, body in spans:
        pieces.append(_text_mode(text[pos:start], latexish))
        pieces.append(_math(body))
        pos = end
    pieces.append(_text_mode(text[pos:], latexish))
    text = "".join(pieces)
    if "~" in text:
        text = _TIE.sub(" ", text)
    if "''" in text:  # LaTeX's closing quote, also used to open one: "i.e., ''motion events''"
        text = _OPENING_QUOTE.sub("\u201c", text).replace("''", "\u201d")
    return text.replace("``", "\u201c") if "``" in text else text


# --- the rest ------------------------------------------------------------------------------------
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
        and not _has_latex_hint(text)
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
