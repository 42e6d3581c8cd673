"""Agreement between kinds of raters: human-human, human-machine, machine-machine.

Readers say who drew an annotation where the format does, in a ``rater_kind`` column:
Label Studio's predictions (``"machine"``) beside its annotations (``"human"``,
:func:`iaa_frames.io.labelstudio.read_labelstudio` with ``predictions=True``), CVAT's
``source`` of a shape (``"manual"`` / ``"semi-auto"``: human, ``"auto"``: machine), Potato's
``origin`` of an annotator (a person: human; a tool or an LLM: machine, its own kind kept
in ``rater_origin``). Any column or mapping of kinds works (``kinds=``).

A cell of :func:`rater_kind_agreement` is a pair of kinds, e.g. (human, machine): it pools
every pair of annotators one of whom is of the first kind and the other of the second, as
:func:`~iaa_frames.core.engine.pairwise.pairwise` computes the cell of one pair. Its
within rows are those of these pairs of annotators (their pairings, their matched object
pairs), its chance units those of the same pairs of annotators on *unrelated* items, so
that each cell stays ``1 - within / chance`` with its own baseline: a machine that copies
a human scores 1 with that human, a machine blind to the image about 0. The pairs are
pooled, not averaged: ``1 - sum(within) / n_within`` over ``sum(chance) / n_chance`` of
every pair of the cell, so a pair of annotators who annotated more items weighs more (as
annotators do in :func:`iaa_frames.agreement`). Classification pools the pairs' matched
object pairs alike (each pair of labels counts once, as in the pairwise cells).

A thin cell borrows the chance units of the whole corpus exactly as a pair of annotators
does (:mod:`iaa_frames.core.engine.borrow`); its ``chance_source`` says so.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from iaa_frames.core.tables.pairs import PairTables, pair_tables_from
from iaa_frames.errors import ParameterError
from iaa_frames.frame.schema import ALL
from iaa_frames.settings.parameters import DEFAULT_N_BOOT, checked_settings, engine_kwargs
from iaa_frames.settings.validation import validate_params

from .cells import GroupedPairLayout, check_tables, label_cell
from .pairwise import component_intervals, group_cells
from .result import COMPONENTS, MEASURES

__all__ = [
    "MIXED",
    "UNKNOWN",
    "KindPairLayout",
    "annotator_kinds",
    "rater_kind_agreement",
    "rater_kind_agreement_from_tables",
    "rater_kinds",
]

#: The kind of an annotator whose rows carry several kinds (a CVAT job with manual and
#: automatic shapes).
MIXED = "mixed"
#: The kind of an annotator whose rows carry none.
UNKNOWN = "unknown"


def rater_kinds(df: pd.DataFrame, column: str = "rater_kind") -> dict:
    """The kind of every annotator: the one value of ``column`` over its rows (missing
    values ignored), :data:`MIXED` when they carry several, :data:`UNKNOWN` when none.

    Examples
    --------
    >>> df = pd.DataFrame({"annotator": ["a", "a", "b", "c", "c"],
    ...                    "rater_kind": ["human", None, "machine", "human", "machine"]})
    >>> rater_kinds(df)
    {'a': 'human', 'b': 'machine', 'c': 'mixed'}
    """
    if column not in df.columns:
        raise ParameterError(
            f"the frame has no {column!r} column: read it with a reader that fills it "
            "(read_labelstudio(..., predictions=True), read_cvat, read_potato), add it, or "
            "pass kinds={annotator: kind}"
        )
    out = {}
    for name, values in df.groupby("annotator", sort=False, observed=True)[column]:
        seen = sorted({str(v) for v in values.dropna()})
        out[str(name)] = seen[0] if len(seen) == 1 else (MIXED if seen else UNKNOWN)
    return out


def _kind_order(kinds) -> list[str]:
    """Humans first, then the other kinds by name."""
    return sorted(set(kinds), key=lambda k: (k != "human", k))


#: The layout of :func:`rater_kind_agreement`: codes are kinds, groups pairs of kinds.
KindPairLayout = GroupedPairLayout


def _layout(tables: PairTables, kind_of: Mapping):
    names = [str(x) for x in tables.corpus.annotators]
    missing = [n for n in names if n not in kind_of]
    if missing:
        raise ParameterError(f"kinds gives no kind to the annotators {missing[:10]}")
    kind = [str(kind_of[n]) for n in names]
    order = _kind_order(kind)
    pairs = [(x, y) for i, x in enumerate(order) for y in order[i:]]
    rank = {k: i for i, k in enumerate(order)}
    code = np.array([rank[k] for k in kind], dtype=np.int64)
    K = len(order)
    kind_group = np.empty((K, K), dtype=np.int64)
    for g, (x, y) in enumerate(pairs):
        kind_group[rank[x], rank[y]] = kind_group[rank[y], rank[x]] = g
    # pairs of annotators per pair of kinds: n_x n_y, or n_x (n_x - 1) / 2 within a kind
    size = np.bincount(code, minlength=K)
    n_pairs = np.array(
        [size[rank[x]] * (size[rank[x]] - 1) // 2 if x == y else size[rank[x]] * size[rank[y]]
         for x, y in pairs],
        dtype=np.int64,
    )  # fmt: skip
    layout = KindPairLayout(
        len(tables.corpus.labels),
        len(names),
        pairwise=True,
        code=code,
        pair_group=kind_group,
        n_pair_groups=len(pairs) + 1,
    )
    return layout, pairs, n_pairs


def rater_kind_agreement_from_tables(
    tables: PairTables,
    kinds: Mapping,
    *,
    components=COMPONENTS,
    label: str = ALL,
    n_boot: int = DEFAULT_N_BOOT,
    seed: int | None = None,
) -> pd.DataFrame:
    """:func:`rater_kind_agreement` from computed tables and the kind of every
    annotator (``{annotator: kind}``)."""
    check_tables(tables)
    if isinstance(components, str):
        components = (components,)
    bad = [c for c in components if c not in COMPONENTS]
    if bad:
        raise ParameterError(f"components must be among {COMPONENTS}; got {bad}")
    seed = int(tables.params.get("seed", 0)) if seed is None else seed
    lcell = label_cell(tables, label)
    layout, pairs, n_pairs = _layout(tables, kinds)
    G = layout.n_groups
    pick = np.arange(lcell * G, lcell * G + len(pairs))
    rows = []
    for component in components:
        got = group_cells(tables, layout, component, pick)
        agreement, note, source = got.agreement, got.note, got.source
        n_units, n_chance = got.n_units, got.n_chance
        low, high = component_intervals(
            tables,
            got.cells,
            agreement,
            pick,
            n_boot=n_boot,
            seed=seed,
            component=component,
            matches=got.matches,
        )
        for g, (x, y) in enumerate(pairs):
            rows.append(
                {
                    "component": component,
                    "kind_a": x,
                    "kind_b": y,
                    "cell": f"{x}-{y}",
                    "measure": MEASURES[component],
                    "agreement": float(agreement[g]),
                    "ci_low": float(low[g]),
                    "ci_high": float(high[g]),
                    "n_pairs": int(n_pairs[g]),
                    "n_units": float(n_units[g]),
                    "n_chance": float(n_chance[g]),
                    "note": str(note[g]),
                    "chance_source": str(source[g]),
                }
            )
    out = pd.DataFrame(rows)
    out.attrs.update(
        {
            "label": str(label),
            "kinds": {str(k): str(v) for k, v in kinds.items()},
            "n_boot": n_boot,
            "seed": seed,
            **{k: v for k, v in tables.params.items() if isinstance(v, (str, int, float))},
        }
    )
    return out


@validate_params(engine=False)
def rater_kind_agreement(
    df: pd.DataFrame,
    *,
    kinds="rater_kind",
    components=COMPONENTS,
    label: str = ALL,
    distance="giou",
    match_threshold=0.5,
    n_chance: int = 2000,
    seed: int = 0,
    overall: str = "pooled",
    progress: bool | None = None,
    n_boot: int = DEFAULT_N_BOOT,
) -> pd.DataFrame:
    """Chance-corrected agreement between kinds of raters (human-human, human-machine,
    ...): 1 perfect, 0 chance, < 0 systematic disagreement; every component, one row per
    pair of kinds.

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy annotation frame.
    kinds : str or mapping, default "rater_kind"
        The column giving each row's kind of rater (an annotator's kind is the one its
        rows carry, :func:`rater_kinds`; several make it ``"mixed"``), or the kind of every
        annotator ``{annotator: kind}``.
    components : str or sequence of str, default all four
        Among "detection", "classification", "localization", "overall".
    label : str, default "(all)"
        "(all)" or a class.
    distance, match_threshold, n_chance, seed, overall, progress
        As in :func:`iaa_frames.agreement` (one threshold).
    n_boot : int, default 200
        Cluster-bootstrap replicates over items for ``ci_low`` / ``ci_high`` (0: none).

    Returns
    -------
    pandas.DataFrame
        One row per component and pair of kinds (``kind_a <= kind_b``, humans first):
        ``component``, ``kind_a``, ``kind_b``, ``cell`` ("human-machine"), ``measure``,
        ``agreement`` (``1 - within / chance`` of the pooled pairs of annotators, see the
        module docstring), ``ci_low``, ``ci_high``, ``n_pairs`` (pairs of annotators in
        the cell), ``n_units``, ``n_chance``, ``note`` (why NaN, or why a defined cell has
        no interval: "interval not reported: rests on k items") and ``chance_source``.
        A cell without a pair of annotators (a single human) is NaN with its note.

    Examples
    --------
    >>> from iaa_frames.simulate import simulate
    >>> df = simulate(n_items=40, annotators={"ann": "good", "bob": "good", "m": "good"},
    ...               seed=0)
    >>> df["rater_kind"] = df["annotator"].map({"ann": "human", "bob": "human", "m": "machine"})
    >>> t = rater_kind_agreement(df, components="localization", n_chance=200, n_boot=0)
    >>> t[["cell", "n_pairs"]].values.tolist()
    [['human-human', 1], ['human-machine', 2], ['machine-machine', 0]]
    """
    if not isinstance(df, pd.DataFrame):
        raise ParameterError(
            f"rater_kind_agreement takes a pandas DataFrame, got {type(df).__name__} "
            "(compute() a dask DataFrame first)"
        )
    settings = checked_settings(**engine_kwargs(locals()))
    if settings.several:
        raise ParameterError("rater_kind_agreement takes one match_threshold")
    kind_of = annotator_kinds(df, kinds)
    tables = pair_tables_from(df, settings)
    return rater_kind_agreement_from_tables(
        tables, kind_of, components=components, label=label, n_boot=n_boot, seed=seed
    )


def annotator_kinds(df: pd.DataFrame, kinds="rater_kind") -> dict:
    """``{annotator: kind}`` from ``kinds``: a column of ``df`` (:func:`rater_kinds`) or a
    mapping given by the user.

    Examples
    --------
    >>> annotator_kinds(pd.DataFrame({"annotator": ["a"]}), {"a": "human", 7: "machine"})
    {'a': 'human', '7': 'machine'}
    """
    if isinstance(kinds, str):
        return rater_kinds(df, kinds)
    if isinstance(kinds, Mapping):
        return {str(k): str(v) for k, v in kinds.items()}
    raise ParameterError(f"kinds must be a column name or a mapping; got {kinds!r}")
