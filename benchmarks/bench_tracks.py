"""Track identity against ``motmetrics``: ID switches, fragmentations, IDF1, MOTA, MOTP.

Run: ``python benchmarks/bench_tracks.py [--seeds 10]``

Every case draws two annotators' tracks with ``tests/support/mot_tracks.py`` (made
without ``iaf.simulate``: boxes moving both ways along nearly one line, so that they
cross; jitter 0.012 of the box size, y offsets 0.002 x track id), 3 sequences of 40
frames and 6 tracks per seed, and compares ``iaf.track_figures`` (A as the reference)
with ``motmetrics.MOTAccumulator`` fed the frames both annotators covered. Printed per
case: the switches summed over every sequence and seed (ours / motmetrics), the range of
IDF1 and MOTA over the sequences, and the largest difference of any ratio.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))

from mot_tracks import crossing_tracks, mot_reference  # noqa: E402

import iaa_frames as iaf  # noqa: E402

CASES = {
    "crossing, consistent ids": {"ids": "same"},
    "crossing, random ids": {"ids": "random"},
    "crossing, two swaps a sequence": {"ids": "swap"},
    "fragmented tracks, 10 % misses": {"ids": "fragment", "miss": 0.1},
    "missing frames (25 %) and objects (15 %)": {"ids": "swap", "skip_frames": 0.25, "miss": 0.15},
    "B at half the frame rate": {"ids": "same", "step_b": 2, "speed": 0.03},
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=10)
    args = ap.parse_args()
    print(
        "| case | switches ours / motmetrics | fragmentations | IDF1 ours (motmetrics) | MOTA ours (motmetrics) | largest ratio difference |"
    )
    print("|---|---|---|---|---|---|")
    for name, kw in CASES.items():
        sw, fr, idf1, mota, diff = [0, 0], [0, 0], [[], []], [[], []], 0.0
        for seed in range(args.seeds):
            df = crossing_tracks(seed, **kw)
            t = iaf.track_figures(df, match_threshold=0.5, n_chance=10)
            t = t[(t["label"] == "(all)") & (t["annotator"] == "A")].set_index("sequence")
            ref = mot_reference(df, "A", "B").loc[t.index]
            sw[0] += int(t["id_switches"].sum())
            sw[1] += int(ref["num_switches"].sum())
            fr[0] += int(t["fragmentations"].sum())
            fr[1] += int(ref["num_fragmentations"].sum())
            for k, (ours, theirs) in {"idf1": idf1, "mota": mota}.items():
                if k in t:
                    ours.extend(t[k])
                    theirs.extend(ref[k].astype(float))
            for k in ("idf1", "idp", "idr", "mota", "motp"):
                if k in t:
                    diff = max(diff, float(np.abs(t[k] - ref[k].astype(float)).max()))

        def span(v):
            return f"{min(v):.3f}-{max(v):.3f}" if v else "-"

        print(
            f"| {name} | {sw[0]} / {sw[1]} | {fr[0]} / {fr[1]} | {span(idf1[0])} ({span(idf1[1])}) "
            f"| {span(mota[0])} ({span(mota[1])}) | {diff:.1e} |"
        )


if __name__ == "__main__":
    main()
