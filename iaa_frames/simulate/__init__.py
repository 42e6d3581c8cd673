"""Synthetic annotation corpora with known annotator profiles.

:func:`simulate_with_truth` draws true objects per item (image), then lets each annotator
redraw them according to a :class:`Profile`: localization noise, misses, false positives,
label confusion, and pathological behaviours (lazy-center, random, mirror). The result is a
tidy annotation frame (see :func:`iaa_frames.frame.schema.validate`) with coverage rows, plus the truth, so
that validation studies can check that the agreement measures rank annotators by their
known quality. :func:`simulate` returns only the annotations.

Randomness
----------
Everything flows from one ``seed``. The truth has its own streams, and every annotator has
streams derived from the seed *and its name* (never its position), one stream per step
(coverage, misses, confusion, jitter, false positives, ...). Hence

* adding, removing or reordering annotators never changes another annotator's draws;
* changing one field of a profile (say ``miss``) does not change the draws of the other
  steps (the same objects get the same jitter): profiles can be compared on common random
  numbers.

Everything is vectorized over objects; the only Python loops run over annotators.

Modules
-------
:mod:`.profiles` (how an annotator redraws), :mod:`.shapes` (synthetic objects as
arrays), :mod:`.annotators` (the truth and each annotator's draws, random streams),
:mod:`.generate` (the public functions and their checks), :mod:`.cuboids` (3D cuboid
scenes, :func:`simulate_cuboids`), :mod:`.keypoints` (skeletons: :func:`simulate_keypoints`,
:class:`KeypointProfile`), :mod:`.polylines` (lanes and edges: :func:`simulate_polylines`,
:class:`PolylineProfile`), :mod:`.object_frames` (the tidy frame of those two), :mod:`.crowd` (sparse crowds: many workers of mixed quality, a few
per image), :mod:`.limits` (what every simulator checks the same way: seed, counts,
annotator names, and the size of the corpus, at most ``MAX_SIMULATED_ROWS`` rows).
"""

from .annotators import LAZY_CENTER_FRACTION
from .crowd import CROWD_MIX, Crowd, simulate_crowd
from .cuboids import simulate_cuboids
from .generate import (
    COMMON_IMAGE_SIZES,
    Simulated,
    simulate,
    simulate_with_truth,
)
from .keypoints import KeypointProfile, simulate_keypoints
from .polylines import PolylineProfile, simulate_polylines
from .profiles import PRESETS, Profile

__all__ = [
    "COMMON_IMAGE_SIZES",
    "KeypointProfile",
    "CROWD_MIX",
    "Crowd",
    "LAZY_CENTER_FRACTION",
    "PRESETS",
    "PolylineProfile",
    "Profile",
    "Simulated",
    "simulate",
    "simulate_cuboids",
    "simulate_keypoints",
    "simulate_polylines",
    "simulate_crowd",
    "simulate_with_truth",
]
