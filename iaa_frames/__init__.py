"""iaa_frames: chance-corrected inter-annotator agreement for boxes and polygons.

Importing the package registers the ``DataFrame.iaa`` and ``Dataset.iaa`` accessors and
nothing else: every public name (``iaf.agreement``, ``iaf.read_coco``, ``iaf.report``, ...)
and the namespaces ``iaf.plot``, ``iaf.dask`` and ``iaf.stats`` are imported on first use
(:pep:`562`), so that ``import iaa_frames`` costs little more than pandas and xarray,
and scipy, matplotlib, dask and the readers load only when they are needed.

Examples
--------
>>> import iaa_frames as iaf
>>> "agreement" in dir(iaf), iaf.agreement.__name__
(True, 'agreement')
"""

import sys as _sys
import types as _types
import warnings as _warnings
from importlib import abc as _abc
from importlib import import_module as _import_module
from importlib import util as _util
from typing import TYPE_CHECKING as _TYPE_CHECKING

import pandas as _pd
import xarray as _xr

from iaa_frames.version import __version__

#: Where each public name lives (module under ``iaa_frames.``), imported on first use.
_EXPORTS = {
    "api.backend": ("agreement",),
    "api.shortcuts": ("alpha", "ks", "sigma"),
    # from the modules that define them: a submodule named like its function (consensus,
    # next_items, plan) can be bound over it on its package when it is imported again
    "decisions.consensus": ("Consensus", "consensus"),
    "decisions.next_items": ("next_items",),
    "decisions.plan": ("Plan", "plan"),
    "decisions.sequential": ("SequentialPlan", "plan_sequential"),
    "core.engine": ("agreement_from_tables", "pairwise", "rater_kind_agreement"),
    "errors": (
        "AnnotatorNameWarning",
        "CopiedItemsWarning",
        "DroppedRowsWarning",
        "IAAError",
        "IAAWarning",
        "InvalidAnnotationError",
        "ItemKeysWarning",
        "NotComparableError",
        "ParameterError",
        "ReaderError",
        "RepairedGeometryWarning",
        "SchemaError",
    ),
    "explore.conflicts": ("conflict_counts", "conflicts"),
    "explore.confusion": ("confusion", "label_alpha"),
    "explore.item_agreement": ("item_agreement",),
    "explore.items": ("items",),
    "frame.records": ("from_records",),
    "frame.schema": ("ALL", "ValidationResult", "check", "is_object", "validate"),
    "geometry.distances": ("Shapes", "available_distances", "get_distance", "register_distance"),
    "geometry.kinds": ("bird_eye_view",),
    "geometry.kinds.volume": ("dice_from_iou",),
    "measures.volumes": ("volume_overlap",),
    "decisions.volume_staple": ("volume_staple",),
    "io": (
        "load_sample",
        "read_activitynet",
        "read_nifti",
        "read_coco",
        "read_cvat",
        "read_darwin",
        "read_labelstudio",
        "read_table",
        "read_voc",
        "read_yolo",
        "read_yolo_classes",
        "read_kitti",
        "read_supervisely_pointcloud",
        "read_labelstudio_video",
        "read_mot",
    ),
    "io.fiftyone": ("from_fiftyone",),
    "io.fiftyone_export": ("to_fiftyone",),
    "io.parquet": ("read_parquet", "to_parquet"),
    "io.potato": ("read_potato",),
    "io.samples": ("sample_path",),
    "io.supervision": ("from_supervision",),
    "io.supervision_export": ("to_supervision",),
    "core.matching.copies": ("find_copies",),
    "measures.attributes": ("attribute_agreement",),
    "measures.kalpha": ("kalpha", "kalpha_items", "kalpha_units"),
    "measures.potato": ("potato_metrics",),
    "measures.keypoints": ("keypoint_agreement", "keypoint_agreement_from_tables"),
    "measures.ranking": ("annotator_quality", "annotator_quality_from_tables"),
    "measures.reference": ("accuracy",),
    "measures.threshold_choice": ("suggest_threshold", "threshold_separation"),
    "report": ("report",),
    "simulate": (
        "PRESETS",
        "Profile",
        "Simulated",
        "simulate",
        "simulate_with_truth",
        "simulate_cuboids",
        "simulate_crowd",
    ),
    "simulate.polylines": ("PolylineProfile", "simulate_polylines"),
    "simulate.tracks": ("simulate_drift", "simulate_tracks"),
    "stats.krippendorff": ("nominal_alpha",),
    "core.tables.pairs": (
        "PairTables",
        "between",
        "pair_tables",
        "pair_tables_by_threshold",
        "within",
    ),
    "temporal": ("agreement_over_time", "intra_agreement", "track_agreement", "track_figures"),
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}

if _TYPE_CHECKING:  # the lazy names, for static tools (jedi, mypy, IDEs)
    from iaa_frames import dask, plot, stats
    from iaa_frames.api.backend import agreement
    from iaa_frames.api.shortcuts import alpha, ks, sigma
    from iaa_frames.core.engine import agreement_from_tables, pairwise, rater_kind_agreement
    from iaa_frames.core.matching.copies import find_copies
    from iaa_frames.core.tables.pairs import (
        PairTables,
        between,
        pair_tables,
        pair_tables_by_threshold,
        within,
    )
    from iaa_frames.decisions.consensus import Consensus, consensus
    from iaa_frames.decisions.next_items import next_items
    from iaa_frames.decisions.plan import Plan, plan
    from iaa_frames.decisions.sequential import SequentialPlan, plan_sequential
    from iaa_frames.decisions.volume_staple import volume_staple
    from iaa_frames.errors import (
        AnnotatorNameWarning,
        CopiedItemsWarning,
        DroppedRowsWarning,
        IAAError,
        IAAWarning,
        InvalidAnnotationError,
        ItemKeysWarning,
        NotComparableError,
        ParameterError,
        ReaderError,
        RepairedGeometryWarning,
        SchemaError,
    )
    from iaa_frames.explore.conflicts import conflict_counts, conflicts
    from iaa_frames.explore.confusion import confusion, label_alpha
    from iaa_frames.explore.item_agreement import item_agreement
    from iaa_frames.explore.items import items
    from iaa_frames.frame.records import from_records
    from iaa_frames.frame.schema import ALL, ValidationResult, check, is_object, validate
    from iaa_frames.geometry.distances import (
        Shapes,
        available_distances,
        get_distance,
        register_distance,
    )
    from iaa_frames.geometry.kinds import bird_eye_view
    from iaa_frames.geometry.kinds.volume import dice_from_iou
    from iaa_frames.io import (
        load_sample,
        read_activitynet,
        read_coco,
        read_cvat,
        read_darwin,
        read_kitti,
        read_labelstudio,
        read_labelstudio_video,
        read_mot,
        read_nifti,
        read_supervisely_pointcloud,
        read_table,
        read_voc,
        read_yolo,
        read_yolo_classes,
    )
    from iaa_frames.io.fiftyone import from_fiftyone
    from iaa_frames.io.fiftyone_export import to_fiftyone
    from iaa_frames.io.parquet import read_parquet, to_parquet
    from iaa_frames.io.potato import read_potato
    from iaa_frames.io.samples import sample_path
    from iaa_frames.io.supervision import from_supervision
    from iaa_frames.io.supervision_export import to_supervision
    from iaa_frames.measures.attributes import attribute_agreement
    from iaa_frames.measures.kalpha import kalpha, kalpha_items, kalpha_units
    from iaa_frames.measures.keypoints import keypoint_agreement, keypoint_agreement_from_tables
    from iaa_frames.measures.potato import potato_metrics
    from iaa_frames.measures.ranking import annotator_quality, annotator_quality_from_tables
    from iaa_frames.measures.reference import accuracy
    from iaa_frames.measures.threshold_choice import suggest_threshold, threshold_separation
    from iaa_frames.measures.volumes import volume_overlap
    from iaa_frames.report import report
    from iaa_frames.simulate import (
        PRESETS,
        Profile,
        Simulated,
        simulate,
        simulate_crowd,
        simulate_cuboids,
        simulate_with_truth,
    )
    from iaa_frames.simulate.polylines import PolylineProfile, simulate_polylines
    from iaa_frames.simulate.tracks import simulate_drift, simulate_tracks
    from iaa_frames.stats.krippendorff import nominal_alpha
    from iaa_frames.temporal import (
        agreement_over_time,
        intra_agreement,
        track_agreement,
        track_figures,
    )

__all__ = [
    *_WHERE,
    # namespaces: iaf.plot (figures; imports matplotlib on first use), iaf.dask (agreement
    # of dask DataFrames), iaf.stats (sigma and KS of two plain samples of distances)
    "dask",
    "plot",
    "stats",
    "__version__",
]

#: Namespaces imported on first use (``iaf.plot`` imports matplotlib and seaborn).
_NAMESPACES = {"dask", "plot", "stats"}
#: Public functions named like the subpackage that defines them: the import system binds
#: a subpackage to its parent on first import, which must not hide the function.
_SHADOWED = {"report", "simulate"}


def __getattr__(name):
    if name in _NAMESPACES:
        value = _import_module(f".{name}", __name__)
    elif name in _WHERE:
        value = getattr(_import_module(f".{_WHERE[name]}", __name__), name)
    else:
        raise AttributeError(f"module 'iaa_frames' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    # the public API only: the package's modules stay importable (iaa_frames.io, ...)
    # but are not listed
    return sorted({*__all__, "__version__"})


class _Package(_types.ModuleType):
    """The package module: keeps :data:`_SHADOWED` names bound to their functions when
    the subpackage of that name is imported (``import iaa_frames.report.page``)."""

    def __setattr__(self, name, value):
        if name in _SHADOWED and isinstance(value, _types.ModuleType):
            return
        super().__setattr__(name, value)


_sys.modules[__name__].__class__ = _Package


class _Lazy:
    """``df.iaa`` / ``res.iaa`` as registered through pandas' and xarray's public API
    (``register_dataframe_accessor``, ``register_dataset_accessor``): calling it builds the
    accessor of :attr:`target` (``module:Class``), imported on first use so that ``import
    iaa_frames`` loads neither the accessors nor what they import. xarray keeps one
    accessor per Dataset (its ``_cache``); pandas builds one on every ``df.iaa``."""

    target = ""

    def __new__(cls, obj):
        module, name = cls.target.split(":")
        return getattr(_import_module(module), name)(obj)


@_pd.api.extensions.register_dataframe_accessor("iaa")
class _FrameAccessor(_Lazy):
    target = "iaa_frames.accessor.frame:IAAAccessor"


@_xr.register_dataset_accessor("iaa")
class _ResultAccessor(_Lazy):
    target = "iaa_frames.accessor.result:ResultAccessor"


#: Modules and packages that moved (old name -> new name): the packages of the pipeline
#: into :mod:`iaa_frames.core`, the parts of one idea into its module. The old names
#: still import, for one release, as the same modules, with a FutureWarning.
_MOVED = {
    **{
        f"{__name__}.{p}": f"{__name__}.core.{p}"
        for p in ("matching", "chance", "tables", "engine")
    },
    f"{__name__}.stats.ks_cells": f"{__name__}.stats.kstest",
    f"{__name__}.stats.ks_running": f"{__name__}.stats.kstest",
    f"{__name__}.measures.attribute_cells": f"{__name__}.measures.attributes",
    f"{__name__}.measures.attribute_levels": f"{__name__}.measures.attributes",
    f"{__name__}.measures.attribute_result": f"{__name__}.measures.attributes",
    f"{__name__}.measures.keypoint_cells": f"{__name__}.measures.keypoints",
    f"{__name__}.measures.keypoint_variables": f"{__name__}.measures.keypoints",
    f"{__name__}.dask.heap": f"{__name__}.heap",
}


class _MovedModules(_abc.MetaPathFinder, _abc.Loader):
    """``import iaa_frames.engine.assemble`` gives :mod:`iaa_frames.core.engine.assemble`
    (the very module, not a copy) and warns that the name is deprecated (:data:`_MOVED`).

    Examples
    --------
    >>> import sys, warnings
    >>> import iaa_frames.core.tables.pairs as pairs
    >>> _ = sys.modules.pop("iaa_frames.tables", None)  # as in a fresh process
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     from iaa_frames.tables.pairs import pair_tables
    >>> pair_tables is pairs.pair_tables, caught[0].category.__name__
    (True, 'FutureWarning')
    """

    def find_spec(self, name, path=None, target=None):
        moved = next((m for m in _MOVED if name == m or name.startswith(m + ".")), None)
        if moved is None:
            return None
        new = _MOVED[moved] + name[len(moved) :]
        if name == moved:  # once, for the moved name (imported before its modules)
            _warnings.warn(
                f"{name} has moved to {_MOVED[moved]}; the old name will be removed in the "
                "next release",
                FutureWarning,
                stacklevel=2,
            )
        return _util.spec_from_loader(name, self, origin=new)

    def create_module(self, spec):
        return _import_module(spec.origin)

    def exec_module(self, module):
        pass  # the module is the moved one, run when it was imported under its own name


# first: the modules of a moved package would otherwise be found again under its old name
_sys.meta_path.insert(0, _MovedModules())
