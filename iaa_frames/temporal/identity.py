"""Identity figures of every unit: IDTP and IDF1, CLEAR MOT (ID switches,
fragmentations, MOTA's errors, MOTP), and the identity distance within and under chance.

* **IDTP** (Ristani et al. 2016, "Performance Measures and a Data Set for Multi-Target,
  Multi-Camera Tracking"), as ``motmetrics`` computes it: the largest number of frames
  within the threshold (IoU >= τ) that a one-to-one assignment of the annotator's tracks
  to the partner's keeps on assigned track pairs (:func:`idtp` on the track x track
  matrix of such frames of each unit, every pair within τ counting, matched on its frame
  or not). IDF1 = 2 IDTP / (n_a + n_b), IDR = IDTP / n_a, IDP = IDTP / n_b.
* **CLEAR MOT** (Bernardin and Stiefelhagen 2008), with the annotator as the reference
  (``*_a``) and with the partner (``*_b``): the frame-to-frame correspondence of
  :mod:`iaa_frames.temporal.clear_mot`, its matched pairs, ID switches, fragmentations
  and summed distance ``1 - IoU``.
* **Identity distance**: the share of matched frames (the per-frame matching of the
  pipeline, the same both ways) outside the one-to-one assignment of their tracks,
  ``(matched - kept) / matched`` per unit, ``kept`` the matched pairs on assigned track
  pairs (0: every matched object keeps one identity correspondence). Its chance value is the same computation on *unrelated sequences*:
  the unit's matched pairs with the partner's track ids shuffled among the pairs of each
  frame (independently from frame to frame, ``n_draws`` times), so that the partner's
  identities on a frame say nothing about those on the other frames while detection and
  localization are kept. For annotators who assign ids at random on every frame, within
  and chance values have the same distribution: σ ≈ 0; consistent identities give σ = 1.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.optimize import linear_sum_assignment

from iaa_frames.arrays import sorted_unique

from .clear_mot import clear_mot
from .frames import FrameMatches

__all__ = ["idtp", "unit_figures"]

_CHANCE_STREAM = 0x1D5


def idtp(unit: np.ndarray, track_a: np.ndarray, track_b: np.ndarray, n_units: int) -> np.ndarray:
    """Identity true positives per unit of matched pairs ``(unit, track_a, track_b)``.

    Examples
    --------
    >>> # track 0 matched to 1 on 3 frames and to 2 on 1 frame, track 5 to 2 on 2 frames
    >>> idtp(np.zeros(6, int), np.array([0, 0, 0, 0, 5, 5]), np.array([1, 1, 1, 2, 2, 2]), 1)
    array([5.])
    """
    out = np.zeros(n_units)
    if not len(unit):
        return out
    unit, track_a, track_b = (np.asarray(x, dtype=np.int64) for x in (unit, track_a, track_b))
    n_t = int(max(track_a.max(), track_b.max())) + 1
    key, n = np.unique((unit * n_t + track_a) * n_t + track_b, return_counts=True)
    u, a, b = key // n_t // n_t, key // n_t % n_t, key % n_t
    n = n.astype(float)
    total = np.bincount(u, weights=n, minlength=n_units)
    n_cells = np.bincount(u, minlength=n_units)
    n_a = np.bincount(sorted_unique(u * n_t + a) // n_t, minlength=n_units)
    n_b = np.bincount(sorted_unique(u * n_t + b) // n_t, minlength=n_units)
    # one partner track per track and conversely: the assignment keeps every matched frame
    clean = (n_cells == n_a) & (n_cells == n_b)
    out[clean] = total[clean]
    starts = np.searchsorted(u, np.arange(n_units))
    stops = np.searchsorted(u, np.arange(n_units), side="right")
    for k in np.flatnonzero(~clean):  # one small assignment per unit with identity errors
        lo, hi = starts[k], stops[k]
        ra, ia = np.unique(a[lo:hi], return_inverse=True)
        rb, ib = np.unique(b[lo:hi], return_inverse=True)
        m = np.zeros((len(ra), len(rb)))
        m[ia, ib] = n[lo:hi]
        r, c = linear_sum_assignment(m, maximize=True)
        out[k] = m[r, c].sum()
    return out


class _Shuffler:
    """The partner's track of every matched pair, shuffled among the pairs of its frame
    (one argsort of a float key per draw: frame code + a uniform draw)."""

    def __init__(self, matched: pd.DataFrame):
        unit, item = matched["unit"].to_numpy(), matched["item"].to_numpy()
        self.frame = np.unique(unit * (int(item.max(initial=0)) + 1) + item, return_inverse=True)[1]
        self.base = np.argsort(self.frame, kind="stable")
        self.tb = matched["track_b"].to_numpy()

    def __call__(self, rng) -> np.ndarray:
        order = np.argsort(self.frame + rng.random(len(self.tb)))
        out = np.empty_like(self.tb)
        out[self.base] = self.tb[order]
        return out


def unit_figures(fm: FrameMatches, *, n_draws: int, seed: int) -> pd.DataFrame:
    """Per unit: counts, IDTP, the CLEAR MOT figures both ways (``matched_a``,
    ``switches_a``, ``fragmentations_a``, ``distance_a`` with the annotator as the
    reference, ``*_b`` with the partner), the per-frame matched pairs (``matched``), the
    number of them the assignment of their tracks keeps (``kept``) and its mean under
    chance (``chance_kept``).

    Examples
    --------
    >>> from iaa_frames.simulate.tracks import simulate_tracks
    >>> from iaa_frames.temporal.frames import match_frames
    >>> fm = match_frames(simulate_tracks(n_sequences=2, seed=0), track="track_id",
    ...                   frame="frame", tau=0.5, distance="iou", classes=False)
    >>> f = unit_figures(fm, n_draws=5, seed=0)
    >>> bool((f["idtp"] == f["matched"]).all()), f["switches_a"].sum()
    (True, np.float64(0.0))
    >>> bool((f["matched_a"] == f["matched"]).all())
    True
    """
    units, present, matched = fm.units, fm.present, fm.matched
    n = len(units)
    mu, side = present["unit"].to_numpy(), present["side"].to_numpy()
    u = matched["unit"].to_numpy()
    ta, tb = (matched[c].to_numpy() for c in ("track_a", "track_b"))
    near = fm.near
    mot = {s: clear_mot(fm, i) for i, s in enumerate("ab")}
    out = pd.DataFrame(
        {
            "unit": units["unit"].to_numpy(),
            "n_a": np.bincount(mu[side == 0], minlength=n).astype(float),
            "n_b": np.bincount(mu[side == 1], minlength=n).astype(float),
            "tracks_a": _n_tracks(present, 0, n),
            "tracks_b": _n_tracks(present, 1, n),
            "matched": np.bincount(u, minlength=n).astype(float),
            "kept": idtp(u, ta, tb, n),
            "idtp": idtp(*(near[c].to_numpy() for c in ("unit", "track_a", "track_b")), n),
            **{
                f"{name}_{s}": getattr(mot[s], name)
                for s in "ab"
                for name in ("matched", "switches", "fragmentations", "distance")
            },
        }
    )
    rng = np.random.default_rng([seed, _CHANCE_STREAM])
    shuffle = _Shuffler(matched)
    kept = np.zeros(n)
    for _ in range(n_draws):  # a few draws of the whole corpus, not a loop over rows
        kept += idtp(u, ta, shuffle(rng), n)
    out["chance_kept"] = kept / max(n_draws, 1)
    return out


def _n_tracks(present, side, n):
    p = present.loc[present["side"].to_numpy() == side, ["unit", "track"]].drop_duplicates()
    return np.bincount(p["unit"].to_numpy(), minlength=n).astype(float)
