"""Within-item against between-item (chance) distance distributions, with the KS gap.

:func:`distributions` draws the samples of :func:`iaa_frames.explore.distances.distance_samples`
and their summary (:func:`~iaa_frames.explore.distances.sample_summary`, σ and KS per facet);
both are re-exported here.
"""

from __future__ import annotations

import math
import textwrap

import numpy as np

from iaa_frames.core.chance import MIN_CHANCE_UNITS
from iaa_frames.core.chance.pooled import min_chance_units
from iaa_frames.core.engine import MIN_WITHIN_UNITS
from iaa_frames.errors import ParameterError
from iaa_frames.explore import views
from iaa_frames.explore.compact import natural_key
from iaa_frames.explore.distances import distance_samples, sample_summary, tables_of
from iaa_frames.frame.schema import ALL
from iaa_frames.settings.parameters import DEFAULTS, MatchSettings, checked_settings
from iaa_frames.settings.validation import validate_params

from . import style

__all__ = ["distance_samples", "distributions", "sample_summary"]


def _ecdf_points(v, max_points: int = 600):
    """Step vertices of the ECDF of ``v`` (starting at 0), at most ``max_points`` of them:
    beyond that, the ECDF at evenly spaced quantiles (keeps vector output small)."""
    v = np.sort(np.asarray(v, dtype=float))
    x = np.unique(v)
    if len(x) > max_points:
        x = np.unique(np.quantile(v, np.linspace(0, 1, max_points)))
    last = np.searchsorted(v, x, side="right") / len(v)
    return np.r_[x[0], x], np.r_[0.0, last]


def _draw_facet(ax_d, ax_e, g, row, kind, bins, colors):
    is_w = g["sample"].to_numpy() == "within"
    x = g["distance"].to_numpy(dtype=float)
    for sample, mask in (("between", ~is_w), ("within", is_w)):
        v = x[mask]
        if len(v) == 0:
            continue
        if kind == "hist" or len(np.unique(v)) < 2:
            ax_d.hist(
                v,
                bins=bins,
                density=True,
                histtype="stepfilled",
                alpha=0.35,
                color=colors[sample],
                edgecolor=colors[sample],
                linewidth=1.0,
                gid=f"dist_{sample}",
            )
        else:
            import seaborn as sns

            sns.kdeplot(
                x=v,
                ax=ax_d,
                color=colors[sample],
                fill=True,
                alpha=0.3,
                clip=(bins[0], bins[-1]),
                warn_singular=False,
            )
        ex, ey = _ecdf_points(v)
        ax_e.step(ex, ey, where="post", color=colors[sample], linewidth=1.2, gid=f"ecdf_{sample}")
    if np.isfinite(row["gap_at"]):
        ax_e.vlines(
            row["gap_at"],
            row["gap_between"],
            row["gap_within"],
            color="black",
            linewidth=1.8,
            gid="ks_gap",
        )
    ax_e.set_ylim(0, 1.02)
    ax_d.set_yticks([])
    ax_d.spines[["left", "top", "right"]].set_visible(False)
    ax_e.spines[["top", "right"]].set_visible(False)


def _facet_min_chance(tables, facet, by, component) -> int:
    """The fewest chance units the result needs for the facet's cell: a class's own
    localization units need fewer (:func:`iaa_frames.core.chance.pooled.min_chance_units`)."""
    if by != "label" or component != "localization" or facet == ALL:
        return MIN_CHANCE_UNITS
    names = [str(x) for x in tables.corpus.labels]
    source = tables.label_source[names.index(facet)] if facet in names else ""
    return int(min_chance_units([source])[0])


def _readable(row, tables, facet, by, component) -> bool:
    """Whether the result defines the facet's σ (enough chance and within units)."""
    return (
        int(row["n_between"]) >= _facet_min_chance(tables, facet, by, component)
        and int(row["n_within"]) >= MIN_WITHIN_UNITS
    )


def _facet_title(facet, row, by, component, min_chance=MIN_CHANCE_UNITS):
    head = style.short_name(facet) if by else component
    sign = "" if not np.isfinite(row["ks_sign"]) else ("+" if row["ks_sign"] > 0 else "−")
    sep = " · "
    sigma = style.fmt(row["sigma"])
    # the result leaves σ undefined on too few units (iaa_frames.agreement): say so here
    # too, rather than a σ of the few distances drawn
    if int(row["n_between"]) < min_chance:
        sigma, sep = f"n/a (< {min_chance} chance units)", "\n"
    elif int(row["n_within"]) < MIN_WITHIN_UNITS:
        sigma, sep = f"n/a (< {MIN_WITHIN_UNITS} within units)", "\n"
    return (
        f"{head}\nσ = {sigma}{sep}KS = {sign}{style.fmt(row['ks'])}"
        f"\nn = {int(row['n_within']):,} within, {int(row['n_between']):,} chance"
    )


def _grid(n, width, min_facet=1.65):
    """(ncols, nrows): as many columns as fit, then balanced so that at most one row is
    short (5 facets at 7 in: 3 + 2, not 4 + 1)."""
    max_cols = max(1, int(width // min_facet))
    nrows = math.ceil(n / max_cols)
    ncols = math.ceil(n / nrows)
    return ncols, nrows


def _distributions(
    data,
    *,
    component: str = "localization",
    by: str | None = None,
    kind: str = "hist",
    top: int | None = 5,
    ncols: int | None = None,
    bins: int = 30,
    width: float | None = None,
    settings: MatchSettings = DEFAULTS,
):
    """:func:`distributions` with the engine parameters as one checked
    :class:`~iaa_frames.settings.parameters.MatchSettings` (for internal callers)."""
    views.check_choice("kind", kind, ("hist", "kde"))
    top = views.check_top(top)
    if ncols is not None and (
        isinstance(ncols, bool) or not isinstance(ncols, (int, np.integer)) or ncols < 1
    ):
        raise ParameterError(f"ncols must be a positive integer; got {ncols!r}")
    tables = tables_of(data, **settings.as_kwargs())
    samples = distance_samples(tables, component=component, by=by)
    summary = sample_summary(samples)
    facets = list(summary.index)
    if by == "label":
        rank = {f: i for i, f in enumerate(views.label_order(tables))}
        facets.sort(key=lambda f: rank.get(f, len(rank)))
    elif by == "annotator":
        facets = ([ALL] if ALL in facets else []) + sorted(
            (f for f in facets if f != ALL), key=natural_key
        )
    others = [f for f in facets if f != ALL]
    if by == "label":  # classes whose σ the result defines first, as in the forest
        others.sort(key=lambda f: not _readable(summary.loc[f], tables, f, by, component))
    shown = ([ALL] if ALL in facets else []) + (others if top is None else others[:top])
    hidden = len(others) - (len(shown) - (ALL in shown))

    w = style.figure_width(width, style.WIDTH)
    n = max(len(shown), 1)
    if ncols is None:
        ncol, nrow = _grid(n, w)
    else:
        ncol = min(n, int(ncols))
        nrow = math.ceil(n / ncol)
    colors = {"within": style.component_color(component), "between": style.grey()}
    with style.theme():
        facet_h = 2.05
        fig = style.figure(figsize=(w, facet_h * nrow + 0.55), layout="constrained")
        grid = fig.add_gridspec(nrow * 2, ncol, height_ratios=[1.25, 1] * nrow)
        x = samples["distance"].to_numpy(dtype=float)
        lo, hi = (float(np.nanmin(x)), float(np.nanmax(x))) if len(x) else (0.0, 1.0)
        if hi <= lo:
            hi = lo + 1.0
        edges = np.linspace(lo, hi, int(bins) + 1)
        groups = dict(tuple(samples.groupby("facet", sort=False)))
        xlabel = samples.attrs.get("long_name", "distance")
        first_d = first_e = None
        for k, facet in enumerate(shown):
            r, col = divmod(k, ncol)
            ax_d = fig.add_subplot(grid[2 * r, col], sharex=first_d)
            ax_e = fig.add_subplot(grid[2 * r + 1, col], sharex=ax_d, sharey=first_e)
            first_d, first_e = first_d or ax_d, first_e or ax_e
            _draw_facet(ax_d, ax_e, groups[facet], summary.loc[facet], kind, edges, colors)
            ax_d.set_title(
                _facet_title(
                    facet,
                    summary.loc[facet],
                    by,
                    component,
                    _facet_min_chance(tables, facet, by, component),
                ),
                fontsize="small",
                loc="left",
            )
            ax_d.tick_params(labelbottom=False)
            if col == 0:
                ax_e.set_ylabel("ECDF")
                ax_d.set_ylabel("density")
            else:
                ax_e.tick_params(labelleft=False)
        for ax in fig.axes[1::2]:  # the ECDF panels of the bottom of each column
            below = [
                a
                for a in fig.axes[1::2]
                if a is not ax
                and a.get_subplotspec().colspan == ax.get_subplotspec().colspan
                and a.get_subplotspec().rowspan.start > ax.get_subplotspec().rowspan.start
            ]
            if not below:
                ax.set_xlabel(xlabel)
        handles = _legend_handles(colors)
        empty = nrow * ncol - len(shown)
        if empty > 0:
            slot = fig.add_subplot(grid[2 * (nrow - 1) :, ncol - empty :])
            slot.axis("off")
            slot.legend(handles=handles, loc="center", frameon=False)
        else:
            fig.legend(
                handles=handles, loc="outside lower center", ncols=3 if w >= 5 else 2, frameon=False
            )
        title = f"{component}: within-item vs chance distances"
        if by:
            title += f", by {by}"
        what = "labels" if by == "label" else "annotators"
        hidden_text = style.hidden_note(
            hidden, what, top, by="support, classes with a σ first" if by == "label" else "name"
        )
        if hidden_text:  # under the title: an outside legend takes the bottom of the figure
            title += "\n" + textwrap.fill(hidden_text, max(40, int(w * 15)))
        fig.suptitle(title, fontsize="medium")
    return fig


@validate_params(engine=False)
def distributions(
    data,
    *,
    component: str = "localization",
    by: str | None = None,
    kind: str = "hist",
    top: int | None = 5,
    ncols: int | None = None,
    bins: int = 30,
    width: float | None = None,
    distance="giou",
    match_threshold=0.5,
    n_chance: int = 2000,
    seed: int = 0,
    overall: str = "pooled",
    progress: bool | None = None,
):
    """Within-item vs between-item distance distributions, with an ECDF panel per facet.

    Each facet has a distribution panel (histogram or KDE of within-item distances, in
    the component's color, and of chance distances, grey) above an ECDF panel where the
    KS gap, the largest vertical distance between the two ECDFs, is drawn as a black
    segment. The facet's title gives σ, the signed KS statistic and the sample sizes.
    Within-item distances far to the left of chance mean agreement. One legend serves
    every facet (in the empty grid slot when there is one).

    Parameters
    ----------
    data : pandas.DataFrame, PairTables
        A tidy annotation frame (its cached tables are used, see
        :meth:`iaa_frames.accessor.IAAAccessor.tables`) or pair tables.
    component : {"localization", "detection", "overall"}
    by : {None, "label", "annotator"}
        Facet by class (in the order of :func:`~iaa_frames.plot.label_order`) or
        annotator (by name); ``"(all)"`` comes first.
    kind : {"hist", "kde"}
    top : int or None, default 5
        Largest number of facets besides "(all)"; the figure notes how many were left
        out.
    ncols : int, optional
        Facets per row (default: as many as fit in ``width``, balanced over the rows).
    bins : int, default 30
        Histogram bins (over the range of the data).
    width : float, optional
        Figure width in inches (default 7; 3.5 for one column).
    distance, match_threshold, n_chance, seed, overall, progress
        As in :func:`iaa_frames.agreement`, when ``data`` is a frame.

    Returns
    -------
    matplotlib.figure.Figure
        ``fig.axes`` alternate distribution and ECDF panels, facet by facet (then the
        legend's slot, if any). The KS gap has ``gid="ks_gap"``, the truncation note
        ``gid="note"``.

    See Also
    --------
    distance_samples, sample_summary : the numbers drawn.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.core.tables.pairs import pair_tables
    >>> t = pair_tables(iaf.simulate(n_items=10, seed=0), n_chance=100)
    >>> fig = distributions(t, component="localization")
    >>> len(fig.axes)
    2
    """
    settings = checked_settings(
        distance=distance,
        match_threshold=match_threshold,
        n_chance=n_chance,
        seed=seed,
        overall=overall,
        progress=progress,
    )
    return _distributions(
        data,
        component=component,
        by=by,
        kind=kind,
        top=top,
        ncols=ncols,
        bins=bins,
        width=width,
        settings=settings,
    )


def _legend_handles(colors):
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    return [
        Patch(
            facecolor=colors["within"], alpha=0.5, edgecolor=colors["within"], label="within item"
        ),
        Patch(
            facecolor=colors["between"],
            alpha=0.5,
            edgecolor=colors["between"],
            label="between items (chance)",
        ),
        Line2D([], [], color="black", linewidth=1.8, label="KS gap (largest ECDF gap)"),
    ]
