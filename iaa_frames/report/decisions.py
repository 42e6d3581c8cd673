"""The report's "Consensus" and "How many more" sections.

Built from the report's pair tables (nothing is matched again): the quality-weighted
consensus of :func:`iaa_frames.decisions.consensus.consensus_from_tables` (how much of it
the annotators support, the objects that need a decision), and from the result's own
intervals, the items a narrower interval needs (the 1/sqrt(n) rate of
:mod:`iaa_frames.decisions.plan`, here from the corpus's bootstrap; ``iaf.plan`` adds the
plan's own uncertainty) with the items to send next (:func:`iaa_frames.next_items`).
"""

from __future__ import annotations

import html
import math

import numpy as np
import pandas as pd

from iaa_frames.decisions.consensus import consensus_from_tables
from iaa_frames.decisions.next_items import interval_gains

from .formatting import plural
from .tables import html_table

__all__ = ["consensus_section", "how_many_section"]

#: Objects whose label margin is below this need a decision.
LOW_MARGIN = 0.5
_TARGETS = (0.05, 0.02)

#: The start of a cell's note that says its interval is not reported (already said by
#: "no interval: ").
_NOT_REPORTED = "interval not reported: "


def _probability(p: float) -> str:
    """``p`` with two decimals, or two significant digits when that would write a positive
    ``p`` as 0.00 (a threshold of 2e-13 read "at least 0.00", yet clusters fell below it)."""
    return f"{p:.2f}" if p == 0 or abs(p) >= 0.005 else f"{p:.2g}"


def consensus_section(df, tables, *, top: int = 10) -> str:
    """HTML of the "Consensus" section.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.simulate(n_items=8, seed=0, annotators={"a": "good", "b": "mislabeler",
    ...                                                   "c": "misser"})
    >>> "weighted by each annotator" in consensus_section(df, iaf.pair_tables(df, n_chance=20))
    True
    """
    c = consensus_from_tables(df, tables)
    objects = c.objects.dropna(subset=["label"])
    n_obj, n_un = len(objects), len(c.unsupported)
    support = objects["support"].astype(int).value_counts().sort_index()
    support_table = pd.DataFrame(
        {"objects": support.to_numpy()}, index=[str(s) for s in support.index]
    )
    split = objects[objects["margin"] < LOW_MARGIN].sort_values("margin", kind="stable")
    below = c.unsupported.sort_values("share", ascending=False, kind="stable")
    members = c.members
    cols = ["item", "label", "labels drawn", "support", "share", "margin", "agreement", "drawn by"]

    def shown(frame, notes_id):
        frame = frame.head(top).copy()
        ids = frame["object_id"].astype(int)
        mine = members[members["cluster"].isin(ids)]  # the shown clusters only
        who = mine.groupby("cluster")["annotator"].agg(", ".join)
        frame["drawn by"] = who.reindex(ids).to_numpy()
        drawn = mine.groupby("cluster")["label"].agg(_labels_drawn)
        frame["labels drawn"] = drawn.reindex(ids).to_numpy()
        frame = frame[cols].reset_index(drop=True)
        reasons = pd.DataFrame("", index=frame.index, columns=frame.columns)
        reasons.loc[frame["agreement"].isna(), "agreement"] = "drawn by one annotator: no pair"
        tie = frame["margin"].to_numpy(float) <= 1e-9
        tie &= frame["labels drawn"].str.contains(",", regex=False).to_numpy(bool)
        reasons.loc[tie, "label"] = (
            "a tie: the labels drawn carry the same weight; the label shown is one of them"
        )
        return html_table(frame, reasons=reasons, notes_id=notes_id)

    p_threshold = c.params.get("p_threshold", float("nan"))
    if np.isfinite(p_threshold):
        rule = (
            f"its probability of being a real object (<em>p_real</em>, from how many of "
            f"those who saw the item drew it, under a mixture fitted to this corpus) at "
            f"least {_probability(p_threshold)}, the threshold that maximises the expected F1"
        )
    else:
        rule = (
            f"drawn by annotators holding at least {c.params['quorum']:g} of the weight of "
            "those who saw the item"
        )
    if c.params.get("note"):  # "auto" fell back to a fixed quorum: say why
        rule += f"; {html.escape(c.params['note'])}"
    if c.params.get("box_fusion") == "robust" and c.params.get("weights") == "quality":
        boxes = (
            "Boxes are the members' coordinates with each annotator's estimated bias of "
            "every edge removed, then their Huber-weighted mean (weights: each annotator's "
            "estimated precision)"
        )
    elif c.params.get("weights") == "quality":
        boxes = (
            "Boxes are the weighted mean of the members' coordinates (weights: each "
            "annotator's estimated precision)"
        )
    else:
        boxes = "Boxes are the mean of the members' coordinates weighted by the given weights"
    text = (
        f"<p>One object per matched cluster, weighted by each annotator's estimated quality "
        f"(<code>iaf.consensus</code>): {plural(n_obj, 'object')} accepted ({rule}), "
        f"{plural(n_un, 'cluster')} below that quorum. {boxes}, labels a "
        "weighted vote; <em>margin</em> is the winner's share of the vote minus the "
        "runner-up's, <em>share</em> the supporters' share of the weight of who saw the "
        "item, <em>agreement</em> the mean IoU of the object's matched pairs.</p>"
    )
    table = html_table(support_table, index_name="annotators who drew it")
    alone = int(support.get(1, 0))
    if alone:  # accepted, yet nobody else drew them: not an agreement
        table += (
            f"<p class=note>{plural(alone, 'accepted object')} drawn by one annotator alone, "
            "who passes the quorum alone: a consensus of one, not an agreement.</p>"
        )
    need = (
        f"<p>Label splits: {plural(len(split), 'accepted object')} with a margin below "
        f"{LOW_MARGIN:g}"
        + (
            f" (the {min(top, len(split))} closest):</p>" + shown(split, "split-")
            if len(split)
            else ".</p>"
        )
    )
    need += f"<p>Below the quorum: {plural(len(below), 'cluster')}" + (
        f" (the {min(top, len(below))} nearest to it):</p>" + shown(below, "quorum-")
        if len(below)
        else ".</p>"
    )
    return text + table + need


def _labels_drawn(labels) -> str:
    """The distinct labels of a cluster's members, the most drawn first: ``"car, bus"``."""
    counts = pd.Series(labels, dtype=object).astype(str).value_counts(sort=False)
    order = sorted(counts.index, key=lambda k: (-counts[k], k))
    return ", ".join(order)


def _model_note(halfwidth: float, cell) -> str:
    """Why the model of :func:`~iaa_frames.decisions.next_items.interval_gains` tells no
    item's gain as a share of its half-width (``""`` when it does)."""
    if np.isfinite(halfwidth) and halfwidth > 0:
        return ""
    if np.isfinite(halfwidth):
        return (
            "no item narrows it: its half-width is already 0 (the within-item distances "
            "do not vary)"
        )
    note = str(cell["note"].sel(component="localization").item()) if "note" in cell else ""
    why = note if note and note != "nan" else "no within-item localization distances"
    return f"no item narrows it: its half-width is undefined ({why})"


def how_many_section(tables, result, *, top: int = 5) -> str:
    """HTML of the "How many more" section.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.simulate(n_items=20, seed=0)
    >>> t = iaf.pair_tables(df, n_chance=200)
    >>> from iaa_frames.core.engine import agreement_from_tables
    >>> "items for" in how_many_section(t, agreement_from_tables(t, n_boot=50))
    True
    """
    cell = result.sel(label="(all)", annotator="(all)")
    n = len(tables.corpus.items)
    rows = {}
    for comp in [str(c) for c in cell["component"].values]:
        hw = 0.5 * float(cell["ci_high"].sel(component=comp) - cell["ci_low"].sel(component=comp))
        row = {"items now": n, "half-width now": hw}
        for target in _TARGETS:
            need = math.ceil(n * (hw / target) ** 2) if np.isfinite(hw) and hw > 0 else np.nan
            row[f"items for ±{target:g}"] = need
        rows[comp] = row
    table = pd.DataFrame(rows).T
    for col in table.columns:
        if col != "half-width now":
            table[col] = table[col].astype("Int64")
    gains, state = interval_gains(tables, "localization")
    names = np.asarray(tables.corpus.items, dtype=object)
    ranked = gains.sort_values(["gain", "n_annotators"], ascending=[False, True])
    best = ranked.head(top)
    model_hw = float(state["halfwidth"])
    model_note = _model_note(model_hw, cell)
    gain = best["gain"].to_numpy(float)
    share = 100 * gain / model_hw if not model_note else np.full(len(gain), np.nan)
    best_table = pd.DataFrame(
        {
            "item": names[best["item"].to_numpy()],
            "annotators now": best["n_annotators"].to_numpy(),
            "narrows it by": [f"{g:.2g} %" if np.isfinite(g) else "n/a" for g in share],
        }
    )
    best_reasons = pd.DataFrame("", index=best_table.index, columns=best_table.columns)
    best_reasons.loc[~np.isfinite(share), "narrows it by"] = (
        model_note or "no gain predicted for this item"
    )
    reasons = pd.DataFrame("", index=table.index, columns=table.columns)
    n_boot = int(result.attrs.get("n_boot", 1) or 0)
    for comp in table.index:
        if np.isfinite(float(table.loc[comp, "half-width now"])):
            continue
        note = str(cell["note"].sel(component=comp).item()) if "note" in cell else ""
        why = (
            "no interval: n_boot=0 (no bootstrap)"
            if n_boot == 0
            else (f"no interval: {note.removeprefix(_NOT_REPORTED)}" if note else "no interval")
        )
        for col in table.columns:
            if col != "items now":
                reasons.loc[comp, col] = why
    for target in _TARGETS:  # a target the corpus already meets is not a plan
        col = f"items for ±{target:g}"
        met = (table["half-width now"].to_numpy(float) <= target) & (reasons[col] == "")
        reasons.loc[met, col] = "reached: the interval is already this narrow with fewer items"
    boot_hw = (
        float(table.loc["localization", "half-width now"])
        if "localization" in table.index
        else np.nan
    )
    against = (
        f", against {boot_hw:.3f} from the bootstrap above: read the gains as shares"
        if np.isfinite(boot_hw)
        else ""
    )
    gain = ranked["gain"].to_numpy(float)
    last = gain[min(top, len(gain)) - 1] if len(gain) else np.nan
    alike = int(np.isclose(gain, last, rtol=1e-9, atol=0).sum()) if np.isfinite(last) else 0
    tie = (
        f"<p class=note>{plural(alike, 'item')} share the gain of the last one shown: "
        "the model tells items apart only by their annotators and units, so any of "
        "them will do.</p>"
        if alike > int((best["gain"].to_numpy(float) == last).sum())
        else ""
    )
    return (
        "<p>The 95 % interval narrows as 1/√n with the number of items n (the same "
        "annotators per item): the items a half-width needs, from the intervals above, "
        "extrapolated from this corpus alone. For a plan from a pilot, with its own "
        "uncertainty, per class or for another number of annotators per item: "
        "<code>iaf.plan(df, target_halfwidth=…)</code>.</p>"
        + html_table(table, index_name="component", reasons=reasons, notes_id="more-")
        + "<p>The items whose next annotation narrows the localization interval most "
        "(<code>iaf.next_items(df, budget=k)</code>): a variance-components model of "
        + (
            f"the within-item distances, whose half-width now is {model_hw:.3f}{against}.</p>"
            if not model_note
            else f"the within-item distances; here {html.escape(model_note)}.</p>"
        )
        + html_table(best_table, index_name=None, reasons=best_reasons, notes_id="next-")
        + tie
    )
