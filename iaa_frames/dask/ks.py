"""KS tests of a sigma component from a compact within sample, a few cells at a time.

For its KS tests, :class:`iaa_frames.core.engine.SigmaCells` keeps a rows x cells matrix of
the within rows and tests every cell at once, which at ten million objects takes several
gigabytes. :class:`WithinSample` keeps, per within row, only its item, its two annotators
and its class, in narrow integer types, and lists the rows of a cell when asked;
:class:`SampledSigmaCells` runs the same tests (:func:`iaa_frames.stats.samples.cell_tests`,
:func:`iaa_frames.stats.kstest.ks_agreement_tests`) on groups of cells of at most
:data:`CHUNK_ENTRIES` within entries together.

The tests of a cell depend on its rows, not on their order: the p-value of the cluster
bootstrap, the fraction below chance and the counts are exact sums, and the KS statistic
is the same running sum of the same steps, except that in a group after the first the
sum starts from zero instead of from the rounding residue of the cells before it (a
difference of the order of 1e-16). A corpus whose cells hold fewer than
:data:`CHUNK_ENTRIES` entries in all is tested in one group: bitwise what the engine gives.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from iaa_frames.arrays import ranges
from iaa_frames.core.engine import SigmaCells
from iaa_frames.heap import large_heap
from iaa_frames.progress import DELAY, tqdm
from iaa_frames.stats.kstest import ks_agreement_entries
from iaa_frames.stats.samples import cell_tests

from .draws import shared_multiplicities
from .tables import active_client

__all__ = ["CHUNK_ENTRIES", "SampledSigmaCells", "WithinSample", "distinct_rows", "group_tests"]

#: Largest number of (within row, cell) entries tested together: about 1.5 GB of
#: temporary arrays in the tests.
CHUNK_ENTRIES = 12_000_000


class WithinSample:
    """The within rows of a sigma component: per row its item, annotators and class
    (``label``, -1 for none).

    Row ``r`` belongs to the label cells ``1 + label[r]`` (``label`` -1 is the label cell
    "(all)") and, when ``all_rows``, also to "(all)" (localization: every matched pair
    counts in "(all)", and in its class when both objects carry it); and to the annotator
    groups "(all)", ``1 + annotator_a[r]`` and ``1 + annotator_b[r]`` (cells
    ``label_cell * (n_annotators + 1) + group``, as in :class:`iaa_frames.core.engine.CellLayout`).

    Examples
    --------
    >>> import numpy as np
    >>> s = WithinSample(np.array([0, 0, 1]), np.array([0, 0, 1]), np.array([1, 2, 2]),
    ...                  np.array([0, -1, 0]), n_annotators=3, n_labels=1, all_rows=True)
    >>> s.cell_size.tolist()    # (all) x [(all), a0, a1, a2], then class 0 x the same
    [3, 2, 2, 2, 2, 1, 2, 1]
    >>> rows, count = s.rows(np.array([0, 6]))
    >>> rows.tolist(), count.tolist()    # every cell's rows ascending
    ([0, 1, 2, 0, 2], [3, 2])
    """

    def __init__(
        self,
        item,
        annotator_a,
        annotator_b,
        label,
        *,
        n_annotators: int,
        n_labels: int,
        all_rows: bool,
    ):
        self.item = np.asarray(item)
        self.annotator_a = np.asarray(annotator_a)
        self.annotator_b = np.asarray(annotator_b)
        self.label = np.asarray(label)
        self.n_annotators = int(n_annotators)
        self.n_groups = self.n_annotators + 1
        self.n_label_cells = int(n_labels) + 1
        self.all_rows = bool(all_rows)
        cell = self.label.astype(np.int64) + 1
        index = np.int32 if len(cell) < 2**31 else np.int64
        self._by_label = np.argsort(cell, kind="stable").astype(index)
        self._label_start = np.r_[0, np.cumsum(np.bincount(cell, minlength=self.n_label_cells))]
        A = self.n_annotators
        size = np.zeros((self.n_label_cells, self.n_groups), dtype=np.int64)
        size[:, 0] = np.diff(self._label_start)
        size[:, 1:] = (
            np.bincount(cell * A + self.annotator_a, minlength=A * len(size))
            + np.bincount(cell * A + self.annotator_b, minlength=A * len(size))
        ).reshape(len(size), A)
        if self.all_rows:
            size[0, 0] = len(cell)
            size[0, 1:] = np.bincount(self.annotator_a, minlength=A) + np.bincount(
                self.annotator_b, minlength=A
            )
        self.cell_size = size.ravel()
        self._cached = None  # (label cell, its rows grouped by annotator)

    def __len__(self) -> int:
        return len(self.item)

    def _label_rows(self, label_cell: int) -> np.ndarray:
        if self.all_rows and label_cell == 0:
            return np.arange(len(self.item), dtype=self._by_label.dtype)
        return self._by_label[self._label_start[label_cell] : self._label_start[label_cell + 1]]

    def _by_annotator(self, label_cell: int):
        """The rows of a label cell, each listed under both its annotators, grouped by
        annotator, ascending in every group (in order of distance, which the tests
        need: :func:`iaa_frames.stats.samples.cell_tests` merges sorted cells instead of
        sorting them): (rows, start of each annotator's group)."""
        if self._cached is None or self._cached[0] != label_cell:
            self._cached = None
            r = self._label_rows(label_cell)
            # every row twice, interleaved (ascending), then a stable sort by annotator:
            # each group keeps its rows ascending
            keys = np.column_stack([self.annotator_a[r], self.annotator_b[r]]).ravel()
            order = np.argsort(keys, kind="stable")
            rows = np.repeat(r, 2)[order]
            start = np.r_[0, np.cumsum(np.bincount(keys, minlength=self.n_annotators))]
            self._cached = (label_cell, rows, start)
        return self._cached[1], self._cached[2]

    def rows(self, cells: np.ndarray):
        """The rows of the given cells (ascending), one cell after the other.

        Returns
        -------
        rows : ndarray of int
        count : ndarray of int64, the number of rows of each cell
        """
        cells = np.asarray(cells, dtype=np.int64)
        out, count = [], np.zeros(len(cells), dtype=np.int64)
        for label_cell in np.unique(cells // self.n_groups):  # a loop over classes
            at = np.flatnonzero(cells // self.n_groups == label_cell)
            group = cells[at] % self.n_groups
            if group[0] == 0:
                r = self._label_rows(int(label_cell))
                out.append(r)
                count[at[0]] = len(r)
            ann = group[group > 0] - 1
            if len(ann):
                rows, start = self._by_annotator(int(label_cell))
                n = start[ann + 1] - start[ann]
                out.append(rows[ranges(start[ann], n)])
                count[at[group > 0]] = n
        return (np.concatenate(out) if out else np.zeros(0, np.int64)), count

    def chunks(self, cells: np.ndarray, budget: int = CHUNK_ENTRIES):
        """The cells (ascending) in consecutive groups of at most ``budget`` entries (a
        larger cell alone)."""
        cells = np.sort(np.asarray(cells, dtype=np.int64))
        size = self.cell_size[cells]
        groups, start, total = [], 0, 0
        for k, n in enumerate(size):  # a loop over cells
            if total and total + n > budget:
                groups.append(cells[start:k])
                start, total = k, 0
            total += int(n)
        if len(cells):
            groups.append(cells[start:])
        return groups

    def release(self) -> None:
        """Drop the cached grouping of rows by annotator."""
        self._cached = None


@dataclass(frozen=True, eq=False)
class SampledSigmaCells(SigmaCells):
    """:class:`iaa_frames.core.engine.SigmaCells` whose KS tests read a :class:`WithinSample`.

    The sums (``within``, ``between``), the chance rows and the counts are those of the
    engine; ``within_distance``, ``within_members`` and ``within_item`` are left empty,
    and :meth:`tests` lists each cell's within rows from ``sample`` and their distances
    from ``sample_distance`` (in the sample's row order), ``chunk_entries`` entries at a
    time.
    """

    sample: WithinSample | None = None
    sample_distance: np.ndarray | None = None
    chunk_entries: int = CHUNK_ENTRIES
    name: str = ""  # the component, for the progress bar
    progress: bool | None = None

    def tests(self, cells, seed: int = 0, multiplicities=None):
        """KS statistic, sign, p-value and fraction below chance of the given cells, as
        :meth:`iaa_frames.core.engine.SigmaCells.tests` computes them, one group of cells at a
        time; on the workers of the active ``dask.distributed`` client, if any (a few
        groups at a time, each sent with its rows' distances and items only).
        ``multiplicities``: the replicates of the p-values, if drawn already
        (:func:`iaa_frames.stats.kstest.ks_multiplicities`), used by the groups run
        here; otherwise each process that runs groups draws them once for all its
        groups (:func:`~iaa_frames.dask.draws.shared_multiplicities`: the workers of a
        client draw their own, the same)."""
        chunks = self.sample.chunks(np.asarray(cells, dtype=np.int64), self.chunk_entries)
        disable = len(chunks) < 2 if self.progress is None else not self.progress
        with tqdm(
            total=len(chunks),
            desc=f"KS tests, {self.name}".rstrip(", "),
            unit="group",
            disable=disable,
            delay=0 if self.progress else DELAY,
        ) as bar:
            return self._tests(chunks, seed, bar, multiplicities)

    def _tests(self, chunks, seed, bar, multiplicities=None):
        out = np.full((4, self.n_cells), np.nan)
        client = active_client() if chunks else None
        if client is None:
            for chunk in chunks:
                out[:, chunk] = group_tests(
                    **self._group(chunk),
                    n_items=self.n_items,
                    seed=seed,
                    multiplicities=multiplicities,
                )
                bar.update(1)
        else:
            from distributed import wait

            shared = _scatter(
                client,
                {
                    "between_distance": self.between_distance,
                    "between_item_a": self.between_items[0],
                    "between_item_b": self.between_items[1],
                },
                broadcast=True,
            )
            running = {}
            limit = 2 * max(len(client.scheduler_info().get("workers", {})), 1)
            for k, chunk in enumerate(chunks):
                if len(running) >= limit:  # a few groups at a time: bounded memory
                    futures = [f for f, _ in running.values()]
                    done = wait(futures, return_when="FIRST_COMPLETED").done
                    for j in [j for j, (f, _) in running.items() if f in done]:
                        out[:, chunks[j]] = running.pop(j)[0].result()
                        bar.update(1)
                # the scattered rows are held until their task is done
                group = _scatter(client, self._group(chunk, between=False))
                running[k] = (
                    client.submit(
                        group_tests, **group, **shared, n_items=self.n_items, seed=seed, pure=False
                    ),
                    group,
                )
            for j, (f, _) in running.items():
                out[:, chunks[j]] = f.result()
                bar.update(1)
        self.sample.release()
        return out

    def _group(self, chunk, between: bool = True) -> dict:
        """The arguments of :func:`group_tests` for a group of cells."""
        rows, w_n = self.sample.rows(chunk)
        distinct, entry_row = distinct_rows(rows, len(self.sample))
        del rows
        bp, bi, bw = (
            self.between_members.indptr,
            self.between_members.indices,
            self.between_members.data,
        )
        b_n = bp[chunk + 1] - bp[chunk]
        b_at = ranges(bp[chunk], b_n)
        out = {
            "within": self.sample_distance[distinct],
            "within_item": self.sample.item[distinct],
            "within_rows": entry_row,
            "within_count": w_n,
            "between_rows": bi[b_at],
            "between_count": b_n,
            "between_weight": bw[b_at],
        }
        if between:
            out.update(
                between_distance=self.between_distance,
                between_item_a=self.between_items[0],
                between_item_b=self.between_items[1],
            )
        return out


def distinct_rows(rows: np.ndarray, n_rows: int):
    """The distinct rows among ``rows`` (ascending) and, for every entry of ``rows``, its
    position among them: ``distinct[entry_row] == rows``. A row that several cells of a
    group share is sent, and ranked by the tests, once (a mask over the ``n_rows`` rows:
    no sort).

    Examples
    --------
    >>> distinct, at = distinct_rows(np.array([4, 1, 4, 2, 1]), 6)
    >>> distinct.tolist(), at.tolist()
    ([1, 2, 4], [2, 0, 2, 1, 0])
    """
    rows = np.asarray(rows)
    mask = np.zeros(n_rows, dtype=bool)
    mask[rows] = True
    distinct = np.flatnonzero(mask).astype(rows.dtype if rows.dtype.kind in "iu" else np.int64)
    index = np.int32 if len(distinct) < 2**31 else np.int64
    position = np.cumsum(mask, dtype=index)
    del mask
    position -= 1
    return distinct, position[rows]


def _scatter(client, arrays: dict, broadcast: bool = False) -> dict:
    """The arrays sent to the workers, under fresh keys (a dict given to
    ``client.scatter`` would use its names as keys, shared by every group)."""
    futures = client.scatter(list(arrays.values()), broadcast=broadcast, hash=False)
    return dict(zip(arrays, futures))


def group_tests(
    within,
    within_item,
    within_rows,
    within_count,
    between_rows,
    between_count,
    between_weight,
    between_distance,
    between_item_a,
    between_item_b,
    *,
    n_items: int,
    seed: int,
    multiplicities=None,
):
    """The tests of a group of cells (rows of the result: KS statistic, sign, p-value,
    fraction below chance; one column per cell).

    ``within`` lists the distances of the within rows of the group (each once) with
    their items, ``within_rows`` the cells' entries, indices into them, one cell after
    the other (``within_count`` each); ``between_rows`` the chance rows of the
    cells (indices into ``between_distance``, ``between_count`` each) with their
    weights. The p-value is the one-sided cluster-bootstrap test of
    :func:`iaa_frames.stats.kstest.ks_agreement_entries`, with the chance units' weights
    (``multiplicities``: its replicates, if drawn already; otherwise those this process
    shares, :func:`~iaa_frames.dask.draws.shared_multiplicities`).
    """
    with large_heap():  # on a worker: freed blocks reused, not unmapped
        k = len(within_count)
        w_cell = np.repeat(np.arange(k), within_count)
        b_cell = np.repeat(np.arange(k), between_count)
        out = cell_tests(
            within,
            w_cell,
            between_distance[between_rows],
            b_cell,
            between_weight,
            k,
            within_rows=within_rows,
        )
        if k:
            out[2] = ks_agreement_entries(
                within,
                between_distance,
                within_item=within_item,
                between_item_a=between_item_a,
                between_item_b=between_item_b,
                within_rows=within_rows,
                within_cell=w_cell,
                between_rows=between_rows,
                between_cell=b_cell,
                between_weight=between_weight,
                n_cells=k,
                n_items=n_items,
                seed=seed,
                multiplicities=(
                    shared_multiplicities(n_items, seed)
                    if multiplicities is None
                    else multiplicities
                ),
            )[1]
        return out
