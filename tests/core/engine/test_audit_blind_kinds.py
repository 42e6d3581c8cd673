"""Audit: image-blind annotators read 0 for every kind (boxes, polygons, keypoints, polylines,
cuboids) and in every cell (annotator, label, pair, rater kind, time window); identical
annotators read 1; n/a cells say why; names and row order change nothing.

The corpora (``blind_kinds.corpus``, in ``tests/support``) are drawn there, not with
``iaf.simulate``: classes with regions and sizes of their own, look-alike classes,
near-duplicate frames in groups, and blind annotators who copy an image outside the corpus.
"""

import numpy as np
import pandas as pd
import pytest
from blind_kinds import CLASSES, COMPONENTS, KINDS, ROLES, corpus

import iaa_frames as iaf


def _covers(lo, hi):
    return bool(lo <= 0.0 <= hi)


def _cells(res, annotators):
    """(component, label, annotator, agreement, ci_low, ci_high, note) of ``agreement()``."""
    t = res[["agreement", "ci_low", "ci_high", "note"]].to_dataframe().reset_index()
    return t[t.annotator.isin(annotators)]


def _noted(notes):
    return all(isinstance(n, str) and len(n) > 10 for n in notes)


# -- blind annotators: near 0, intervals cover 0 --------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_blind_annotator_cells_of_every_kind_read_zero(kind):
    """Six corpora: the blind annotators' "(all)" cells (against every other annotator) on
    detection, localization and overall average within 0.05 of 0 (a localization cell with
    no lucky match is n/a with a note) and their intervals miss 0 in at most 3 of 12 (20 corpora per kind: mean |estimate| below 0.04 and coverage
    88-100 % on each component, classification -0.06 to 0.01 on the cells defined)."""
    rows = []
    for seed in range(6):
        res = iaf.agreement(corpus(seed, kind), n_boot=60, seed=seed)
        t = _cells(res, ["x", "y"])
        rows.append(t[t.label == "(all)"])
    t = pd.concat(rows)
    for comp in ("detection", "localization", "overall"):
        c = t[t.component == comp]
        assert len(c) == 12 and _noted(c[c.agreement.isna()].note)
        # localization rests on lucky matches: a keypoint corpus may have none for a cell
        assert np.isfinite(c.agreement).sum() >= (10 if comp == "localization" else 12)
        assert abs(c.agreement.mean()) < 0.05, (comp, c.agreement.round(3).tolist())
        ci = c[np.isfinite(c.ci_low)]
        misses = sum(not _covers(lo, hi) for lo, hi in zip(ci.ci_low, ci.ci_high, strict=True))
        assert len(ci) >= 9 and misses <= 3, (comp, misses, len(ci))
    cls = t[(t.component == "classification") & np.isfinite(t.agreement)]
    assert cls.agreement.mean() < 0.3 if len(cls) else True


@pytest.mark.parametrize("kind", ("box", "polygon", "keypoints"))
def test_pairs_and_rater_kinds_of_blind_annotators_read_zero(kind):
    """The pairs (blind with blind, seer with blind) and the rater kinds' cells (crowd with
    crowd, crowd with expert) on detection and overall: near 0, intervals covering 0; the
    seers' pair and the expert cell far above it."""
    est, misses, total = [], 0, 0
    for seed in range(4):
        df = corpus(seed, kind)
        for comp in ("detection", "overall"):
            p = iaf.pairwise(df, component=comp, n_boot=60, seed=seed)
            assert float(p.sel(annotator_a="a", annotator_b="b")) > 0.5
            for a, b in (("x", "y"), ("a", "x"), ("b", "y")):
                c = p.sel(annotator_a=a, annotator_b=b)
                est.append(float(c))
                total += 1
                misses += not _covers(float(c.ci_low), float(c.ci_high))
        rk = iaf.rater_kind_agreement(
            df.assign(rater_kind=df.annotator.map(ROLES)),
            components=("detection", "overall"),
            n_boot=60,
            seed=seed,
        )
        assert (rk[rk.cell == "expert-expert"].agreement > 0.5).all()
        crowd = rk[rk.kind_a == "crowd"]
        assert len(crowd) == 4
        est += crowd.agreement.tolist()
        total += len(crowd)
        misses += sum(not _covers(lo, hi) for lo, hi in zip(crowd.ci_low, crowd.ci_high))
    assert abs(np.mean(est)) < 0.03 and np.max(np.abs(est)) < 0.2, np.round(est, 3)
    # the cells go in twos (detection and overall of one pair; crowd-crowd is the x-y pair)
    assert misses <= 0.15 * total, f"{misses} of {total}"


def test_corpora_of_blind_annotators_only_read_zero_in_every_label():
    """Three blind annotators and nobody else: the "(all)" annotator cell of every label
    (detection, overall) averages within 0.03 of 0; at most one interval in ten misses 0."""
    est, misses, total = [], 0, 0
    for seed in range(5):
        df = corpus(seed, "box", seers=(), blind=("x", "y", "z"))
        res = iaf.agreement(df, n_boot=60, seed=seed)
        t = _cells(res, ["(all)"])
        t = t[t.component.isin(["detection", "overall"])]
        assert np.isfinite(t.agreement).all()
        est += t.agreement.tolist()
        total += len(t)
        misses += sum(not _covers(lo, hi) for lo, hi in zip(t.ci_low, t.ci_high, strict=True))
    assert abs(np.mean(est)) < 0.03, np.round(est, 3)
    assert misses <= 0.1 * total, f"{misses} of {total}"


def test_blind_windows_read_zero():
    """Windows of ten items (``agreement_over_time``): the blind annotators' "(all)" cells on
    detection and overall average within 0.03 of 0, and their intervals miss 0 in at most
    one in eight (12 of 120 here; 30 corpora, ``n_boot=100``: 5.0 % of detection cells, 6.7 % of overall
    cells; localization: ``tests/temporal/test_audit_blind_windows_kinds.py``)."""
    est, misses, total = [], 0, 0
    for seed in range(10):
        df = corpus(seed, "box")
        df["time"] = df["item"].str[3:].astype(int)
        o = iaf.agreement_over_time(df, freq=10, n_boot=100, seed=seed)
        for comp in ("detection", "overall"):
            c = o.sel(component=comp, label="(all)", annotator=["x", "y"])
            v, lo, hi = (c[k].values.ravel() for k in ("agreement", "ci_low", "ci_high"))
            assert np.isfinite(v).all()
            est += v.tolist()
            total += v.size
            misses += int((~((lo <= 0) & (0 <= hi))).sum())
    assert total == 120
    assert abs(np.mean(est)) < 0.03, np.round(est, 3)
    assert misses <= 15, f"{misses} of {total}"


# -- identical annotators: 1 -----------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_identical_annotators_score_one_in_every_defined_cell(kind):
    """A copy of one annotator's rows: with the two alone, every defined cell of
    ``agreement()`` is 1; their pair is 1 on every component defined (n/a with a note
    otherwise), and so is the rater kind they share."""
    df = corpus(1, kind, seers=("a",), blind=("x",), copy="a")
    res = iaf.agreement(df[df.annotator != "x"], n_boot=40, seed=0)
    v = res.agreement.values
    assert np.isfinite(v).sum() >= 40
    np.testing.assert_allclose(v[np.isfinite(v)], 1.0, atol=1e-9)
    for comp in COMPONENTS:
        c = iaf.pairwise(df, component=comp, n_boot=40).sel(annotator_a="a", annotator_b="copy")
        if np.isfinite(float(c)):
            assert float(c) == pytest.approx(1.0, abs=1e-9)
            assert float(c.ci_high) == pytest.approx(1.0, abs=1e-9)
        else:
            assert _noted([str(c.note.values)])
    rk = iaf.rater_kind_agreement(
        df.assign(rater_kind=df.annotator.map(ROLES | {"copy": "expert"})), n_boot=40
    )
    same = rk[rk.cell == "expert-expert"]
    assert np.allclose(same.agreement.dropna(), 1.0, atol=1e-9)
    assert _noted(same[same.agreement.isna()].note)


# -- n/a cells say why -------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_every_na_cell_says_why(kind):
    """Every n/a of ``agreement()``, of the pairs off the diagonal, of the rater kinds and of
    the windows carries a note."""
    df = corpus(2, kind)
    res = iaf.agreement(df, n_boot=0)
    t = res[["agreement", "note"]].to_dataframe()
    assert t.agreement.isna().any()
    assert _noted(t[t.agreement.isna()].note)
    for comp in COMPONENTS:
        p = iaf.pairwise(df, component=comp, n_boot=0)
        off = ~np.eye(p.shape[0], dtype=bool)
        assert _noted(p.note.values[off & ~np.isfinite(p.values)])
    rk = iaf.rater_kind_agreement(df.assign(rater_kind=df.annotator.map(ROLES)), n_boot=0)
    assert _noted(rk[rk.agreement.isna()].note)
    if kind == "box":
        o = iaf.agreement_over_time(df.assign(time=df["item"].str[3:].astype(int)), freq=10)
        w = o[["agreement", "note"]].to_dataframe()
        assert _noted(w[w.agreement.isna()].note)


# -- invariance ----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_renaming_and_shuffling_change_no_cell(kind):
    """Renaming annotators, labels, items and groups (orders reversed) and shuffling the rows
    leave every cell of ``agreement()`` and of the pairs as they were."""
    df = corpus(2, kind, n_items=24)
    ann = {"a": "zz", "b": "k", "x": "aa", "y": "m"}
    lab = {k: f"c{9 - i}" for i, k in enumerate(CLASSES)}
    items = {it: f"q{(7 * n) % 97:03d}" for n, it in enumerate(sorted(df.item.unique()))}
    ren = df.assign(
        annotator=df.annotator.map(ann),
        label=df.label.map(lab),
        item=df.item.map(items),
        group="g" + df.group.str[::-1],
    ).sample(frac=1.0, random_state=3)
    keep = ["agreement", "ci_low", "ci_high", "note"]
    base = iaf.agreement(df, n_boot=40, seed=1)[keep].to_dataframe()
    back_a, back_l = {v: k for k, v in ann.items()}, {v: k for k, v in lab.items()}
    res = iaf.agreement(ren, n_boot=40, seed=1)[keep]
    res = res.assign_coords(
        annotator=[back_a.get(a, a) for a in res.annotator.values],
        label=[back_l.get(x, x) for x in res.label.values],
    ).to_dataframe()
    res = res.loc[base.index]
    for col in keep[:3]:
        np.testing.assert_allclose(base[col], res[col], atol=1e-12)
    assert (base.note.fillna("") == res.note.fillna("")).all()
    for comp in ("detection", "classification"):
        p = iaf.pairwise(df, component=comp, n_boot=40, seed=1)
        q = iaf.pairwise(ren, component=comp, n_boot=40, seed=1)
        for a, b in (("x", "y"), ("a", "x"), ("a", "b")):
            c, d = (
                p.sel(annotator_a=a, annotator_b=b),
                q.sel(annotator_a=ann[a], annotator_b=ann[b]),
            )
            for key in ("agreement", "ci_low", "ci_high"):
                u = float(c) if key == "agreement" else float(c[key])
                v = float(d) if key == "agreement" else float(d[key])
                assert u == pytest.approx(v, abs=1e-12, nan_ok=True), (comp, a, b, key)


def test_sparse_crowd_pairs_without_an_interval_say_why():
    """A sparse crowd (two seers on 24 items, ten blind workers on five items each): the
    pairs of workers who share two or three items have a localization figure and no
    interval. Their note was empty (``agreement()`` and the windows say "interval not
    reported: rests on k items"); pairs and rater kinds now say it too."""
    rng = np.random.default_rng(7)
    df = corpus(7, "box", n_items=24, blind=tuple(f"w{k}" for k in range(10)))
    items = sorted(df.item.unique())
    keep = {f"w{k}": set(rng.choice(items, 5, replace=False)) for k in range(10)}
    df = df[[a in "ab" or it in keep[a] for a, it in zip(df.annotator, df.item, strict=True)]]
    p = iaf.pairwise(df, component="localization", n_boot=40, seed=0)
    off = ~np.eye(p.shape[0], dtype=bool)
    bare = off & np.isfinite(p.values) & ~np.isfinite(p.ci_low.values)
    assert bare.sum() >= 4
    assert all(str(n).startswith("interval not reported: rests on") for n in p.note.values[bare])
    whole = off & np.isfinite(p.ci_low.values)
    assert (p.note.values[whole] == "").all()
    roles = {a: ("expert" if a in "ab" else f"crowd{a[1:]}") for a in df.annotator.unique()}
    rk = iaf.rater_kind_agreement(
        df.assign(rater_kind=df.annotator.map(roles)), components=("localization",), n_boot=40
    )
    bare = rk[np.isfinite(rk.agreement) & ~np.isfinite(rk.ci_low)]
    assert len(bare) >= 2 and bare.note.str.startswith("interval not reported").all()
