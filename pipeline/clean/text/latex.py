"""LaTeX in titles and abstracts turned into readable text: math to Unicode where it can be
(``$\\times$`` -> ×, ``x^2`` -> x²), accents to letters, macros dropped or kept by what they mean;
currency and a tilde meaning "approximately" survive."""

from __future__ import annotations

import re
import unicodedata

from pipeline.clean.text.symbols import SYMBOLS as _SYMBOLS


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


def has_latex_hint(text: str) -> bool:
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
    if not has_latex_hint(text):
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
