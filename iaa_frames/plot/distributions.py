"""Within-item against between-item (chance) distance distributions, with the KS gap.

:func:`distance_samples` extracts the two samples of a component from the pair tables
(long form, one row per distance); :func:`sample_summary` computes σ and KS per facet;
:func:`distributions` draws them.
"""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ..errors import ParameterError
from ..frame import ALL
from ..pairs import DEFAULT_N_CHANCE, PairTables, pair_tables
from ..stats import ks as _ks
from ..stats import sigma as _sigma
from . import _style

__all__ = ["distance_samples", "sample_summary", "distributions"]

_DISTANCE_COMPONENTS = ("localization", "detection", "overall")
_BY = (None, "label", "annotator")


def _tables(data, **kwargs) -> PairTables:
    if isinstance(data, PairTables):
        return data
    if isinstance(data, pd.DataFrame):
        return pair_tables(data, **kwargs)
    raise ParameterError("data must be a tidy annotation frame or PairTables; got "
                         f"{type(data).__name__}")


def _distance_name(component: str, distance: str) -> str:
    if component == "localization":
        return f"distance of matched pairs ({distance})"
    if component == "detection":
        return "detection distance (1 - F1)"
    return "set distance (Braylan et al.)"


def distance_samples(data, *, component: str = "localization", by: str | None = None,
                     distance="giou", match_threshold: float = 0.5,
                     n_chance: int = DEFAULT_N_CHANCE, seed: int = 0,
                     progress: bool | None = None) -> pd.DataFrame:
    """The within-item and chance distances of a component, in long form.

    Parameters
    ----------
    data : pandas.DataFrame or PairTables
        A tidy annotation frame (tables are built with the parameters below) or tables.
    component : {"localization", "detection", "overall"}
        Classification has no distances (it is a nominal α).
    by : {None, "label", "annotator"}
        Facet: ``"(all)"`` only, or ``"(all)"`` and every class / annotator. The rows of
        a facet follow ``docs/CONTRACTS.md``: for a class, localization pairs whose two
        objects carry it (chance: its stratum) and detection/overall pairings restricted
        to it; for an annotator, the pairs and pairings involving that annotator.
    distance, match_threshold, n_chance, seed, progress
        Passed to :func:`~iaa_frames.pairs.pair_tables` when ``data`` is a frame.

    Returns
    -------
    pandas.DataFrame
        Columns ``facet`` (str; ``"(all)"`` first), ``sample`` (``"within"`` or
        ``"between"``) and ``distance``. ``attrs`` holds ``component``, ``by`` and
        ``long_name`` (the distance's axis label).

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> s = distance_samples(iaf.simulate(n_items=10, seed=0), n_chance=100)
    >>> sorted(s["sample"].unique())
    ['between', 'within']
    """
    _style.check_choice("component", component, _DISTANCE_COMPONENTS)
    if by not in _BY:
        raise ParameterError(f"by must be one of {_BY}; got {by!r}")
    t = _tables(data, distance=distance, match_threshold=match_threshold, n_chance=n_chance,
                seed=seed, progress=progress)
    c = t.corpus
    if component == "localization":
        w, b = t.localization_within, t.localization_between
        col, b_stratum = "distance", b["stratum"].to_numpy()
        w_label = np.where(w["label_a"].to_numpy() == w["label_b"].to_numpy(),
                           w["label_a"].to_numpy(), -2)
    else:
        w, b = t.sets_within, t.sets_between
        col, b_stratum = component, b["label"].to_numpy()
        w_label = w["label"].to_numpy()
    w_all = w_label == -1 if component != "localization" else np.ones(len(w), bool)
    b_all = b_stratum == -1
    parts = [
        (np.full(int(w_all.sum()), -1), "within", w[col].to_numpy(dtype=float)[w_all]),
        (np.full(int(b_all.sum()), -1), "between", b[col].to_numpy(dtype=float)[b_all]),
    ]
    names = np.array([ALL])
    if by == "label":
        names = np.append(np.asarray(c.labels, dtype=object).astype(str), ALL)
        wl = w_label >= 0
        parts += [(w_label[wl], "within", w[col].to_numpy(dtype=float)[wl]),
                  (b_stratum[~b_all], "between", b[col].to_numpy(dtype=float)[~b_all])]
    elif by == "annotator":
        names = np.append(np.asarray(c.annotators, dtype=object).astype(str), ALL)
        for frame, keep, sample in ((w, w_all, "within"), (b, b_all, "between")):
            values = frame[col].to_numpy(dtype=float)[keep]
            for side in ("annotator_a", "annotator_b"):
                parts.append((frame[side].to_numpy()[keep], sample, values))
    facet = np.concatenate([p[0] for p in parts]).astype(np.int64)
    out = pd.DataFrame({
        "facet": names[facet],  # code -1 -> "(all)" (last entry)
        "sample": np.concatenate([np.full(len(p[0]), p[1], dtype=object) for p in parts]),
        "distance": np.concatenate([p[2] for p in parts]),
    })
    out["facet"] = out["facet"].astype(str)
    out["sample"] = out["sample"].astype(str)
    out.attrs = {"component": component, "by": by or "",
                 "long_name": _distance_name(component, str(t.params.get("distance", "")))}
    return out


def sample_summary(samples: pd.DataFrame) -> pd.DataFrame:
    """σ and KS of each facet of :func:`distance_samples`.

    Returns
    -------
    pandas.DataFrame
        Indexed by facet (``"(all)"`` first, then by decreasing ``n_within``), columns
        ``n_within``, ``n_between``, ``sigma``, ``ks``, ``ks_sign``, ``ks_pvalue``, and
        ``gap_at``, ``gap_within``, ``gap_between``: where the ECDFs are furthest apart
        and their values there.

    Examples
    --------
    >>> s = pd.DataFrame({"facet": "(all)", "sample": ["within"] * 2 + ["between"] * 2,
    ...                   "distance": [0.1, 0.3, 0.4, 0.6]})
    >>> sample_summary(s).loc["(all)", ["n_within", "sigma", "ks"]].tolist()
    [2.0, 0.6, 1.0]
    """
    rows = {}
    for facet, g in samples.groupby("facet", sort=False):
        is_w = g["sample"].to_numpy() == "within"
        x = g["distance"].to_numpy(dtype=float)
        within, between = x[is_w], x[~is_w]
        res = _ks(within, between)
        at, fw, fb = _gap(within, between)
        rows[facet] = dict(n_within=len(within), n_between=len(between),
                           sigma=float(_sigma(within, between)), ks=res.statistic,
                           ks_sign=res.sign, ks_pvalue=res.pvalue,
                           gap_at=at, gap_within=fw, gap_between=fb)
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "facet"
    if len(out):
        key = np.where(out.index == ALL, np.inf, out["n_within"].to_numpy(dtype=float))
        out = out.iloc[np.lexsort((out.index.to_numpy().astype(str), -key))]
    return out


def _gap(within, between):
    """Where |F_within - F_between| is largest, and both ECDFs there."""
    if len(within) == 0 or len(between) == 0:
        return np.nan, np.nan, np.nan
    w, b = np.sort(within), np.sort(between)
    grid = np.unique(np.concatenate([w, b]))
    fw = np.searchsorted(w, grid, side="right") / len(w)
    fb = np.searchsorted(b, grid, side="right") / len(b)
    k = int(np.argmax(np.abs(fw - fb)))
    return float(grid[k]), float(fw[k]), float(fb[k])


def _ecdf_points(v, max_points: int = 600):
    """Step vertices of the ECDF of ``v`` (starting at 0), at most ``max_points`` of them:
    beyond that, the ECDF at evenly spaced quantiles (keeps vector output small)."""
    v = np.sort(np.asarray(v, dtype=float))
    x = np.unique(v)
    if len(x) > max_points:
        x = np.unique(np.quantile(v, np.linspace(0, 1, max_points)))
    last = np.searchsorted(v, x, side="right") / len(v)
    return np.r_[x[0], x], np.r_[0.0, last]


def _draw_facet(ax_d, ax_e, g, row, kind, bins, colors, xlabel):
    is_w = g["sample"].to_numpy() == "within"
    x = g["distance"].to_numpy(dtype=float)
    for sample, mask in (("within", is_w), ("between", ~is_w)):
        v = x[mask]
        label = "within item" if sample == "within" else "between items (chance)"
        if len(v) == 0:
            continue
        if kind == "hist" or len(np.unique(v)) < 2:
            ax_d.hist(v, bins=bins, density=True, histtype="stepfilled", alpha=0.35,
                      color=colors[sample], edgecolor=colors[sample], linewidth=1.2,
                      label=label, gid=f"dist_{sample}")
        else:
            import seaborn as sns

            sns.kdeplot(x=v, ax=ax_d, color=colors[sample], fill=True, alpha=0.3,
                        label=label, clip=(bins[0], bins[-1]), warn_singular=False)
        ex, ey = _ecdf_points(v)
        ax_e.step(ex, ey, where="post", color=colors[sample], label=label,
                  gid=f"ecdf_{sample}")
    sig = _style.fmt(row["sigma"])
    ax_d.text(0.98, 0.95, f"σ = {sig}\nn = {int(row['n_within']):,} within, "
              f"{int(row['n_between']):,} chance",
              transform=ax_d.transAxes, ha="right", va="top", fontsize="small", gid="stat",
              bbox=dict(boxstyle="round,pad=0.25", facecolor="white", alpha=0.8,
                        edgecolor="none"))
    if np.isfinite(row["gap_at"]):
        ax_e.vlines(row["gap_at"], row["gap_between"], row["gap_within"], color="black",
                    linewidth=2, gid="ks_gap")
    sign = "" if not np.isfinite(row["ks_sign"]) else ("+" if row["ks_sign"] > 0 else "−")
    ks_text = f"KS = {sign}{_style.fmt(row['ks'])}\n{_style.fmt_p(row['ks_pvalue'])}"
    ax_e.text(0.98, 0.05, ks_text, transform=ax_e.transAxes, ha="right", va="bottom",
              fontsize="small", gid="stat",
              bbox=dict(boxstyle="round,pad=0.25", facecolor="white", alpha=0.8,
                        edgecolor="none"))
    ax_d.set_ylabel("density")
    ax_e.set_ylabel("ECDF")
    ax_e.set_xlabel(xlabel)
    ax_e.set_ylim(0, 1.02)


def distributions(data, *, component: str = "localization", by: str | None = None,
                  kind: str = "hist", top: int | None = 8, col_wrap: int = 4,
                  bins: int = 30, height: float = 3.4, aspect: float = 1.0,
                  distance="giou", match_threshold: float = 0.5,
                  n_chance: int = DEFAULT_N_CHANCE, seed: int = 0,
                  progress: bool | None = None):
    """Within-item vs between-item distance distributions, with an ECDF panel per facet.

    Each facet has a distribution panel (histogram or KDE of within-item distances and
    of chance distances, annotated with σ and the sample sizes) above an ECDF panel
    where the KS gap, the largest vertical distance between the two ECDFs, is drawn as a
    black segment and annotated with the signed KS statistic and its p-value. Within-item
    distances far to the left of chance mean agreement.

    Parameters
    ----------
    data : pandas.DataFrame, PairTables
        A tidy annotation frame (tables are built from it) or pair tables.
    component : {"localization", "detection", "overall"}
    by : {None, "label", "annotator"}
        Facet by class or annotator (``"(all)"`` comes first).
    kind : {"hist", "kde"}
    top : int or None, default 8
        Largest number of facets besides "(all)", by number of within-item units; the
        figure notes how many were left out.
    col_wrap : int, default 4
        Facets per row.
    bins : int, default 30
        Histogram bins (over the range of the data).
    height, aspect : float
        Size of a facet in inches (height of both panels; width = height * aspect).
    distance, match_threshold, n_chance, seed, progress
        Passed to :func:`~iaa_frames.pairs.pair_tables` when ``data`` is a frame.

    Returns
    -------
    matplotlib.figure.Figure
        The figure; ``fig.axes`` alternate distribution and ECDF panels, facet by facet.
        Texts carry ``gid="stat"``, the KS gap ``gid="ks_gap"``, the truncation note
        ``gid="note"``.

    See Also
    --------
    distance_samples, sample_summary : the numbers drawn.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.pairs import pair_tables
    >>> t = pair_tables(iaf.simulate(n_items=10, seed=0), n_chance=100)
    >>> fig = distributions(t, component="localization")
    >>> len(fig.axes)
    2
    """
    _style.check_choice("kind", kind, ("hist", "kde"))
    top = _style.check_top(top)
    if isinstance(col_wrap, bool) or not isinstance(col_wrap, (int, np.integer)) or col_wrap < 1:
        raise ParameterError(f"col_wrap must be a positive integer; got {col_wrap!r}")
    samples = distance_samples(data, component=component, by=by, distance=distance,
                               match_threshold=match_threshold, n_chance=n_chance, seed=seed,
                               progress=progress)
    summary = sample_summary(samples)
    facets = list(summary.index)
    others = [f for f in facets if f != ALL]
    shown = ([ALL] if ALL in facets else []) + (others if top is None else others[:top])
    hidden = len(others) - (len(shown) - (ALL in shown))

    n = max(len(shown), 1)
    ncol = min(n, int(col_wrap))
    nrow = math.ceil(n / ncol)
    fig = plt.figure(figsize=(height * aspect * ncol, height * nrow + 0.5), layout="constrained")
    grid = fig.add_gridspec(nrow * 2, ncol, height_ratios=[1.3, 1] * nrow)
    colors = dict(zip(("within", "between"), _style.colors(2)))
    x = samples["distance"].to_numpy(dtype=float)
    lo, hi = (float(np.nanmin(x)), float(np.nanmax(x))) if len(x) else (0.0, 1.0)
    if hi <= lo:
        hi = lo + 1.0
    edges = np.linspace(lo, hi, int(bins) + 1)
    groups = dict(tuple(samples.groupby("facet", sort=False)))
    xlabel = samples.attrs.get("long_name", "distance")
    for k, facet in enumerate(shown):
        r, col = divmod(k, ncol)
        ax_d = fig.add_subplot(grid[2 * r, col])
        ax_e = fig.add_subplot(grid[2 * r + 1, col], sharex=ax_d)
        _draw_facet(ax_d, ax_e, groups[facet], summary.loc[facet], kind, edges, colors, xlabel)
        ax_d.set_title(facet if by else f"{component}", fontsize="medium")
        ax_d.tick_params(labelbottom=False)
        if col > 0:
            ax_d.set_ylabel("")
            ax_e.set_ylabel("")
        if k == 0:
            ax_e.legend(loc="upper left", fontsize="x-small", frameon=False)
    title = f"{component}: within-item vs chance distances"
    if by:
        title += f", by {by}"
    fig.suptitle(title)
    what = "labels" if by == "label" else "annotators"
    _style.note(fig, _style.hidden_note(hidden, what, top, by="number of within-item units"))
    return fig
