"""``df.iaa.agreement()``, ``.sigma()``, ``.ks()``, ``.alpha()``, ``.pairwise()``: the
agreement of a frame, cached.

Each method is built from the function it equals (:mod:`iaa_frames.api.methods`): the
same keyword parameters, defaults and docstring as :func:`iaa_frames.agreement`,
:func:`iaa_frames.sigma`, :func:`iaa_frames.ks`, :func:`iaa_frames.alpha` and
:func:`iaa_frames.pairwise`. The parameters are checked once and the result taken from
:mod:`iaa_frames.api.results`, which computes the pair tables once per frame content and
parameters (``agreement`` and ``pairwise`` cache what they compute from them too; the
Dataset's attr ``tables_key`` names the cached tables, so that ``res.iaa`` reuses them).
Every method also takes a sequence of ``match_threshold`` values, which adds a
``threshold`` dimension.

Examples
--------
>>> from iaa_frames.simulate import simulate
>>> df = simulate(n_items=20, seed=0)
>>> ds = df.iaa.agreement(n_chance=200)
>>> ds["component"].values.tolist()
['detection', 'classification', 'localization', 'overall']
>>> bool(ds["ci_low"].notnull().any())     # n_boot=200 by default
True
>>> df.iaa.agreement(n_chance=200, match_threshold=[0.5, 0.7]).sizes["threshold"]
2
>>> str(df.iaa.sigma(n_chance=200)["component"].values)
'localization'
>>> df.iaa.pairwise(n_chance=200).dims
('annotator_a', 'annotator_b')
"""

from __future__ import annotations

import pandas as pd

from iaa_frames.api import results as cached
from iaa_frames.api import shortcuts
from iaa_frames.api.methods import engine_method, method, method_signature
from iaa_frames.engine import agreement as _agreement
from iaa_frames.engine import pairwise as _pairwise

__all__ = ["AgreementMethods"]


class AgreementMethods:
    """The agreement methods of ``df.iaa`` (:class:`iaa_frames.accessor.IAAAccessor`)."""

    _df: pd.DataFrame  # the frame, set by IAAAccessor

    agreement = engine_method(
        method_signature(_agreement), cached.agreement, name="agreement", doc=_agreement.__doc__
    )
    sigma = method(shortcuts.sigma)
    ks = method(shortcuts.ks)
    alpha = method(shortcuts.alpha)
    pairwise = engine_method(
        method_signature(_pairwise), cached.pairwise, name="pairwise", doc=_pairwise.__doc__
    )
