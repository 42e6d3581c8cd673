"""The "Attributes" section of the report: agreement on per-object attributes.

Shown when the frame declares attribute columns (``df.attrs["iaa_attributes"]``, set by
the readers and the simulator; :func:`iaa_frames.attribute_agreement`): one row per
attribute with its level, Krippendorff's α and its interval, the raw percent agreement
and the pairs of matched objects it rests on, and, with three annotators or more, α per
annotator. Writes ``attributes.csv`` (every cell, long form).
"""

from __future__ import annotations

import html
import math

import pandas as pd

from iaa_frames.frame.schema import ALL
from iaa_frames.measures.attributes import ATTRIBUTES_ATTR, attribute_agreement_from_tables

from .formatting import MAX_ANNOTATORS, cell_text, fmt, plural
from .tables import html_table

__all__ = ["ATTRIBUTE_FILES", "attribute_section"]

#: The file the section writes.
ATTRIBUTE_FILES = ("attributes.csv",)


def has_attributes(df) -> bool:
    """Whether ``df`` is a frame that declares attribute columns it holds."""
    names = getattr(df, "attrs", {}).get(ATTRIBUTES_ATTR) or []
    return isinstance(df, pd.DataFrame) and any(n in df.columns for n in names)


def _percent_text(v, lo, hi) -> str:
    """A share as a percentage with its interval: ``76 % [73, 79]``; ``n/a`` when
    undefined."""
    if not math.isfinite(v):
        return "n/a"
    if math.isfinite(lo) and math.isfinite(hi):
        return f"{100 * v:.0f} % [{100 * lo:.0f}, {100 * hi:.0f}]"
    return f"{100 * v:.0f} %"


def attribute_table(ds) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The section's table (one row per attribute, "(all)" classes and annotators) and
    the reason of every "n/a" in it."""
    cell = ds.sel(label=ALL, annotator=ALL)
    n_boot = int(ds.attrs.get("n_boot", 1) or 0)
    rows, reasons = [], []
    for a in ds["attribute"].values:
        c = cell.sel(attribute=a)
        alpha = cell_text(float(c["alpha"]), float(c["ci_low"]), float(c["ci_high"]))
        percent = _percent_text(
            float(c["percent_agreement"]), float(c["percent_ci_low"]), float(c["percent_ci_high"])
        )
        note = str(c["note"].item())
        rows.append(
            {
                "level": str(c["level"].item()),
                "α [95% CI]": alpha,
                "agreement [95% CI]": percent,
                "n pairs": int(c["n_pairs"]),
                "n items": int(c["n_items"]),
            }
        )
        no_boot = "no interval: n_boot=0 (no bootstrap)" if n_boot == 0 else "no interval"
        reasons.append(
            {
                "α [95% CI]": _reason(alpha, note or no_boot),
                "agreement [95% CI]": _reason(
                    percent, "no matched pair" if percent == "n/a" else no_boot
                ),
            }
        )
    index = pd.Index([str(a) for a in ds["attribute"].values], name="attribute")
    return pd.DataFrame(rows, index=index), pd.DataFrame(reasons, index=index)


def _reason(text, why) -> str:
    """``why`` for a cell that is "n/a" or has no interval; "" otherwise."""
    return why if (text == "n/a" or "[" not in text) else ""


def _by_annotator(ds) -> str:
    cell = ds.sel(label=ALL).drop_sel(annotator=ALL)
    alpha = cell["alpha"].to_pandas().T  # annotator x attribute
    notes = cell["note"].to_pandas().T
    pairs = cell["n_pairs"].sum("attribute").to_pandas()
    order = sorted(alpha.index, key=lambda a: (-int(pairs[a]), str(a)))
    shown = order[:MAX_ANNOTATORS]
    table = alpha.loc[shown].map(fmt)
    reasons = pd.DataFrame(
        [[notes.loc[a, c] if table.loc[a, c] == "n/a" else "" for c in table.columns]
         for a in shown],
        index=table.index, columns=table.columns,
    )  # fmt: skip
    table.columns = [str(c) for c in table.columns]
    reasons.columns = table.columns
    table.index = [str(a) for a in table.index]
    reasons.index = table.index
    hidden = len(order) - len(shown)
    more = (
        f"<p class=note>{plural(hidden, 'more annotator')} not shown (the first "
        f"{MAX_ANNOTATORS} by matched pairs); attributes.csv holds all.</p>"
        if hidden
        else ""
    )
    return (
        "<p>α per annotator (the pairs of matched objects that involve it), annotators "
        "by their number of pairs: an annotator well below the others disagrees on that "
        "attribute.</p>"
        + html_table(table, index_name="annotator", reasons=reasons, notes_id="attr-ann-")
        + more
    )


def attribute_section(df, tables, *, n_boot: int, seed: int) -> tuple[str, dict]:
    """The section's HTML and its files (``{name: frame}``); ``("", {})`` when the frame
    declares no attributes."""
    if not has_attributes(df):
        return "", {}
    names = [n for n in df.attrs[ATTRIBUTES_ATTR] if n in df.columns]
    ds = attribute_agreement_from_tables(
        tables, names, source=f"df.attrs[{ATTRIBUTES_ATTR!r}]", n_boot=n_boot, seed=seed
    )
    table, reasons = attribute_table(ds)
    intro = (
        "<p>Krippendorff's α of each attribute over the matched objects (the same "
        "matching as the figures above), at its level of measurement (levels: "
        f"{html.escape(ds.attrs['levels'])}), with the raw share of pairs that agree. "
        "attributes.csv holds every class and annotator.</p>"
    )
    body = intro + html_table(table, index_name="attribute", reasons=reasons, notes_id="attr-")
    if ds.sizes["annotator"] - 1 >= 3:
        body += _by_annotator(ds)
    frame = ds.drop_vars(["level_source"]).to_dataframe().reset_index()
    return body, {"attributes.csv": frame}
