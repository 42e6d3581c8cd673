"""The ``DataFrame.iaa`` and ``Dataset.iaa`` accessors: compute once, explore the result.

The package (``import iaa_frames``) registers two accessors, whose classes are here and
are imported on first use:

* ``df.iaa`` on every :class:`pandas.DataFrame` (a tidy annotation frame). Each method
  equals a plain function: ``df.iaa.agreement(...)`` is ``iaa_frames.agreement(df, ...)``,
  ``df.iaa.sigma(...)`` is ``iaa_frames.sigma(df, ...)`` and so on. The pair tables (the
  expensive part: matching and the chance sample) are computed once per frame content and
  parameters and kept in a small cache (:mod:`iaa_frames.core.engine.memo`), together with the
  results computed from them: after ``df.iaa.agreement()``, ``df.iaa.sigma()``,
  ``.pairwise()``, ``.items()`` and every ``df.iaa.plot.*`` with the same parameters
  take milliseconds.
* ``res.iaa`` on the agreement :class:`xarray.Dataset`: views (``headline()``,
  ``by_label()``, ``by_annotator()``, ``sigma()``, ``reading()``) and figures
  (``res.iaa.plot.forest()``, ...) of that result, with no recomputation. Views that need
  the pair tables (pairwise, items, distributions) find them through the result's
  ``tables_key`` attr while they are cached.

pandas does not cache DataFrame accessors, so ``df.iaa`` only stores the frame.

=====================  ============================================================
:mod:`.frame`          ``df.iaa`` (:class:`IAAAccessor`), its methods grouped in
                       :mod:`.statistics`, :mod:`.tables`, :mod:`.disagreement` and
                       :mod:`.measures`
:mod:`.result`         ``res.iaa`` (:class:`ResultAccessor`)
=====================  ============================================================

``iaa_frames.accessor.sigma``, ``.ks`` and ``.alpha`` are the frame functions of
:mod:`iaa_frames.api.shortcuts`.

Examples
--------
>>> import iaa_frames as iaf
>>> df = iaf.simulate(n_items=20, seed=0)
>>> res = df.iaa.agreement(n_chance=200)    # IAAAccessor: the frame's methods
>>> res.iaa.headline().index.tolist()       # ResultAccessor: the result's views
['detection', 'classification', 'localization', 'overall']
"""

from iaa_frames.api.shortcuts import alpha, ks, sigma

from .frame import IAAAccessor  # DataFrame.iaa
from .result import ResultAccessor  # Dataset.iaa

__all__ = ["IAAAccessor", "ResultAccessor", "alpha", "ks", "sigma"]
