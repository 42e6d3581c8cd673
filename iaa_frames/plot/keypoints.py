"""Which joints disagree, and whose: the per-keypoint result as dots and intervals."""

from __future__ import annotations

import numpy as np
import pandas as pd

from iaa_frames.errors import ParameterError
from iaa_frames.explore.compact import natural_key
from iaa_frames.frame.schema import ALL

from . import style

__all__ = ["keypoint_frame", "keypoints"]

#: The variables that carry intervals, and whether chance (0) is a reference on their scale.
VARIABLES = {"localization": True, "visibility_alpha": True, "swapped": False}
#: Why a value other than localization (which has its ``note``) is NaN.
_UNDEFINED = {
    "visibility_alpha": "no pair, or one visibility only (no expected disagreement)",
    "swapped": "no pair labelling the joint and its mirror on both sides",
}
_TITLES = {
    "localization": "localization σ per joint",
    "visibility_alpha": "visibility α per joint",
    "swapped": "left/right swaps per joint",
}
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "h")


def keypoint_frame(result, *, variable: str = "localization", top: int | None = 6):
    """The numbers of :func:`keypoints`: one row per (joint, annotator).

    Parameters
    ----------
    result : xarray.Dataset
        From :func:`iaa_frames.keypoint_agreement`.
    variable : {"localization", "visibility_alpha", "swapped"}, default "localization"
    top : int or None, default 6
        With more annotators, "(all)" and the ``top`` annotators furthest from the others
        on ``variable``: half of them with the lowest mean over the joints, half with the
        highest (for ``swapped``, the highest share is the worst); None: every annotator.
        ``attrs["n_hidden"]`` counts the others.

    Returns
    -------
    pandas.DataFrame
        Columns ``keypoint``, ``annotator``, ``value``, ``ci_low``, ``ci_high``,
        ``n_pairs``, ``note``, joints in the skeleton's order, annotators "(all)" first,
        then the worst first.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.simulate import KeypointProfile, simulate_keypoints
    >>> df = simulate_keypoints(n_items=60, seed=0, annotators={
    ...     "a": KeypointProfile(jitter=0.2), "b": KeypointProfile(jitter=0.2),
    ...     "c": KeypointProfile(jitter=0.6)})
    >>> frame = keypoint_frame(iaf.keypoint_agreement(df, n_boot=0))
    >>> frame["annotator"].unique().tolist()[:2]
    ['(all)', 'c']
    """
    if variable not in VARIABLES:
        raise ParameterError(f"variable must be one of {tuple(VARIABLES)}; got {variable!r}")
    if top is not None and (isinstance(top, bool) or not isinstance(top, int) or top < 1):
        raise ParameterError(f"top must be a positive integer or None; got {top!r}")
    values = result[variable]
    names = sorted((str(a) for a in result["annotator"].values if str(a) != ALL), key=natural_key)
    mean = values.sel(annotator=names).mean("keypoint", skipna=True).to_pandas()
    worst_first = (-mean if variable == "swapped" else mean).sort_values(kind="stable")
    order = [str(a) for a in worst_first.index]
    shown = order
    if top is not None and len(order) > top:
        low = top - top // 2
        shown = order[:low] + (order[-(top // 2) :] if top // 2 else [])
    keep = ([ALL] if ALL in result["annotator"].values else []) + shown
    sub = result.sel(annotator=keep)
    unpaired = []
    if variable == "swapped":  # joints without a left/right mirror have no swaps to count
        none = result["n_pairs"].notnull() & result[variable].isnull()
        unpaired = [str(k) for k in result["keypoint"].values if bool(none.sel(keypoint=k).all())]
        sub = sub.drop_sel(keypoint=unpaired)
    note = sub["note"] if variable == "localization" else None
    rows = {
        "keypoint": np.repeat(sub["keypoint"].values.astype(str), len(keep)),
        "annotator": np.tile(np.asarray(keep, dtype=object), sub.sizes["keypoint"]),
        "value": sub[variable].values.ravel(),
        "ci_low": sub[f"{variable}_ci_low"].values.ravel(),
        "ci_high": sub[f"{variable}_ci_high"].values.ravel(),
        "n_pairs": sub["n_pairs"].values.ravel(),
        "note": (
            note.values.ravel().astype(str)
            if note is not None
            else np.where(np.isfinite(sub[variable].values.ravel()), "", _UNDEFINED[variable])
        ),
    }
    frame = pd.DataFrame(rows)
    frame.attrs["n_hidden"] = len(order) - len(shown)
    frame.attrs["unpaired"] = unpaired
    frame.attrs["variable"] = variable
    return frame


def keypoints(
    result,
    *,
    variable: str = "localization",
    top: int | None = 6,
    width: float | None = None,
    ax=None,
):
    """Per joint, everybody's estimate with its interval and each annotator's beside it.

    One row per joint (the skeleton's order, top to bottom): the black dot and grey band
    are everybody ("(all)") with its cluster-bootstrap interval, the colored dots and
    whiskers each annotator against the others, in the annotator's color of
    :func:`~iaa_frames.plot.annotator_colors`. A joint where one annotator sits far from
    the black dot is the joint, and the annotator, to look at. The grey dashed line is
    chance (σ, α = 0). A value that cannot be computed is written "n/a" at its place
    and the note below says why.

    Parameters
    ----------
    result, variable, top
        As in :func:`keypoint_frame`: the result of :func:`iaa_frames.keypoint_agreement`,
        the variable drawn, the most annotators drawn (the lowest and the highest; a note
        says how many were left out).
    width : float, optional
        Inches, when ``ax`` is not given: 7 by default, 3.5 for one column.
    ax : matplotlib.axes.Axes, optional
        Where to draw (default: a new figure).

    Returns
    -------
    matplotlib.axes.Axes
        Dots have ``gid="estimate:<annotator>"``, intervals ``gid="ci:<annotator>"``
        (the band of "(all)": ``"ci:(all)"``), "n/a" marks ``gid="undefined"``.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.simulate import KeypointProfile, simulate_keypoints
    >>> df = simulate_keypoints(n_items=60, seed=0, annotators={
    ...     "a": KeypointProfile(jitter=0.2), "b": KeypointProfile(jitter=0.4)})
    >>> ax = keypoints(iaf.keypoint_agreement(df, n_boot=20))
    >>> ax.get_yticklabels()[0].get_text()
    'nose'
    """
    ax = style.checked_ax(ax)
    frame = keypoint_frame(result, variable=variable, top=top)
    joints = list(dict.fromkeys(frame["keypoint"]))
    names = list(dict.fromkeys(frame["annotator"]))
    others = [a for a in names if a != ALL]
    colors = style.annotator_colors(result)
    markers = {a: _MARKERS[i % len(_MARKERS)] for i, a in enumerate(c for c in colors if c != ALL)}
    y0 = np.arange(len(joints), dtype=float)
    with style.theme():
        w = style.figure_width(width, style.WIDTH)
        ax = style.new_axes(ax, (w, 1.1 + 0.2 * len(joints) + 0.1 * len(others) / max(1, w / 3.5)))
        if VARIABLES[variable]:
            style.chance_line(ax)
        span = min(0.72, 0.14 * (len(others) + 1))
        missing = []
        for name in names:
            sub = frame[frame["annotator"] == name]
            v, lo, hi = (sub[c].to_numpy(dtype=float) for c in ("value", "ci_low", "ci_high"))
            ok, ci = np.isfinite(v), np.isfinite(lo) & np.isfinite(hi)
            missing += [
                (f"{j} of {name}", n)
                for j, n, fine in zip(sub["keypoint"], sub["note"], ok, strict=True)
                if not fine
            ]
            if name == ALL:
                half = span / 2 + 0.04
                for yy, a, b in zip(y0[ci], lo[ci], hi[ci], strict=True):
                    ax.fill_betweenx(
                        [yy - half, yy + half], a, b, color="0.86", lw=0, zorder=1, gid="ci:(all)"
                    )
                ax.vlines(
                    v[ok], y0[ok] - half, y0[ok] + half, color=style.ALL_COLOR, linewidth=1.4,
                    zorder=3, gid=f"estimate:{ALL}", label="all annotators",
                )  # fmt: skip
                continue
            j = others.index(name)
            y = y0 + (j - (len(others) - 1) / 2) * (span / max(len(others), 1))
            color = colors.get(name, style.grey())
            if ci.any():
                ax.hlines(
                    y[ci], lo[ci], hi[ci], color=color, linewidth=0.9, alpha=0.9, zorder=4,
                    gid=f"ci:{name}",
                )  # fmt: skip
            ax.plot(
                v[ok], y[ok], linestyle="none", marker=markers.get(name, "o"), color=color,
                markersize=3.8, markeredgecolor="white", markeredgewidth=0.4, zorder=5,
                label=style.safe_name(name), gid=f"estimate:{name}",
            )  # fmt: skip
        # one "n/a" per joint with a value missing, right of the axes (the note says whose
        # and why)
        undefined = frame["value"].isna().groupby(frame["keypoint"], sort=False).any()
        for yy in y0[undefined.reindex(joints).to_numpy(dtype=bool)]:
            ax.text(
                1.01, yy, "n/a", transform=ax.get_yaxis_transform(), ha="left", va="center",
                fontsize=6, color=style.grey(), gid="undefined", clip_on=False,
            )  # fmt: skip
        ax.set_yticks(y0, [style.safe_name(j) for j in joints])
        ax.set_ylim(len(joints) - 0.5, -0.5)  # the skeleton's order, top to bottom
        numbers = frame[["value", "ci_low", "ci_high"]].to_numpy(dtype=float)
        numbers = numbers[np.isfinite(numbers)]
        low = min(0.0, float(numbers.min())) if numbers.size else 0.0
        top_value = float(numbers.max()) if numbers.size else 1.0
        # agreement up to 1; a share of swaps as far as it goes
        high = max(1.0, top_value) if VARIABLES[variable] else min(1.0, max(0.1, top_value))
        pad = 0.04 * (high - low)
        ax.set_xlim(low - pad, high + pad)
        ax.grid(axis="x", color="0.92")
        ax.tick_params(axis="y", length=0)
        ax.set_xlabel(style.long_name(result[variable], variable))
        ax.set_title(_TITLES[variable])
        legend = style.legend_below(ax, min_width=0.9, handlelength=1.4, columnspacing=1.0)
        notes = [_hidden_note(frame.attrs["n_hidden"], top), style.na_note(missing)]
        if frame.attrs["unpaired"]:
            notes.append("not drawn (no left/right mirror): " + ", ".join(frame.attrs["unpaired"]))
        style.note(ax, "\n".join(n for n in notes if n), below=legend)
    return ax


def _hidden_note(n_hidden: int, top: int | None) -> str:
    """'+ 4 more annotators not shown (the 3 lowest and 3 highest by mean over joints)'."""
    if n_hidden <= 0:
        return ""
    low, high = top - top // 2, top // 2
    more = "annotator" if n_hidden == 1 else "annotators"
    return (
        f"+ {n_hidden:,} more {more} not shown (the {low} lowest and {high} highest by mean "
        "over joints)"
    )
