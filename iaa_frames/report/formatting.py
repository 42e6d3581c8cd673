"""Numbers and words as the report writes them: ``0.82``, ``0.82 [0.75, 0.88]``,
``n/a``, ``3 annotators``, ``a, b and 4 more``, ``localization σ``; a name in a sentence
isolated from the words around it (:func:`isolate`).
"""

from __future__ import annotations

import math
import unicodedata

from iaa_frames.explore.views import measure_of, symbol

__all__ = [
    "MAX_ANNOTATORS",
    "cell_text",
    "component_name",
    "fmt",
    "isolate",
    "listing",
    "number",
    "plural",
]

#: Annotators the report lists one by one, the first by their pairs (the per-annotator
#: attribute table; the annotator pairs: pairwise.csv and the heatmaps' choice); the
#: report says which it leaves out, and the tables of pairs grow with its square.
MAX_ANNOTATORS = 50


def fmt(x, digits=2) -> str:
    """A number with ``digits`` decimals; ``n/a`` for NaN or what is not a number.

    Examples
    --------
    >>> fmt(0.8237), fmt(float("nan")), fmt(None), fmt(-0.001)
    ('0.82', 'n/a', 'n/a', '0.00')
    """
    try:
        x = float(x)
    except (TypeError, ValueError):
        return "n/a"
    return number(x, digits) if math.isfinite(x) else "n/a"


def number(x: float, digits: int = 2) -> str:
    """``x`` with ``digits`` decimals, never "-0.00" (a value that rounds to zero has no sign).

    Examples
    --------
    >>> number(-0.004), number(-0.006), number(0.5, 1)
    ('0.00', '-0.01', '0.5')
    """
    text = f"{x:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def cell_text(v, lo, hi) -> str:
    """An agreement with its interval: ``0.82 [0.75, 0.88]``, ``0.82`` without one,
    ``n/a`` when undefined.

    Examples
    --------
    >>> cell_text(0.8237, 0.75, 0.881), cell_text(0.5, float("nan"), float("nan"))
    ('0.82 [0.75, 0.88]', '0.50')
    """
    if not math.isfinite(v):
        return "n/a"
    if math.isfinite(lo) and math.isfinite(hi):
        return f"{number(v)} [{number(lo)}, {number(hi)}]"
    return number(v)


#: Bidirectional classes that reorder the text around them: right-to-left letters and the
#: embedding, override and isolate controls.
_REORDERING = {"R", "AL", "RLE", "LRE", "RLO", "LRO", "PDF", "RLI", "LRI", "FSI", "PDI"}


def isolate(name) -> str:
    """``name`` as it is written in a sentence: between the Unicode isolates FSI and PDI
    when it holds right-to-left letters (Hebrew, Arabic) or bidirectional controls, so
    that the words and numbers after it keep their place; a browser otherwise draws
    ``lowest שלום (-3.83)`` as ``lowest (3.83-) שלום``. Other names are unchanged.

    Examples
    --------
    >>> isolate("car"), isolate("שלום")
    ('car', '\u2068שלום\u2069')
    """
    text = str(name)
    if any(unicodedata.bidirectional(ch) in _REORDERING for ch in text):
        return f"\u2068{text}\u2069"
    return text


def plural(n: int, word: str, plural: str | None = None) -> str:
    """'1 annotator', '3 annotators', '1,200 classes'.

    Examples
    --------
    >>> plural(1, "annotator"), plural(1200, "class", "classes")
    ('1 annotator', '1,200 classes')
    """
    return f"{n:,} {word if n == 1 else (plural or word + 's')}"


def listing(names, limit) -> str:
    """The first ``limit`` names, each isolated (:func:`isolate`), and how many more.

    Examples
    --------
    >>> listing(["a", "b", "c"], 2)
    'a, b and 1 more'
    """
    names = list(names)
    shown = ", ".join(isolate(n) for n in names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def component_name(result, component) -> str:
    """The component and the symbol of its measure: ``"classification α"``.

    Examples
    --------
    >>> import xarray as xr
    >>> component_name(xr.Dataset(), "localization")
    'localization σ'
    """
    return f"{component} {symbol(measure_of(result, component))}"
