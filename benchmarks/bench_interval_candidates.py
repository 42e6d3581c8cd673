"""Candidate 95 % intervals against the shipped one, on the same bootstrap replicates.

Run, in two steps (one process each; a step of 300 corpora takes 2-3 minutes on one core)::

    python benchmarks/bench_interval_candidates.py collect null --items 30 --save b30.npz
        [--classes bands|spread] [--corpora 300] [--n-boot 200]
    python benchmarks/bench_interval_candidates.py collect bench --items 20 --save p20.npz
        [--replicates 600] [--n-boot 200]
    python benchmarks/bench_interval_candidates.py evaluate b30.npz p20.npz [--only NAME ...]

``collect`` runs ``agreement_from_tables(..., ci_method="bca")`` on each corpus with the
engine's interval step observed (not changed: the shipped interval is the engine's own,
bit for bit) and keeps, for the cells of label "(all)", what any interval built from the
same replicates needs: the estimates, the bootstrap and jackknife replicates, the
pair-level variances and cell items of :func:`iaa_frames.stats.intervals.interval_scale`,
the bounds of the rare-event rule (:func:`iaa_frames.stats.intervals.widen_rare_events`,
also with ``MIN_EVENT_ITEMS`` 6-12), and, for a studentized (bootstrap-t) interval, the
variance of every bootstrap replicate from its own delete-one jackknife: each drawn copy
of an item left out once, ``((n - 1) / n)^2 sum_i k_i (t_(i) - mean)^2`` (on the
agreement and on ``u = -(1 - t)^(1/3)``; about ``0.63 n`` more statistics per replicate).

* ``null``: image-blind annotators (``blind_corpus`` of
  ``tests/core/engine/test_audit_blind_intervals.py``, classes ``BANDS`` or ``SPREAD``,
  seeds 0 ..): true agreement 0, every annotator's cell and the "(all)" cell.
* ``bench``: the population and corpora of ``benchmarks/bench_coverage.py`` (the same
  seeds, ``n_chance=1000``): the "(all)" cell against the pool's value.

``evaluate`` builds every candidate of :data:`CANDIDATES` from the saved arrays, applies
what the engine applies after the interval (the estimate held, at most 1, the rare-event
rule, ``MIN_CI_ITEMS``), and prints per component the coverage with its Monte-Carlo
standard error (clustered by corpus), the misses on either side and the mean width
relative to the shipped interval. The measurements: https://iaa-frames.readthedocs.io/en/latest/validation/coverage.html
("A studentized interval for small corpora: measured").
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections import defaultdict
from pathlib import Path

import numpy as np
from scipy.special import ndtri, stdtrit

import iaa_frames as iaf
from iaa_frames.core.engine import assemble
from iaa_frames.stats import intervals
from iaa_frames.stats.bootstrap import multiplicity_blocks

COMPONENTS = assemble.COMPONENTS
LEVEL = 0.95
Q = (1.0 + LEVEL) / 2.0
#: the components measured on the null population (those of the blind-annotator audits)
NULL_COMPONENTS = ("detection", "overall", "localization")
#: the rare-event rule's thresholds kept besides the shipped one
EVENT_THRESHOLDS = (6, 8, 10, 12)


# --- collect --------------------------------------------------------------------------
class Recorder:
    """Observes the engine's interval step (the same results) and keeps its arrays: a
    context manager, the engine as it was on leaving it."""

    def __init__(self):
        self.state = {}
        self._orig = {}

    def __enter__(self):
        self._orig = {
            "point": assemble._point_estimates,
            "boot": assemble._bootstrap,
            "scale": assemble._interval_scale,
            "bca": assemble.bca_interval,
            "widen": intervals.widen_rare_events,
        }
        assemble._point_estimates = self._point
        assemble._bootstrap = self._boot
        assemble._interval_scale = self._scale
        assemble.bca_interval = self._bca
        intervals.widen_rare_events = self._widen
        return self

    def __exit__(self, *exc):
        assemble._point_estimates = self._orig["point"]
        assemble._bootstrap = self._orig["boot"]
        assemble._interval_scale = self._orig["scale"]
        assemble.bca_interval = self._orig["bca"]
        intervals.widen_rare_events = self._orig["widen"]
        return False

    def _point(self, *args, **kwargs):
        self.state = {}
        return self._orig["point"](*args, **kwargs)

    def _boot(self, parts, n_items, n_boot, seed, progress, clusters=None, replicates=None):
        replicates = assemble._Replicates(parts) if replicates is None else replicates
        reps = self._orig["boot"](parts, n_items, n_boot, seed, progress, clusters, replicates)
        k = np.concatenate(list(multiplicity_blocks(n_items, n_boot, seed=seed, clusters=clusters)))
        cluster = np.arange(n_items) if clusters is None else np.asarray(clusters)
        n = int(cluster.max()) + 1
        member = (cluster[None, :] == np.arange(n)[:, None]).astype(np.int32)
        first = member.argmax(axis=1)
        rows, owner, weight = [], [], []
        for b, kb in enumerate(k):
            for c in np.flatnonzero(kb[first]):
                rows.append(kb - member[c])
                owner.append(b)
                weight.append(kb[first[c]])
        rows, owner = np.array(rows), np.array(owner)
        weight = np.array(weight, dtype=np.float64)[:, None, None]
        values = np.concatenate(
            [
                replicates.agreement(assemble._column_major(rows[i : i + 512]))
                for i in range(0, len(rows), 512)
            ]
        )
        var_t, var_u = np.full(reps.shape, np.nan), np.full(reps.shape, np.nan)
        for b in range(len(k)):
            sel = owner == b
            w = weight[sel]
            for v, out in ((values[sel], var_t), (to_u(values[sel]), var_u)):
                with np.errstate(invalid="ignore"):
                    mean = (w * v).sum(axis=0) / w.sum(axis=0)
                    out[b] = ((n - 1.0) / n) ** 2 * (w * (v - mean) ** 2).sum(axis=0)
        self.state.update(var_t=var_t, var_u=var_u, n_groups=n)
        return reps

    def _scale(self, parts, jack, n_items, cell_items):
        self.state["pair"] = np.stack([parts[name].pair_variance() for name in COMPONENTS])
        self.state["cell_items"] = np.asarray(cell_items, dtype=np.float64)
        return self._orig["scale"](parts, jack, n_items, cell_items)

    def _bca(self, estimate, replicates, jackknife, **kwargs):
        self.state.update(reps=np.asarray(replicates), jack=np.asarray(jackknife))
        return self._orig["bca"](estimate, replicates, jackknife, **kwargs)

    def _widen(self, low, high, parts, out, components, widen, **kwargs):
        res = self._orig["widen"](low, high, parts, out, components, widen, **kwargs)
        est = np.array(out["agreement"], dtype=np.float64)

        def rule():  # the rare-event bounds alone (the estimate where the rule is off)
            return self._orig["widen"](est, est.copy(), parts, out, components, widen, **kwargs)

        self.state.update(est=est, shipped_low=res[0], shipped_high=res[1])
        self.state["wl4"], self.state["wh4"] = rule()
        for m in EVENT_THRESHOLDS:
            intervals.MIN_EVENT_ITEMS = m
            try:
                self.state[f"wl{m}"], self.state[f"wh{m}"] = rule()
            finally:
                intervals.MIN_EVENT_ITEMS = 4
        self.state["reported"] = np.isfinite(est) & (out["n_items"] >= intervals.MIN_CI_ITEMS)
        return res

    def cells(self, n_cells: int) -> dict:
        """The kept arrays of the first ``n_cells`` cells (label "(all)": its annotators,
        "(all)" first)."""
        return {
            k: v[..., :n_cells] if isinstance(v, np.ndarray) and v.ndim >= 2 else v
            for k, v in self.state.items()
        }


def collect_null(args, recorder):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "core" / "engine"))
    from test_audit_blind_intervals import BANDS, SPREAD, blind_corpus

    classes = BANDS if args.classes == "bands" else SPREAD
    out = []
    for seed in range(args.corpora):
        df = blind_corpus(seed, n_items=args.items, classes=classes)
        tables = iaf.pair_tables(df, progress=False)
        ds = assemble.agreement_from_tables(
            tables, n_boot=args.n_boot, seed=seed, ci_method="bca", progress=False
        )
        out.append(recorder.cells(ds.sizes["annotator"]) | {"seed": seed})
    return out


def collect_bench(args, recorder):
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_coverage import population

    pool = population()
    truth_ds = iaf.agreement(pool, n_chance=20000, seed=0, n_boot=0)
    truth = {
        c: float(truth_ds["agreement"].sel(component=c, label=iaf.ALL, annotator=iaf.ALL))
        for c in COMPONENTS
    }
    rng = np.random.default_rng([0, args.items])
    items = pool["item"].unique()
    by_item = pool.groupby("item", sort=False).indices
    out = []
    for r in range(args.replicates):
        chosen = rng.choice(items, args.items, replace=False)
        df = pool.iloc[np.concatenate([by_item[i] for i in chosen])]
        tables = iaf.pair_tables(df, n_chance=1000, seed=r, progress=False)
        assemble.agreement_from_tables(
            tables, n_boot=args.n_boot, seed=r, ci_method="bca", progress=False
        )
        out.append(recorder.cells(1) | {"seed": r, "truth": truth})
    return out


def save_corpora(path, corpora: list) -> None:
    """The kept arrays of every corpus in one ``.npz`` (``"{corpus}/{key}"``, a dict's
    entries as ``"{corpus}/{key}/{entry}"``): numbers only, read back without pickle."""
    flat = {}
    for i, corpus in enumerate(corpora):
        for key, value in corpus.items():
            if isinstance(value, dict):
                for entry, v in value.items():
                    flat[f"{i}/{key}/{entry}"] = np.asarray(v)
            else:
                flat[f"{i}/{key}"] = np.asarray(value)
    np.savez_compressed(path, **flat)


def load_corpora(path) -> list:
    """:func:`save_corpora`'s corpora (``allow_pickle=False``: only arrays of numbers)."""
    out: dict = defaultdict(dict)
    with np.load(path, allow_pickle=False) as f:
        for name in f.files:
            i, key, *entry = name.split("/")
            value = f[name]
            value = value.item() if value.ndim == 0 else value
            if entry:
                out[int(i)].setdefault(key, {})[entry[0]] = value
            else:
                out[int(i)][key] = value
    return [out[i] for i in sorted(out)]


# --- candidates -----------------------------------------------------------------------
def to_u(t):
    """``u = -(1 - t)^(1/3)``, the scale of the shipped widening."""
    return -np.cbrt(1.0 - t)


def scale_of(r, df=None):
    """:func:`iaa_frames.stats.intervals.interval_scale` of a corpus's cells, its degrees
    of freedom ``df(deviations, nu)`` (None: the shipped ones), and its parts."""
    n, k = r["n_groups"], r["cell_items"]
    dev = intervals._jackknife_deviations(r["jack"])
    v = intervals._variance_of(dev, n)
    p = r["pair"]
    shrink = intervals.pair_level_shrink(v, p)
    with np.errstate(invalid="ignore", divide="ignore"):
        kept = np.where(v > 0, np.clip(1.0 - p / v, 0.5, 1.0), 1.0)
        plug = np.sqrt(k / (k - 1.0) * (n - 1.0) / n)
        nu = intervals._df_of(dev)
        nu = np.fmin((nu if df is None else df(dev, nu)) * kept**2, k - 1.0)
    student = np.where(np.isfinite(nu) & (nu > 0), stdtrit(np.maximum(nu, 1.0), Q), ndtri(Q))
    factor = np.where(np.isfinite(v) & (v > 0), shrink * student / ndtri(Q) * plug, 1.0)
    parts = {"v": v, "shrink": shrink, "plug": plug, "student": student}
    return np.where(k >= 2, factor, np.nan), parts


def shipped(r, df=None):
    """BCa with the shipped width (or its degrees of freedom ``df``)."""
    scale = scale_of(r, df)[0]
    return intervals.bca_interval(r["est"], r["reps"], r["jack"], level=LEVEL, scale=scale)


def bootstrap_t(r, *, student=False, symmetric=False):
    """Studentized bootstrap on ``u``: ``T_b = (u*_b - u) / sqrt(V*_b)``, bounds
    ``u - q(T) sqrt(V)`` times the pair-level shrink and the cell's plug-in factor
    (``student``: also Student's factor of the shipped width; ``symmetric``: the
    quantile of ``|T|``)."""
    n = r["n_groups"]
    e, reps, jack = to_u(r["est"]), to_u(r["reps"]), to_u(r["jack"])
    v = intervals.jackknife_variance(jack, n_items=int(n))
    parts = scale_of(r)[1]
    with np.errstate(invalid="ignore", divide="ignore"):
        t = (reps - e) / np.sqrt(r["var_u"])
    t = np.where(np.isinf(t), np.sign(t) * 1e6, t)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # cells without replicates
        if symmetric:
            q_hi = np.nanquantile(np.abs(t), LEVEL, axis=0)
            q_lo = -q_hi
        else:
            q_lo, q_hi = np.nanquantile(t, [1.0 - Q, Q], axis=0)
    with np.errstate(invalid="ignore"):  # NaN where a cell has no variance: not kept
        s = np.sqrt(v) * parts["shrink"] * parts["plug"]
        if student:
            s = s * parts["student"] / ndtri(Q)
        low = 1.0 + np.minimum(e - q_hi * s, 0.0) ** 3
        high = 1.0 + np.minimum(e - q_lo * s, 0.0) ** 3
    ok = np.isfinite(v) & (v > 0)
    return np.where(ok, low, np.nan), np.where(ok, high, np.nan)


def half_df(dev, nu):
    """Satterthwaite's degrees of freedom halved."""
    return nu / 2.0


def g2_df(dev, nu):
    """``2 / (2 / (g - 1) + G2 / g)``, ``G2`` the small-sample unbiased excess kurtosis
    of the jackknife influences (the variance of a sample variance)."""
    _, g, d = dev
    with np.errstate(invalid="ignore", divide="ignore"):
        m2 = (d**2).sum(axis=0) / g
        g2 = (d**4).sum(axis=0) / g / m2**2 - 3.0
        big_g2 = ((g + 1) * g2 + 6) * (g - 1) / ((g - 2) * (g - 3))
        return 2.0 / (2.0 / (g - 1) + np.maximum(big_g2, 0.0) / g)


def kish_df(dev, nu):
    """Kish's effective number of items ``(sum d^2)^2 / sum d^4`` of the influences."""
    d = dev[2]
    with np.errstate(invalid="ignore", divide="ignore"):
        return (d**2).sum(axis=0) ** 2 / (d**4).sum(axis=0)


def accelerated(factor):
    """The shipped interval with BCa's acceleration times ``factor``."""

    def interval(r):
        cubes = intervals.cubes_by_runs
        intervals.cubes_by_runs = lambda d: factor * cubes(d)
        try:
            return shipped(r)
        finally:
            intervals.cubes_by_runs = cubes

    return interval


def score(r):
    """Wilson-like: ``(theta - est)^2 = c^2 V(theta)``, ``c`` the shipped multiplier and
    ``V(theta) = V + beta (theta - est)``, ``beta`` the slope of the replicates' own
    jackknife variances on their values."""
    est, reps, var = r["est"], r["reps"], r["var_t"]
    scale, parts = scale_of(r)
    with np.errstate(invalid="ignore", divide="ignore"):
        ok = np.isfinite(reps) & np.isfinite(var)
        n = ok.sum(axis=0)
        rm = np.where(ok, reps, 0.0).sum(axis=0) / n
        vm = np.where(ok, var, 0.0).sum(axis=0) / n
        cov = np.where(ok, (reps - rm) * (var - vm), 0.0).sum(axis=0) / n
        vr = np.where(ok, (reps - rm) ** 2, 0.0).sum(axis=0) / n
        beta = np.where(vr > 0, cov / vr, 0.0)
        c2 = (ndtri(Q) * scale) ** 2
        root = np.sqrt(c2**2 * beta**2 + 4.0 * c2 * parts["v"])
    return est + (c2 * beta - root) / 2.0, est + (c2 * beta + root) / 2.0


def rare_events_below(m):
    """The shipped interval with the rare-event rule below ``m`` event items (shipped 4)."""

    def interval(r):
        low, high = shipped(r)
        return np.fmin(low, r[f"wl{m}"]), np.fmax(high, r[f"wh{m}"])

    return interval


#: name -> interval of a corpus's kept arrays, (low, high) of shape (components, cells)
CANDIDATES = {
    "shipped": shipped,
    "boot-t": bootstrap_t,
    "boot-t x t": lambda r: bootstrap_t(r, student=True),
    "boot-t sym": lambda r: bootstrap_t(r, symmetric=True),
    "df / 2": lambda r: shipped(r, half_df),
    "df G2": lambda r: shipped(r, g2_df),
    "df Kish": lambda r: shipped(r, kish_df),
    "accel x2": accelerated(2.0),
    "score": score,
    "events < 8": rare_events_below(8),
    "events < 12": rare_events_below(12),
}


def finish(r, low, high):
    """What the engine applies after the interval: the shipped one where a candidate is
    undefined, the estimate held, at most 1, the rare-event rule, ``MIN_CI_ITEMS``."""
    est = r["est"]
    low = np.where(np.isfinite(low), low, r["shipped_low"])
    high = np.where(np.isfinite(high), high, r["shipped_high"])
    low, high = np.fmin(low, est), np.minimum(np.fmax(high, est), 1.0)
    low, high = np.fmin(low, r["wl4"]), np.fmax(high, r["wh4"])
    return np.where(r["reported"], low, np.nan), np.where(r["reported"], high, np.nan)


def evaluate(corpora, names) -> dict:
    """Per (component, "(all)" or "annotators") and candidate: cells, coverage, its
    standard error clustered by corpus, misses below and above, mean width."""
    found = defaultdict(lambda: defaultdict(list))  # (seed, covered, below, above, width)
    for r in corpora:
        truth = r.get("truth")
        for name in names:
            low, high = finish(r, *CANDIDATES[name](r))
            for comp in COMPONENTS if truth else NULL_COMPONENTS:
                c = COMPONENTS.index(comp)
                value = 0.0 if truth is None else truth[comp]
                for j in range(r["est"].shape[-1]):
                    lo, hi = low[c, j], high[c, j]
                    if not (np.isfinite(lo) and np.isfinite(hi)):
                        continue
                    kind = "(all)" if j == 0 else "annotators"
                    found[(comp, kind)][name].append(
                        (r["seed"], lo <= value <= hi, value < lo, value > hi, hi - lo)
                    )
    out = {}
    for key, per_name in found.items():
        out[key] = {}
        for name, rows in per_name.items():
            seed, covered, below, above, width = (np.array(x, dtype=float) for x in zip(*rows))
            p = covered.mean()
            _, group = np.unique(seed, return_inverse=True)
            se = np.sqrt((np.bincount(group, weights=covered - p) ** 2).sum()) / len(covered)
            out[key][name] = {
                "n": len(covered),
                "coverage": p,
                "se": se,
                "below": below.mean(),
                "above": above.mean(),
                "width": width.mean(),
            }
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="step", required=True)
    c = sub.add_parser("collect", help="run the engine and keep its interval arrays")
    c.add_argument("population", choices=("null", "bench"))
    c.add_argument("--items", type=int, default=30)
    c.add_argument("--n-boot", type=int, default=200)
    c.add_argument("--corpora", type=int, default=300, help="null: seeds 0 .. corpora - 1")
    c.add_argument("--classes", choices=("bands", "spread"), default="bands")
    c.add_argument("--replicates", type=int, default=600, help="bench: corpora drawn")
    c.add_argument("--save", required=True)
    e = sub.add_parser("evaluate", help="coverage of every candidate from the kept arrays")
    e.add_argument("files", nargs="+")
    e.add_argument("--only", nargs="*", choices=list(CANDIDATES), help="these candidates")
    args = p.parse_args()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=iaf.IAAWarning)
        if args.step == "collect":
            t0 = time.perf_counter()
            run = collect_null if args.population == "null" else collect_bench
            with Recorder() as recorder:
                corpora = run(args, recorder)
            save_corpora(args.save, corpora)
            print(f"{len(corpora)} corpora in {time.perf_counter() - t0:.0f} s -> {args.save}")
            return
        names = ["shipped"] + [n for n in (args.only or CANDIDATES) if n != "shipped"]
        for path in args.files:
            corpora = load_corpora(path)
            print(f"{path}: {len(corpora)} corpora; coverage (se), truth below / above, width")
            for (comp, kind), res in sorted(evaluate(corpora, names).items()):
                base = res["shipped"]["width"]
                print(f"  {comp} {kind} ({res['shipped']['n']} cells)")
                for name in names:
                    s = res[name]
                    print(
                        f"    {name:<12} {100 * s['coverage']:5.1f} % ({100 * s['se']:.1f})"
                        f"  {100 * s['below']:4.1f} / {100 * s['above']:4.1f} %"
                        f"  width {s['width']:.4f} (x{s['width'] / base:.3f})"
                    )


if __name__ == "__main__":
    main()
