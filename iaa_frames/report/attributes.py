"""The "Attributes" section of the report: agreement on per-object attributes.

Shown when the frame declares attribute columns (``df.attrs["iaa_attributes"]``, set by
the readers and the simulator; :func:`iaa_frames.attribute_agreement`): one row per
attribute with its level, Krippendorff's α and its interval, the raw percent agreement
and the pairs of matched objects it rests on, and, with three annotators or more, α per
annotator. Writes ``attributes.csv`` (every cell, long form).
"""

from __future__ import annotations

import html

import pandas as pd

from iaa_frames.frame.schema import ALL
from iaa_frames.measures.attributes import ATTRIBUTES_ATTR, attribute_agreement_from_tables

from .formatting import cell_text, fmt
from .tables import html_table

__all__ = ["ATTRIBUTE_FILES", "attribute_section"]

#: The file the section writes.
ATTRIBUTE_FILES = ("attributes.csv",)


def has_attributes(df) -> bool:
    """Whether ``df`` is a frame that declares attribute columns it holds."""
    names = getattr(df, "attrs", {}).get(ATTRIBUTES_ATTR) or []
    return isinstance(df, pd.DataFrame) and any(n in df.columns for n in names)


def attribute_table(ds) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The section's table (one row per attribute, "(all)" classes and annotators) and
    the reason of every "n/a" in it."""
    cell = ds.sel(label=ALL, annotator=ALL)
    rows, reasons = [], []
    for a in ds["attribute"].values:
        c = cell.sel(attribute=a)
        rows.append(
            {
                "level": str(c["level"].item()),
                "α [95% CI]": cell_text(float(c["alpha"]), float(c["ci_low"]), float(c["ci_high"])),
                "% agreement [95% CI]": cell_text(
                    float(c["percent_agreement"]),
                    float(c["percent_ci_low"]),
                    float(c["percent_ci_high"]),
                ),
                "n pairs": int(c["n_pairs"]),
                "n items": int(c["n_items"]),
            }
        )
        reasons.append({"α [95% CI]": str(c["note"].item())})
    index = pd.Index([str(a) for a in ds["attribute"].values], name="attribute")
    return pd.DataFrame(rows, index=index), pd.DataFrame(reasons, index=index)


def _by_annotator(ds) -> str:
    alpha = ds["alpha"].sel(label=ALL).to_pandas()  # attribute x annotator
    table = alpha.map(fmt).drop(columns=ALL)
    table.columns = [str(c) for c in table.columns]
    return (
        "<p>α per annotator (the pairs of matched objects that involve it): an "
        "annotator well below the others disagrees on that attribute.</p>"
        + html_table(table, index_name="attribute", notes_id="attr-ann-")
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
