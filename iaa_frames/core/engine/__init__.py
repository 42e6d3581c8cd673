"""Agreement of every cell (component x label x annotator) from the pair tables.

Every component is an agreement ``1 - observed / expected`` (1: perfect agreement, 0: no
better than chance, below 0: systematic disagreement):

* ``detection``, ``localization``, ``overall``: **sigma**, ``σ = 1 - mean within-item
  distance / mean between-item (chance) distance``, with the KS test of the two samples.
  Detection's distance is ``1 - F1`` of the object matching of two annotations,
  localization's the distance of a matched object pair (``(1 - GIoU) / 2`` by default),
  overall's a set distance of two whole annotations; the chance distances come from
  pairings of annotations of different items (:mod:`iaa_frames.core.chance`);
* ``classification``: an alpha of the labels of matched object pairs, ``1 - D_o / D_e``,
  whose expected disagreement is that of matched chance pairs of unrelated items
  (binary {class, other} for a class; :mod:`iaa_frames.core.engine.labels`); Krippendorff's
  alpha of the labels of clusters with at least two members is ``label_alpha``.

How a cell is computed
----------------------
Each table row is a member of a few cells: its label cells ("(all)", and its class where
one applies) times its annotator cells ("(all)", and each annotator the row involves).
Rows are summed into cells with sparse matrix products, never looped over.
Krippendorff's alpha (``label_alpha``, ``presence_alpha``) is computed from *pairs of
values*: every unordered pair of values of a unit of ``m`` values,
weighted ``1 / (m - 1)``, which reproduces Krippendorff's coincidence matrix exactly
(``o_ck = sum_u (number of c-k pairs in u) / (m_u - 1)``), so that an annotator's cell can
keep only the pairs that involve it.

Per annotator A
~~~~~~~~~~~~~~~
Only pairs or pairable values involving A count:

* detection, overall: the pairings (within and chance alike) in which one of the two
  annotations is A's;
* localization: the matched object pairs (within and chance) with one object drawn by A;
* classification: the matched object pairs (within and chance) with one object drawn by
  A, as localization; ``label_alpha`` keeps Krippendorff's rule: for every cluster with
  ``m >= 2`` members one of which is A's, the pairs (A's label, another member's label),
  each weighted ``1 / (m - 1)`` as in the full coincidence matrix;
* presence alpha (detection rows): the same, with the rater pairs (A, another annotator
  who covered the item) of every cluster of the items A covered.

Per class L
~~~~~~~~~~~
Localization: pairs whose two objects both carry L (within and chance). Detection and
overall: both annotations restricted to L, for the pairings where one of them contains L.
Classification: binary alpha after recoding every label to {L, other}, over all pairable
clusters; its ``n_units`` counts the pairable clusters with a value L (in a pair of the
cell), the units that carry L. Presence alpha: every cluster's members labelled L (units where at least one
member is L).

Pairwise
~~~~~~~~
:func:`pairwise` restricts each figure to one pair of annotators: the pairings or object
pairs of exactly those two (classification: their matched object pairs, within and by
chance).
:func:`rater_kind_agreement` pools the pairs of annotators of two kinds of raters
(human-human, human-machine) into one cell each, with those pairs' own chance units.

Undefined values
~~~~~~~~~~~~~~~~
A cell's agreement is NaN, with the reason in ``note``, when it has fewer within units
than :data:`MIN_WITHIN_UNITS` (sigma) or :data:`MIN_ALPHA_UNITS` (alpha), fewer chance units
than :data:`MIN_CHANCE_UNITS` (sigma), or an expected disagreement of 0. Its interval is
NaN, and ``note`` says so, when its within units come from fewer than
:data:`iaa_frames.stats.intervals.MIN_CI_ITEMS` items (``n_items``: the items whose within
units enter the cell).

Modules
-------
=======================  ===========================================================
:mod:`.cells`            cells, the sparse sums of rows into cells, the ratio formulas
:mod:`.rows`             table rows as cell members; the chance cells of each unit
:mod:`.sigma`            sigma cells (detection, localization, overall) and their KS
:mod:`.alpha`            Krippendorff's alpha cells (label_alpha, presence alpha)
:mod:`.labels`           classification cells: labels against matched chance pairs
:mod:`.borrow`           thin cells taking their parent population's chance units
:mod:`.assemble`         estimates, tests, bootstrap intervals: the agreement Dataset
:mod:`.views`            the rows behind a cell (cell_distances), pairwise figures
:mod:`.kind_pairs`       cells of pairs of kinds of raters (human-human, human-machine)
=======================  ===========================================================
"""

from iaa_frames.core.chance import MIN_CHANCE_UNITS

from .alpha import ClassificationCells, PresenceCells
from .assemble import (
    CI_LEVEL,
    DEFAULT_N_BOOT,
    MIN_ALPHA_UNITS,
    MIN_WITHIN_UNITS,
    agreement,
    agreement_from_cells,
    agreement_from_tables,
    component_cells,
)
from .cells import NO_VARIATION, CellLayout
from .kind_pairs import rater_kind_agreement, rater_kind_agreement_from_tables, rater_kinds
from .pairwise import cell_distances, pairwise, pairwise_from_tables
from .sigma import SigmaCells, within_item_sums

__all__ = [
    "CI_LEVEL",
    "DEFAULT_N_BOOT",
    "MIN_ALPHA_UNITS",
    "MIN_CHANCE_UNITS",
    "MIN_WITHIN_UNITS",
    "NO_VARIATION",
    "CellLayout",
    "ClassificationCells",
    "PresenceCells",
    "SigmaCells",
    "agreement",
    "agreement_from_cells",
    "agreement_from_tables",
    "cell_distances",
    "component_cells",
    "pairwise",
    "pairwise_from_tables",
    "rater_kind_agreement",
    "rater_kind_agreement_from_tables",
    "rater_kinds",
    "within_item_sums",
]
