# Over 400 lines: one figure (an item with every annotator's shapes and conflicts) and its small
# multiples.
"""One item as the annotators drew it: shapes, matched pairs, conflicts (and a grid of the
worst items).

The numbers drawn come from :func:`iaa_frames.explore.item.item_view` (re-exported here with
:class:`~iaa_frames.explore.item.ItemView`); this module only draws them.

Annotators have one fixed colour each (:func:`iaa_frames.plot.annotator_colors`: the palette in
annotator-name order over the whole corpus, so an annotator keeps its colour on every
item). Beyond the palette's nine, annotators that share a colour differ in line style and
marker (:func:`iaa_frames.plot.style.annotator_styles`): the first nine are solid with discs,
the next nine dotted with squares, then dash-dot with triangles, dash-dot-dot with
diamonds (36 annotators apart), in the shapes and in the legend. Encoding:

* every object is outlined in its annotator's colour (a faint fill of the same colour);
  keypoints are drawn as their skeletons, polylines as open paths and points as markers
  (:mod:`iaa_frames.plot.item_shapes`), in the same colour;
* a thin dark line links the two objects of every matched pair;
* an object left unmatched by another annotator (``unmatched``; ``missed`` / ``extra``
  against a reference) has a dashed outline (a dashed line, a hollow point; a thicker
  outline in its own style for an annotator drawn dotted, dash-dot ...); at its
  top-right corner, one ✕ per annotator who has no match for it (``unmatched``,
  ``missed``), in that annotator's colour, or a black + on an ``extra`` object;
* a matched pair with different labels has a red link with a diamond at its middle;
  a matched pair below the low-overlap cut-off, an orange dotted link with a triangle
  (a pair that is both has a red link and both marks);
* each group of matched objects is tagged with its label(s), in red when they differ.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.lines import Line2D
from matplotlib.patches import Polygon, Rectangle

from iaa_frames.core.tables.pairs import PairTables
from iaa_frames.errors import ParameterError
from iaa_frames.explore.compact import natural_key
from iaa_frames.explore.conflicts import DEFAULT_LOW_OVERLAP, tables_of
from iaa_frames.explore.item import ItemView, item_view
from iaa_frames.explore.items import items as item_ranking
from iaa_frames.geometry.kinds import keypoint_kinds
from iaa_frames.settings.parameters import engine_kwargs

from . import style
from .figure import laid_out
from .fit_text import fitted_title_parts, refit_title, set_fitted_title
from .fonts import no_glyph_warnings
from .item_shapes import HOLLOW, distance_kinds, draw_shape, outline_style, shape_anchor

__all__ = ["MAX_LINKED", "ItemView", "crowd_reference", "item", "item_view", "worst_items"]

#: Colours of the conflict marks (not in the annotator palette's role).
CONFLICT_COLORS = {
    "label": "#c0392b",
    "low_overlap": "#e67e22",
    "unmatched": "black",
    "missed": "black",
    "extra": "black",
}
_MARKERS = {"unmatched": "X", "missed": "X", "extra": "P", "label": "D", "low_overlap": "^"}
_LEGEND = {
    "unmatched": "no match by (✕ colour)",
    "missed": "missed by (✕ colour)",
    "extra": "extra (no match in the reference)",
    "label": "labels differ",
    "low_overlap": "low overlap",
    "joint_visible": "joint visible",
    "joint_occluded": "joint occluded",
    HOLLOW: "point with no match (hollow)",
}


def _load_image(image):
    if image is None:
        return None
    if isinstance(image, (str, Path)):
        try:
            from PIL import Image
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError(
                "drawing over an image file needs Pillow: pip install 'iaa-frames[image]'"
            ) from exc
        path = Path(image)
        if not path.is_file():
            raise FileNotFoundError(f"image file not found: {path}")
        with Image.open(path) as im:
            return np.asarray(im.convert("RGB"))
    arr = np.asarray(image)
    if arr.ndim not in (2, 3) or (arr.ndim == 3 and arr.shape[2] not in (3, 4)):
        raise ParameterError(
            f"image must be a path or an (H, W), (H, W, 3) or (H, W, 4) "
            f"array; got shape {arr.shape}"
        )
    return arr


def _outline(row):
    """(list of (n, 2) rings, centre) of an object row in pixels."""
    g = row.geometry
    if g is not None and not (isinstance(g, float) and np.isnan(g)):
        parts = list(getattr(g, "geoms", [g]))
        rings = [np.asarray(p.exterior.coords) for p in parts]
        centre = g.representative_point()
        return rings, (centre.x, centre.y)
    x0, y0, x1, y1 = row.x0, row.y0, row.x1, row.y1
    return None, ((x0 + x1) / 2, (y0 + y1) / 2)


#: Annotators of an item beyond which :func:`item` links the pairs of one of them only (its
#: reference, :func:`crowd_reference`): every pair of 400 annotators is 80,000 links and
#: marks, a figure of hours; the pairs with one annotator grow with the crowd, not its square.
MAX_LINKED = 16


def crowd_reference(view) -> str:
    """The annotator a crowded item is drawn against: the one of most objects on it
    (ties: most matched pairs, then name).

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.explore.item import item_view
    >>> df = iaf.simulate(n_items=2, seed=0)
    >>> crowd_reference(item_view(df, "img_00000", n_chance=50)) in ("A", "B", "C")
    True
    """
    objects = view.objects["annotator"].astype(str).value_counts()
    pairs = pd.concat([view.pairs["annotator_a"], view.pairs["annotator_b"]]).astype(str)
    matched = pairs.value_counts()
    names = [str(a) for a in view.annotators]
    return min(
        names,
        key=lambda a: (-int(objects.get(a, 0)), -int(matched.get(a, 0)), natural_key(a), a),
    )


def _line(ax, x, y, **props):
    """A :class:`~matplotlib.lines.Line2D` through ``x``, ``y`` added to ``ax`` as
    :meth:`~matplotlib.axes.Axes.plot` adds it (its colour always given), without the
    argument parsing of ``plot``: an item draws hundreds of links and marks, and
    ``plot`` took a third of its time."""
    line = Line2D(np.atleast_1d(x), np.atleast_1d(y), **props)
    ax.add_line(line)
    return line


def _skeleton(ax, kind, params, color, edge, marker="o"):
    """Draw one skeleton (pixels): its edges between labelled joints, visible joints
    filled, occluded ones hollow (``marker``: the annotator's)."""
    x, y, v, _ = kind.split(params[None, :])
    x, y, v = x[0], y[0], v[0]
    for a, b in kind.skeleton:
        if v[a] > 0 and v[b] > 0:
            _line(ax, [x[a], x[b]], [y[a], y[b]], color=color, lw=edge["lw"],
                    linestyle=edge["linestyle"], zorder=2, gid=edge["gid"])  # fmt: skip
    drawn = set()
    for kind_of, visible, face in (
        ("joint_visible", v == 2, color),
        ("joint_occluded", v == 1, "white"),
    ):
        if visible.any():
            ax.scatter(x[visible], y[visible], s=14, marker=marker, facecolor=face,
                       edgecolor=color, linewidth=1.0, zorder=3, gid=edge["gid"],
                       label=kind_of)  # fmt: skip
            drawn.add(kind_of)
    return drawn


def _styled(styles, annotators) -> bool:
    """Some of ``annotators`` share a colour: they differ in line style (and marker)."""
    return any(styles[a].round for a in annotators)


#: Legend handle length (font sizes) when annotators differ in line style: the default 2
#: showed less than one period of dash-dot-dot, which then read as dash-dot.
_STYLED_HANDLE = 3.2


def _legend_handles(colors, annotators, view_kinds, empty, styles=None, markers=False):
    """The legend's entries: one per annotator (its colour, and its line style when some
    share a colour: ``styles``; with its marker when ``markers``: the item draws points or
    joints), then the encodings of the conflict kinds in ``view_kinds``."""
    styles = styles if styles is not None else style.annotator_styles(colors)
    styled = _styled(styles, annotators)
    handles = []
    for a in annotators:
        look = {}  # every annotator of its own colour: a solid line, as always
        if styled:
            look = {"linestyle": styles[a].linestyle}
            if markers:
                look |= {"marker": styles[a].marker, "markersize": 4}
        (label,) = _legend_names([a], empty)
        handles.append(Line2D([], [], color=colors[a], lw=2, label=label, **look))
    handles.append(Line2D([], [], color="0.2", lw=0.8, label="matched pair"))
    for kind, face in (("joint_visible", "0.3"), ("joint_occluded", "white")):
        if kind in view_kinds:
            handles.append(
                Line2D([], [], ls="", marker="o", ms=4, markerfacecolor=face,
                       markeredgecolor="0.3", label=_LEGEND[kind])
            )  # fmt: skip
    if HOLLOW in view_kinds:
        handles.append(
            Line2D([], [], ls="", marker="o", ms=5, markerfacecolor="white",
                   markeredgecolor="0.3", markeredgewidth=1.6, label=_LEGEND[HOLLOW])
        )  # fmt: skip
    for kind in ("unmatched", "missed", "extra", "label", "low_overlap"):
        if kind in view_kinds:
            handles.append(
                Line2D(
                    [],
                    [],
                    color=CONFLICT_COLORS[kind],
                    marker=_MARKERS[kind],
                    markeredgecolor="white",
                    markersize=7,
                    linestyle="--"
                    if kind in ("unmatched", "missed", "extra")
                    else (":" if kind == "low_overlap" else "-"),
                    label=_LEGEND[kind],
                )
            )
    return handles


#: The most characters of a label a tag writes (a longer one is cut at an ellipsis:
#: :func:`~iaa_frames.plot.style.short_name`); a tag sits in a panel of 2 in or less.
_TAG_CHARS = 20

#: Inches of a row of the item's legend (x-small text).
_LEGEND_ROW = 0.135


#: Inches of a character of the legend (x-small text), and of an entry's line and gap.
_LEGEND_CHAR, _LEGEND_HANDLE = 0.05, 0.45


def _legend_cols(width: float, names=()) -> int:
    """Columns of the item's legend in a figure ``width`` inches wide: 3 at 7 in, 2 when
    narrower, fewer when its longest entry (of ``names``, as the legend writes them) would
    run the columns past the figure (two names of 32 characters do not fit 3 in side by
    side: the layout collapsed)."""
    cols = 2 if width < 5 else 3
    longest = max((style.columns(n) for n in names), default=0)
    fit = int(0.95 * width // (longest * _LEGEND_CHAR + _LEGEND_HANDLE)) if longest else cols
    return max(1, min(cols, fit))


def _legend_names(annotators, empty=()) -> list:
    """The annotators as the legend writes them."""
    return [style.short_name(a) + (" (drew nothing)" if a in empty else "") for a in annotators]


def item(
    data,
    item,
    *,
    image=None,
    reference: str | None = None,
    low_overlap: float | None = DEFAULT_LOW_OVERLAP,
    labels: bool = True,
    legend: bool = True,
    colors: Mapping | None = None,
    width: float | None = None,
    ax=None,
    distance="giou",
    match_threshold=0.5,
    n_chance: int = 2000,
    seed: int = 0,
    overall: str = "pooled",
    progress: bool | None = None,
):
    """Every annotator's objects on one item, matched pairs linked, conflicts marked.

    Parameters
    ----------
    data : pandas.DataFrame or PairTables
        A tidy annotation frame or the corpus's pair tables (see :func:`item_view`).
    item
        The item to draw.
    image : str, pathlib.Path or array, optional
        The image, drawn under the annotations (a path needs Pillow: ``pip install
        'iaa-frames[image]'``). It is stretched to the image size of the annotations.
        Without it, a blank canvas of the image size.
    reference : str, optional
        Compare every annotator with this one only (conflicts are ``missed`` / ``extra``
        against it, and only pairs with it are linked). An item of more than
        :data:`MAX_LINKED` annotators is drawn against the one of most objects there
        (:func:`crowd_reference`), and its title says so.
    low_overlap : float or None, default 0.8
        IoU (or the similarity of kinds scored otherwise: OKS, lines, points) below which
        a matched pair is marked as a low-overlap conflict.
    labels : bool, default True
        Tag each group of matched objects with its label(s).
    legend : bool, default True
        Draw the legend (annotator colours and conflict marks) under the Axes.
    colors : mapping, optional
        Annotator -> colour; default :func:`annotator_colors` of every annotator of
        ``data`` (the whole frame or tables, not only the item's), so that an annotator
        has the same colour on every item. Annotators of one colour (beyond the palette's
        nine) differ in line style and marker
        (:func:`~iaa_frames.plot.style.annotator_styles` of ``colors``): the first of each
        colour is solid, the next ones dotted, dash-dot, dash-dot-dot.
    width, ax : float, matplotlib.axes.Axes, optional
        Where to draw: ``ax``, or a new figure ``width`` inches wide (default 5; 3.5 for one column).
    distance, match_threshold, n_chance, seed, overall, progress
        Matching parameters when ``data`` is a frame.

    Returns
    -------
    matplotlib.axes.Axes
        Shapes have ``gid="shape:<annotator>"``, links ``gid="pair"``, conflict marks
        ``gid="conflict:<kind>"``, label tags ``gid="tag"``.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.simulate(n_items=3, annotators={"a": "good", "b": "misser"}, seed=0)
    >>> ax = item(df, "img_00000")
    >>> ax.get_title(loc="left").startswith("img_00000")
    True
    """
    ax = style.checked_ax(ax)
    if not isinstance(labels, (bool, np.bool_)) or not isinstance(legend, (bool, np.bool_)):
        raise ParameterError("labels and legend must be True or False")
    corpus_annotators = None
    if isinstance(data, PairTables):
        corpus_annotators = [str(a) for a in data.corpus.annotators]
    elif isinstance(data, pd.DataFrame) and "annotator" in data.columns:
        corpus_annotators = [str(a) for a in pd.unique(data["annotator"])]
    kwargs = engine_kwargs(locals())
    view = item_view(data, item, reference=reference, low_overlap=low_overlap, **kwargs)
    crowded = reference is None and len(view.annotators) > MAX_LINKED
    if crowded:  # links and marks against one annotator: they grow with the crowd only
        reference = crowd_reference(view)
        view = item_view(data, item, reference=reference, low_overlap=low_overlap, **kwargs)
    img = _load_image(image)
    colors = (
        dict(colors)
        if colors is not None
        else style.annotator_colors(corpus_annotators or view.annotators)
    )
    missing = [a for a in view.annotators if a not in colors]
    if missing:
        raise ParameterError(f"colors has no colour for annotator(s) {missing}")
    styles = style.annotator_styles(colors)
    W, H = view.width, view.height
    own = ax is None  # the figure is ours: its layout is final when we return
    if ax is None:
        aspect = H / W if W > 0 else 1.0
        w = style.figure_width(width, 5.0)
        height = min(1.4 * w, max(2.5, w * aspect + 1.2))
        if legend:  # rows of the legend beyond four (a crowd's names) add to the height
            entries = len(view.annotators) + 1 + view.conflicts["kind"].nunique()
            cols = _legend_cols(w, _legend_names(view.annotators))
            height += _LEGEND_ROW * max(0, -(-entries // cols) - 4)
        _, ax = style.subplots(figsize=(w, height), layout="constrained")
    if img is not None:
        ax.imshow(
            img,
            extent=(0, W, H, 0),
            interpolation="antialiased",
            zorder=0,
            cmap="gray" if img.ndim == 2 else None,
        )
    else:
        ax.add_patch(
            Rectangle(
                (0, 0), W, H, facecolor="0.97", edgecolor="0.6", lw=0.8, zorder=0, gid="canvas"
            )
        )
    centre = {}
    obj = view.objects
    unmatched_kinds = set()
    skeletons = [(k, obj[list(k.columns)].to_numpy(float)) for k in keypoint_kinds(obj.columns)]
    # lines and points: no polygon form (item_shapes draws them)
    no_area = [(k, obj[list(k.columns)].to_numpy(float)) for k in distance_kinds(obj.columns)]
    marker_like = set()  # objects whose marks go beside their shape, not on its box corner
    marked = False  # some shape has markers (points, joints, line ends): so has the legend
    for i, row in enumerate(obj.itertuples(index=False)):  # one item: tens of objects at most
        color = colors[row.annotator]
        look = styles[row.annotator]
        rings, ctr = _outline(row)
        centre[row.object_id] = ctr
        dashed = bool(row.conflict)
        edge = {
            "edgecolor": color,
            "lw": 2.0 if dashed else 1.4,
            "linestyle": outline_style(look.linestyle, dashed),
            "zorder": 2,
            "gid": f"shape:{row.annotator}",
        }
        fill = {"facecolor": color, "alpha": 0.10, "lw": 0, "zorder": 1}
        drawn = [k for k, p in skeletons if np.isfinite(p[i]).all()]
        shape = next(((k, p[i]) for k, p in no_area if np.isfinite(p[i]).all()), None)
        if drawn:
            unmatched_kinds |= _skeleton(
                ax, drawn[0], dict(skeletons)[drawn[0]][i], color, edge, look.marker
            )
            marked = True
        elif shape is not None:
            line = draw_shape(ax, *shape, color, unmatched=dashed, gid=edge["gid"],
                              linestyle=look.linestyle, marker=look.marker)  # fmt: skip
            marked = True
            if line.get_label() == HOLLOW:
                unmatched_kinds.add(HOLLOW)
            centre[row.object_id] = shape_anchor(*shape)
            marker_like.add(row.object_id)
        elif rings is None:
            xy, w, h = (row.x0, row.y0), row.x1 - row.x0, row.y1 - row.y0
            ax.add_patch(Rectangle(xy, w, h, **fill))
            ax.add_patch(Rectangle(xy, w, h, fill=False, **edge))
        else:
            for ring in rings:
                ax.add_patch(Polygon(ring, closed=True, **fill))
                ax.add_patch(Polygon(ring, closed=True, fill=False, **edge))
        for kind in row.conflict.split(",") if row.conflict else ():
            unmatched_kinds.add(kind)
    # a ✕ per (object, annotator without a match), in that annotator's colour, along the
    # object's top edge; a + on an extra object
    corner = {o: (x1, y0) for o, x1, y0 in zip(obj["object_id"], obj["x1"], obj["y0"])}
    step = 0.035 * W
    # lines and points: marks start half a step up and right of the box's corner (a
    # point's box is the point itself)
    corner = {
        o: (x + 0.5 * step, y - 0.5 * step) if o in marker_like else (x, y)
        for o, (x, y) in corner.items()
    }
    seen: dict = {}
    # each object's row of marks runs left from its top-right corner: it starts far enough
    # right, and low enough, to stay in the panel (marks are not clipped)
    anchors = [
        c.object_id_b if c.kind == "extra" else c.object_id_a
        for c in view.conflicts.itertuples(index=False)
        if c.kind in ("unmatched", "missed", "extra")
    ]
    n_marks = pd.Series(anchors, dtype=object).value_counts().to_dict() if anchors else {}
    corner = {
        o: (min(max(x, step * n_marks.get(o, 1)), W - step), max(y, 0.03 * H))
        for o, (x, y) in corner.items()
    }
    for c in view.conflicts.itertuples(index=False):
        if c.kind not in ("unmatched", "missed", "extra"):
            continue
        anchor = c.object_id_b if c.kind == "extra" else c.object_id_a
        k = seen.get(anchor, 0)
        seen[anchor] = k + 1
        x, y = corner[anchor]
        color = "black" if c.kind == "extra" else colors[c.annotator_b]
        _line(
            ax,
            x - k * step,
            y,
            marker=_MARKERS[c.kind],
            color=color,
            markersize=8,
            markeredgecolor="black" if c.kind != "extra" else "white",
            markeredgewidth=0.6,
            zorder=5,
            clip_on=False,
            gid=f"conflict:{c.kind}",
        )
    pair_kinds = set()
    for p in view.pairs.itertuples(index=False):
        (xa, ya), (xb, yb) = centre[p.object_id_a], centre[p.object_id_b]
        kinds = [k for k, on in (("label", p.label_conflict), ("low_overlap", p.low_overlap)) if on]
        first = kinds[0] if kinds else None
        ls = ":" if first == "low_overlap" else "-"
        _line(
            ax,
            [xa, xb],
            [ya, yb],
            color=CONFLICT_COLORS.get(first, "0.2"),
            lw=1.6 if kinds else 0.8,
            linestyle=ls,
            zorder=3,
            gid="pair",
        )
        for kind, at in zip(kinds, (0.5, 0.3)):  # a pair can be both: two marks
            pair_kinds.add(kind)
            _line(
                ax,
                xa + at * (xb - xa),
                ya + at * (yb - ya),
                marker=_MARKERS[kind],
                color=CONFLICT_COLORS[kind],
                markeredgecolor="white",
                markersize=7,
                zorder=5,
                gid=f"conflict:{kind}",
            )
    if labels and len(obj):
        groups = obj.groupby("cluster", sort=True).agg(
            x=("x0", "min"),
            y=("y0", "min"),
            x1=("x1", "max"),
            y1=("y1", "max"),
            labels=("label", lambda s: tuple(sorted(set(map(str, s))))),
        )
        for g in groups.itertuples(index=False):
            differ = len(g.labels) > 1
            tag = ax.annotate(  # placed without overlap by _place_tags
                " / ".join(style.short_name(x, _TAG_CHARS) for x in g.labels),
                xy=(g.x, g.y),
                xytext=(1, 1),
                textcoords="offset points",
                ha="left",
                va="bottom",
                fontsize="x-small",
                zorder=6,
                gid="tag",
                color=CONFLICT_COLORS["label"] if differ else "0.1",
                fontweight="bold" if differ else "normal",
                bbox={"boxstyle": "square,pad=0.1", "facecolor": "white", "alpha": 0.7, "lw": 0},
                annotation_clip=True,
            )
            tag.set_in_layout(False)
            tag.group_box = (g.x, g.y, g.x1, g.y1)  # where _place_tags may move it
            tag.differ = differ
    ax.set_xlim(0, W)
    ax.set_ylim(H, 0)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    counts = view.conflicts["kind"].value_counts()
    # the kinds of iaa_frames.explore.conflicts; "unmatched" counts (object, annotator without a
    # match for it) rows, as conflicts() does, not objects matched by nobody
    words = {"unmatched": "unmatched (object, annotator)", "low_overlap": "low overlap"}
    summary = " · ".join(
        f"{int(counts[k])} {words.get(k, k)}"
        for k in ("missed", "extra", "unmatched", "label", "low_overlap")
        if k in counts.index
    )
    size = f"{W:.0f}×{H:.0f} px" if view.size_known else "image size unknown"
    # wrapped at " · " to the room right of the Axes' left edge (a busy item's one line ran
    # past the panel's right edge at 3.5 in), to its cell's edge (a portrait item's box is
    # narrower than the room above it: a title fitted to the box wrapped, pushed the box
    # down, narrowed it and collapsed it); _place_tags fits it again once the layout is final
    against = [f"{len(view.annotators)} annotators: against {reference}"] if crowded else []
    set_fitted_title(
        ax,
        [
            f"{style.safe_name(item)}  ({size})",
            *(summary.split(" · ") if summary else ["no conflicts"]),
            *against,
        ],
        within="cell",
    )
    if legend:
        drew = set(obj["annotator"])
        empty = [a for a in view.annotators if a not in drew]
        handles = _legend_handles(
            colors, view.annotators, unmatched_kinds | pair_kinds, empty, styles, marked
        )
        ax.legend(
            handles=handles,
            **({"handlelength": _STYLED_HANDLE} if _styled(styles, view.annotators) else {}),
            loc="upper center",
            bbox_to_anchor=(0.5, -0.02),
            ncols=_legend_cols(ax.figure.get_figwidth(), _legend_names(view.annotators, empty)),
            fontsize="x-small",
            frameon=False,
            borderaxespad=0,
        )
    if own:
        _place_tags(ax.figure)
    return ax


#: Annotators named in the legend of worst_items at 7 in (half as many when narrower);
#: beyond, one entry says that each has its colour.
_MAX_NAMES = 16


def _tag_boxes(tag, renderer, to_px):
    """Candidate extents (x0, y0, x1, y1 in pixels) of a label tag around its group's box:
    above it (left, right), below it, inside its top-left and bottom-right corners, beside
    it; the first is where the tag is drawn by default."""
    e = tag.get_window_extent(renderer)
    w, h = e.width, e.height
    x0, y0, x1, y1 = tag.group_box
    (ax_, ay_), (bx_, by_) = tag.axes.transData.transform([(x0, y0), (x1, y1)])
    left, right = min(ax_, bx_), max(ax_, bx_)
    bottom, top = min(ay_, by_), max(ay_, by_)
    p = to_px
    corners = [
        (left + p, top + p),
        (right - p - w, top + p),
        (left + p, bottom - p - h),
        (right - p - w, bottom - p - h),
        (left + p, top - p - h),
        (right - p - w, bottom + p),
        (left - p - w, top - h),
        (right + p, top - h),
    ]
    return e, [(x, y, x + w, y + h) for x, y in corners]


def _inside_box(box, bounds):
    """``box`` shifted into ``bounds`` by its overflow (a box wider than the bounds: from
    their left edge; taller: from their top, never over the title)."""
    x0, y0, x1, y1 = box
    dx = min(0.0, bounds.x1 - x1)
    dx = bounds.x0 - x0 if x0 + dx < bounds.x0 else dx
    dy = max(0.0, bounds.y0 - y0)
    dy = bounds.y1 - y1 if y1 + dy > bounds.y1 else dy
    return (x0 + dx, y0 + dy, x1 + dx, y1 + dy)


def _overlaps(a, b, gap=1.5) -> bool:
    return a[0] < b[2] + gap and b[0] < a[2] + gap and a[1] < b[3] + gap and b[1] < a[3] + gap


def _place_axes_tags(ax, renderer, to_pt):
    """Place the tags of one Axes greedily, without overlap; the number left out."""
    tags = [t for t in ax.texts if t.get_gid() == "tag"]
    bounds = ax.get_window_extent(renderer)
    placed = []
    dropped = 0
    # tags of groups whose labels differ (the conflicts) get the first choice
    for tag in sorted(tags, key=lambda t: not t.differ):
        tag.set_visible(True)
        text = tag.get_text()
        if " / " in text and tag.get_window_extent(renderer).width > bounds.width:
            # differing labels wider than the panel: one label a line
            tag.set_text(text.replace(" / ", " /\n"))
        e, candidates = _tag_boxes(tag, renderer, 1.0 / to_pt)
        if e.width > bounds.width or e.height > bounds.height:
            candidates = []  # wider or taller than its panel: it would cover the panel's
            # neighbours or title wherever it went, left out (and counted) instead
        for box in (_inside_box(b, bounds) for b in candidates):
            if not any(_overlaps(box, other) for other in placed):
                placed.append(box)
                # the tag's anchor in axes fractions (not points from its group): drawn at
                # another dpi (savefig), the layout scales the Axes and the tag keeps its
                # place in them
                if tag.anncoords == "axes fraction":
                    anchor = ax.transAxes.transform(tag.xyann)
                else:  # offset points from the group's corner, as item() draws it
                    anchor = ax.transData.transform(tag.xy) + np.asarray(tag.xyann) / to_pt
                anchor = anchor + (box[0] - e.x0, box[1] - e.y0)
                tag.anncoords = "axes fraction"
                tag.xyann = tuple(ax.transAxes.inverted().transform(anchor))
                break
        else:
            tag.set_visible(False)
            dropped += 1
    return tags, dropped


def _left_out(dropped, total) -> str:
    """The line saying how many label tags were left out ("" for none)."""
    if not dropped:
        return ""
    return f"{dropped} of {total} label {'tag' if total == 1 else 'tags'} left out (no room)"


#: Passes of _place_tags: each lays the figure out without rendering it
#: (:func:`~iaa_frames.plot.figure.laid_out`), places the tags and fits the titles (another
#: pass when a title changed, its lines setting the Axes' margins, or the Axes moved since
#: the previous pass); the last one keeps every title's number of lines.
_PASSES = 6


def _sticks_out(box, bounds, tol: float = 0.5) -> bool:
    """Whether ``box`` reaches out of ``bounds`` (pixels) by more than ``tol``."""
    return (
        box.x0 < bounds.x0 - tol
        or box.y0 < bounds.y0 - tol
        or box.x1 > bounds.x1 + tol
        or box.y1 > bounds.y1 + tol
    )


def _place_tags(fig, *, grid: str | None = None):
    with no_glyph_warnings():  # measured here; said once, when the figure is drawn
        _place_tags_measured(fig, grid=grid)


def _place_tags_measured(fig, *, grid: str | None = None):
    """Place every label tag of ``fig`` at the figure's present layout: the first of its
    candidate places (:func:`_tag_boxes`) that stays inside its Axes and clear of the tags
    already placed (tags of differing labels first); a tag with no free place is left out.
    The Axes' title (fitted to the Axes' width: :func:`~iaa_frames.plot.fit_text.refit_title`)
    says how many were; with ``grid`` (the figure's title) the figure's title says how
    many in all, once for the panels. Tags are out of the layout (they do not grow the
    Axes' margins), so the layout settles first and the places hold."""
    to_pt = 72 / fig.dpi
    before = None
    for attempt in range(_PASSES):
        # the tags are out of the layout, and measured where placed: not drawn meanwhile
        tags = [t for ax in fig.axes for t in ax.texts if t.get_gid() == "tag" and t.get_visible()]
        for tag in tags:
            tag.set_visible(False)
        try:
            renderer = laid_out(fig)
        finally:
            for tag in tags:
                tag.set_visible(True)
        last = attempt == _PASSES - 1
        # the first draw lays the Axes out with their titles where they stood before it
        # (matplotlib places titles while drawing): the layout settles on a later draw
        boxes = np.array([ax.get_window_extent(renderer).bounds for ax in fig.axes])
        relayout = (
            before is None
            or before.shape != boxes.shape
            or bool((np.abs(before - boxes) > 0.5).any())
        )
        before = boxes
        # a legend still out of the figure: the layout engine placed the Axes from where
        # their legends stood at the previous draw (an Axes legend is placed as it is
        # drawn) and has not settled, even if the Axes moved by less than a pixel
        relayout |= any(
            _sticks_out(legend.get_window_extent(renderer), fig.bbox)
            for legend in [*fig.legends, *(a.get_legend() for a in fig.axes)]
            if legend is not None and legend.get_visible()
        )
        dropped_all = total_all = 0
        for ax in fig.axes:
            tags, dropped = _place_axes_tags(ax, renderer, to_pt)
            dropped_all, total_all = dropped_all + dropped, total_all + len(tags)
            extra = _left_out(dropped, len(tags)) if grid is None else ""
            relayout |= bool(refit_title(ax, renderer, extra=extra, move=not last))
        if grid is not None:
            chars = max(30, int(fig.get_figwidth() * 13))
            line = _left_out(dropped_all, total_all)
            after = grid + ("\n" + textwrap.fill(line, chars) if line else "")
            moves = after.count("\n") != fig.get_suptitle().count("\n")
            if after != fig.get_suptitle() and not (moves and last):
                fig.suptitle(after, fontsize="small")
                relayout = True
        if not relayout:
            break
    for ax in fig.axes:  # the tags left out are removed, not only hidden
        for tag in [t for t in ax.texts if t.get_gid() == "tag" and not t.get_visible()]:
            tag.remove()


def _resolve_image(images, name):
    if images is None:
        return None
    if callable(images):
        return images(name)
    if isinstance(images, Mapping):
        return images.get(name)
    raise ParameterError("images must be None, a mapping item -> image, or a callable")


def _items_text(count: int) -> str:
    """``"1 item"``, ``"3 items"``."""
    return f"{count} item" + ("" if count == 1 else "s")


def _no_worst_items(ranking: pd.DataFrame, component: str, width: float):
    """The figure of :func:`worst_items` when no item carries more disagreement than the
    corpus mean: one panel saying so, and why (no panel of an item that is not worse)."""
    excess = ranking["excess"].to_numpy(dtype=float)
    ranked = int(np.isfinite(excess).sum())
    if ranked:
        why = (
            f"no item carries more {component} disagreement than the corpus mean: the "
            f"excess (units × (item mean distance − corpus mean)) of each of the "
            f"{_items_text(ranked)} with {component} units is at most 0"
        )
        if ranked < len(ranking):
            why += f" ({_items_text(len(ranking) - ranked)} without units not ranked)"
    else:
        why = (
            f"no item carries more {component} disagreement than the corpus mean: none of "
            f"the {_items_text(len(ranking))} has within-item {component} units to rank"
        )
    fig, ax = style.subplots(figsize=(width, 1.6), layout="constrained")
    ax.set_axis_off()
    style.panel_message(ax, why, chars=max(30, int(width * 13)), gid="note")
    fig.suptitle(f"no worst items ({component})", fontsize="small")
    return fig


def worst_items(
    data,
    *,
    n: int = 6,
    component: str = "localization",
    ncols: int | None = None,
    images: Mapping | Callable | None = None,
    reference: str | None = None,
    low_overlap: float | None = DEFAULT_LOW_OVERLAP,
    width: float | None = None,
    distance="giou",
    match_threshold=0.5,
    n_chance: int = 2000,
    seed: int = 0,
    overall: str = "pooled",
    progress: bool | None = None,
):
    """A grid of the ``n`` items that carry the most disagreement, drawn as :func:`item`
    draws one.

    Items are ranked as :func:`iaa_frames.explore.items.items` ranks them (``sort="excess"``: the
    disagreement an item carries beyond the corpus mean, units x (item mean distance −
    corpus mean), so that a big item of middling agreement can come before a tiny item of
    low agreement). Each panel's title gives the item, its rank value and its item σ; one
    legend serves the grid.

    Only items worse than the corpus mean (positive excess) are drawn: when fewer than
    ``n`` are, the figure's title says how many of the items are, and that ``n`` were asked
    for; when none is, the figure is one panel saying so and why (no item drawn).

    Parameters
    ----------
    data : pandas.DataFrame or PairTables
        An annotation frame (pair tables are built once) or the corpus's pair tables.
    n : int, default 6
    component : str, default "localization"
        Component of the ranking (see :func:`iaa_frames.explore.items.items`).
    ncols : int, optional
        Panels per row (default 3, or 2 when ``width`` is under 6 in).
    images : mapping or callable, optional
        Item -> image path or array (None to draw a blank canvas).
    reference, low_overlap
        As in :func:`item`.
    width : float, optional
        Figure width in inches (default 7; panels are ``width / ncols`` wide).
    distance, match_threshold, n_chance, seed, overall, progress
        Passed to :func:`~iaa_frames.core.tables.pairs.pair_tables` when ``data`` is a frame.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> df = iaf.simulate(n_items=8, annotators={"a": "good", "b": "sloppy"}, seed=0)
    >>> fig = worst_items(df, n=4, ncols=2, n_chance=50)
    >>> len([ax for ax in fig.axes if ax.get_title(loc="left")])
    4
    """
    fig_width = style.figure_width(width, style.WIDTH)
    if ncols is None:
        ncols = 3 if fig_width >= 6 else 2
    for name, value in (("n", n), ("ncols", ncols)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ParameterError(f"{name} must be a positive integer; got {value!r}")
    t = tables_of(data, **engine_kwargs(locals()))
    ranking_all = item_ranking(t, component=component)
    if not len(ranking_all):
        raise ParameterError("the corpus has no items")
    # only the items worse than the corpus mean (positive excess; NaN: no unit) are "worst"
    worse = ranking_all[ranking_all["excess"].to_numpy(dtype=float) > 0]
    if not len(worse):
        return _no_worst_items(ranking_all, component, fig_width)
    ranking = worse.head(n)
    names = list(ranking["item"])
    ncols = min(ncols, len(names))
    nrows = -(-len(names) // ncols)
    panel_width = fig_width / ncols
    chars = max(30, int(panel_width * ncols * 13))
    title = "\n".join(
        textwrap.fill(line, chars)
        for line in (
            f"the {_items_text(len(names))} that carry the most {component} disagreement",
            "ranked by excess = units × (item mean distance − corpus mean)",
        )
    )
    if len(names) < n:  # fewer items worse than the corpus mean than asked for: say so
        title += "\n" + textwrap.fill(
            f"only {len(names)} of the {_items_text(len(ranking_all))} carry more disagreement "
            f"than the corpus mean (excess > 0); {n} asked for",
            chars,
        )
    colors = style.annotator_colors(t.corpus.annotators)
    fig, axes = style.subplots(
        nrows,
        ncols,
        squeeze=False,
        layout="constrained",
        # the title's lines beyond two (a narrow figure's, the shortfall's) above the
        # panels, not out of their room (a row of panels at 3 in shrank to 0.2 in)
        figsize=(
            panel_width * ncols,
            panel_width * 0.95 * nrows + 0.9 + 0.17 * max(0, title.count("\n") - 1),
        ),
    )
    kinds = set()
    marked = False  # some panel draws markers (points, joints, line ends)
    for ax, name, row in zip(axes.flat, names, ranking.itertuples(index=False)):
        item(
            t,
            name,
            image=_resolve_image(images, name),
            reference=reference,
            low_overlap=low_overlap,
            colors=colors,
            legend=False,
            ax=ax,
        )
        # the title fits its panel: the conflict counts wrapped at " · " (fitted to the
        # panel's width again by _place_tags once the layout is final)
        set_fitted_title(
            ax,
            [
                style.safe_name(name),
                f"excess {style.fmt(row.excess)} · item σ {style.fmt(row.sigma)}",
            ]
            + fitted_title_parts(ax)[1:],
            head=2,
            fontsize="x-small",
            within="cell",  # a portrait item sits left in its cell, its title above
        )
        ax.set_anchor("W")  # a narrow (portrait) item sits left: its title starts its cell
        kinds |= {
            g.split(":", 1)[1]
            for g in (a.get_gid() or "" for a in ax.lines)
            if g.startswith("conflict:")
        }
        kinds |= {c.get_label() for c in ax.collections if c.get_label().startswith("joint_")}
        kinds |= {ln.get_label() for ln in ax.lines if ln.get_label() == HOLLOW}
        marked |= any(c.get_label().startswith("joint_") for c in ax.collections) or any(
            str(ln.get_gid()).startswith("shape:") and ln.get_marker() not in ("None", "", None)
            for ln in ax.lines
        )
    for ax in axes.flat[len(names) :]:
        ax.set_visible(False)
    # the legend names the annotators the panels draw (not every annotator of a crowd)
    drawn = {
        str(a.get_gid()).split(":", 1)[1]
        for ax in axes.flat[: len(names)]
        for a in ax.get_children()
        if str(a.get_gid()).startswith("shape:")
    }
    shown_names = sorted((a for a in colors if a in drawn), key=natural_key)
    # a crowd's names do not fit (40 names in two columns collapsed the panels at 3.5 in):
    # one entry says what the colours are
    crowd = len(shown_names) > (_MAX_NAMES if fig_width >= 6 else _MAX_NAMES // 2)
    styles = style.annotator_styles(colors)
    styled = _styled(styles, shown_names)
    handles = _legend_handles(colors, [] if crowd else shown_names, kinds, [], styles, marked)
    if crowd:
        each = "one colour and line style each" if styled else "one colour each"
        handles.insert(
            0, Line2D([], [], color="0.5", lw=2, label=f"{len(shown_names)} annotators, {each}")
        )
    handle = {"handlelength": _STYLED_HANDLE} if styled and not crowd else {}
    # as many columns as the entries fit (a crowd's long entries, in two columns at 3.5 in,
    # ran past the right edge: the layout cannot narrow a legend); its rows beyond those
    # of the usual columns make the figure taller (else they took the panels' room)
    most = 4 if fig_width >= 6 else 2
    labels = [h.get_label() for h in handles]
    columns = min(most, style.legend_columns(labels, fig_width, fontsize="x-small",
                                             min_width=0.0, **handle))  # fmt: skip
    extra_rows = -(-len(handles) // columns) - -(-len(handles) // most)
    fig.set_figheight(fig.get_figheight() + 0.15 * extra_rows)
    fig.legend(
        handles=handles,
        **handle,
        loc="outside lower center",
        ncols=columns,
        fontsize="x-small",
        frameon=False,
    )
    fig.suptitle(title, fontsize="small")
    _place_tags(fig, grid=title)  # the figure's title says how many tags were left out
    return fig
