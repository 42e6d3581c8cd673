# Over 400 lines: one index (ranks, bands, sorted keys), its searches, and the listing from them.
"""The object pairs of many pairings whose bounding boxes overlap, without listing all pairs.

A pairing pairs the objects ``[start_a, start_a + count_a)`` with the objects
``[start_b, start_b + count_b)`` of one array of boxes. Two boxes overlap (their
intersection has positive width and height) only if their x intervals overlap, and two
intervals ``[x0_i, x1_i)``, ``[x0_j, x1_j)`` overlap exactly when one starts inside the
other: ``x0_i <= x0_j < x1_i`` or ``x0_j < x0_i < x1_j``. With each side's boxes sorted
by ``x0``, each of the two cases is a contiguous run of the other side, found by binary
search (a sort-and-sweep). The sweep runs along the axis (x or y) where the boxes are
shorter against their extent, so strips of boxes along one axis stay cheap; the listed
pairs are then checked on the other axis. Where the ranges hold many boxes (an image of
hundreds of objects), each box is held once per band of the other axis it covers (bands
twice the median box long there): a box searches only the other side's boxes of its own
band, and a pair is found in one band only, that of the larger of the two starts: a box
searches every box of its first band, and in the other bands it covers only the boxes
that start there. The cost grows with the pairs that overlap along the swept axis within
a band, not with ``count_a * count_b``, and nothing loops in Python per pairing or per
pair.

Comparisons are made on exact ranks of the coordinates (no arithmetic on them), so the
pairs returned are exactly the pairs with ``min(x1) - max(x0) > 0`` and
``min(y1) - max(y0) > 0``: a superset of the pairs with a positive intersection area.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Searched", "Sweep", "coordinate_ranks", "overlapping_pairs", "sweep_cost"]


def _starts(counts) -> np.ndarray:
    """Where each run of ``counts`` starts in their concatenation."""
    start = np.zeros(len(counts), dtype=np.int64)
    np.cumsum(counts[:-1], out=start[1:])
    return start


def _sorted_keys(key):
    """``key`` sorted, and the positions it came from: one sort of the keys with their
    positions in their low bits where they fit (equal keys then in order of position;
    numpy sorts integers several times faster than it argsorts them, 1M keys: 15 ms
    against 37 ms), else an argsort (equal keys in any order: the callers take a run of
    equal keys whole).

    Examples
    --------
    >>> s, order = _sorted_keys(np.array([7, 3, 7, 0]))
    >>> s.tolist(), order.tolist()
    ([0, 3, 7, 7], [3, 1, 0, 2])
    """
    n = len(key)
    bits = max(n - 1, 1).bit_length()
    top = int(key.max()) if n else 0
    if n and int(key.min()) >= 0 and top < 1 << (63 - bits):
        packed = key.astype(np.int64)
        packed <<= bits
        packed |= np.arange(n, dtype=np.int64)
        packed.sort()
        order = packed & ((1 << bits) - 1)
        packed >>= bits
        return packed, order
    order = np.argsort(key)
    return key[order], order


def _runs(counts):
    """(owner, position within the owner's run) of every element of runs of ``counts``."""
    owner = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    return owner, np.arange(len(owner), dtype=np.int64) - _starts(counts)[owner]


#: Bits of the integer that holds a pair (pairing, i, j) where they fit (else three
#: arrays, ordered by ``lexsort``).
KEY_BITS = 62
#: Entries a range holds on average, at least, for the entries to be held by bands.
BAND_MIN_ENTRIES = 128
#: Entries at most (evenly spread) whose lengths choose the axis of a sweep.
AXIS_SAMPLE = 8192
#: Replicas of the entries at most, as a multiple of the entries, that the bands of
#: :meth:`_Index.axis` may make (their height grows until they fit).
MAX_REPLICAS = 3
#: Pairs looked at per block of :meth:`Searched.pairs` (its temporaries, some tens of
#: bytes a pair, stay in the processor's cache).
PAIR_BLOCK = 1 << 16


def _bands(lo, hi, n_seg: int, width: int):
    """Bands of height ``h`` along an axis: each entry's first band and its count of
    bands, and the number of bands. The band of a coordinate ``v`` is ``floor((v - base)
    / h)`` clipped to the bands (infinities in the first or last), ``base`` the least
    finite coordinate; an entry covers the bands of its start through its end (one band
    for an empty or NaN interval, which overlaps nothing). ``h`` is twice the median
    finite length, raised until the replicas are at most :data:`MAX_REPLICAS` times the
    entries; one band where keys ``(segment, band, rank)`` would not fit in 63 bits."""
    n = len(lo)
    ok = lo < hi  # False for NaN
    one, zero = np.ones(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    ends = np.concatenate([lo[ok], hi[ok]])
    ends = ends[np.isfinite(ends)]
    length = (hi - lo)[ok]
    length = length[np.isfinite(length)]
    if not len(length):
        return zero, one, 1
    base, span = float(ends.min()), float(ends.max() - ends.min())
    h = max(2.0 * float(np.median(length)), span / 4096)  # at most about 4,096 bands
    if not (h > 0 and np.isfinite(h)):
        return zero, one, 1
    lo, hi = np.where(ok, lo, base), np.where(ok, hi, base)
    while True:
        n_bands = int(np.floor(span / h)) + 1
        with np.errstate(invalid="ignore", over="ignore"):
            first = np.clip(np.floor((lo - base) / h), 0, n_bands - 1).astype(np.int64)
            count = np.clip(np.floor((hi - base) / h), 0, n_bands - 1).astype(np.int64)
        count -= first
        count += 1
        if int(count.sum()) <= MAX_REPLICAS * n:
            break
        h *= 2
    if (n_seg + 1) * n_bands * (width + 1) >= 2**62:
        return zero, one, 1
    return first, count, n_bands


class _Index:
    """Each distinct object range of the pairings, sorted along one axis, for searching.

    Along axis ``k`` every entry is held once per band of the other axis it covers
    (:func:`_bands`): a query searches the other side's entries of its own band only,
    and a pair of entries whose boxes overlap is found in one band, that of the larger
    of their starts along the other axis (it lies inside both intervals, and the band of
    a coordinate grows with it). So a replica in its entry's first band (a *primary*
    one) searches every replica of the band, and a replica in a later band only the
    primary ones there, held sorted apart (``_Axis.primary``): each pair is looked at
    once, whatever bands the two share.
    """

    def __init__(self, boxes, start_a, count_a, start_b, count_b, ranks=None):
        start = np.concatenate([start_a, start_b]).astype(np.int64)
        count = np.concatenate([count_a, count_b]).astype(np.int64)
        # the distinct (start, count) ranges, sorted: one integer key each
        width = int(count.max()) + 1 if len(count) else 1
        keys, inverse = np.unique(start * width + count, return_inverse=True)
        ranges = np.column_stack([keys // width, keys % width])
        inverse = inverse.ravel()
        self.seg_a, self.seg_b = inverse[: len(start_a)], inverse[len(start_a) :]
        seg, local = _runs(ranges[:, 1])
        self.obj = ranges[seg, 0] + local  # object of every (segment, position) entry
        self.local, self.seg = local, seg
        self.boxes = boxes
        self.global_ranks = ranks
        self.n_seg = len(ranges)
        self.axes, self.rank_of, self.sorted_of = {}, {}, {}
        self._shorter = None

    def ranks(self, k):
        """Ranks of every entry's start and end along axis ``k`` (among all of them, or
        among every box's from :func:`coordinate_ranks` when given: the same order), and
        their width; an empty interval (end <= start, or a NaN) starts after every end
        and ends before every start: it overlaps nothing."""
        if k not in self.rank_of:
            lo, hi = self.boxes[self.obj, k], self.boxes[self.obj, k + 2]
            if self.global_ranks is None:
                r_lo, r_hi, width = _dense_ranks(lo, hi)
            else:
                g_lo, g_hi, width = self.global_ranks[k]
                r_lo, r_hi = g_lo[self.obj], g_hi[self.obj]
            bad = ~(lo < hi)
            self.rank_of[k] = (np.where(bad, width - 1, r_lo), np.where(bad, -1, r_hi), width)
        return self.rank_of[k]

    def axis(self, k):
        """Along axis ``k``: the sorted search keys ``(segment, band, rank of the start)``
        of the replicas and of the primary ones apart (:class:`_Axis`), the replica at
        each sorted position, each replica's entry and band, each entry's ranks and first
        band, the width of the ranks, the bands, the first replica of each segment and
        the sorted position where each (segment, band) block starts (None when there are
        too many blocks: searched for)."""
        if k not in self.axes:
            r_lo, r_hi, width = self.ranks(k)
            j = 1 - k
            if len(self.obj) >= BAND_MIN_ENTRIES * self.n_seg:
                first, reps, n_bands = _bands(
                    self.boxes[self.obj, j], self.boxes[self.obj, j + 2], self.n_seg, width
                )
            else:  # few boxes a range: a search finds few, bands would cost more
                first, reps, n_bands = (
                    np.zeros(len(self.obj), np.int64),
                    np.ones(len(self.obj), np.int64),
                    1,
                )
            rep, step = _runs(reps)  # the replicas of each entry, entry by entry
            band = first[rep] + step
            key = (self.seg[rep] * n_bands + band) * width + r_lo[rep]
            # by segment, band, interval start; among equal keys any order (a search
            # takes them all or none, and the pairs are sorted at the end)
            key, order = _sorted_keys(key)
            pkey = None
            if n_bands > 1:  # the primary replicas (step 0) again, sorted apart
                pkey = (self.seg * n_bands + first) * width + r_lo  # entry by entry
                pkey, p_order = _sorted_keys(pkey)
                order = np.concatenate([order, np.flatnonzero(step == 0)[p_order]])
                del p_order
            seg_rep = np.bincount(self.seg, weights=reps, minlength=self.n_seg).astype(np.int64)
            rep_first = np.zeros(self.n_seg + 1, dtype=np.int64)
            np.cumsum(seg_rep, out=rep_first[1:])
            self.axes[k] = _Axis(
                key,
                pkey,
                order,
                rep,
                band,
                r_lo,
                r_hi,
                first,
                width,
                n_bands,
                rep_first,
            )
        return self.axes[k]

    def shorter_axis(self) -> int:
        """The axis (0: x, 1: y) along which the boxes are shorter against the extent of
        them all (median length over the span of the finite ends, of at most
        :data:`AXIS_SAMPLE` entries evenly spread: the axis changes the cost, not the
        pairs): the sweep runs along it, and the bands along the other (strips of boxes
        along one axis stay cheap)."""
        if self._shorter is not None:
            return self._shorter
        obj = self.obj[:: max(len(self.obj) // AXIS_SAMPLE, 1)]
        rel = []
        for k in (0, 1):
            lo, hi = self.boxes[obj, k], self.boxes[obj, k + 2]
            ok = lo < hi
            ends = np.concatenate([lo[ok], hi[ok]])
            ends = ends[np.isfinite(ends)]
            length = (hi - lo)[ok]
            length = length[np.isfinite(length)]
            span = float(ends.max() - ends.min()) if len(ends) else 0.0
            rel.append(float(np.median(length)) / span if len(length) and span > 0 else np.inf)
        self._shorter = int(rel[1] < rel[0])
        return self._shorter

    def sorted_other(self, k):
        """For the replicas along axis ``k`` at every position of ``_Axis.order``: their
        entries' ranks along the other axis (start, end) and their position in their
        range."""
        if k not in self.sorted_of:
            ax = self.axis(k)
            entry = ax.rep[ax.order]
            r_lo, r_hi, _ = self.ranks(1 - k)
            self.sorted_of[k] = (r_lo[entry], r_hi[entry], self.local[entry])
        return self.sorted_of[k]

    def queries(self, k, seg_query, seg_other):
        """Every replica of the segments ``seg_query`` (one per pairing), in sorted order
        (the searches then go forward through the sorted keys): its pairing, entry and
        band, and the (segment, band) block of the other side's replicas of its band."""
        ax = self.axis(k)
        pairing, pos = _runs(np.diff(ax.rep_first)[seg_query])
        replica = ax.order[ax.rep_first[seg_query][pairing] + pos]
        entry, band = ax.rep[replica], ax.band[replica]
        block = seg_other[pairing] * ax.n_bands + band
        return pairing, entry, band, block

    def searches(self, k, seg_query, seg_other):
        """For every replica of the segments ``seg_query`` (one per pairing), the run of
        sorted replicas of ``seg_other`` in its band that start inside its interval
        (``>=`` its start when ``closed``), as (pairing, query entry, lo, count), for both
        cases: positions of ``_Axis.order``, among every replica of the band for a
        primary query, among the primary ones (after every replica's) for the others."""
        ax = self.axis(k)
        out = []
        for closed, q_seg, o_seg in ((True, seg_query, seg_other), (False, seg_other, seg_query)):
            pairing, entry, band, block = self.queries(k, q_seg, o_seg)
            lo = block * ax.width
            hi = lo + ax.r_hi[entry]
            lo += ax.r_lo[entry]
            side = "left" if closed else "right"
            if ax.primary is None:
                lo = np.searchsorted(ax.key, lo, side=side)
                hi = np.searchsorted(ax.key, hi, side="left")
            else:
                later = np.flatnonzero(band != ax.first_band[entry])
                first = np.flatnonzero(band == ax.first_band[entry])
                for keys, rows, offset in ((ax.key, first, 0), (ax.primary, later, len(ax.key))):
                    lo[rows] = np.searchsorted(keys, lo[rows], side=side) + offset
                    hi[rows] = np.searchsorted(keys, hi[rows], side="left") + offset
            out.append((pairing, entry, lo, np.maximum(hi - lo, 0)))
        return out


@dataclass(frozen=True)
class _Axis:
    """What :meth:`_Index.axis` holds for one axis: ``key`` every replica's sorted,
    ``primary`` the primary replicas' sorted apart (None without bands), and ``order``
    the replica at each position of the two, one after the other."""

    key: np.ndarray
    primary: np.ndarray | None
    order: np.ndarray
    rep: np.ndarray
    band: np.ndarray
    r_lo: np.ndarray
    r_hi: np.ndarray
    first_band: np.ndarray
    width: int
    n_bands: int
    rep_first: np.ndarray


def coordinate_ranks(boxes) -> tuple:
    """Dense ranks of every box's start and end along x and along y, among all the boxes'
    coordinates on that axis, and the width of a :class:`Sweep`'s keys (the distinct
    coordinates plus 2): what a sweep of any of these boxes compares, computed once for
    many sweeps (``Sweep(..., ranks=...)``). Equal coordinates (``-0.0`` and ``0.0``,
    every NaN) have one rank.

    Examples
    --------
    >>> (lo, hi, width), _ = coordinate_ranks(np.array([[0, 0, 2, 1], [1, 0, 2.0, 3]]))
    >>> lo.tolist(), hi.tolist(), width
    ([0, 1], [2, 2], 4)
    """
    boxes = np.asarray(boxes, dtype=np.float64)
    return tuple(_dense_ranks(boxes[:, k], boxes[:, k + 2]) for k in (0, 1))


def _dense_ranks(lo, hi):
    """Dense ranks of ``lo`` and ``hi`` among all their values, and the count plus 2."""
    n = len(lo)
    _, rank = np.unique(np.concatenate([lo, hi]), return_inverse=True)
    rank = rank.ravel().astype(np.int32 if 2 * n < 2**31 - 2 else np.int64)
    return rank[:n], rank[n:], int(rank.max()) + 2 if n else 1


class Sweep:
    """The overlapping object pairs of many pairings: their index built once, and for any
    part of the pairings the searches of its boxes (:meth:`search`), which count the
    pairs each pairing looks at before any is listed, and then list them
    (:meth:`Searched.pairs`), as a matching sizes its chunks of work and lists them chunk
    by chunk.

    Parameters
    ----------
    boxes, start_a, count_a, start_b, count_b
        The boxes and the pairings, as :func:`overlapping_pairs` takes them.
    ranks : tuple, optional
        :func:`coordinate_ranks` of ``boxes``, when many sweeps share them (else the
        coordinates of the pairings' boxes are ranked here).

    Examples
    --------
    >>> boxes = np.array([[0, 0, 2, 2], [5, 5, 6, 6], [1, 1, 3, 3], [9, 0, 10, 1.0]])
    >>> sweep = Sweep(boxes, np.array([0, 2]), np.array([2, 2]), np.array([2, 0]),
    ...               np.array([2, 2]))
    >>> searched = sweep.search()
    >>> searched.cost.tolist()
    [1, 1]
    >>> p, i, j = searched.part(1, 2).pairs()
    >>> list(zip(p.tolist(), i.tolist(), j.tolist()))
    [(0, 0, 0)]
    """

    def __init__(self, boxes, start_a, count_a, start_b, count_b, *, ranks=None):
        self.count_a = np.asarray(count_a, dtype=np.int64)
        self.count_b = np.asarray(count_b, dtype=np.int64)
        boxes = np.asarray(boxes, dtype=np.float64)
        self.index = (
            _Index(boxes, start_a, count_a, start_b, count_b, ranks) if len(start_a) else None
        )

    def search(self, rows=None, use_y=None) -> Searched:
        """The searches of the pairings ``rows`` (all when None), numbered ``0 ..
        len(rows) - 1``: every replica of each side looks up the run of the other side's
        replicas its pairs lie in. ``use_y``: the axis of each row's sweep (True: y; any
        choice gives the same pairs), by default the one along which the boxes are
        shorter against their extent, for every row."""
        rows = np.arange(len(self.count_a)) if rows is None else np.asarray(rows, np.int64)
        n = len(rows)
        if use_y is None:
            use_y = np.full(n, n > 0 and self.index is not None and self.index.shorter_axis() == 1)
        use_y = np.asarray(use_y, dtype=bool)
        axes = []
        if self.index is not None and n:
            index = self.index
            for k, chosen in ((0, ~use_y), (1, use_y)):
                if chosen.any():
                    sel = np.flatnonzero(chosen)
                    axes.append(
                        (k, sel, index.searches(k, index.seg_a[rows[sel]], index.seg_b[rows[sel]]))
                    )
        cost = np.zeros(n, dtype=np.int64)
        for _, sel, searches in axes:
            for pairing, _, _, count in searches:
                cost += np.bincount(sel[pairing], weights=count, minlength=n).astype(np.int64)
        return Searched(self, rows, axes, cost)

    def pairs(self, rows=None, use_y=None):
        """:func:`overlapping_pairs` of the pairings ``rows`` (all when None), numbered
        ``0 .. len(rows) - 1``: ``self.search(rows, use_y).pairs()``."""
        return self.search(rows, use_y).pairs()


@dataclass(frozen=True)
class Searched:
    """The searches of some pairings of a :class:`Sweep` (:meth:`Sweep.search`).

    ``cost`` holds, per pairing, the object pairs its listing looks at (each once, an
    upper bound of the pairs it returns, for sizing chunks of work); :meth:`part` takes
    the searches of a range of the pairings without searching again, and :meth:`pairs`
    lists the overlapping pairs.
    """

    sweep: Sweep
    rows: np.ndarray
    #: (axis, the rows swept along it, the two sides' (pairing, entry, lo, count), each
    #: side's queries ordered by pairing)
    axes: list
    cost: np.ndarray

    def part(self, lo: int, hi: int) -> Searched:
        """The searches of the pairings ``lo .. hi - 1``, numbered from 0."""
        axes = []
        for k, sel, searches in self.axes:
            i, j = np.searchsorted(sel, [lo, hi])
            sides = []
            for pairing, entry, start, count in searches:
                s, e = np.searchsorted(pairing, [i, j])
                sides.append((pairing[s:e] - i, entry[s:e], start[s:e], count[s:e]))
            axes.append((k, sel[i:j] - lo, sides))
        return Searched(self.sweep, self.rows[lo:hi], axes, self.cost[lo:hi])

    def pairs(self, ordered: bool = True):
        """:func:`overlapping_pairs` of the pairings searched, numbered ``0 ..
        len(rows) - 1``; without ``ordered``, the same pairs in any order.

        Where a pair fits in one integer, the pairings are listed a block of about
        :data:`PAIR_BLOCK` pairs looked at at a time (their temporaries stay in the
        processor's cache), each block sorted apart (as 32-bit integers where its pairs,
        its pairings numbered from its first, fit in 32 bits) and cut into the three
        arrays: a block holds whole pairings, in order, so the blocks one after the other
        are in order.
        """
        z = np.zeros(0, dtype=np.int64)
        sweep, rows = self.sweep, self.rows
        n = len(rows)
        if sweep.index is None or not n:
            return z, z, z
        n_a = max(int(sweep.count_a[rows].max()), 1)
        n_b = max(int(sweep.count_b[rows].max()), 1)
        # each pair as one integer (pairing, i, j) in bit fields, where it fits in 63 bits:
        # one array to compact and sort instead of three, cut apart by shifts
        bits_a, bits_b = (n_a - 1).bit_length(), (n_b - 1).bit_length()
        if (n - 1).bit_length() + bits_a + bits_b > KEY_BITS:
            return self._pairs_apart()
        out = []
        for lo, hi in _cost_blocks(self.cost, PAIR_BLOCK):
            # the pairings numbered from the block's first: where a key then fits in 32
            # bits, the keys are sorted as such (twice as fast), in the same order
            narrow = (hi - lo - 1).bit_length() + bits_a + bits_b <= 32
            first = lo if narrow else 0
            parts = []
            for k, sel, searches in self.axes:
                i, j = np.searchsorted(sel, [lo, hi])
                if j == i:
                    continue
                for side, (pairing, entry, start, count) in enumerate(searches):
                    s, e = np.searchsorted(pairing, [i, j])
                    if e > s:
                        parts.append(
                            self._keys(
                                k,
                                side,
                                sel[pairing[s:e]] - first,
                                entry[s:e],
                                start[s:e],
                                count[s:e],
                                bits_a,
                                bits_b,
                            )
                        )
            if parts:  # sorted and cut apart while in the cache
                key = np.concatenate(parts)
                if narrow:
                    key = key.astype(np.uint32)
                if ordered:
                    key.sort()
                lb = np.bitwise_and(key, (1 << bits_b) - 1, dtype=np.int64)
                key >>= bits_b
                la = np.bitwise_and(key, (1 << bits_a) - 1, dtype=np.int64)
                key >>= bits_a
                if narrow:
                    key = key.astype(np.int64)
                    key += first
                out.append([key, la, lb])
        if len(out) == 1:
            return tuple(out[0])
        fields = []
        for f in range(3):  # one field at a time, its blocks released as it is joined
            fields.append(np.concatenate([o[f] for o in out]) if out else z)
            for o in out:
                o[f] = None
        return tuple(fields)

    def _keys(self, k, side, p, entry, lo, count, bits_a, bits_b):
        """The pairs found by the searches ``(entry, lo, count)`` of one side along axis
        ``k`` (their pairings ``p``) that overlap along the other axis too, as integers
        ``(pairing, i, j)``.

        The exact test of the other axis is made on the ranks of the coordinates
        (integers, no gather of boxes). Along the searched axis the run found holds the
        replicas j with x0_i <= x0_j < x1_i (x0_i < x0_j < x1_i the other way round) in
        i's band: they overlap i there, since x0_j < x1_j (an empty interval is ranked to
        start after every end, so no run holds it); a pair is found in one band only,
        that of the larger of the two starts along the other axis (the searches look
        among the primary replicas only from a query's later bands).
        """
        index = self.sweep.index
        s_lo, s_hi, s_local = index.sorted_other(k)
        q_lo, q_hi, _ = index.ranks(1 - k)
        total = int(count.sum())
        pos = np.arange(total, dtype=np.int64)  # sorted positions of the ones found
        pos += np.repeat(lo - _starts(count), count)
        # (``take`` gathers several times faster than indexing, here)
        keep = s_lo.take(pos) < np.repeat(q_hi[entry], count)
        keep &= np.repeat(q_lo[entry], count) < s_hi.take(pos)
        found = s_local.take(pos)
        if side == 0:  # (pairing, query, found)
            head = (p << (bits_a + bits_b)) | (index.local[entry] << bits_b)
        else:  # (pairing, found, query)
            head = (p << (bits_a + bits_b)) | index.local[entry]
            found <<= bits_b
        found |= np.repeat(head, count)
        return found[keep]

    def _pairs_apart(self):
        """:meth:`pairs` where a pair does not fit in one integer: three arrays, ordered by
        ``lexsort``."""
        index = self.sweep.index
        parts = []
        for k, sel, searches in self.axes:
            s_lo, s_hi, s_local = index.sorted_other(k)
            q_lo, q_hi, _ = index.ranks(1 - k)
            for side, (pairing, entry, lo, count) in enumerate(searches):
                total = int(count.sum())
                pos = np.arange(total, dtype=np.int64)
                pos += np.repeat(lo - _starts(count), count)
                keep = s_lo[pos] < np.repeat(q_hi[entry], count)
                keep &= np.repeat(q_lo[entry], count) < s_hi[pos]
                p = sel[pairing]
                found = s_local[pos[keep]]
                owner = np.repeat(np.arange(len(count)), count)[keep]
                q = index.local[entry[owner]]
                parts.append((p[owner], q, found) if side == 0 else (p[owner], found, q))
        if not parts:
            z = np.zeros(0, dtype=np.int64)
            return z, z, z
        pairing, la, lb = (np.concatenate(x) for x in zip(*parts))
        order = np.lexsort((lb, la, pairing))
        return pairing[order], la[order], lb[order]


def _cost_blocks(cost, size: int):
    """(lo, hi) ranges of consecutive pairings looking at about ``size`` pairs each (a
    pairing looking at more is a block of its own)."""
    cum = np.cumsum(cost)
    cuts = np.searchsorted(cum, np.arange(size, cum[-1] if len(cum) else 0, size), side="right")
    edges = np.unique(np.r_[0, cuts, len(cost)])
    return [(int(lo), int(hi)) for lo, hi in zip(edges[:-1], edges[1:], strict=True)]


def sweep_cost(boxes, start_a, count_a, start_b, count_b) -> np.ndarray:
    """Object pairs :func:`overlapping_pairs` looks at for each pairing (each once: an
    upper bound of the pairs it returns), for sizing chunks of work.

    Examples
    --------
    >>> boxes = np.array([[0, 0, 2, 2], [5, 5, 6, 6], [1, 1, 3, 3], [9, 0, 10, 1.0]])
    >>> sweep_cost(boxes, np.array([0]), np.array([2]), np.array([2]), np.array([2])).tolist()
    [1]
    """
    return Sweep(boxes, start_a, count_a, start_b, count_b).search().cost


def overlapping_pairs(boxes, start_a, count_a, start_b, count_b, *, use_y=None):
    """Every object pair of every pairing whose boxes overlap in x and in y.

    Parameters
    ----------
    boxes : ndarray of float, shape (n_objects, 4)
        ``x0, y0, x1, y1`` of every object.
    start_a, count_a, start_b, count_b : ndarray of int, shape (P,)
        Pairing ``p`` pairs objects ``start_a[p] + i`` (``i < count_a[p]``) with objects
        ``start_b[p] + j`` (``j < count_b[p]``).
    use_y : ndarray of bool, shape (P,), optional
        The axis each pairing's sweep runs along (True: y; by default the one of
        :meth:`Sweep.search`). Any choice gives the same pairs.

    Returns
    -------
    pairing, local_a, local_b : ndarray of int64
        The pairs with ``min(x1) - max(x0) > 0`` and ``min(y1) - max(y0) > 0``, ordered
        by pairing, then ``i``, then ``j`` (the order of
        :func:`iaa_frames.core.matching.assignment.candidate_pairs`).

    Examples
    --------
    >>> boxes = np.array([[0, 0, 2, 2], [5, 5, 6, 6], [1, 1, 3, 3], [9, 0, 10, 1.0]])
    >>> p, i, j = overlapping_pairs(boxes, np.array([0]), np.array([2]), np.array([2]),
    ...                             np.array([2]))
    >>> list(zip(i.tolist(), j.tolist()))
    [(0, 0)]
    """
    return Sweep(boxes, start_a, count_a, start_b, count_b).search(use_y=use_y).pairs()
