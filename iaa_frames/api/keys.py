"""Does an agreement result look like item keys that do not line up?

A file-mapping mistake (one annotator's annotations read against other images: an export
keyed by a renumbered image id, a shifted list of file names) makes the annotators of an
"item" look at different images. Nothing then matches more than between unrelated items,
and what matches by luck matches worse than chance pairs do (localization far below 0).
Read as a finding, it says "systematic disagreement"; :func:`item_keys_warning` says that
the keys may be wrong instead, and how to check.

The check reads the image sizes first (``width``, ``height``, if the frame has them):
annotators of one image give it one size, so different sizes on most items are a direct
sign. Then it reads the result, which costs nothing: it goes on only when a sigma
component of the whole corpus is far below chance (:data:`FAR_BELOW`, its interval wholly
below 0; :data:`FAR_BELOW_FEW` without interval) while detection is no better than
chance (annotators who find the same objects have items that line up). Only then does it read the pair tables of the frame
(:func:`iaa_frames.core.engine.memo.entries_for`, kept for the views that follow) to count the
items whose within-item detection distance is at or above the chance mean.

Examples
--------
>>> import iaa_frames as iaf
>>> df = iaf.simulate(n_items=10, seed=0)
>>> item_keys_warning(df, iaf.agreement(df, n_chance=100, n_boot=20)) is None
True
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import xarray as xr

from iaa_frames.errors import ItemKeysWarning
from iaa_frames.frame.schema import ALL
from iaa_frames.settings.parameters import DEFAULTS, MatchSettings

__all__ = ["FAR_BELOW", "FAR_BELOW_FEW", "MOST", "item_keys_warning"]

#: Agreement of the whole corpus at or below which a component is "far below chance"
#: (with its interval wholly below 0). Annotators at chance give about 0 (within 0.02 on
#: 40 items); LVIS with one rater's annotations moved to other images gives localization
#: -0.36 to -1.2.
FAR_BELOW = -0.1
#: The same for a component without interval (it rests on fewer than ``min_ci_items``
#: items): LVIS with one rater's annotations on other images of its own size gives
#: localization -0.35 from 3 items; random annotators about -0.1.
FAR_BELOW_FEW = -0.25
#: Share of items (and of an annotator pair's items) at or below chance that counts as
#: "most".
MOST = 0.5
#: The components whose "(all)" cell is read.
_SIGMA = ("detection", "localization", "overall")


def _far_below(ds: xr.Dataset) -> list[str]:
    """The components far below chance on the whole corpus, if detection is no better
    than chance; [] otherwise."""
    # read from the arrays (xarray's indexing would import dask wherever it is installed)
    comps = [str(c) for c in ds["component"].values]
    at_l = [str(x) for x in ds["label"].values].index(ALL)
    at_a = [str(x) for x in ds["annotator"].values].index(ALL)

    def read(var, c):
        return float(ds[var].values[comps.index(c), at_l, at_a])

    value = {c: read("agreement", c) for c in _SIGMA}
    high = {c: read("ci_high", c) for c in _SIGMA}
    det_low = read("ci_low", "detection")
    # detection no better than chance: its interval reaches 0 (or, without one, <= 0.02)
    chance_level = det_low <= 0.0 if np.isfinite(det_low) else value["detection"] <= 0.02
    if not chance_level:
        return []
    # with an interval: wholly below 0; without one (fewer than min_ci_items items: the
    # few within-item matches of unrelated images), further below
    return [
        c
        for c in _SIGMA
        if value[c] <= FAR_BELOW
        and high[c] < 0.0
        or not np.isfinite(high[c])
        and value[c] <= FAR_BELOW_FEW
    ]


def _items_below(tables, expected: float):
    """(share of items whose annotators are at or below chance on detection, per
    annotator pair (names) the share of its items at or below chance)."""
    w = tables.sets_within
    whole = w[w["label"].to_numpy() == -1]
    below = whole["detection"].to_numpy() >= expected
    per_item = pd.Series(below).groupby(whole["item"].to_numpy()).mean()
    names = np.asarray(tables.corpus.annotators, dtype=object)
    pair = pd.Series(below).groupby(
        [names[whole["annotator_a"].to_numpy()], names[whole["annotator_b"].to_numpy()]]
    )
    return float((per_item >= MOST).mean()) if len(per_item) else np.nan, pair.mean()


def _named(pairs: pd.Series) -> list[str]:
    """The annotators in every pair below chance on most items (all of theirs if none is
    in every one: two annotators cannot be told apart)."""
    bad = [p for p, share in pairs.items() if share > MOST]
    if not bad:
        return []
    every = set(bad[0]).intersection(*map(set, bad[1:]))
    return sorted(every or {a for p in bad for a in p}, key=str)


def _size_mismatch(df: pd.DataFrame):
    """(share of the items of several annotators on which they give the image different
    sizes, the annotators whose size differs from most of the others' on most of their
    items) from the ``width`` and ``height`` columns; (nan, []) without them."""
    if not {"width", "height"} <= set(df.columns):
        return np.nan, []
    sizes = df[["item", "annotator", "width", "height"]].dropna()
    item = pd.factorize(sizes["item"])[0]
    annotator = pd.factorize(sizes["annotator"])[0]
    first = ~pd.Series(item * (annotator.max(initial=0) + 1) + annotator).duplicated().to_numpy()
    sizes, item = sizes[first], item[first]
    n = np.bincount(item)[item]
    sizes, item, n = sizes[n > 1], item[n > 1], n[n > 1]
    if not len(sizes):
        return np.nan, []
    # the (width, height) pairs coded by first appearance, as a MultiIndex's factorize
    # codes them, from each column's codes (no tuples: 1M boxes, 0.46 s -> 0.17 s)
    w = pd.factorize(sizes["width"].to_numpy())[0]
    h = pd.factorize(sizes["height"].to_numpy())[0]
    size = pd.factorize(w.astype(np.int64) * (h.max(initial=0) + 1) + h)[0]
    pair = pd.factorize(item * (size.max(initial=0) + 1) + size)[0]
    same = np.bincount(pair)[pair]
    odd = (n - same) / (n - 1) > MOST  # differs from most of the others
    per_item = pd.Series(size).groupby(item).nunique() > 1
    share_odd = pd.Series(odd).groupby(sizes["annotator"].to_numpy()).mean()
    who = sorted((a for a, v in share_odd.items() if v > MOST), key=str)
    return float(per_item.mean()), who


def item_keys_warning(
    df: pd.DataFrame, ds: xr.Dataset, settings: MatchSettings = DEFAULTS
) -> ItemKeysWarning | None:
    """The warning that the item keys may not line up, or None.

    Parameters
    ----------
    df : pandas.DataFrame
        The annotation frame of the result.
    ds : xarray.Dataset
        Its :func:`iaa_frames.agreement` (the first threshold of a sweep is read).
    settings : MatchSettings
        The parameters it was computed with (for its pair tables).

    Returns
    -------
    ItemKeysWarning or None
        A warning when on most items (:data:`MOST`) of several annotators they give the
        image different sizes (``width``, ``height``: a direct sign, read first); or
        when a sigma component of the corpus is at most :data:`FAR_BELOW`
        with its interval below 0 (:data:`FAR_BELOW_FEW` without interval), detection
        is no better than chance, and on most items
        (:data:`MOST`) the annotators' detection distance is at or above the chance
        mean. Its message names the annotators whose pairs are below chance on most
        items (both of a pair: two annotators cannot be told apart) and how to check.
    """
    if "threshold" in ds.dims:  # a sweep: its first threshold
        ds = ds.isel(threshold=0)
        settings = dataclasses.replace(settings, match_threshold=float(ds["threshold"].values))
    mismatch, odd = _size_mismatch(df)
    if mismatch > MOST:
        return ItemKeysWarning(
            f"on {mismatch:.0%} of the items annotated by several annotators they give the "
            f"image different sizes (width, height), most of all "
            f"{' and '.join(map(str, odd)) or 'every annotator'}: the item keys may not "
            "line up (one annotator's annotations read against other images). Check that "
            "an item holds the same image for every annotator: compare "
            "df.groupby(['item', 'annotator'])[['width', 'height']].first().unstack(), "
            "and look at one item with iaf.plot.item(df, item).",
            annotators=odd,
            share=mismatch,
        )
    if not {"ci_high", "expected"} <= set(ds.data_vars) or not _far_below(ds):
        return None
    from iaa_frames.core.engine.memo import entries_for

    far = _far_below(ds)
    expected = float(ds["expected"].sel(component="detection", label=ALL, annotator=ALL))
    tables = entries_for(df, settings)[0].tables
    share, pairs = _items_below(tables, expected)
    if not share > MOST:
        return None
    who = _named(pairs)
    cell = ds.sel(label=ALL, annotator=ALL)
    found = ", ".join(
        f"{c} {float(cell['agreement'].sel(component=c)):.3f} "
        f"[{float(cell['ci_low'].sel(component=c)):.3f}, "
        f"{float(cell['ci_high'].sel(component=c)):.3f}]"
        for c in far
    )
    return ItemKeysWarning(
        f"agreement is far below chance ({found}) and on {share:.0%} of the items the "
        f"annotators are no closer than unrelated items (detection), most of all the pairs "
        f"of {' and '.join(map(str, who)) or 'every annotator'}: the item keys may not "
        "line up (one annotator's annotations read against other images). Check that an "
        "item holds the same image for every annotator: compare "
        "df.groupby('annotator').item.unique() and the image sizes or file names per "
        "item, and look at one item with iaf.plot.item(df, item).",
        annotators=who,
        share=share,
    )
