"""Track sets made without ``iaf.simulate``, and their CLEAR MOT / IDF1 figures by the
real ``motmetrics`` package (the independent reference of ``tests/temporal``).

:func:`crossing_tracks` draws boxes that move along nearly one line in both directions,
so that they cross one another (the case where a per-frame matching, blind to the
previous frame, changes identities that CLEAR MOT keeps). :func:`mot_reference` feeds
``motmetrics.MOTAccumulator`` the frames both annotators covered, the reference's ids in
increasing order (as MOT files list them), and reads its summary.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

ID_MODES = ("same", "random", "swap", "fragment")
MOT_METRICS = [
    "num_switches",
    "num_fragmentations",
    "idf1",
    "idp",
    "idr",
    "mota",
    "motp",
    "num_detections",
    "num_misses",
    "num_false_positives",
    "num_objects",
]


def crossing_tracks(
    seed: int,
    *,
    n_sequences: int = 3,
    n_frames: int = 40,
    n_tracks: int = 6,
    size: float = 0.1,
    jitter: float = 0.012,
    offset: float = 0.002,
    ids: str = "same",
    miss: float = 0.0,
    skip_frames: float = 0.0,
    step_b: int = 1,
    speed: float = 0.02,
    labels: tuple[str, ...] = ("person",),
) -> pd.DataFrame:
    """Two annotators, ``A`` (the truth's ids) and ``B`` (ids per ``ids``), drawing the
    same crossing tracks with independent Gaussian jitter (``jitter`` x the box size).

    Track ``k`` moves horizontally at ``±speed`` (per frame, times a factor drawn in
    [0.5, 1.5]) on the line ``y = 0.5 + offset * k``, crossing the middle of the image
    halfway through its life (each track lives a random stretch of the sequence).
    ``ids``: ``"same"`` (B's ids a fixed relabelling of the truth's), ``"random"`` (B's
    ids permuted on every frame), ``"swap"`` (two tracks exchange ids from a random frame
    on, twice per sequence), ``"fragment"`` (every B track takes a new id at one or two
    random frames). ``miss``: each object is left out by each annotator with this
    probability; ``skip_frames``: B does not annotate a frame at all with this
    probability; ``step_b``: B annotates every ``step_b``-th frame only (another frame
    rate). A frame an annotator covered without objects is a row without a box.
    """
    rng = np.random.default_rng(seed)
    rows = []
    for s in range(n_sequences):
        seq = f"s{s}"
        start = rng.integers(0, n_frames // 3, n_tracks)
        stop = np.minimum(start + rng.integers(n_frames // 2, n_frames + 1, n_tracks), n_frames)
        v = speed * rng.uniform(0.5, 1.5, n_tracks) * np.where(np.arange(n_tracks) % 2, -1, 1)
        mid = (start + stop) / 2
        cls = np.array(labels, dtype=object)[rng.integers(0, len(labels), n_tracks)]
        relabel = 100 + rng.permutation(n_tracks)
        swap_at = np.sort(rng.integers(1, n_frames, 2))
        swap_pairs = [rng.choice(n_tracks, 2, replace=False) for _ in swap_at]
        breaks = [np.sort(rng.integers(1, n_frames, rng.integers(1, 3))) for _ in range(n_tracks)]
        for t in range(n_frames):
            item = f"{seq}/f{t:04d}"
            alive = np.flatnonzero((start <= t) & (t < stop))
            cx = 0.5 + v[alive] * (t - mid[alive])
            cy = 0.5 + offset * alive
            b_ids = relabel.copy()
            if ids == "random":
                b_ids[alive] = rng.permutation(b_ids[alive])
            elif ids == "swap":
                for when, (i, j) in zip(swap_at, swap_pairs, strict=True):
                    if t >= when:
                        b_ids[[i, j]] = b_ids[[j, i]]
            elif ids == "fragment":
                b_ids = b_ids + 1000 * np.array(
                    [np.searchsorted(br, t, side="right") for br in breaks]
                )
            for ann, track_ids in (("A", alive + 1), ("B", b_ids[alive])):
                if ann == "B" and (t % step_b or rng.random() < skip_frames):
                    continue
                noise = rng.normal(0, jitter * size, (len(alive), 4))
                keep = rng.random(len(alive)) >= miss
                box = np.c_[cx - size / 2, cy - size, cx + size / 2, cy + size] + noise
                for k in np.flatnonzero(keep):
                    rows.append((item, ann, cls[alive[k]], *box[k], seq, t, int(track_ids[k])))
                if not keep.any():  # covered, nothing drawn
                    rows.append((item, ann, None, *[np.nan] * 4, seq, t, pd.NA))
    cols = ["item", "annotator", "label", "x0", "y0", "x1", "y1", "group", "frame", "track_id"]
    df = pd.DataFrame(rows, columns=cols)
    df["track_id"] = df["track_id"].astype("Int64")
    return df


def _iou_distance(g: pd.DataFrame, h: pd.DataFrame, tau: float) -> np.ndarray:
    """1 - IoU of every box pair, NaN below ``tau`` (motmetrics' convention; its own
    iou_matrix calls np.asfarray, gone in NumPy 2)."""
    a = g[["x0", "y0", "x1", "y1"]].to_numpy(dtype=float)[:, None, :]
    b = h[["x0", "y0", "x1", "y1"]].to_numpy(dtype=float)[None, :, :]
    iw = np.clip(np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0]), 0, None)
    ih = np.clip(np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1]), 0, None)
    inter = iw * ih
    area_a = (a[..., 2] - a[..., 0]) * (a[..., 3] - a[..., 1])
    area_b = (b[..., 2] - b[..., 0]) * (b[..., 3] - b[..., 1])
    iou = inter / (area_a + area_b - inter)
    return np.where(iou >= tau, 1 - iou, np.nan)


def mot_reference(
    df: pd.DataFrame, gt: str, hyp: str, *, tau: float = 0.5, label: str | None = None
) -> pd.DataFrame:
    """``motmetrics``' figures of ``hyp`` against ``gt`` per sequence (rows) on the frames
    both covered, and pooled over the sequences (row ``"(all)"``, its
    ``compute_many(..., generate_overall=True)``); ``label``: that class's objects only."""
    import motmetrics as mm

    covered = df.groupby("item")["annotator"].agg(lambda a: {gt, hyp} <= set(a))
    boxes = df.loc[df["x0"].notna() & df["item"].map(covered)]
    if label is not None:
        boxes = boxes.loc[boxes["label"] == label]
    accs, names = [], []
    for seq, part in df.loc[df["item"].map(covered)].groupby("group", sort=True):
        acc = mm.MOTAccumulator(auto_id=False)
        objs = boxes.loc[boxes["group"] == seq]
        for fr in np.sort(part["frame"].unique()):
            on = objs.loc[objs["frame"] == fr]
            g = on.loc[on["annotator"] == gt].sort_values("track_id")
            h = on.loc[on["annotator"] == hyp]
            acc.update(
                g["track_id"].astype(int).tolist(),
                h["track_id"].astype(int).tolist(),
                _iou_distance(g, h, tau),
                frameid=int(fr),
            )
        accs.append(acc)
        names.append(seq)
    return (
        mm.metrics.create()
        .compute_many(accs, names=names, metrics=MOT_METRICS, generate_overall=True)
        .rename(index={"OVERALL": "(all)"})
    )
