# Over 400 lines: one idea, the per-keypoint agreement: its variables, the cells of the
# skeletons (mirror-aware), and the entry points.
"""Which joints disagree, and whose: per-keypoint agreement of skeletons, per annotator.

:func:`keypoint_agreement` reads the matched object pairs of the normal pipeline (the
pairs whose OKS reached the threshold, within items and, for chance, between items:
:class:`~iaa_frames.core.tables.pairs.PairTables`) and splits them by joint and by annotator
(the sums: :class:`KeypointCells`, below):

* ``localization``: σ of the joint, ``1 - mean within / mean chance`` of ``1 - k_i``,
  ``k_i = exp(-e_i)`` the joint's term of OKS (:mod:`iaa_frames.geometry.kinds.keypoints`),
  over the matched pairs that label it on both sides (chance: the between-item matched
  pairs, as the localization component uses them); ``oks_term`` the mean ``k_i``
  within (raw);
* ``swapped``: of the matched pairs labelling the joint and its left/right mirror on both
  sides, the share where the joint lies nearer the other's mirror joint than the other's
  same joint (a left/right confusion shows here first);
* ``visibility_alpha``: Krippendorff's nominal α over the joint's visibility (absent 0,
  occluded 1, visible 2) on every matched pair (a pair is a unit of two values), and
  ``visibility_agreement`` the raw share of pairs giving the same visibility;
* ``labelled_by_both``: the share of matched pairs labelling the joint on both sides;
  ``n_pairs`` how many do.
* ``mirrored`` (per annotator, dims ``annotator`` only): the share of matched pairs that
  are mirror images of each other, the whole skeleton drawn left/right mirrored. A
  mirror-aware kind (the default, :mod:`iaa_frames.geometry.kinds.keypoints`) matches
  such a skeleton with its original instead of counting two misses, so the mirror shows
  here, and per joint as ``swapped`` (1 on every left/right joint of those pairs) and as
  a lower ``localization`` of the left/right joints, which compare joints by name.

Annotator "(all)" pools every pair; an annotator's column keeps the pairs that involve
it, within and chance (each annotator against the others, as
:func:`iaa_frames.agreement` does). ``localization``, ``swapped`` and ``visibility_alpha``
carry cluster-bootstrap intervals over items (``*_ci_low``, ``*_ci_high``: the engine's
interval, :mod:`iaa_frames.stats.cell_intervals`).

The sums
--------
The sums behind the per-keypoint breakdown: joints x annotators, per item.

The matched object pairs of the pair tables whose two objects are skeletons of one kind
are split by joint. Joints take the place of the engine's label cells
(:class:`~iaa_frames.core.engine.cells.CellLayout` with ``K - 1`` "classes": cell
``joint * G + group``, group 0 "(all)" and ``1 + annotator``), so every statistic of
every (joint, annotator) cell is a sum of rows per item, and a bootstrap replicate is one
sparse product (:mod:`iaa_frames.stats.bootstrap`):

* localization: one within row per (matched pair, joint labelled on both sides), of
  distance ``1 - k_j`` (``k_j`` the joint's term of OKS), and one chance row per
  (between-item matched pair, joint labelled on both sides), in the
  :class:`~iaa_frames.core.engine.sigma.SigmaCells` of the engine; a chance row counts in the
  cells of the strata that drew it (:func:`iaa_frames.core.engine.rows.chance_membership`:
  the uniform stratum for "(all)", the uniform stratum and the annotator's own for an
  annotator);
* visibility: every (matched pair, joint) is a unit of two values (absent 0, occluded
  1, visible 2), in the :class:`~iaa_frames.measures.attributes.AttributeCells` of
  nominal α, the joint as its class;
* swapped: per (matched pair, left/right joint labelled with its mirror on both sides),
  whether the joint lies nearer the other's mirror joint than the other's same joint.
* mirrored: per annotator group, the matched pairs that are mirror images of each other
  (:meth:`~iaa_frames.geometry.kinds.KeypointsKind.mirror_matched`: a higher OKS with
  one skeleton's left and right joints exchanged than as labelled).

An annotator's cell keeps the rows of the pairs that involve it (each annotator against
the others), as the engine's cells do.

Examples
--------
>>> import iaa_frames as iaf
>>> from iaa_frames.simulate import KeypointProfile, simulate_keypoints
>>> swaps = KeypointProfile(swap=0.5, swap_joints=("left_knee",))
>>> df = simulate_keypoints(n_items=30, annotators={"a": KeypointProfile(), "b": swaps}, seed=0)
>>> ds = keypoint_agreement(df, n_boot=50)
>>> ds.swapped.sel(annotator="(all)", keypoint=["nose", "left_knee", "left_hip"]).round(1).values.tolist()
[nan, 0.5, 0.0]
>>> ds.swapped.dims
('keypoint', 'annotator')
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp
import xarray as xr

from iaa_frames.core.chance import MIN_CHANCE_UNITS
from iaa_frames.core.engine.assemble import MIN_WITHIN_UNITS, name_order, names_in_order
from iaa_frames.core.engine.cells import (
    NO_VARIATION,
    CellLayout,
    items_per_column,
    mean_of,
    per_item,
)
from iaa_frames.core.engine.resolve import tables_of
from iaa_frames.core.engine.result import interval_notes, notes
from iaa_frames.core.engine.rows import Chance, Rows, chance_membership, chance_with_aligned
from iaa_frames.core.engine.sigma import SigmaCells
from iaa_frames.errors import ParameterError
from iaa_frames.frame.schema import ALL
from iaa_frames.geometry.kinds import KeypointsKind, get_kind
from iaa_frames.settings.parameters import (
    DEFAULT_N_BOOT,
    DEFAULTS,
    MatchSettings,
    check_int,
    checked_settings,
)
from iaa_frames.settings.validation import OneOf, validate_params
from iaa_frames.stats.bootstrap import ItemSums
from iaa_frames.stats.cell_intervals import cell_intervals, interval_attrs
from iaa_frames.stats.intervals import CI_METHODS, MIN_CI_ITEMS

from .attributes import AttributeCells

__all__ = [
    "MIRRORED",
    "NOTE_DESCRIPTION",
    "VARIABLES",
    "keypoint_agreement",
    "keypoint_agreement_from_tables",
    "KeypointCells",
    "mirror_of",
]


_CELL = (
    "An annotator's cell keeps the matched pairs that involve it (within and chance); "
    "'(all)' pools every pair."
)
_INTERVAL = (
    "cluster-bootstrap interval over items (groups of items with a group column), BCa "
    "with the engine's corrected width by default (ci_method, ci_level and n_boot in the "
    "Dataset attrs). NaN when n_boot is 0, the estimate is NaN or the cell rests on "
    f"fewer than {MIN_CI_ITEMS} items."
)


def _bounds(name: str, what: str, items: str) -> dict:
    return {
        f"{name}_ci_low": (f"lower confidence bound of {what}", "Lower bound of the " + _INTERVAL),
        f"{name}_ci_high": (
            f"upper confidence bound of {what}",
            f"Upper bound of the {_INTERVAL} Items: {items}",
        ),
    }


#: The variables of the per-keypoint result (:func:`iaa_frames.keypoint_agreement`):
#: name -> (long_name, description), in Dataset order.
VARIABLES = {
    "localization": (
        "chance-corrected localization (σ)",
        "Sigma of the joint: 1 - within / chance, the mean of 1 - k_j (k_j = exp(-e_j), the "
        "joint's term of OKS) over the matched object pairs that label the joint on both "
        "sides, against the same over the between-item (chance) matched pairs. 1 perfect, "
        "0 chance, < 0 systematic disagreement. NaN when undefined (`note` says why). " + _CELL,
    ),
    **_bounds("localization", "localization", "those of `n_items`."),
    "within": (
        "observed disagreement",
        "Mean 1 - k_j over the cell's within-item matched pairs labelling the joint on both sides.",
    ),
    "chance": (
        "expected disagreement",
        "Mean 1 - k_j over the cell's between-item (chance) matched pairs labelling the "
        "joint on both sides (the uniform stratum for '(all)', the uniform and the "
        "annotator's own stratum for an annotator, as the localization component).",
    ),
    "oks_term": (
        "mean OKS term (raw)",
        "Mean k_j over the cell's within-item matched pairs labelling the joint on both "
        "sides: the joint's raw similarity, not chance-corrected.",
    ),
    "swapped": (
        "share of left/right swaps",
        "Of the cell's within-item matched pairs labelling the joint and its left/right "
        "mirror on both sides, the share where the joint lies nearer the other's mirror "
        "joint than the other's same joint. NaN for a joint without a mirror. " + _CELL,
    ),
    **_bounds("swapped", "swapped", "those with such a pair."),
    "visibility_alpha": (
        "visibility agreement (nominal α)",
        "Nominal alpha over the joint's visibility (absent 0, occluded 1, visible 2) on "
        "every within-item matched pair of the cell, a pair being a unit of two values "
        "(an annotator's cell: the coincidences of its pairs). NaN when every value is "
        "the same (no expected disagreement) or there is no pair. " + _CELL,
    ),
    **_bounds("visibility_alpha", "visibility alpha", "those with a matched pair."),
    "visibility_agreement": (
        "raw visibility agreement",
        "Share of the cell's within-item matched pairs giving the joint the same "
        "visibility; not chance-corrected.",
    ),
    "labelled_by_both": (
        "share labelled by both",
        "Share of the cell's within-item matched pairs that label the joint on both sides.",
    ),
    "n_pairs": (
        "within units",
        "Within-item matched pairs of the cell labelling the joint on both sides.",
    ),
    "n_chance": (
        "chance units",
        "Distinct between-item (chance) matched pairs of the cell labelling the joint on "
        "both sides.",
    ),
    "n_items": (
        "items",
        "Items whose within units enter the cell (the items the cluster bootstrap "
        f"resamples); below {MIN_CI_ITEMS} the interval of localization is not reported.",
    ),
}

NOTE_DESCRIPTION = (
    "Why `localization` is NaN in this cell: '' when it is defined; 'too few within "
    "units (n=k)', 'too few chance units (n=k)' or 'no variation: expected disagreement "
    "is 0' (Dataset attrs min_within_units, min_chance_units), as in the main result. A "
    "defined cell on fewer than min_ci_items items says that its interval is not "
    "reported."
)

#: The per-annotator figure of whole-skeleton mirrors (dims ``annotator`` only).
MIRRORED = (
    "share of mirrored skeletons",
    "Of the matched object pairs (within items; an annotator's cell those involving it), "
    "the share that are mirror images of each other: a higher OKS with one skeleton's "
    "left and right joints exchanged than as labelled (the whole skeleton drawn "
    "left/right mirrored). A mirror-aware kind matches them (they are not counted as "
    "misses); their left/right joints show as swapped. NaN without matched pairs.",
)


#: Visibility codes (COCO's ``v``): absent, occluded, visible.
N_VISIBILITY = 3


def mirror_of(kind: KeypointsKind) -> np.ndarray:
    """Per joint, its left/right mirror joint (itself when it has none).

    Examples
    --------
    >>> from iaa_frames.geometry.kinds import KEYPOINTS
    >>> mirror_of(KEYPOINTS)[:5].tolist()
    [0, 2, 1, 4, 3]
    """
    return np.array(kind.mirror)


@dataclass(frozen=True, eq=False)
class Pairs:
    """Matched pairs of two skeletons of one kind: their item (of side a), annotators
    and parameters (rows of ``shapes.params``), and the rows of the table they come
    from."""

    rows: np.ndarray
    item_a: np.ndarray
    item_b: np.ndarray
    annotator_a: np.ndarray
    annotator_b: np.ndarray
    a: np.ndarray
    b: np.ndarray

    @classmethod
    def of(cls, tables, frame, kind: KeypointsKind, item_columns=("item", "item")):
        shapes = tables.corpus.shapes
        on_kind = shapes.kind_rows()[kind.name]
        oa, ob = frame["object_a"].to_numpy(), frame["object_b"].to_numpy()
        rows = np.flatnonzero(on_kind[oa] & on_kind[ob])
        params = shapes.params[kind.name]

        def col(name):
            return frame[name].to_numpy(np.int64)[rows]

        return cls(
            rows,
            col(item_columns[0]),
            col(item_columns[1]),
            col("annotator_a"),
            col("annotator_b"),
            params[oa[rows]],
            params[ob[rows]],
        )


@dataclass(frozen=True, eq=False)
class KeypointCells:
    """Per-item sums of the per-keypoint breakdown, and its statistics per cell."""

    kind: KeypointsKind
    layout: CellLayout
    localization: SigmaCells
    visibility: AttributeCells
    swapped: ItemSums
    matched: np.ndarray  # matched pairs per annotator group (G,)
    n_chance_pairs: int  # between-item matched pairs of the uniform stratum
    mirrored: np.ndarray  # of them, the pairs of mirror images (G,)

    @classmethod
    def build(cls, tables, kind: KeypointsKind) -> KeypointCells:
        """The cells of ``kind``'s skeletons in ``tables``
        (:class:`~iaa_frames.core.tables.pairs.PairTables`)."""
        corpus = tables.corpus
        n_items, n_ann, k = len(corpus.items), len(corpus.annotators), kind.n_keypoints
        layout = CellLayout(k - 1, n_ann)
        w = Pairs.of(tables, tables.localization_within, kind)
        # the chance pairs, with the aligned units of a thin population (skeletons of
        # other items fitted into this person's box: iaa_frames.core.chance.aligned)
        between, unit_weight = chance_with_aligned(tables)
        c = Pairs.of(tables, between, kind, ("item_a", "item_b"))
        fit = c.rows >= len(tables.localization_between)
        if fit.any():
            boxes = corpus.shapes.boxes[between["object_a"].to_numpy()[c.rows[fit]]]
            b = c.b.copy()
            b[fit] = kind.fit_to_boxes(c.b[fit], boxes)
            c = dataclasses.replace(c, b=b)
        ks, both = kind.point_similarity(w.a, w.b)
        p, j = np.nonzero(both)
        within = Rows(
            w.item_a[p],
            None,
            w.annotator_a[p],
            w.annotator_b[p],
            j[:, None],
            1.0 - ks[p, j],
            ks[p, j],
        )
        cks, cboth = kind.point_similarity(c.a, c.b)
        q, cj = np.nonzero(cboth)
        n_q = len(q)
        one = chance_membership(
            CellLayout(0, n_ann),
            between.iloc[c.rows[q]],
            np.ones(n_q, dtype=bool),
            np.full(n_q, -1),
        ).tocoo()
        data = one.data if unit_weight is None else one.data * unit_weight[c.rows[q]][one.row]
        membership = sp.csr_matrix(
            (data, (one.row, one.col + layout.n_groups * cj[one.row])),
            shape=(n_q, layout.n_cells),
        )
        chance = Chance(c.item_a[q], c.item_b[q], 1.0 - cks[q, cj], membership)
        groups = layout.groups(w.annotator_a, w.annotator_b)
        mirror = kind.mirror_matched(w.a, w.b) if len(w.rows) else np.zeros(0, dtype=bool)
        return cls(
            kind,
            layout,
            SigmaCells.build(layout, n_items, within, chance),
            _visibility_cells(kind, w, n_items, n_ann),
            _swap_sums(kind, layout, w, n_items),
            np.bincount(groups.ravel(), minlength=layout.n_groups).astype(np.float64),
            int(between["in_uniform"].to_numpy(dtype=bool)[c.rows].sum()),
            np.bincount(groups[mirror].ravel(), minlength=layout.n_groups).astype(np.float64),
        )

    @property
    def shape(self) -> tuple[int, int]:
        """(joints, annotator groups) of every statistic."""
        return self.kind.n_keypoints, self.layout.n_groups

    def grid(self, values, skip: int = 0):
        """``(..., n_cells)`` as ``(..., K, G)``, after ``skip`` leading label cells."""
        values = np.asarray(values)
        grid = values.reshape(values.shape[:-1] + (-1, self.layout.n_groups))
        return grid[..., skip:, :]

    def statistics(self, multiplicities=None) -> dict:
        """``localization``, ``visibility_alpha``, ``visibility_agreement`` and
        ``not_swapped`` (``1 - swapped``, an agreement bounded by 1) of every (joint,
        annotator group): ``(K, G)``, or ``(b, K, G)`` for a block of multiplicities."""
        _, _, sigma = self.localization.statistics(multiplicities)
        vis = self.visibility.statistics(multiplicities)
        n = self.layout.n_cells
        s = self.swapped.total(multiplicities)
        return {
            "localization": self.grid(sigma),
            "visibility_alpha": self.grid(vis["alpha"], skip=1),
            "visibility_agreement": self.grid(vis["percent_agreement"], skip=1),
            "not_swapped": self.grid(1.0 - mean_of(s[..., n:], s[..., :n])),
        }

    def point_values(self) -> dict:
        """The point estimates and counts of every (joint, annotator group)."""
        loc = self.localization
        observed, expected, _ = loc.statistics()
        n_pairs, n_chance = loc.counts()
        n_pairs = self.grid(n_pairs)
        return {
            "within": self.grid(observed),
            "chance": self.grid(expected),
            "oks_term": self.grid(loc.raw_iou()),
            "n_pairs": n_pairs,
            "n_chance": self.grid(n_chance),
            "n_items": self.grid(loc.item_counts()),
            "labelled_by_both": mean_of(n_pairs, self.matched[None, :]),
            "visibility_items": self.grid(self.visibility.n_items, skip=1),
            "swap_items": self.grid(
                items_per_column(self.swapped.matrix, slice(0, self.layout.n_cells))
            ),
        }


def _visibility_cells(kind, w: Pairs, n_items: int, n_ann: int) -> AttributeCells:
    """Nominal α cells of the visibilities: every (pair, joint) a unit of two values,
    the joint its class (label cells 0 "every joint", ``1 + joint``)."""
    m, k = len(w.rows), kind.n_keypoints
    va, vb = kind.split(w.a)[2], kind.split(w.b)[2]
    unit = np.arange(m * k)
    units = pd.DataFrame(
        {
            "item": np.tile(np.repeat(w.item_a, k), 2),
            "annotator": np.concatenate([np.repeat(w.annotator_a, k), np.repeat(w.annotator_b, k)]),
            "label": np.tile(np.arange(k), 2 * m),
            "cluster": np.tile(unit, 2),
        }
    )
    values = np.concatenate([va.ravel(), vb.ravel()]).astype(np.int64)
    return AttributeCells.build(
        CellLayout(k, n_ann), n_items, units, values, level="nominal", n_categories=N_VISIBILITY
    )


def _swap_sums(kind, layout: CellLayout, w: Pairs, n_items: int) -> ItemSums:
    """Per item, [pairs | swapped pairs] of every cell: the pairs labelling a left/right
    joint and its mirror on both sides, and those where the joint lies nearer the
    other's mirror joint than the other's same joint."""
    xa, ya, va, _ = kind.split(w.a)
    xb, yb, vb, _ = kind.split(w.b)
    mirror = mirror_of(kind)
    own = (xa - xb) ** 2 + (ya - yb) ** 2
    cross = (xa - xb[:, mirror]) ** 2 + (ya - yb[:, mirror]) ** 2
    ok = (va > 0) & (vb > 0) & (va[:, mirror] > 0) & (vb[:, mirror] > 0)
    ok &= (mirror != np.arange(kind.n_keypoints))[None, :]
    p, j = np.nonzero(ok)
    member = layout.membership(j[:, None], layout.groups(w.annotator_a[p], w.annotator_b[p]))
    crossed = (cross[p, j] < own[p, j]).astype(np.float64)
    return ItemSums(per_item(w.item_a[p], n_items, [np.ones(len(p)), crossed], member))


def _kind_of(tables, kind) -> KeypointsKind:
    present = [
        get_kind(n)
        for n, rows in tables.corpus.shapes.kind_rows().items()
        if isinstance(get_kind(n), KeypointsKind) and rows.any()
    ]
    if kind is not None:
        kind = get_kind(kind) if isinstance(kind, str) else kind
        if not isinstance(kind, KeypointsKind):
            raise ParameterError(f"kind must be a keypoints kind; got {kind!r}")
        if kind not in present:
            raise ParameterError(f"the frame holds no skeleton of the kind {kind.name!r}")
        return kind
    if len(present) != 1:
        raise ParameterError(
            "keypoint_agreement needs the frame's one keypoints kind; "
            + (
                "it holds none (no skeleton rows)"
                if not present
                else f"it holds {[k.name for k in present]}: pass kind="
            )
        )
    return present[0]


def _intervals(cells: KeypointCells, out: dict, corpus, *, n_boot, seed, ci_method) -> dict:
    """``*_ci_low``, ``*_ci_high`` of localization, swapped and visibility α."""
    items = {
        "localization": out["n_items"],
        "not_swapped": out["swap_items"],
        "visibility_alpha": out["visibility_items"],
    }
    pair = cells.localization.pair_variance()
    bounds = cell_intervals(
        cells.statistics,
        {"localization": out["localization"], "not_swapped": 1.0 - out["swapped"]}
        | {"visibility_alpha": out["visibility_alpha"]},
        n_items=len(corpus.items),
        cell_items=items,
        n_boot=n_boot,
        seed=seed,
        ci_method=ci_method,
        clusters=corpus.group_codes(),
        n_clusters=corpus.n_groups,
        pair_variance={"localization": cells.grid(pair)},
        width=cells.localization.within.matrix.shape[1],
    )
    low, high = bounds.pop("not_swapped")
    bounds["swapped"] = (np.maximum(1.0 - high, 0.0), 1.0 - low)  # a share of pairs
    return {
        f"{name}_ci_{side}": value
        for name, pair_ in bounds.items()
        for side, value in zip(("low", "high"), pair_, strict=True)
    }


@validate_params({"ci_method": OneOf(CI_METHODS)})
def keypoint_agreement_from_tables(
    tables, *, kind=None, n_boot: int = DEFAULT_N_BOOT, seed: int = 0, ci_method: str = "bca"
) -> xr.Dataset:
    """:func:`keypoint_agreement` of pair tables already computed.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.simulate import KeypointProfile, simulate_keypoints
    >>> df = simulate_keypoints(n_items=60, annotators={"a": KeypointProfile(),
    ...                                                 "b": KeypointProfile()}, seed=0)
    >>> ds = keypoint_agreement_from_tables(iaf.pair_tables(df), n_boot=0)
    >>> float(ds.localization.sel(keypoint="nose", annotator="a"))
    1.0
    """
    n_boot, seed = check_int(n_boot, "n_boot"), check_int(seed, "seed")
    kind = _kind_of(tables, kind)
    corpus = tables.corpus
    cells = KeypointCells.build(tables, kind)
    out = cells.point_values()
    stats = cells.statistics()
    # the rules of the main result's sigma cells: too few within or chance units, no
    # chance disagreement
    counts = {"n_units": out["n_pairs"], "n_chance_units": out["n_chance"]}
    limits = {"min_units": MIN_WITHIN_UNITS, "min_chance": MIN_CHANCE_UNITS}
    out["note"] = notes(expected=out["chance"], min_expected=NO_VARIATION, **counts, **limits)
    defined = out["note"] == ""
    out["localization"] = np.where(defined, stats["localization"], np.nan)
    out["swapped"] = 1.0 - stats["not_swapped"]
    out["visibility_alpha"] = stats["visibility_alpha"]
    out["visibility_agreement"] = stats["visibility_agreement"]
    out.update(_intervals(cells, out, corpus, n_boot=n_boot, seed=seed, ci_method=ci_method))
    few = interval_notes(
        np.where(defined, "", "x").astype(object), n_items=out["n_items"], min_items=MIN_CI_ITEMS
    )
    out["note"] = np.where(defined, few, out["note"]).astype(object)
    order = name_order(corpus.annotators)
    dims = ("keypoint", "annotator")
    data = {}
    for name, (long_name, description) in VARIABLES.items():
        value = out[name][:, order]
        if name.startswith("n_"):
            value = np.rint(np.nan_to_num(value)).astype(np.int64)
        data[name] = (dims, value, {"long_name": long_name, "description": description})
    data["mirrored"] = (
        ("annotator",),
        np.asarray(mean_of(cells.mirrored, cells.matched))[order],
        {"long_name": MIRRORED[0], "description": MIRRORED[1]},
    )
    data["n_mirrored"] = (
        ("annotator",),
        np.rint(cells.mirrored[order]).astype(np.int64),
        {
            "long_name": "mirrored pairs",
            "description": "The matched object pairs counted by mirrored: whole-skeleton "
            "mirror images of each other (an annotator's cell: those involving it).",
        },
    )
    data["note"] = (
        dims,
        out["note"][:, order],
        {"long_name": "reason localization is NaN", "description": NOTE_DESCRIPTION},
    )
    coords = {
        "keypoint": (
            "keypoint",
            np.asarray(kind.keypoints, dtype=object),
            {"long_name": "joint", "description": f"the joints of the skeleton {kind.name!r}"},
        ),
        "annotator": (
            "annotator",
            np.asarray(names_in_order(corpus.annotators, order), dtype=object),
            {
                "long_name": "annotator",
                "description": f"{ALL!r} pools every annotator; an annotator's cell keeps "
                "the matched pairs (within and chance) that involve it",
            },
        ),
    }
    attrs = {
        "title": "iaa_frames keypoint agreement",
        "kind": kind.name,
        **tables.params,
        "n_matched_pairs": int(cells.matched[0]),
        "n_chance_pairs": cells.n_chance_pairs,
        **interval_attrs(n_boot=n_boot, seed=seed, ci_method=ci_method),
        "min_within_units": MIN_WITHIN_UNITS,
        "min_chance_units": MIN_CHANCE_UNITS,
    }
    return xr.Dataset(data, coords=coords, attrs=attrs)


def _keypoint_agreement(
    data,
    *,
    kind=None,
    n_boot: int = DEFAULT_N_BOOT,
    ci_method: str = "bca",
    settings: MatchSettings = DEFAULTS,
) -> xr.Dataset:
    """:func:`keypoint_agreement` with the engine parameters as one checked
    :class:`~iaa_frames.settings.parameters.MatchSettings` (for internal callers)."""
    return keypoint_agreement_from_tables(
        tables_of(data, settings),
        kind=kind,
        n_boot=n_boot,
        seed=settings.seed,
        ci_method=ci_method,
    )


@validate_params({"ci_method": OneOf(CI_METHODS)}, engine=False)
def keypoint_agreement(
    data,
    *,
    kind=None,
    n_boot: int = DEFAULT_N_BOOT,
    ci_method: str = "bca",
    distance="giou",
    match_threshold=0.5,
    n_chance: int = 2000,
    seed: int = 0,
    overall: str = "pooled",
    progress: bool | None = None,
) -> xr.Dataset:
    """Per-joint agreement of the skeletons of a frame, per annotator (module docstring).

    Parameters
    ----------
    data : pandas.DataFrame or PairTables
        A tidy frame with skeletons (:mod:`iaa_frames.geometry.kinds.keypoints`), or its
        pair tables.
    kind : str or KeypointsKind, optional
        The skeleton, when the frame holds several.
    n_boot : int, default 200
        Cluster-bootstrap replicates over items (groups of items with a ``group``
        column) for the ``*_ci_low`` / ``*_ci_high`` bounds (0: none).
    ci_method : {"bca", "percentile"}, default "bca"
        As in :func:`iaa_frames.agreement`.
    distance, match_threshold, n_chance, seed, overall, progress
        As for :func:`iaa_frames.agreement`, passed to
        :func:`~iaa_frames.core.tables.pairs.pair_tables` when ``data`` is a frame (the pair
        tables are shared with it); ``seed`` also seeds the bootstrap.

    Returns
    -------
    xarray.Dataset
        Dims ``keypoint`` (the joints, in the skeleton's order) and ``annotator``
        ("(all)" first, then by name); the variables of :data:`VARIABLES`
        (``localization`` with ``localization_ci_low`` / ``localization_ci_high``,
        ``within``, ``chance``, ``oks_term``, ``swapped`` with its bounds,
        ``visibility_alpha`` with its bounds, ``visibility_agreement``,
        ``labelled_by_both``, ``n_pairs``, ``n_chance``, ``n_items``), each with
        ``long_name`` and ``description``; ``mirrored`` and ``n_mirrored`` (dims
        ``annotator``: matched pairs that are whole-skeleton mirror images); and
        ``note`` (why ``localization`` is NaN,
        or its interval not reported); attrs ``kind``, the engine parameters,
        ``n_matched_pairs``, ``n_boot``, ``ci_method``, ...

    Raises
    ------
    ParameterError
        When the frame holds no skeleton, or several kinds and no ``kind``.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.simulate import KeypointProfile, simulate_keypoints
    >>> careless = KeypointProfile(joint_jitter={"left_wrist": 1.0})
    >>> df = simulate_keypoints(n_items=40, seed=0, annotators={
    ...     "a": KeypointProfile(jitter=0.1), "b": KeypointProfile(jitter=0.1), "c": careless})
    >>> ds = iaf.keypoint_agreement(df, n_boot=50)
    >>> wrist = ds.localization.sel(keypoint="left_wrist")
    >>> wrist.idxmin("annotator").item()
    'c'
    """
    settings = checked_settings(
        distance=distance,
        match_threshold=match_threshold,
        n_chance=n_chance,
        seed=seed,
        overall=overall,
        progress=progress,
    )
    return _keypoint_agreement(
        data, kind=kind, n_boot=n_boot, ci_method=ci_method, settings=settings
    )
