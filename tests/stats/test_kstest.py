"""The one-sided KS test of agreement with a cluster bootstrap over items."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats
from oracles import ks_agreement_tests_loop

from iaa_frames.errors import ParameterError
from iaa_frames.stats.kstest import ks_agreement_entries, ks_agreement_test, ks_agreement_tests


def clustered(rng, n_items=20, per_item=5, n_between=120, shift=0.0, spread=1.0, shared=True):
    """Distances with strong item effects. Within rows of item i: u_i + e; chance rows
    of items (i, j): (v_i + v_j) / sqrt(2) + e, with v = u (``shared``: the chance rows
    reuse the items' effects) or independent effects. Both have the same marginal law
    (no agreement) unless ``shift`` moves the within rows down."""
    u = rng.normal(0.0, spread, n_items)
    v = u if shared else rng.normal(0.0, spread, n_items)
    wi = np.repeat(np.arange(n_items), per_item)
    x = u[wi] + rng.normal(0.0, 0.3, wi.size) - shift
    a = rng.integers(0, n_items, n_between)
    b = (a + rng.integers(1, n_items, n_between)) % n_items
    y = (v[a] + v[b]) / np.sqrt(2.0) + rng.normal(0.0, 0.3, n_between)
    return x, y, wi, a, b


def test_statistic_is_the_one_sided_ks_statistic():
    rng = np.random.default_rng(0)
    x, y, wi, a, b = clustered(rng, shift=0.5)
    res = ks_agreement_test(x, y, within_item=wi, between_item_a=a, between_item_b=b)
    # scipy's "greater": max over t of F_within(t) - F_between(t)
    ref = scipy.stats.ks_2samp(x, y, alternative="greater")
    assert res.statistic == pytest.approx(ref.statistic, abs=1e-12)
    assert res.n_resamples == 199


@pytest.mark.parametrize("shared", [True, False])
def test_false_positive_rate_under_clustering(shared):
    # the cluster bootstrap keeps the level (Monte-Carlo standard error about 1.5
    # points); where the chance rows do not share the within rows' item effects, scipy
    # (independent rows) rejects far too often
    rng = np.random.default_rng(1)
    ours, naive = [], []
    for r in range(200):
        x, y, wi, a, b = clustered(rng, shared=shared)
        ours.append(
            ks_agreement_test(
                x, y, within_item=wi, between_item_a=a, between_item_b=b, seed=r
            ).pvalue
            < 0.05
        )
        naive.append(scipy.stats.ks_2samp(x, y, alternative="greater").pvalue < 0.05)
    assert np.mean(ours) <= 0.08
    if not shared:
        assert np.mean(naive) >= 0.15


def test_power_against_agreement():
    rng = np.random.default_rng(2)
    rejected = [
        ks_agreement_test(
            *clustered(rng, shift=1.5)[:2],
            within_item=np.repeat(np.arange(20), 5),
            between_item_a=np.zeros(120, int),
            between_item_b=np.ones(120, int),
            seed=r,
        ).pvalue
        < 0.05
        for r in range(20)
    ]
    assert np.mean(rejected) >= 0.9
    # disagreement (within above chance) is not agreement
    x, y, wi, a, b = clustered(rng, shift=-2.0)
    res = ks_agreement_test(x, y, within_item=wi, between_item_a=a, between_item_b=b)
    assert res.pvalue > 0.5


def test_too_few_items_gives_no_pvalue():
    rng = np.random.default_rng(3)
    x, y, wi, a, b = clustered(rng, n_items=6)
    two = np.isin(wi, [0, 1])
    res = ks_agreement_test(
        x[two], y, within_item=wi[two], between_item_a=a, between_item_b=b, n_items=6
    )
    assert np.isfinite(res.statistic) and np.isnan(res.pvalue) and res.n_resamples == 0
    three = np.isin(wi, [0, 1, 2])
    assert np.isfinite(
        ks_agreement_test(
            x[three], y, within_item=wi[three], between_item_a=a, between_item_b=b, n_items=6
        ).pvalue
    )


def test_empty_samples():
    res = ks_agreement_test(
        [], [0.1, 0.2], within_item=[], between_item_a=[0, 1], between_item_b=[1, 0]
    )
    assert np.isnan(res.statistic) and np.isnan(res.pvalue)


def test_seeded_and_cells_equal_single_tests():
    rng = np.random.default_rng(4)
    x, y, wi, a, b = clustered(rng, shift=0.2)
    one = ks_agreement_test(x, y, within_item=wi, between_item_a=a, between_item_b=b, seed=9)
    again = ks_agreement_test(x, y, within_item=wi, between_item_a=a, between_item_b=b, seed=9)
    assert one == again
    cells_w = [np.arange(x.size), np.flatnonzero(wi < 10), np.flatnonzero(wi < 2)]
    cells_b = [np.arange(y.size), np.flatnonzero(a < 10), np.arange(y.size)]
    stat, p, used = ks_agreement_tests(
        x,
        y,
        within_item=wi,
        between_item_a=a,
        between_item_b=b,
        within_cells=cells_w,
        between_cells=cells_b,
        n_items=20,
        seed=9,
    )
    for c in range(3):
        single = ks_agreement_test(
            x[cells_w[c]],
            y[cells_b[c]],
            within_item=wi[cells_w[c]],
            between_item_a=a[cells_b[c]],
            between_item_b=b[cells_b[c]],
            n_items=20,
            seed=9,
        )
        assert stat[c] == pytest.approx(single.statistic)
        assert p[c] == pytest.approx(single.pvalue, nan_ok=True)
        assert used[c] == single.n_resamples
    assert np.isnan(p[2])


def test_coarse_grid_for_large_samples():
    rng = np.random.default_rng(5)
    x, y, wi, a, b = clustered(rng, n_items=50, per_item=40, n_between=3000, shift=0.3)
    fine = ks_agreement_test(
        x, y, within_item=wi, between_item_a=a, between_item_b=b, max_grid=100_000
    )
    coarse = ks_agreement_test(x, y, within_item=wi, between_item_a=a, between_item_b=b)
    assert coarse.statistic <= fine.statistic + 1e-12
    assert coarse.statistic == pytest.approx(fine.statistic, abs=0.01)
    assert (coarse.pvalue < 0.05) == (fine.pvalue < 0.05)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"n_resamples": 0}, "n_resamples"),
        ({"seed": -1}, "seed"),
        ({"min_items": 0}, "min_items"),
        ({"n_items": 1}, "n_items"),
    ],
)
def test_bad_parameters(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        ks_agreement_test(
            [0.1, 0.2, 0.3],
            [0.5, 0.6],
            within_item=[0, 1, 2],
            between_item_a=[0, 1],
            between_item_b=[1, 2],
            **kwargs,
        )


def test_bad_item_codes():
    with pytest.raises(ParameterError, match="within_item"):
        ks_agreement_test(
            [0.1, 0.2], [0.5], within_item=[0], between_item_a=[0], between_item_b=[1]
        )
    with pytest.raises(ParameterError, match="finite"):
        ks_agreement_test([np.nan], [0.5], within_item=[0], between_item_a=[0], between_item_b=[1])


def _random_cells(rng, *, weighted, discrete, max_grid):
    """Rows with ties (discrete) or not, cells of random rows (some empty, repeated rows,
    few items), weights with zeros (some cells weigh nothing)."""
    n_items = int(rng.integers(1, 12))
    nx, ny = int(rng.integers(0, 300)), int(rng.integers(0, 700))
    draw = (lambda k: rng.integers(0, 25, k) / 7) if discrete else rng.random
    x, y = draw(nx), draw(ny)
    wi = rng.integers(0, n_items, nx)
    a, b = rng.integers(0, n_items, ny), rng.integers(0, n_items, ny)

    def cell(size):
        if not size or rng.random() < 0.15:
            return np.zeros(0, dtype=np.int64)
        return rng.choice(size, int(rng.integers(0, size + 1)), replace=bool(rng.random() < 0.3))

    n_cells = int(rng.integers(1, 15))
    wc = [cell(nx) for _ in range(n_cells)]
    bc = [cell(ny) for _ in range(n_cells)]
    bw = [rng.random(c.size) * (rng.random(c.size) < 0.8) for c in bc] if weighted else None
    kwargs = dict(
        within_item=wi,
        between_item_a=a,
        between_item_b=b,
        within_cells=wc,
        between_cells=bc,
        between_weights=bw,
        n_items=n_items + int(rng.integers(0, 2)),
        seed=int(rng.integers(0, 5)),
        min_items=int(rng.integers(1, 4)),
        max_grid=max_grid,
        n_resamples=int(rng.choice([19, 99])),
    )
    return x, y, kwargs


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("discrete", [False, True])
@pytest.mark.parametrize("max_grid", [2, 7, 256])
def test_cells_at_once_equal_the_loop_over_cells_bitwise(weighted, discrete, max_grid):
    # the vectorized grids, bins and observed differences against the former
    # implementation, one cell at a time (tests/support/oracles.py): statistics, p-values and
    # replicate counts bitwise equal, with empty cells, weightless cells, cells under
    # min_items and cells with more distinct values than max_grid (quantile grids)
    rng = np.random.default_rng([weighted, discrete, max_grid])
    seen = np.zeros(4, dtype=bool)  # [empty cell, NaN p below min_items, p-value, quantile grid]
    for _ in range(25):
        x, y, kwargs = _random_cells(rng, weighted=weighted, discrete=discrete, max_grid=max_grid)
        want = ks_agreement_tests_loop(x, y, **kwargs)
        got = ks_agreement_tests(x, y, **kwargs)
        for w, g in zip(want, got):
            assert np.array_equal(w, g, equal_nan=True)
        stat, p = want[0], want[1]
        seen |= [
            np.isnan(stat).any(),
            (~np.isnan(stat) & np.isnan(p)).any(),
            (~np.isnan(p)).any(),
            any(
                np.unique(np.r_[x[w], y[b]]).size > max_grid
                for w, b in zip(kwargs["within_cells"], kwargs["between_cells"])
            ),
        ]
    # every kind of cell was met (25 distinct values never need a quantile grid of 256)
    assert seen[:3].all() and (seen[3] or (discrete and max_grid >= 25))


def _interleave(rng, rows, cell):
    """The entries in a random order of cells that keeps each cell's rows in order."""
    slots = cell[rng.permutation(cell.size)]  # a random sequence of the cell labels
    at = np.argsort(slots, kind="stable")  # the slot of each grouped entry
    out_rows, out_cell = np.empty_like(rows), np.empty_like(cell)
    out_rows[at], out_cell[at] = rows, cell
    return out_rows, out_cell, at


def test_entries_equal_the_cells_lists_in_any_order_of_cells():
    # cells as entries, grouped or interleaved (each cell's rows in order): the same
    # results bitwise as the lists of cells
    rng = np.random.default_rng(4)
    for weighted in (False, True):
        x, y, kwargs = _random_cells(rng, weighted=weighted, discrete=True, max_grid=7)
        want = ks_agreement_tests(x, y, **kwargs)
        wc, bc, bw = (kwargs.pop(k) for k in ("within_cells", "between_cells", "between_weights"))
        w_rows, b_rows = np.concatenate(wc).astype(np.int64), np.concatenate(bc).astype(np.int64)
        w_cell = np.repeat(np.arange(len(wc)), [len(c) for c in wc])
        b_cell = np.repeat(np.arange(len(bc)), [len(c) for c in bc])
        w_rows, w_cell, _ = _interleave(rng, w_rows, w_cell)
        b_rows, b_cell, at = _interleave(rng, b_rows, b_cell)
        weight = None
        if bw is not None:
            weight = np.empty(b_rows.size)
            weight[at] = np.concatenate(bw)
        got = ks_agreement_entries(
            x,
            y,
            within_rows=w_rows,
            within_cell=w_cell,
            between_rows=b_rows,
            between_cell=b_cell,
            between_weight=weight,
            n_cells=len(wc),
            **kwargs,
        )
        for w, g in zip(want, got):
            assert np.array_equal(w, g, equal_nan=True)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(within_cell=[0, 5]), "within entries"),
        (dict(between_rows=[0, 9]), "between entries"),
        (dict(between_weight=[1.0]), "between_weights"),
        (dict(between_weight=[1.0, -1.0]), "between_weights"),
    ],
)
def test_bad_entries(kwargs, match):
    args = dict(
        within_item=[0, 1],
        between_item_a=[0, 1],
        between_item_b=[1, 0],
        within_rows=[0, 1],
        within_cell=[0, 0],
        between_rows=[0, 1],
        between_cell=[0, 0],
        n_cells=2,
    )
    with pytest.raises(ParameterError, match=match):
        ks_agreement_entries([0.1, 0.2], [0.3, 0.4], **{**args, **kwargs})


def test_weights_must_match_the_chance_rows_of_each_cell():
    with pytest.raises(ParameterError, match="one per chance row"):
        ks_agreement_tests(
            [0.1, 0.2],
            [0.3, 0.4],
            within_item=[0, 1],
            between_item_a=[0, 1],
            between_item_b=[1, 0],
            within_cells=[[0, 1], [0]],
            between_cells=[[0, 1], [1]],
            between_weights=[[1.0], [1.0, 2.0]],  # same total, not one per row
        )


def test_entries_tested_in_chunks_of_cells_are_bitwise_those_of_all_at_once(monkeypatch):
    """The within keys, distinct items, observed differences and histogram counts are
    formed a group of cells at a time (CHUNK_ENTRIES): the statistics and p-values are
    bit for bit those of one group, with untested cells among the tested ones."""
    from iaa_frames.stats import ks_cells, kstest

    rng = np.random.default_rng(11)
    n_cells, n_items = 12, 30
    wi, x = rng.integers(0, n_items, 600), rng.random(600).round(2)
    a, b = rng.integers(0, n_items, 400), rng.integers(0, n_items, 400)
    y = rng.random(400).round(2)
    wc = np.sort(rng.integers(0, n_cells, 2000))
    wc[wc == 4] = 5
    wr = rng.integers(0, 600, 2000)
    wr[wc == 3] = wr[wc == 3] % 2  # cell 3: rows of two items only (not tested)
    wi[:2] = [0, 1]
    bc = np.sort(rng.integers(0, n_cells, 1500))
    br, bw = rng.integers(0, 400, 1500), rng.random(1500) + 0.5

    def run():
        return kstest.ks_agreement_entries(
            x,
            y,
            within_item=wi,
            between_item_a=a,
            between_item_b=b,
            within_rows=wr,
            within_cell=wc,
            between_rows=br,
            between_cell=bc,
            between_weight=bw,
            n_cells=n_cells,
            n_items=n_items,
            n_resamples=40,
            seed=3,
        )

    whole = run()
    assert np.isnan(whole[1][3]) and np.isfinite(whole[1][[0, 1, 2]]).all()
    for budget in (1, 150, 700):
        monkeypatch.setattr(ks_cells, "CHUNK_ENTRIES", budget)
        for got, want in zip(run(), whole):
            assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("draw", ["ks_multiplicities", "ks_multiplicities_bytes"])
def test_shared_multiplicities_give_the_tests_drawn_inside_bitwise(draw):
    # the replicates drawn once (ks_multiplicities, or the same in one byte a value) and
    # passed in: the p-values and replicate counts of the test that draws its own, block
    # by block
    from iaa_frames.stats import kstest

    rng = np.random.default_rng(11)
    tested = 0
    for _ in range(8):
        x, y, kwargs = _random_cells(rng, weighted=True, discrete=False, max_grid=7)
        n = kwargs["n_items"]
        shared = getattr(kstest, draw)(n, kwargs["n_resamples"], seed=kwargs["seed"])
        assert shared.dtype == (np.int32 if draw == "ks_multiplicities" else np.uint8)
        assert (shared.sum(axis=1) == n).all()
        want = ks_agreement_tests(x, y, **kwargs)
        w_rows = np.concatenate([np.asarray(c, dtype=np.int64) for c in kwargs["within_cells"]])
        w_cell = np.repeat(
            np.arange(len(kwargs["within_cells"])), [len(c) for c in kwargs["within_cells"]]
        )
        b_rows = np.concatenate([np.asarray(c, dtype=np.int64) for c in kwargs["between_cells"]])
        b_cell = np.repeat(
            np.arange(len(kwargs["between_cells"])), [len(c) for c in kwargs["between_cells"]]
        )
        common = {
            k: kwargs[k]
            for k in (
                "within_item",
                "between_item_a",
                "between_item_b",
                "n_items",
                "seed",
                "min_items",
                "max_grid",
                "n_resamples",
            )
        }
        got = ks_agreement_entries(
            x,
            y,
            within_rows=w_rows,
            within_cell=w_cell,
            between_rows=b_rows,
            between_cell=b_cell,
            between_weight=np.concatenate(kwargs["between_weights"]),
            n_cells=len(kwargs["within_cells"]),
            multiplicities=shared,
            **common,
        )
        for w, g in zip(want, got):
            assert np.array_equal(w, g, equal_nan=True)
        tested += np.count_nonzero(~np.isnan(got[1]))
    assert tested  # some p-values compared
    with pytest.raises(ParameterError, match="multiplicities must have shape"):
        ks_agreement_entries(
            x,
            y,
            within_rows=w_rows,
            within_cell=w_cell,
            between_rows=b_rows,
            between_cell=b_cell,
            n_cells=len(kwargs["within_cells"]),
            multiplicities=shared[:, :-1],
            **common,
        )


@pytest.mark.parametrize("block_bytes", [1, 28 * 50 * 7, 64 << 20])
def test_multiplicities_in_bytes_are_those_in_int32(monkeypatch, block_bytes):
    # one replicate a block, seven, or all: the values of ks_multiplicities
    from iaa_frames.stats import kstest

    monkeypatch.setattr(kstest, "_BYTES_BLOCK", block_bytes)
    for n, b, seed in [(50, 199, 0), (1, 3, 2), (0, 4, 1), (333, 17, 9)]:
        want = kstest.ks_multiplicities(n, b, seed=seed)
        got = kstest.ks_multiplicities_bytes(n, b, seed=seed)
        assert got.dtype == np.uint8 and got.shape == want.shape
        np.testing.assert_array_equal(got, want)


def test_multiplicities_too_large_for_a_byte_are_kept_in_int32(monkeypatch):
    # a multiplicity above the byte's range (here: above 1) turns the table into int32,
    # the blocks already stored included
    from iaa_frames.stats import kstest

    monkeypatch.setattr(kstest, "_BYTE_MAX", 1)
    monkeypatch.setattr(kstest, "_BYTES_BLOCK", 28 * 40)  # one replicate a block
    want = kstest.ks_multiplicities(40, 6, seed=3)
    got = kstest.ks_multiplicities_bytes(40, 6, seed=3)
    assert got.dtype == np.int32 and want.max() > 1
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("budget", [1, 40_000])
def test_blocks_of_replicates_do_not_change_the_tests(monkeypatch, budget):
    # one replicate a block (a budget of 1 byte), or a few, against all in one block: the
    # same statistics, p-values and replicate counts bit for bit
    from iaa_frames.stats import kstest

    rng = np.random.default_rng(5)
    cases = [_random_cells(rng, weighted=True, discrete=d, max_grid=7) for d in (False, True)]
    want = [ks_agreement_tests(x, y, **kwargs) for x, y, kwargs in cases]
    monkeypatch.setattr(kstest, "KS_BLOCK_BYTES", budget)
    assert kstest.ks_block_size(199, n_items=50, n_pairs=10, width=5) == max(
        1, budget // 820
    )  # 8 x 50 + 16 x 10 + 52 x 5 bytes
    got = [ks_agreement_tests(x, y, **kwargs) for x, y, kwargs in cases]
    for w_case, g_case in zip(want, got):
        for w, g in zip(w_case, g_case):
            assert np.array_equal(w, g, equal_nan=True)


@pytest.mark.parametrize(("run", "share"), [(1, 1.0), (4, 1.0), (16, 1.0), (4, 0.0)])
def test_screened_replicates_give_the_tests_of_every_column_bitwise(monkeypatch, run, share):
    # the screen of the replicates (a bound per run of grid columns, the columns of the
    # open runs one by one: share 1.0 never computes every column, 0.0 as soon as one run
    # is open) against the loop over cells, which computes every column
    from iaa_frames.stats import ks_running

    monkeypatch.setattr(ks_running, "RUN_COLUMNS", run)
    monkeypatch.setattr(ks_running, "MAX_OPEN_SHARE", share)
    rng = np.random.default_rng([run, int(share)])
    rejected = 0
    for discrete in (False, True, False, True):
        x, y, kwargs = _random_cells(rng, weighted=True, discrete=discrete, max_grid=7)
        want = ks_agreement_tests_loop(x, y, **kwargs)
        got = ks_agreement_tests(x, y, **kwargs)
        for w, g in zip(want, got):
            assert np.array_equal(w, g, equal_nan=True)
        rejected += np.count_nonzero(want[1] > 1.0 / (1 + want[2]))  # some replicate reached
    assert rejected  # replicates that reach the statistic were met


@pytest.mark.parametrize("size", [1, 50, 10**6])
def test_unique_codes_are_numpys(size):
    # flags per code (few codes) or numpy's sort (many): the same arrays
    from iaa_frames.stats.kstest import unique_codes

    rng = np.random.default_rng(size)
    for n in (0, 1, 30, 5000):
        values = rng.integers(0, size, n)
        want, got = np.unique(values, return_inverse=True), unique_codes(values, size)
        for w, g in zip(want, got):
            np.testing.assert_array_equal(g, w)
