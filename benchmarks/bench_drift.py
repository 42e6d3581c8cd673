"""Drift detection: who is flagged, and from which window (issue #43 item 4).

Run: ``python benchmarks/bench_drift.py [--seeds 30] [--boot 200]``

A numpy-built corpus, not :func:`iaa_frames.simulate_drift`: 192 items, one an hour over
eight days (daily windows of 24 items); three annotators (A, B, C) draw the same 1-3
boxes per item, 15-40 px in a 640 x 480 image, each class in its own third of the image,
with 1.5 px of noise per coordinate. C draws with 6 px of noise from a given time on:

* ``late``: from the sixth window (the last three of eight);
* ``early``: from 20 % of the items (the middle of the second window);
* ``stationary``: never.

For each seed, :func:`iaa_frames.agreement_over_time` (``freq="D"``) flags each
annotator's cells (``recalibrate``) and names a change window (``change_window``); the
script prints, per scenario and component, the share of seeds in which C is flagged, in
which A or B is flagged (false flags: their pairs with C fall too), and in which C's change
window is the window C's drift starts in or the next one, and in which A or B gets a change
window (a false "when"); without drift, the third column is the share of seeds in which
C gets a change window (a false "when" too) (the early drift starts in the
middle of a window).
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

START = pd.Timestamp("2026-03-01")
COMPONENTS = ("detection", "localization", "overall")


def corpus(seed: int, drift_from, n_items: int = 192, heavy: float = 6.0) -> pd.DataFrame:
    """The corpus of the module docstring; C drifts from ``drift_from`` (None: never)."""
    rng = np.random.default_rng(seed)
    step = pd.Timedelta(hours=1)
    rows = []
    for i in range(n_items):
        t = START + i * step
        for _ in range(rng.integers(1, 4)):
            region = rng.integers(3)
            w, h = rng.uniform(15, 40, 2)
            x0, y0 = rng.uniform(0, 213 - w) + 213 * region, rng.uniform(0, 480 - h)
            for k, who in enumerate("ABC"):
                late = who == "C" and drift_from is not None and t >= drift_from
                b = np.array([x0, y0, x0 + w, y0 + h]) + rng.normal(0, heavy if late else 1.5, 4)
                b = np.r_[np.minimum(b[:2], b[2:]), np.maximum(b[:2], b[2:]) + 1.0]
                when = t + pd.Timedelta(minutes=5 * k)
                rows.append((f"img{i:04d}", who, ["car", "person", "sign"][region], *b, when))
    cols = ["item", "annotator", "label", "x0", "y0", "x1", "y1", "time"]
    return pd.DataFrame(rows, columns=cols).assign(width=640.0, height=480.0)


SCENARIOS = {
    "late": START + pd.Timedelta(days=5),
    "early": START + pd.Timedelta(hours=int(0.2 * 192)),
    "stationary": None,
}


def main(argv=None):
    import iaa_frames as iaf

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=30)
    ap.add_argument("--boot", type=int, default=200)
    ap.add_argument("--scenarios", nargs="+", default=list(SCENARIOS), choices=SCENARIOS)
    args = ap.parse_args(argv)
    print(f"{args.seeds} seeds, n_boot={args.boot}; share of seeds")
    print(
        f"{'scenario':>10} {'component':>13} {'C flagged':>10} {'A/B flagged':>12} "
        f"{'C change found':>18} {'A/B change':>14}"
    )
    for name in args.scenarios:
        drift_from = SCENARIOS[name]
        counts = {c: np.zeros(4) for c in COMPONENTS}
        for seed in range(args.seeds):
            res = iaf.agreement_over_time(
                corpus(seed, drift_from), freq="D", n_chance=1000, n_boot=args.boot, seed=seed
            )
            for c in COMPONENTS:
                cell = res.sel(label="(all)", component=c)
                flags = cell["recalibrate"].to_pandas()
                change = cell["change_window"].to_pandas()
                counts[c][0] += bool(flags["C"])
                counts[c][1] += bool(flags[["A", "B"]].any())
                counts[c][3] += bool(change[["A", "B"]].notna().any())
                if drift_from is not None:
                    start = pd.Timestamp(drift_from).floor("D")
                    counts[c][2] += change["C"] in (start, start + pd.Timedelta(days=1))
                else:  # no drift: any change window of C is a false "when"
                    counts[c][2] += pd.notna(change["C"])
        for c in COMPONENTS:
            share = counts[c] / args.seeds
            at = f"{share[2]:18.2f}"
            print(f"{name:>10} {c:>13} {share[0]:10.2f} {share[1]:12.2f} {at} {share[3]:14.2f}")


if __name__ == "__main__":
    main()
