"""A self-contained HTML report of a corpus's agreement, with the numbers as files.

Over 400 lines: :func:`report` writes out its keywords and the engine parameters.

:func:`report` computes the pair tables once, the agreement result (with bootstrap CIs),
the annotator x annotator tables and the per-item drilldown, draws every figure of
:mod:`iaa_frames.plot`, and writes into one directory:

* ``report.html``: one file, figures inline as SVG, no external asset (opens offline);
* ``agreement.nc``: the result Dataset (netCDF);
* ``agreement.csv`` (every cell, long form), ``headline.csv``, ``by_label.csv``,
  ``by_annotator.csv``, ``pairwise.csv`` and ``items.csv``.

:func:`reading` is the plain-language reading of the numbers (the diagnosis table,
"Reading the components together" in :mod:`iaa_frames.report.diagnosis`), usable on its
own.

The parts of the report, one module each:

=======================================  ==================================================
:mod:`~iaa_frames.report.diagnosis`      the plain-language reading (:func:`reading`)
:mod:`~iaa_frames.report.tables`         the HTML tables
:mod:`~iaa_frames.report.figures`        the figures as inline SVG, with captions
:mod:`~iaa_frames.report.page`           the sections and the HTML document
:mod:`~iaa_frames.report.threshold`      the "Match threshold" section (several τ)
:mod:`~iaa_frames.report.disagreement`   the "Where they disagree" section
:mod:`~iaa_frames.report.attributes`     the "Attributes" section (declared attributes)
:mod:`~iaa_frames.report.decisions`      the "Consensus" and "How many more" sections
:mod:`~iaa_frames.report.formatting`     numbers and words as the report writes them
:mod:`~iaa_frames.report.output`         CSV safe in spreadsheets; files never overwritten
=======================================  ==================================================

The tables of the result it writes (:func:`headline`, :func:`by_label`,
:func:`by_annotator`) are :mod:`iaa_frames.explore.views`, re-exported here.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

from iaa_frames.core.engine import memo as cache
from iaa_frames.core.engine import resolve
from iaa_frames.core.engine.result import COMPONENTS
from iaa_frames.core.engine.result import MEASURES as MEASURE_OF
from iaa_frames.core.tables.comparability import require_comparable
from iaa_frames.core.tables.pairs import iter_tables_from, pair_tables_from
from iaa_frames.errors import ParameterError
from iaa_frames.explore.items import items as item_drilldown
from iaa_frames.explore.views import by_annotator, by_label, headline
from iaa_frames.settings.parameters import DEFAULT_N_BOOT, DEFAULTS, MatchSettings, checked_settings
from iaa_frames.settings.thresholds import check_thresholds, concat_thresholds, has_threshold_dim
from iaa_frames.settings.validation import Integer, validate_params

from .attributes import attribute_section
from .decisions import consensus_section, how_many_section
from .diagnosis import (
    GAP,
    HIGH,
    LOW,
    against_chance,
    level,
    reading,
    relative_levels,
)
from .disagreement import disagreement_section
from .figures import draw_figures, one_glyph_warning, svg
from .formatting import plural
from .output import claim, output_path, staged, write_csv
from .page import RESULT_SECTIONS, SECTIONS, Context, render_page
from .pair_choice import pair_section_annotators
from .threshold import report_threshold, threshold_section, threshold_table

__all__ = [
    "GAP",
    "HIGH",
    "LOW",
    "MEASURE_OF",
    "RESULT_SECTIONS",
    "SECTIONS",
    "against_chance",
    "by_annotator",
    "by_label",
    "disagreement_section",
    "headline",
    "level",
    "reading",
    "relative_levels",
    "report",
    "report_threshold",
    "threshold_section",
    "threshold_table",
    "check_thresholds",
]


#: The files every report writes (beside its sections' own tables).
RESULT_FILES = (
    "report.html",
    "agreement.nc",
    "agreement.csv",
    "headline.csv",
    "by_label.csv",
    "by_annotator.csv",
)
REPORT_FILES = (*RESULT_FILES, "pairwise.csv", "items.csv")


def _check_seed(seed):
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) and seed > 2**63 - 1:
        # agreement.nc stores it as an int64: refused before anything is written
        raise ParameterError(f"seed must be at most 2**63 - 1; got {seed!r}")


def _report(
    df: pd.DataFrame,
    path,
    *,
    n_boot: int = DEFAULT_N_BOOT,
    title: str | None = None,
    top: int = 20,
    settings: MatchSettings = DEFAULTS,
) -> Path:
    """:func:`report` with the engine parameters as one checked
    :class:`~iaa_frames.settings.parameters.MatchSettings` (for internal callers)."""
    from iaa_frames.version import __version__

    seed, progress = settings.seed, settings.progress
    _check_seed(seed)
    if title is not None and not isinstance(title, str):
        raise ParameterError(f"title must be a string; got {title!r}")
    out_dir = output_path(path)  # absolute, "~" expanded; an empty path refused
    if out_dir.exists() and not out_dir.is_dir():
        raise ParameterError(
            f"{out_dir} exists and is not a directory: choose a folder for the report"
        )
    # before any work (every name again before writing)
    claim(out_dir, RESULT_FILES if isinstance(df, xr.Dataset) else REPORT_FILES)
    if isinstance(df, xr.Dataset):  # a result computed elsewhere (e.g. of a dask frame)
        return _report_of_result(df, out_dir, title=title, top=top, version=__version__)
    if type(df).__module__.startswith("dask"):
        raise ParameterError(
            "report() of a dask DataFrame: compute its agreement first "
            "(ds = iaf.agreement(ddf)) and pass the Dataset: "
            "iaf.report(ds, path)"
        )
    taus, scalar = settings.thresholds, not settings.several
    start = time.perf_counter()
    require_comparable(df, min_items=2, objects=True)  # a clear error, not a page of empty figures
    sweep = None
    # a frame's cached entries (iaa_frames.core.engine.memo): after df.iaa.agreement() with the
    # same parameters, its tables, result and pairwise views are not computed again
    if not scalar:  # every threshold, the frame prepared once; the page at one of them
        if isinstance(df, pd.DataFrame):
            every = cache.entries_for(df, settings)
        else:  # one threshold's tables at a time
            every = (cache.Entry("", t) for t in iter_tables_from(df, taus, settings))
        shown, parts = report_threshold(taus), []
        for e in every:
            parts.append(_result_of(e, n_boot, seed, progress))
            if e.tables.params["match_threshold"] == shown:
                entry, result = e, parts[-1]
        sweep = concat_thresholds(parts)
    elif isinstance(df, pd.DataFrame):
        entry = resolve.entry_of(df, settings)
    else:
        entry = cache.Entry("", pair_tables_from(df, settings))
    tables = entry.tables
    if scalar:
        result = _result_of(entry, n_boot, seed, progress)
    # the pairs of at most MAX_ANNOTATORS annotators (a big crowd: those of most pairings)
    shown, pairs_note = pair_section_annotators(tables)
    pw = {c: entry.pairwise_of(component=c, annotators=shown) for c in COMPONENTS}
    item_table = item_drilldown(tables, component="localization")
    item_detection = item_drilldown(tables, component="detection")
    with one_glyph_warning():  # which characters no font draws: said once, not a figure
        figures = draw_figures(tables, result, pw, item_table, top, pairs_note=pairs_note)
        disagree_html, disagree_files = disagreement_section(
            tables, svg=svg, top=top, item_table=item_table
        )
        consensus_html = (
            consensus_section(df, tables)
            if isinstance(df, pd.DataFrame)
            else "<p>The consensus needs the annotation frame.</p>"
        )
        how_many_html = how_many_section(tables, result)
        sections, threshold_files = _threshold_sections(SECTIONS, sweep, result)
        attribute_html, attribute_files = attribute_section(df, tables, n_boot=n_boot, seed=seed)
    if attribute_html:  # after "By annotator"
        at = [entry[0] for entry in sections].index("by-annotator") + 1
        sections = [*sections[:at], ("attributes", "Attributes", lambda ctx: attribute_html),
                    *sections[at:]]  # fmt: skip
    elapsed = time.perf_counter() - start
    written = [*REPORT_FILES, *disagree_files, *threshold_files, *attribute_files]
    with staged(out_dir, written) as tmp:  # the earlier report stays whole on a failure
        _write_files(
            tmp, sweep if sweep is not None else result, result, pw, item_table, item_detection,
            {**disagree_files, **threshold_files, **attribute_files},
        )  # fmt: skip
        head = headline(result)
        ctx = Context(
            df=df,
            tables=tables,
            result=result,
            head=head,
            figures=figures,
            item_table=item_table,
            item_detection=item_detection,
            pairwise=pw,
            top=top,
            elapsed=elapsed,
            version=__version__,
            disagree_html=disagree_html,
            consensus_html=consensus_html,
            how_many_html=how_many_html,
            sweep=sweep,
        )
        page = render_page(ctx, title or "Inter-annotator agreement report", sections=sections)
        (tmp / "report.html").write_text(page, encoding="utf-8")
    return out_dir / "report.html"


def _write_files(tmp: Path, saved, result, pw, item_table, item_detection, files) -> None:
    """The report's data files, into the staging folder ``tmp``."""
    _write_result(saved, tmp)
    write_csv(headline(result), tmp / "headline.csv")
    write_csv(by_label(result), tmp / "by_label.csv")
    write_csv(by_annotator(result), tmp / "by_annotator.csv")
    pairwise_table = pd.concat(
        [p.to_dataframe().reset_index().assign(component=c) for c, p in pw.items()],
        ignore_index=True,
    )[["component", "annotator_a", "annotator_b", "agreement", "n_units", "n_chance", "note"]]
    write_csv(pairwise_table, tmp / "pairwise.csv", index=False)
    items_table = pd.concat(
        [item_table.assign(component="localization"), item_detection.assign(component="detection")],
        ignore_index=True,
    )
    write_csv(items_table, tmp / "items.csv", index=False)
    for name, frame in files.items():
        write_csv(frame, tmp / name, index=False)


@validate_params({"top": Integer(1, expected="a positive integer")}, engine=False)
def report(
    df: pd.DataFrame,
    path,
    *,
    n_boot: int = DEFAULT_N_BOOT,
    title: str | None = None,
    top: int = 20,
    distance="giou",
    match_threshold=0.5,
    n_chance: int = 2000,
    seed: int = 0,
    overall: str = "pooled",
    progress: bool | None = None,
) -> Path:
    """Write a self-contained HTML report of ``df``'s agreement into directory ``path``.

    Parameters
    ----------
    df : pandas.DataFrame or xarray.Dataset
        A tidy annotation frame; or an agreement result already computed (the Dataset
        of :func:`iaa_frames.agreement`, for instance of a dask DataFrame), whose report
        holds the reading, the headline, the classes, the annotators and their figures,
        but not the sections that need the pair tables (annotator pairs, distance
        distributions, hardest items, where they disagree); the computation parameters
        are then those recorded in the Dataset and the ones given here are not used.
    path : str or os.PathLike
        Output directory (created if missing; a leading ``~`` is the home folder, as in
        pandas; an empty path is refused; a report that fails removes the folders it
        created, when they are still empty). The files of an earlier report there are
        replaced (they are listed in its ``.iaa-frames-report`` file); any other file of a
        name the report writes is left untouched and the report refused
        (:class:`~iaa_frames.errors.ParameterError`), before anything is written. Text
        cells of the CSV tables that a spreadsheet would run as a formula (beginning with
        ``=``, ``+``, ``-``, ``@``, a tab or a carriage return) are prefixed with ``'``.
    distance, match_threshold, n_chance, seed, overall
        As in :func:`iaa_frames.core.engine.agreement`. With several thresholds
        (``match_threshold=[0.3, 0.5, 0.7]``, or a result with a ``threshold``
        dimension), a "Match threshold" section shows every component against τ, and the
        rest of the report is at 0.5, or the threshold nearest it
        (:func:`report_threshold`).
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
        ``items.csv``, ``conflicts.csv``, ``conflict_counts.csv``; when the frame
        declares attribute columns (``df.attrs["iaa_attributes"]``, set by the readers
        and the simulator), an "Attributes" section and ``attributes.csv``
        (:func:`iaa_frames.attribute_agreement`); with several
        thresholds, also ``thresholds.csv``, and ``agreement.nc`` / ``agreement.csv`` hold
        every threshold.

    Raises
    ------
    ParameterError
        For bad parameter values, and when ``path`` cannot be created or written (it is
        a file, a part of it is a file, it is read-only), naming the path and the reason.
        The files are written into a temporary folder inside ``path`` and moved in only
        once all are written: a report that fails leaves an earlier one whole.

    Examples
    --------
    >>> import tempfile, iaa_frames as iaf
    >>> out = report(iaf.simulate(n_items=8, seed=0), tempfile.mkdtemp(), n_chance=50,
    ...              n_boot=0)
    >>> out.name
    'report.html'
    """
    settings = checked_settings(
        distance=distance,
        match_threshold=match_threshold,
        n_chance=n_chance,
        seed=seed,
        overall=overall,
        progress=progress,
    )
    return _report(df, path, n_boot=n_boot, title=title, top=top, settings=settings)


def _result_of(entry, n_boot, seed, progress) -> xr.Dataset:
    """The entry's agreement result (computed once per ``n_boot`` and ``seed``), without
    the ``tables_key`` attr, which names a cache entry of this process only."""
    result = entry.result(n_boot=n_boot, seed=seed, progress=progress)
    result.attrs.pop("tables_key", None)
    return result


def _report_of_result(result, out_dir: Path, *, title, top, version) -> Path:
    """:func:`report` of an agreement Dataset: what needs only the Dataset."""
    missing = [
        v
        for v in ("agreement", "ci_low", "ci_high", "n_units", "note")
        if v not in result.data_vars
    ]
    if missing or not {"component", "label", "annotator"} <= set(result.dims):
        raise ParameterError(
            "report() takes a tidy annotation frame or the Dataset of "
            f"iaa_frames.agreement(); this Dataset lacks {missing or 'its dims'}"
        )
    start = time.perf_counter()
    sweep = None
    if has_threshold_dim(result):  # a sweep: the page at one threshold, plus the curve
        sweep = result
        result = sweep.sel(threshold=report_threshold(sweep["threshold"].values))
    with one_glyph_warning():
        sections, threshold_files = _threshold_sections(RESULT_SECTIONS, sweep, result)
        figures = draw_figures(None, result, {}, None, top)
    written = [*RESULT_FILES, *threshold_files]
    with staged(out_dir, written) as tmp:  # the earlier report stays whole on a failure
        _write_result(sweep if sweep is not None else result, tmp)
        for name, frame in threshold_files.items():
            write_csv(frame, tmp / name, index=False)
        head = headline(result)
        write_csv(head, tmp / "headline.csv")
        write_csv(by_label(result), tmp / "by_label.csv")
        write_csv(by_annotator(result), tmp / "by_annotator.csv")
        _page_of_result(tmp, result, head, figures, sections, top, start, version, sweep, title)
    return out_dir / "report.html"


def _page_of_result(tmp, result, head, figures, sections, top, start, version, sweep, title):
    """report.html of an agreement Dataset, into the staging folder ``tmp``."""
    ctx = Context(
        df=None,
        tables=None,
        result=result,
        head=head,
        figures=figures,
        top=top,
        elapsed=time.perf_counter() - start,
        version=version,
        sweep=sweep,
    )
    n_lab, n_ann = result.sizes["label"] - 1, result.sizes["annotator"] - 1
    intro = (
        f"{plural(n_ann, 'annotator')} and {plural(n_lab, 'class', 'classes')}, from "
        "an agreement result computed beforehand. The annotator pairs, the distance "
        "distributions, the hardest items and where annotators disagree need the pair "
        "tables: report() of the annotation frame itself shows them."
    )
    page = render_page(
        ctx, title or "Inter-annotator agreement report", intro=intro, sections=sections
    )
    (tmp / "report.html").write_text(page, encoding="utf-8")


def _write_result(result, out_dir: Path) -> None:
    """agreement.nc and agreement.csv (every cell, long form; a threshold column for a
    sweep)."""
    result.to_netcdf(out_dir / "agreement.nc", encoding=_compressed(result))
    write_csv(result.to_dataframe().reset_index(), out_dir / "agreement.csv", index=False)


def _compressed(result: xr.Dataset) -> dict:
    """The netCDF encoding of agreement.nc: every data variable compressed (zlib), its
    text (``note``, ``chance_source``) as UTF-8 characters, which compress, not as strings
    of variable length, which cannot. The cells of classes x annotators are mostly empty
    and their notes alike: 200 classes and 235 annotators wrote 50 MB, now 1.2 MB; read
    back, every value is the same."""
    encoding = {}
    for name, var in result.data_vars.items():
        if var.dtype.kind in "fiub":
            encoding[name] = {"zlib": True, "complevel": 4}
        elif var.dtype.kind == "U" or (
            var.dtype.kind == "O" and all(isinstance(v, str) for v in var.values.ravel())
        ):
            encoding[name] = {"zlib": True, "complevel": 4, "dtype": "S1"}
    return encoding


def _threshold_sections(sections, sweep, result):
    """The report's sections, with "Match threshold" after the headline when ``sweep``
    (a result with a threshold dimension) is given; and the files of that section."""
    if sweep is None:
        return sections, {}
    body, files = threshold_section(sweep, svg=svg, shown_at=float(result["threshold"]))
    out = []
    for entry in sections:
        out.append(entry)
        if entry[0] == "headline":
            out.append(("threshold", "Match threshold", lambda ctx, body=body: body))
    return out, files
