"""Fonts of the figures: a fallback list with common CJK fonts where installed
(:func:`families`), the width of a text in narrow characters (:func:`columns`, an East
Asian wide character counts two), and one warning per figure for the characters no font
draws (:func:`glyphs_said_once`), instead of matplotlib's warning per character and draw.

Re-exported by :mod:`iaa_frames.plot.style`.
"""

from __future__ import annotations

import contextlib
import functools
import re
import unicodedata
import warnings

from matplotlib import font_manager
from matplotlib.text import Text

from iaa_frames.errors import IAAWarning

__all__ = [
    "FALLBACKS",
    "MissingGlyphWarning",
    "columns",
    "families",
    "glyphs_said_once",
    "missing_characters",
    "no_glyph_warnings",
]

#: Fonts tried, in order, for a character the first font (DejaVu Sans) lacks: common CJK
#: and symbol fonts of Linux, macOS and Windows. Only those installed are used (none is
#: shipped).
FALLBACKS = (
    "Noto Sans CJK JP",
    "Noto Sans CJK SC",
    "Noto Sans CJK TC",
    "Noto Sans CJK KR",
    "Source Han Sans",
    "WenQuanYi Zen Hei",
    "WenQuanYi Micro Hei",
    "Droid Sans Fallback",
    "IPAGothic",
    "Hiragino Sans",
    "PingFang SC",
    "Microsoft YaHei",
    "Yu Gothic",
    "Malgun Gothic",
    "SimHei",
    "Noto Sans Symbols 2",
    "Segoe UI Symbol",
    "Segoe UI Emoji",
)

#: matplotlib's warning for a character its fonts lack.
_GLYPH = re.compile(r"Glyph (\d+) .*missing from font")


class MissingGlyphWarning(IAAWarning):
    """Some text of a figure has characters no installed font draws (they show as boxes)."""


def columns(text) -> int:
    """Width of ``text`` in narrow characters: an East Asian wide or full-width character
    (CJK, most emoji) counts two, a combining mark none.

    Examples
    --------
    >>> columns("car"), columns("中文"), columns("e\u0301")
    (3, 4, 1)
    """
    return sum(
        0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
        for ch in str(text)
    )


@functools.cache
def _installed() -> tuple[str, ...]:
    names = {f.name for f in font_manager.fontManager.ttflist}
    return tuple(name for name in FALLBACKS if name in names)


def families() -> list[str]:
    """The ``font.family`` of the figures: the default sans-serif font, then the installed
    fonts of :data:`FALLBACKS` (matplotlib takes a character from the first that has it).

    Examples
    --------
    >>> families()[0]
    'sans-serif'
    """
    return ["sans-serif", *_installed()]


@functools.cache
def _charmap(path: str) -> frozenset:
    return frozenset(font_manager.get_font(path).get_charmap())


def _covered() -> list[frozenset]:
    out = []
    for family in families():
        prop = font_manager.FontProperties(family=[family])
        with contextlib.suppress(ValueError):
            out.append(_charmap(font_manager.findfont(prop, fallback_to_default=False)))
    return out


def missing_characters(text) -> str:
    """The characters of ``text`` that no font of :func:`families` draws (empty: all
    drawn), each once, in order.

    Examples
    --------
    >>> missing_characters("car")
    ''
    """
    maps = _covered()
    out = []
    for ch in dict.fromkeys(str(text)):
        if ch.isspace() or unicodedata.category(ch).startswith("C"):
            continue
        if not any(ord(ch) in m for m in maps):
            out.append(ch)
    return "".join(out)


@contextlib.contextmanager
def no_glyph_warnings():
    """Drop matplotlib's "Glyph … missing from font(s)" warnings (text measured before the
    figure is drawn: :func:`glyphs_said_once` says it then)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .*missing from font")
        yield


@contextlib.contextmanager
def glyphs_said_once(fig):
    """Drop matplotlib's "Glyph … missing from font(s)" warnings while ``fig`` is drawn or
    measured, and say once per figure (a :class:`MissingGlyphWarning`) which of its texts
    have characters no installed font draws; other warnings pass on."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    missing = set()
    for w in caught:
        found = _GLYPH.search(str(w.message))
        if found:
            missing.add(chr(int(found.group(1))))
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)
    if not missing or getattr(fig, "glyphs_said", False):
        return
    fig.glyphs_said = True  # an attribute of the Figure subclass of the plots
    texts = sorted(
        {
            t.get_text().strip()
            for t in fig.findobj(Text)
            if any(ch in missing for ch in t.get_text())
        }
    )
    named = "; ".join(repr(t if len(t) <= 40 else t[:39] + "…") for t in texts[:6])
    more = f" and {len(texts) - 6} more" if len(texts) > 6 else ""
    warnings.warn(
        f"no installed font has the characters {''.join(sorted(missing))!r} (drawn as boxes) "
        f"of {named}{more}; install a font that has them (e.g. Noto Sans CJK) to draw them",
        MissingGlyphWarning,
        stacklevel=4,
    )
