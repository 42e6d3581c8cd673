"""iaa_frames: chance-corrected inter-annotator agreement for boxes and polygons.

Importing the package registers the ``DataFrame.iaa`` accessor.
"""

from importlib import import_module as _import_module

from iaa_frames import (
    dask,  # noqa: F401  (iaf.dask: agreement of dask DataFrames; imports dask lazily)
    stats,  # noqa: F401  (iaf.stats: sigma and KS of two plain samples)
)
from iaa_frames.accessor import alpha, ks, sigma  # registers DataFrame.iaa and Dataset.iaa
from iaa_frames.api.backend import agreement
from iaa_frames.engine import agreement_from_tables, pairwise
from iaa_frames.errors import (
    AnnotatorNameWarning,
    CopiedItemsWarning,
    DroppedRowsWarning,
    IAAError,
    IAAWarning,
    InvalidAnnotationError,
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
from iaa_frames.io import (
    load_sample,
    read_coco,
    read_cvat,
    read_darwin,
    read_labelstudio,
    read_labelstudio_video,
    read_mot,
    read_table,
    read_voc,
    read_yolo,
    read_yolo_classes,
)
from iaa_frames.io.fiftyone import from_fiftyone
from iaa_frames.io.fiftyone_export import to_fiftyone
from iaa_frames.io.parquet import read_parquet, to_parquet
from iaa_frames.io.samples import sample_path
from iaa_frames.io.supervision import from_supervision
from iaa_frames.io.supervision_export import to_supervision
from iaa_frames.matching.copies import find_copies
from iaa_frames.measures.kalpha import kalpha, kalpha_items, kalpha_units
from iaa_frames.measures.ranking import annotator_quality, annotator_quality_from_tables
from iaa_frames.measures.reference import accuracy
from iaa_frames.measures.threshold_choice import suggest_threshold, threshold_separation
from iaa_frames.report import report
from iaa_frames.simulate import PRESETS, Profile, Simulated, simulate, simulate_with_truth
from iaa_frames.simulate.tracks import simulate_drift, simulate_tracks
from iaa_frames.stats.krippendorff import nominal_alpha
from iaa_frames.tables.pairs import (
    PairTables,
    between,
    pair_tables,
    pair_tables_by_threshold,
    within,
)
from iaa_frames.temporal import (
    agreement_over_time,
    intra_agreement,
    track_agreement,
    track_figures,
)
from iaa_frames.version import __version__

__all__ = [
    "ALL",
    "accuracy",
    "conflict_counts",
    "conflicts",
    "confusion",
    "find_copies",
    "item_agreement",
    "label_alpha",
    "agreement",
    "alpha",
    "annotator_quality",
    "annotator_quality_from_tables",
    "agreement_from_tables",
    "pairwise",
    "items",
    "kalpha",
    "kalpha_items",
    "kalpha_units",
    "report",
    "PRESETS",
    "PairTables",
    "Profile",
    "Shapes",
    "Simulated",
    "available_distances",
    "between",
    "get_distance",
    "load_sample",
    "sample_path",
    "read_coco",
    "read_cvat",
    "read_darwin",
    "read_labelstudio",
    "read_table",
    "read_voc",
    "read_yolo",
    "read_yolo_classes",
    "read_parquet",
    "to_parquet",
    "ks",
    "nominal_alpha",
    "pair_tables",
    "pair_tables_by_threshold",
    "register_distance",
    "sigma",
    "simulate",
    "simulate_with_truth",
    "suggest_threshold",
    "threshold_separation",
    "within",
    "AnnotatorNameWarning",
    "CopiedItemsWarning",
    "DroppedRowsWarning",
    "IAAError",
    "IAAWarning",
    "InvalidAnnotationError",
    "NotComparableError",
    "ParameterError",
    "ReaderError",
    "RepairedGeometryWarning",
    "SchemaError",
    "ValidationResult",
    "check",
    "from_records",
    "from_fiftyone",
    "from_supervision",
    "to_fiftyone",
    "to_supervision",
    "is_object",
    "validate",
    # video and time (iaa_frames.temporal)
    "agreement_over_time",
    "intra_agreement",
    "read_labelstudio_video",
    "read_mot",
    "simulate_drift",
    "simulate_tracks",
    "track_agreement",
    "track_figures",
    # namespaces: iaf.plot (figures; imports matplotlib on first use), iaf.dask (agreement
    # of dask DataFrames), iaf.stats (sigma and KS of two plain samples of distances)
    "dask",
    "plot",  # noqa: F822 (imported on first use, by __getattr__)
    "stats",
    "__version__",
]

#: Submodules imported on first use (``iaf.plot`` imports matplotlib and seaborn).
_LAZY = {"plot"}


def __getattr__(name):
    if name in _LAZY:
        return _import_module(f".{name}", __name__)
    raise AttributeError(f"module 'iaa_frames' has no attribute {name!r}")


def __dir__():
    # the public API only: the package's modules stay importable (iaa_frames.io, ...)
    # but are not listed
    return sorted([*__all__, "__version__"])
