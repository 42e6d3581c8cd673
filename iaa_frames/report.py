"""A self-contained HTML report of a corpus's agreement, with the numbers as files.

:func:`report` computes the pair tables once, the agreement result (with bootstrap CIs),
the annotator x annotator tables and the per-item drilldown, draws every figure of
:mod:`iaa_frames.plot`, and writes into one directory:

* ``report.html``: one file, figures inline as SVG, no external asset (opens offline);
* ``agreement.nc``: the result Dataset (netCDF);
* ``agreement.csv`` (every cell, long form), ``headline.csv``, ``by_label.csv``,
  ``by_annotator.csv``, ``pairwise.csv`` and ``items.csv``.

:func:`reading` is the plain-language reading of the numbers (DESIGN §5, "Reading the
components together"), usable on its own.
"""

from __future__ import annotations

import html
import io
import math
import re
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from .comparability import require_comparable
from .errors import IAAWarning, ParameterError
from .frame import ALL
from .pairs import DEFAULT_N_CHANCE, pair_tables

__all__ = ["HIGH", "LOW", "level", "reading", "report", "headline", "by_label",
           "by_annotator"]

#: Agreement at or above this reads "high" (Krippendorff's conventional cut-off for alpha,
#: applied to sigma as well).
HIGH = 0.8
#: Agreement below this reads "low" (Krippendorff's lowest cut-off for tentative
#: conclusions); between LOW and HIGH reads "moderate".
LOW = 2 / 3

_COMPONENTS = ("detection", "classification", "localization", "overall")
_TRIAD = ("detection", "classification", "localization")
_SYMBOL = {"sigma": "σ", "alpha": "α"}
_MEANING = {
    "detection": "finding the same objects",
    "classification": "giving matched objects the same class",
    "localization": "drawing matched objects in the same place",
    "overall": "the annotations as a whole",
}
_ANNOTATOR_GAP = {  # verb phrases in the base form ("they find", "this annotator finds")
    "detection": "find different objects than the others (miss objects or add extra ones)",
    "classification": "label the objects everybody found differently (class confusion)",
    "localization": "draw the objects everybody found less precisely (loose or shifted shapes)",
    "overall": "differ from the others on the annotation as a whole",
}


# ------------------------------------------------------------------ reading the numbers


def level(value) -> str:
    """'high', 'moderate', 'low', 'below chance' or 'undefined' for an agreement value.

    Examples
    --------
    >>> [level(v) for v in (0.9, 0.7, 0.3, -0.1, float("nan"))]
    ['high', 'moderate', 'low', 'below chance', 'undefined']
    """
    if value is None or not math.isfinite(float(value)):
        return "undefined"
    v = float(value)
    if v < 0:
        return "below chance"
    if v < LOW:
        return "low"
    if v < HIGH:
        return "moderate"
    return "high"


def _value(result, component, label=ALL, annotator=ALL, var="agreement"):
    if var not in result or component not in result["component"].values:
        return float("nan")
    return float(result[var].sel(component=component, label=label, annotator=annotator))


def _note(result, component, label=ALL, annotator=ALL) -> str:
    if "note" not in result:
        return ""
    return str(result["note"].sel(component=component, label=label,
                                  annotator=annotator).values).strip()


def _fmt(x, digits=2):
    try:
        x = float(x)
    except (TypeError, ValueError):
        return "n/a"
    return f"{x:.{digits}f}" if math.isfinite(x) else "n/a"


def _name(result, component):
    measure = str(result["measure"].sel(component=component).values) \
        if "measure" in result.coords else ("alpha" if component == "classification" else "sigma")
    return f"{component} {_SYMBOL.get(measure, measure)}"


def _diagnose(d: str, c: str, loc: str) -> str | None:
    """DESIGN §5's diagnosis table, on levels (moderate counts as neither high nor low
    except where noted)."""
    hi = lambda x: x == "high"  # noqa: E731
    lo = lambda x: x in ("low", "below chance")  # noqa: E731
    if loc == "below chance":
        return ("localization is below chance: systematic disagreement, most likely two "
                "incompatible drawing conventions in use (e.g. tight vs loose boxes, "
                "visible vs amodal extent).")
    if lo(d) and lo(c) and lo(loc):
        return "all three components are low: the task needs rethinking, not more annotators."
    if hi(d) and hi(c) and lo(loc):
        return ("annotators agree on what to annotate and how to label it, but not on how "
                "to draw it: the drawing guidelines are too loose (tight vs loose boxes, "
                "occluded parts).")
    if lo(d) and hi(loc):
        return ("annotators draw well what they both find, but do not find the same "
                "objects: the definition of \"an object\" is unclear (minimum size, groups, "
                "truncation).")
    if hi(d) and lo(c) and hi(loc):
        return ("annotators find and draw the same objects but label them differently: the "
                "class definitions overlap or are confusing.")
    if hi(d) and hi(c) and hi(loc):
        return "all three components are high: the annotation is reliable on every count."
    return None


def reading(result, *, max_labels: int = 8) -> list[str]:
    """A short plain-language reading of an agreement result (DESIGN §5).

    Levels: "high" at or above :data:`HIGH` (0.8), "low" below :data:`LOW` (2/3),
    "moderate" between, "below chance" under 0. The pooled figures are matched against
    the diagnosis table; then the classes and annotators that stand out are named, σ and
    KS are compared (a high KS with a lower σ means a minority of items concentrates the
    disagreement), raw IoU is set beside localization σ, and undefined figures are
    explained with their ``note``.

    Parameters
    ----------
    result : xarray.Dataset
        The agreement result.
    max_labels : int, default 8
        Largest number of class / annotator names listed per sentence.

    Returns
    -------
    list of str
        Sentences, most important first.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.engine import agreement
    >>> res = agreement(iaf.simulate(n_items=10, seed=0), n_chance=100)
    >>> reading(res)[0].startswith("Detection")
    True
    """
    out = []
    lv = {c: level(_value(result, c)) for c in _COMPONENTS}
    parts = [f"{_name(result, c)} = {_fmt(_value(result, c))} ({lv[c]}, "
             f"{_MEANING[c]})" for c in _TRIAD if c in result["component"].values]
    first = "; ".join(parts) + "."
    out.append(first[:1].upper() + first[1:])
    diagnosis = _diagnose(lv["detection"], lv["classification"], lv["localization"])
    if diagnosis:
        out.append("Overall reading: " + diagnosis)
    else:
        weak = [c for c in _TRIAD if lv[c] in ("low", "below chance", "moderate")]
        if weak:
            out.append("Overall reading: the weak point is " + " and ".join(
                f"{c} ({_MEANING[c]}, {lv[c]})" for c in weak) + ".")
    below = [c for c in _COMPONENTS if lv[c] == "below chance" and c != "localization"]
    for c in below:
        out.append(f"{c.capitalize()} is below chance ({_fmt(_value(result, c))}): "
                   "systematic disagreement, not noise.")
    for c in _TRIAD:
        lo, hi = _value(result, c, var="ci_low"), _value(result, c, var="ci_high")
        if math.isfinite(lo) and math.isfinite(hi) and lo <= 0 <= hi:
            out.append(f"The confidence interval of {c} [{_fmt(lo)}, {_fmt(hi)}] includes "
                       "0: it cannot be told apart from chance.")
    for c in _TRIAD:
        if lv[c] == "undefined":
            why = _note(result, c)
            out.append(f"{c.capitalize()} is undefined (NaN, not 0 or 1 by fiat)"
                       + (f": {why}." if why else "."))
    raw = _value(result, "localization", var="raw_iou")
    if math.isfinite(raw) and math.isfinite(_value(result, "localization")):
        out.append(f"The raw mean IoU of matched pairs is {_fmt(raw)}, the figure annotation "
                   f"tools show; corrected for chance, localization σ is "
                   f"{_fmt(_value(result, 'localization'))}.")
    for c in ("localization", "detection"):
        k = _value(result, c, var="ks") * _value(result, c, var="ks_sign")
        s = _value(result, c)
        p = _value(result, c, var="ks_pvalue")
        if math.isfinite(k) and math.isfinite(s) and k - s > 0.25 and p < 0.05:
            out.append(f"For {c}, KS ({_fmt(k)}) is well above σ ({_fmt(s)}): most pairs "
                       "agree and a minority of items concentrates the disagreement; the "
                       "hardest items below show which.")
    out.extend(_label_sentences(result, max_labels))
    out.extend(_annotator_sentences(result, max_labels))
    return out


def _listing(names, limit):
    names = list(names)
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _label_sentences(result, limit):
    """Classes grouped by diagnosis, most supported first."""
    from .plot._style import top_by_support

    labels, _ = top_by_support(result, "label", None, keep_all=False)
    if not labels:
        return []
    comps = [c for c in _TRIAD if c in result["component"].values]
    values = result["agreement"].sel(component=comps, label=labels, annotator=ALL).values
    groups: dict[str, list] = {}
    undefined = []
    for k, lab in enumerate(labels):
        lv = dict(zip(comps, (level(v) for v in values[:, k])))
        if "undefined" in lv.values():
            undefined.append(lab)
        text = _diagnose(lv.get("detection"), lv.get("classification"),
                         lv.get("localization"))
        if text and not text.startswith("all three components are high"):
            groups.setdefault(text, []).append(lab)
    out = []
    for text, labs in groups.items():
        out.append(f"Classes {_listing(labs, limit)}: {text}" if len(labs) > 1
                   else f"Class {labs[0]}: {text}")
    if undefined:
        out.append(f"Some figures of {len(undefined)} class(es) ({_listing(undefined, limit)}) "
                   "are undefined (too few units or no variation; see the note column).")
    return out


def _clearly_below(result, component, annotator, pooled):
    """An annotator's cell is clearly below the pooled one: its CI lies below the pooled
    value (with CIs), or it is more than 0.1 lower (without)."""
    v = _value(result, component, annotator=annotator)
    if not math.isfinite(v) or v >= pooled:
        return False
    high = _value(result, component, annotator=annotator, var="ci_high")
    if math.isfinite(high):
        return high < pooled
    return v < pooled - 0.1


def _annotator_sentences(result, limit):
    names = [str(v) for v in result["annotator"].values if str(v) != ALL]
    out = []
    if len(names) < 3:  # with two annotators, an annotator's cell is the pooled one
        return out
    for c in _TRIAD:
        pooled = _value(result, c)
        if not math.isfinite(pooled):
            continue
        worse = sorted((_value(result, c, annotator=a), a) for a in names
                       if _clearly_below(result, c, a, pooled))
        if worse:
            who = _listing([f"{a} ({_fmt(v)})" for v, a in worse], limit)
            phrase = _ANNOTATOR_GAP[c]
            if len(worse) == 1:
                verb, rest = phrase.split(" ", 1)
                subject, phrase = "this annotator", f"{verb}s {rest}"
            else:
                subject = "they"
            out.append(f"On {c}, {who} {'is' if len(worse) == 1 else 'are'} clearly below "
                       f"everybody ({_fmt(pooled)}): {subject} {phrase}.")
    return out


# ------------------------------------------------------------------------ tables


def _cell_text(v, lo, hi):
    if not math.isfinite(v):
        return "n/a"
    if math.isfinite(lo) and math.isfinite(hi):
        return f"{v:.2f} [{lo:.2f}, {hi:.2f}]"
    return f"{v:.2f}"


def headline(result) -> pd.DataFrame:
    """The four components pooled over labels and annotators.

    Returns
    -------
    pandas.DataFrame
        One row per component: ``measure``, ``agreement``, ``ci_low``, ``ci_high``,
        ``observed``, ``expected``, ``ks``, ``ks_sign``, ``ks_pvalue``, ``raw_iou``,
        ``presence_alpha``, ``frac_below_chance``, ``n_units``, ``n_chance``, ``note``.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.engine import agreement
    >>> headline(agreement(iaf.simulate(n_items=10, seed=0), n_chance=100)).index.tolist()
    ['detection', 'classification', 'localization', 'overall']
    """
    sub = result.sel(label=ALL, annotator=ALL)
    cols = [v for v in ("agreement", "ci_low", "ci_high", "observed", "expected", "ks",
                        "ks_sign", "ks_pvalue", "raw_iou", "presence_alpha",
                        "frac_below_chance", "n_units", "n_chance", "note")
            if v in sub.data_vars]
    frame = sub[cols].to_dataframe()
    frame = frame.drop(columns=[c for c in ("label", "annotator") if c in frame.columns])
    if "measure" in frame.columns:
        frame = frame[["measure"] + [c for c in frame.columns if c != "measure"]]
    return frame


def _by(result, dim):
    other = "annotator" if dim == "label" else "label"
    sub = result.sel({other: ALL})
    frame = sub[[v for v in ("agreement", "ci_low", "ci_high", "n_units", "note")
                 if v in sub.data_vars]].to_dataframe().reset_index()
    frame = frame.drop(columns=[c for c in (other, "measure") if c in frame.columns])
    wide = frame.pivot(index=dim, columns="component")
    wide.columns = [f"{comp}_{var}" for var, comp in wide.columns]
    order = [str(v) for v in result[dim].values]
    wide = wide.reindex(order)
    comps = [str(c) for c in result["component"].values]
    cols = [f"{c}_{v}" for c in comps for v in ("agreement", "ci_low", "ci_high", "n_units",
                                                 "note") if f"{c}_{v}" in wide.columns]
    wide = wide[cols]
    wide.index.name = dim
    return wide


def by_label(result) -> pd.DataFrame:
    """Agreement of every class (pooled over annotators), one column group per component.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.engine import agreement
    >>> t = by_label(agreement(iaf.simulate(n_items=10, seed=0), n_chance=100))
    >>> t.index[0], t.columns[0]
    ('(all)', 'detection_agreement')
    """
    return _by(result, "label")


def by_annotator(result) -> pd.DataFrame:
    """Agreement of every annotator (pooled over classes), one column group per component.

    Examples
    --------
    >>> import iaa_frames as iaf
    >>> from iaa_frames.engine import agreement
    >>> by_annotator(agreement(iaf.simulate(n_items=10, seed=0), n_chance=100)).index[0]
    '(all)'
    """
    return _by(result, "annotator")


def _html_table(frame: pd.DataFrame, *, index_name: str | None = None,
                classes: str = "") -> str:
    """An escaped HTML table; numbers right-aligned, floats with 3 decimals."""
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in
                   ([index_name] if index_name is not None else []) + list(frame.columns))
    columns = []
    for col in frame.columns:
        values = frame[col]
        if pd.api.types.is_bool_dtype(values):
            columns.append([(str(v), False) for v in values])
        elif pd.api.types.is_integer_dtype(values):
            columns.append([(str(v), True) for v in values])
        elif pd.api.types.is_float_dtype(values):
            columns.append([(_fmt(v, 3), True) for v in values])
        else:
            columns.append([("" if v is None else str(v), False) for v in values])
    rows = []
    for i, idx in enumerate(frame.index):
        cells = [f"<th>{html.escape(str(idx))}</th>"] if index_name is not None else []
        cells += [f"<td{' class=num' if num else ''}>{html.escape(text)}</td>"
                  for text, num in (col[i] for col in columns)]
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return (f'<table class="{html.escape(classes)}"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>")


def _summary_table(result, dim, top):
    """Display table: agreement [CI] and n per component; top rows by support."""
    from .plot._style import top_by_support

    shown, hidden = top_by_support(result, dim, top)
    wide = _by(result, dim).reindex(shown)
    out = pd.DataFrame(index=wide.index)
    for c in [str(c) for c in result["component"].values]:
        v, lo, hi = (wide.get(f"{c}_{k}", pd.Series(np.nan, index=wide.index))
                     for k in ("agreement", "ci_low", "ci_high"))
        out[_name(result, c)] = [_cell_text(float(a), float(b), float(d))
                                 for a, b, d in zip(v, lo, hi)]
        n = wide.get(f"{c}_n_units", pd.Series(np.nan, index=wide.index))
        out[f"n ({c})"] = [str(int(x)) if math.isfinite(float(x)) else "0" for x in n]
    return out, hidden


# ------------------------------------------------------------------------- figures


def _svg(fig, name: str) -> str:
    """The figure as inline SVG markup (no XML prolog, DOCTYPE, metadata or namespaces
    declarations: the HTML parser supplies them), and close it."""
    import matplotlib
    import matplotlib.pyplot as plt

    for artist in fig.findobj():
        artist.set_gid(None)  # plot gids repeat within a figure; SVG ids must not
        if artist.get_rasterized():  # colorbars are rasterized by default: keep vectors
            artist.set_rasterized(False)
    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": name}):
        fig.savefig(buf, format="svg")
    plt.close(fig)
    svg = buf.getvalue()
    svg = svg[svg.index("<svg"):]
    svg = re.sub(r"<metadata>.*?</metadata>", "", svg, flags=re.S)
    svg = re.sub(r'\s+xmlns(:\w+)?="[^"]*"', "", svg)
    # ids unique across the figures of one page (matplotlib numbers them per figure)
    svg = re.sub(r'\bid="', f'id="{name}-', svg)
    svg = re.sub(r'href="#', f'href="#{name}-', svg)
    svg = svg.replace("url(#", f"url(#{name}-")
    return svg


def _figures(tables, result, pw, item_table, top):
    import matplotlib.pyplot as plt

    from . import plot

    figs = []

    def add(key, title, caption, make):
        try:
            fig = make()
        except Exception as exc:  # a figure must not sink the report; say what failed
            plt.close("all")
            warnings.warn(f"the figure {title!r} could not be drawn: "
                          f"{type(exc).__name__}: {exc}", IAAWarning, stacklevel=3)
            figs.append((key, title, f'<p class="warn">This figure could not be drawn: '
                                     f"{html.escape(type(exc).__name__)}: "
                                     f"{html.escape(str(exc))}</p>", caption))
            return
        fig = getattr(fig, "figure", fig)
        figs.append((key, title, _svg(fig, key), caption))

    add("agreement", "Agreement by class",
        "Agreement per class, one panel per component, with 95% bootstrap intervals; the "
        "dashed line is chance (0). Hollow diamonds: raw IoU of matched pairs, uncorrected.",
        lambda: plot.agreement(result, top=top))
    add("decomposition", "Decomposition by class",
        "Detection, classification and localization of each class side by side.",
        lambda: plot.decomposition(result, top=top))
    add("annotators", "Annotator profiles",
        "Each annotator across the components: a misser dips on detection, a mislabeler on "
        "classification, a sloppy drawer on localization.",
        lambda: plot.annotators(result, top=10))

    def heatmaps():
        comps = [c for c in ("detection", "classification", "localization") if c in pw]
        fig, axes = plt.subplots(1, len(comps), figsize=(5.2 * len(comps), 4.6),
                                 layout="constrained", squeeze=False)
        for ax, c in zip(axes[0], comps):
            plot.pairwise(pw[c], ax=ax, top=20)
        return fig

    add("pairwise", "Annotator pairs", "Agreement of every pair of annotators.", heatmaps)
    for comp in ("localization", "detection"):
        add(f"distributions_{comp}", f"Distances: {comp}",
            f"Within-item {comp} distances against chance (between-item) distances; the "
            "ECDF panel marks the KS gap.",
            lambda comp=comp: plot.distributions(tables, component=comp, by="label", top=3))
    add("items", "Hardest items",
        "Items with the lowest item-level agreement on localization; beside each, objects "
        "no other annotator matched and clusters with conflicting labels.",
        lambda: plot.items(item_table, top=15))
    return figs


# -------------------------------------------------------------------------- report

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;
margin:2em auto;max-width:1200px;padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.6em}h2{border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:1.8em}
table{border-collapse:collapse;margin:.6em 0;font-size:.9em}
th,td{border:1px solid #ddd;padding:.25em .55em;text-align:left;vertical-align:top}
td.num{text-align:right;font-variant-numeric:tabular-nums}thead th{background:#f3f3f3}
figure{margin:1em 0}figcaption{color:#555;font-size:.9em}
svg{max-width:100%;height:auto}.note{color:#666;font-style:italic}.warn{color:#a33}
ul.reading li{margin:.3em 0}nav a{margin-right:1em}
"""


def _check_report_params(n_boot, top):
    if isinstance(n_boot, bool) or not isinstance(n_boot, (int, np.integer)) or n_boot < 0:
        raise ParameterError(f"n_boot must be a non-negative integer; got {n_boot!r}")
    if isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 1:
        raise ParameterError(f"top must be a positive integer; got {top!r}")


def report(df: pd.DataFrame, path, *, distance="giou", match_threshold: float = 0.5,
           n_chance: int = DEFAULT_N_CHANCE, n_boot: int = 200, seed: int = 0,
           overall: str = "pooled", progress: bool | None = None, title: str | None = None,
           top: int = 20) -> Path:
    """Write a self-contained HTML report of ``df``'s agreement into directory ``path``.

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy annotation frame.
    path : str or os.PathLike
        Output directory (created if missing; existing report files are overwritten).
    distance, match_threshold, n_chance, seed, overall
        As in :func:`iaa_frames.engine.agreement`.
    n_boot : int, default 200
        Bootstrap replicates for the confidence intervals (0: no intervals).
    progress : bool, optional
        Progress bars (matching, bootstrap); by default only for long work.
    title : str, optional
        Report title (default "Inter-annotator agreement report").
    top : int, default 20
        Classes shown in figures and HTML tables, by support (the CSV files hold all).

    Returns
    -------
    pathlib.Path
        The path of ``report.html``. Beside it: ``agreement.nc``, ``agreement.csv``,
        ``headline.csv``, ``by_label.csv``, ``by_annotator.csv``, ``pairwise.csv``,
        ``items.csv``.

    Raises
    ------
    ParameterError
        For bad parameter values.
    OSError
        When ``path`` cannot be created or written (e.g. it is a file).

    Examples
    --------
    >>> import tempfile, iaa_frames as iaf
    >>> out = report(iaf.simulate(n_items=8, seed=0), tempfile.mkdtemp(), n_chance=50,
    ...              n_boot=0)
    >>> out.name
    'report.html'
    """
    from . import __version__
    from .engine import agreement_from_tables, pairwise_from_tables
    from .items import items as item_drilldown

    _check_report_params(n_boot, top)
    if title is not None and not isinstance(title, str):
        raise ParameterError(f"title must be a string; got {title!r}")
    out_dir = Path(path)
    if out_dir.exists() and not out_dir.is_dir():
        raise NotADirectoryError(f"{out_dir} exists and is not a directory")
    start = time.perf_counter()
    require_comparable(df, min_items=2, objects=True)  # a clear error, not a page of empty figures
    tables = pair_tables(df, distance=distance, match_threshold=match_threshold,
                         n_chance=n_chance, overall=overall, seed=seed, progress=progress)
    result = agreement_from_tables(tables, n_boot=n_boot, seed=seed, progress=progress)
    pw = {c: pairwise_from_tables(tables, component=c) for c in _COMPONENTS}
    item_table = item_drilldown(tables, component="localization")
    item_detection = item_drilldown(tables, component="detection")
    figures = _figures(tables, result, pw, item_table, top)
    elapsed = time.perf_counter() - start
    out_dir.mkdir(parents=True, exist_ok=True)

    # files
    result.to_netcdf(out_dir / "agreement.nc")
    result.to_dataframe().reset_index().to_csv(out_dir / "agreement.csv", index=False)
    head = headline(result)
    head.to_csv(out_dir / "headline.csv")
    by_label(result).to_csv(out_dir / "by_label.csv")
    by_annotator(result).to_csv(out_dir / "by_annotator.csv")
    pd.concat([p.to_dataframe().reset_index().assign(component=c)
               for c, p in pw.items()], ignore_index=True)[
        ["component", "annotator_a", "annotator_b", "agreement", "n_units", "n_chance",
         "note"]].to_csv(out_dir / "pairwise.csv", index=False)
    pd.concat([item_table.assign(component="localization"),
               item_detection.assign(component="detection")],
              ignore_index=True).to_csv(out_dir / "items.csv", index=False)

    page = _page(df, tables, result, head, figures, item_table, item_detection,
                 title or "Inter-annotator agreement report", top, elapsed, __version__)
    target = out_dir / "report.html"
    target.write_text(page, encoding="utf-8")
    return target


def _params_table(result, tables, elapsed, version):
    rows = {k: result.attrs[k] for k in result.attrs}
    rows.setdefault("iaa_frames_version", version)
    rows["computed in"] = f"{elapsed:.1f} s"
    frame = pd.DataFrame({"value": [str(v) for v in rows.values()]}, index=list(rows))
    return _html_table(frame, index_name="parameter")


def _headline_html(result, head):
    rows = []
    for comp, r in head.iterrows():
        measure = _SYMBOL.get(str(r.get("measure", "")), str(r.get("measure", "")))
        ks = (f"{'+' if r.get('ks_sign', 0) > 0 else '−'}{_fmt(r['ks'])}"
              if math.isfinite(float(r.get("ks", np.nan))) else "n/a")
        rows.append({
            "component": comp, "measure": measure,
            "agreement [95% CI]": _cell_text(float(r["agreement"]), float(r["ci_low"]),
                                             float(r["ci_high"])),
            "level": level(r["agreement"]),
            "KS": ks, "raw IoU": _fmt(r.get("raw_iou")),
            "presence α": _fmt(r.get("presence_alpha")),
            "n units": str(int(r["n_units"])) if math.isfinite(float(r["n_units"])) else "0",
            "n chance": (str(int(r["n_chance"])) if math.isfinite(float(r["n_chance"]))
                         else "—"),
            "note": str(r.get("note", "") or ""),
        })
    frame = pd.DataFrame(rows).set_index("component")
    return _html_table(frame, index_name="component", classes="headline")


def _items_html(item_table, item_detection, n=15):
    cols = ["item", "sigma", "mean_distance", "chance_percentile", "n_pairs", "n_unmatched",
            "n_mislabeled", "n_annotators", "n_objects"]
    parts = []
    for name, t in (("localization", item_table), ("detection", item_detection)):
        parts.append(f"<h3>{html.escape(name)}</h3>")
        parts.append(_html_table(t[cols].head(n).set_index("item"), index_name="item",
                                 classes="items"))
    return "".join(parts)


def _page(df, tables, result, head, figures, item_table, item_detection, title, top,
          elapsed, version):
    c = tables.corpus
    n_obj = len(c.objects)
    intro = (f"{len(c.items):,} items, {len(c.annotators):,} annotators, "
             f"{len(c.labels):,} classes, {n_obj:,} objects and {len(df) - n_obj:,} "
             "coverage rows (an annotator reviewed an item and drew nothing).")
    label_table, label_hidden = _summary_table(result, "label", top)
    ann_table, ann_hidden = _summary_table(result, "annotator", 50)
    sections = []
    sections.append(("summary", "Reading", "<ul class=reading>" + "".join(
        f"<li>{html.escape(s)}</li>" for s in reading(result)) + "</ul>"
        + f"<p class=note>Levels: high ≥ {HIGH:g}, moderate ≥ {LOW:.3f}, low below, "
          "below chance &lt; 0. σ = 1 − mean within-item distance / mean chance distance; "
          "α = Krippendorff's alpha. 0 is chance, 1 perfect agreement.</p>"))
    sections.append(("headline", "Headline", _headline_html(result, head)))
    fig_html = "".join(
        f'<figure id="fig-{html.escape(key)}"><h3>{html.escape(ftitle)}</h3>{body}'
        f"<figcaption>{html.escape(caption)}</figcaption></figure>"
        for key, ftitle, body, caption in figures)
    sections.append(("figures", "Figures", fig_html))
    note = (f'<p class=note>{label_hidden:,} more classes not shown (top {top} by support); '
            "by_label.csv holds all.</p>") if label_hidden else ""
    sections.append(("by-label", "By class",
                     _html_table(label_table, index_name="class") + note))
    note = (f'<p class=note>{ann_hidden:,} more annotators not shown; by_annotator.csv holds '
            "all.</p>") if ann_hidden else ""
    sections.append(("by-annotator", "By annotator",
                     _html_table(ann_table, index_name="annotator") + note))
    sections.append(("items", "Hardest items",
                     "<p>Worst items first: <em>sigma</em> is the item's own agreement "
                     "(1 − its mean within-item distance / the mean chance distance), "
                     "<em>chance_percentile</em> the share of chance distances at or below "
                     "its mean, <em>n_unmatched</em> its objects no other annotator matched, "
                     "<em>n_mislabeled</em> its clusters with conflicting labels. All items: "
                     "items.csv.</p>" + _items_html(item_table, item_detection)))
    sections.append(("parameters", "Parameters",
                     _params_table(result, tables, elapsed, version)
                     + "<p>Files: agreement.nc (the result Dataset), agreement.csv, "
                       "headline.csv, by_label.csv, by_annotator.csv, pairwise.csv, "
                       "items.csv.</p>"))
    nav = "<nav>" + "".join(f'<a href="#{sid}">{html.escape(name)}</a>'
                            for sid, name, _ in sections) + "</nav>"
    body = "".join(f'<section id="{sid}"><h2>{html.escape(name)}</h2>{content}</section>'
                   for sid, name, content in sections)
    return ("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
            '<meta name=viewport content="width=device-width, initial-scale=1">'
            f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>"
            f"<h1>{html.escape(title)}</h1><p>{html.escape(intro)}</p>{nav}{body}"
            f"<footer><p class=note>iaa_frames {html.escape(str(version))}</p></footer>"
            "</body></html>\n")
