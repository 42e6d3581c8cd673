"""The chance sample: which between-item pairings stand for chance, and why.

A *chance pairing* is the annotation of item i by annotator a and the annotation of item
j by annotator b, with i != j and a != b; it is unordered ({s, t} and {t, s} are one
pairing). The pairings chosen here go through the same matching pipeline, with the same
threshold, as the within-item pairings (:mod:`iaa_frames.core.matching.pipeline`). A *chance unit*
is a pairing (detection, overall) or a matched object pair of a pairing (localization); a
matched pair belongs to one pairing, so distinct pairings give distinct units.

Populations and strata
----------------------
Every reported cell draws its chance units from its own population:

========================  ==========================================================
cell                      population (pairings)
========================  ==========================================================
"(all)" x "(all)"         every chance pairing (U)
"(all)" x annotator A     the pairings in U with one side drawn by A
annotator pair A, B       the pairings of an annotation of A with one of B
class L (detection,       the pairings in which at least one side contains L
overall)
class L (localization)    the pairings of two annotations that both contain L; the
                          units are their matched pairs of two objects of class L
========================  ==========================================================

The *uniform* stratum samples U; it is uniform over every sub-population, so its
pairings count in every cell they belong to. A cell whose population the uniform stratum
covers too thinly gets a stratum of its own, sampled uniformly over that population, and
uses the union of the two samples (still a uniform sample of its population, each
pairing once).

Exact or sampled
----------------
* When U holds at most :data:`EXACT_PAIRINGS` pairings and matching all of them costs at
  most :data:`EXACT_WORK` candidate object pairs, U is **enumerated**: every cell of
  every component uses its whole population, with no sampling noise, and the result does
  not depend on the seed or on any name.
* A class's localization population is enumerated when its objects are few enough for
  every pair of them to be bounded (at most :data:`EXACT_WORK` object pairs): the pairs
  whose IoU bound can reach the threshold
  (:func:`iaa_frames.core.matching.pipeline.iou_upper_bound`)
  give the pairings that can produce a unit, and those are all matched when that costs
  at most :data:`EXACT_WORK` candidate pairs (otherwise sampled from that list).
* A larger class of boxes gets the same list from its objects' *reach boxes*
  (:func:`iaa_frames.core.chance.reach_grid.reach_pairings`: only the pairs whose reach
  boxes overlap are bounded) where those pairs are at most the pairings its stratum may
  draw (:func:`stratum_cap`: the list never costs more than the draws); a uniform prefix
  of the list is matched until the target is met, and the class is enumerated when that
  took the whole list. Drawing pairings of such a class finds few that can match when
  objects are small against the image (88k boxes, 10 per image: 1 in 3,600).
* Otherwise pairings are sampled **uniformly without replacement** (independent draws in
  which a repeat is skipped), with a random stream that depends on the seed and on the
  content of the annotations, never on names or row order.

Targets
-------
``n_chance`` (default :data:`DEFAULT_N_CHANCE`) is the most chance units a stratum aims
at. The uniform stratum of localization aims at ``n_chance`` matched pairs. Every other
stratum, the uniform one of detection and overall included, aims at
``min(n_chance, max(MIN_TARGET, 5 * w))`` units, ``w`` being its cell's within-item
units (the within pairings for the uniform stratum; more chance units than that would
not make the cell more precise: its within units limit it, and on annotations of many
objects matching them would cost far more than the within pairings do); a narrower
cell with fewer than two within units gets none. A narrower stratum tops up what the
uniform stratum already holds of its population (the pairings of a class's detection
cell: those of the uniform stratum in which either side contains the class, and the
class's own draws), and draws no pairing twice.
A stratum stops after :func:`stratum_cap` pairings even if its target is not met (at a
threshold so high that unrelated objects rarely match). ``n_chance`` in the result is
the number of distinct chance units a cell used.

``5 * w`` keeps the chance mean's share of a cell's variance at most a fifth of the
within mean's when a chance unit's distance varies as much as a within one's. It varies
far less wherever annotators agree better than chance (unrelated pictures disagree
almost always and almost alike), so the strata of detection and overall are **sized by
their noise** (:mod:`iaa_frames.core.chance.sizing`): each cell aims at
``min(target, max(floor, ceil(10 * w * f)))`` units, ``f`` the ratio that share would have
at ``5 * w`` (the larger of the two components'; twice what its estimate asks for,
:data:`~iaa_frames.core.chance.sizing.MARGIN`), estimated from the cell's within units
and a pilot of its chance units (the uniform stratum's first
:data:`~iaa_frames.core.chance.sizing.MIN_SIZED_UNIFORM` pairings; a narrower cell's first
:data:`~iaa_frames.core.chance.sizing.MIN_SIZED`, counting what it holds), the floor being
that pilot. ``f`` is about 1 for image-blind annotators, whose cells keep their targets;
where it cannot be estimated the cell keeps its target too. A cell keeps a prefix of
its stratum's draws (a uniform sample), so where every cell keeps its target the sample
is the one the targets alone give. A class's prefix also brings each of its annotator
cells (the class's rows that involve the annotator, which no stratum tops up) to
``min(MIN_CHANCE_UNITS, what every draw gives it)`` units
(:func:`~iaa_frames.core.chance.sizing.subcell_least`).

Aligned units
-------------
Where unrelated objects rarely pass the gate (small or spread-out objects, skeletons),
localization's whole chance population may hold fewer than :data:`MIN_CHANCE_UNITS`
units. The pair tables then add *aligned* chance units
(:mod:`iaa_frames.core.chance.aligned`): an object of one annotation and an object of an
unrelated one (the pairs of the chance pairings above), the second moved into the first's
frame (translated to a random offset near it, weighted by the area of the offsets
proposed; keypoints fitted to its box), kept when they pass the gate.

Modules
-------
=========================  ==========================================================
:mod:`.population`          budgets, targets, pairing keys, U and the pools of strata
:mod:`.sampling`            uniform sampling without replacement, per group
:mod:`.gating`              the pairings that can match at a threshold (index + bound)
:mod:`.store`               records of what was drawn and matched; the finished sample
:mod:`.strata`              :func:`draw`: every stratum, in order
:mod:`.sizing`              detection and overall strata sized by their noise
:mod:`.aligned`             aligned chance units of localization, for thin populations
=========================  ==========================================================
"""

from .gating import OBJECT_PAIR_BUDGET, gated_pairings
from .population import (
    DEFAULT_N_CHANCE,
    EXACT_PAIRINGS,
    EXACT_WORK,
    LOC_ANNOTATOR,
    LOC_LABEL,
    LOC_UNIFORM,
    MIN_CHANCE_UNITS,
    MIN_TARGET,
    PAIR_BUDGET,
    SETS_ANNOTATOR,
    SETS_LABEL,
    SETS_PAIR,
    SETS_UNIFORM,
    cell_target,
    enumerate_uniform,
    label_fingerprint_order,
    pairing_key,
    stratum_cap,
    uniform_population,
)
from .sampling import sample_groups
from .store import ChanceSample, Draws, WithinCounts
from .strata import draw

__all__ = [
    "DEFAULT_N_CHANCE",
    "EXACT_PAIRINGS",
    "LOC_ANNOTATOR",
    "LOC_LABEL",
    "LOC_UNIFORM",
    "SETS_ANNOTATOR",
    "SETS_LABEL",
    "SETS_PAIR",
    "SETS_UNIFORM",
    "EXACT_WORK",
    "MIN_CHANCE_UNITS",
    "MIN_TARGET",
    "OBJECT_PAIR_BUDGET",
    "PAIR_BUDGET",
    "ChanceSample",
    "Draws",
    "WithinCounts",
    "cell_target",
    "draw",
    "enumerate_uniform",
    "gated_pairings",
    "label_fingerprint_order",
    "pairing_key",
    "sample_groups",
    "stratum_cap",
    "uniform_population",
]
