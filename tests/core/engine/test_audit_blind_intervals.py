"""Audit: the intervals of image-blind annotators' cells cover 0.

Annotators who never looked at the image draw plausible objects (the class mix, the
positions and sizes of the corpus) unrelated to the item: every cell of theirs has
agreement 0 in expectation, and its 95 % interval should cover 0 about 95 % of the time.
The corpora are drawn here (not with ``iaf.simulate``): objects small against the scene,
each class in a region and a size of its own, so that unrelated objects match by luck in
about 1 % of the pairings of two annotations.
"""

import numpy as np
import pandas as pd
import pytest
import scipy.stats

import iaa_frames as iaf

W, H = 1000.0, 700.0
#: class -> (centre x, centre y, spread x, spread y) and (width, height), fractions of the image
SPREAD = {
    "sign": ((0.8, 0.12, 0.08, 0.05), (0.05, 0.05)),
    "car": ((0.5, 0.7, 0.25, 0.06), (0.10, 0.06)),
    "truck": ((0.5, 0.65, 0.25, 0.06), (0.22, 0.14)),
    "person": ((0.3, 0.6, 0.2, 0.08), (0.03, 0.10)),
    "bird": ((0.5, 0.2, 0.3, 0.08), (0.02, 0.015)),
}
#: classes in bands of their own, large enough that blind drawers match often
BANDS = {
    "sky": ((0.5, 0.15, 0.06, 0.03), (0.5, 0.25)),
    "road": ((0.5, 0.85, 0.06, 0.03), (0.6, 0.25)),
    "building": ((0.5, 0.45, 0.08, 0.04), (0.3, 0.35)),
    "car": ((0.5, 0.7, 0.1, 0.03), (0.15, 0.1)),
    "sign": ((0.85, 0.3, 0.03, 0.03), (0.08, 0.08)),
}


def _scene(rng, classes, confuse=0.0):
    """1 to 5 objects (label, x0, y0, x1, y1) drawn from the classes' regions and sizes,
    the label of a share ``confuse`` of them any class's (a look-alike)."""
    names = list(classes)
    out = []
    for _ in range(rng.integers(1, 6)):
        label = names[rng.integers(len(names))]
        (cx, cy, sx, sy), (w, h) = classes[label]
        x = np.clip(rng.normal(cx, sx), 0.02, 0.98) * W
        y = np.clip(rng.normal(cy, sy), 0.02, 0.98) * H
        f = np.exp(rng.normal(0.0, 0.25))
        w, h = w * W * f / 2, h * H * f / 2
        if confuse and rng.random() < confuse:
            label = names[rng.integers(len(names))]
        out.append((label, max(x - w, 0.0), max(y - h, 0.0), min(x + w, W), min(y + h, H)))
    return out


def blind_corpus(seed, *, n_items=40, n_annotators=4, classes=SPREAD, confuse=0.0):
    """Every annotator image-blind: on every item, a fresh scene of the corpus's kind."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_items):
        for a in range(n_annotators):
            for label, x0, y0, x1, y1 in _scene(rng, classes, confuse):
                rows.append((f"img{i}", f"blind{a}", label, x0, y0, x1, y1))
    df = pd.DataFrame(rows, columns=["item", "annotator", "label", "x0", "y0", "x1", "y1"])
    return df.assign(width=W, height=H)


def _covers(lo, hi):
    return bool(lo <= 0.0 <= hi)


def _pair_cells(p):
    """Every pair of annotators of a ``pairwise`` result once, each with an interval."""
    names = list(p.annotator_a.values)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            cell = p.sel(annotator_a=a, annotator_b=b)
            assert np.isfinite(float(cell.ci_low)), str(cell.note.values)
            yield cell


def test_pairwise_detection_of_blind_pairs_covers_zero():
    """A pair of blind annotators whose items hold no lucky match had the same within mean
    in every bootstrap replicate: its interval, from the chance side alone, lay wholly
    below 0 (15 of 30 pairs on five corpora). It is widened to the exact binomial
    interval of the items with a match, as the cells of ``iaf.agreement`` are."""
    misses = total = 0
    for seed in range(3):
        res = iaf.agreement(blind_corpus(seed), n_boot=100, seed=seed)
        for cell in _pair_cells(res.iaa.pairwise(component="detection", n_boot=100)):
            total += 1
            misses += not _covers(float(cell.ci_low), float(cell.ci_high))
    assert total == 18
    assert misses <= 2, f"{misses} of {total} blind pairs' intervals miss 0"


def test_pairwise_overall_of_blind_pairs_covers_zero():
    """Overall's rare events are detection's matches in the pairs' cells too, as in
    ``agreement()``: its events were every item with an overlap below the threshold, so
    the widening never fired and 15 of 240 blind pairs' overall intervals lay wholly
    below 0 (40 corpora); none of the 30 pairs of the five corpora with most misses
    does now."""
    below = total = 0
    for seed in (0, 3, 4, 35, 36):
        p = iaf.pairwise(blind_corpus(seed), component="overall", n_boot=100, seed=seed)
        for cell in _pair_cells(p):
            total += 1
            below += float(cell.ci_high) < 0.0
    assert total == 30
    assert below == 0, f"{below} of {total} blind pairs' overall intervals lie below 0"


def test_pairs_and_kinds_with_no_match_anywhere_say_so():
    """Two annotators whose boxes never meet, within items or by chance: detection and
    overall of their pair (and of their kinds) are n/a with ``agreement()``'s note, not
    0.000 [0.000, 0.000] from overlaps below the threshold."""
    rows = []
    for i in range(12):
        x = 20.0 * i  # items unlike one another (no copies), the two sides far apart
        rows.append((f"img{i}", "left", "car", x, 0.0, x + 10.0, 10.0))
        rows.append((f"img{i}", "right", "car", x + 500.0, 600.0, x + 520.0, 630.0))
    df = pd.DataFrame(rows, columns=["item", "annotator", "label", "x0", "y0", "x1", "y1"])
    df = df.assign(width=W, height=H)
    res = iaf.agreement(df, n_boot=20)
    for component in ("detection", "overall"):
        want = str(res.note.sel(component=component, label="(all)", annotator="(all)").values)
        assert want.startswith("no object pair matches")
        cell = iaf.pairwise(df, component=component, n_boot=20).sel(
            annotator_a="left", annotator_b="right"
        )
        assert np.isnan(float(cell)) and str(cell.note.values) == want
    kinds = iaf.rater_kind_agreement(
        df, kinds={"left": "a", "right": "b"}, components=("detection", "overall"), n_boot=20
    )
    pair = kinds[(kinds.kind_a == "a") & (kinds.kind_b == "b")]
    assert pair.agreement.isna().all() and pair.note.str.startswith("no object pair").all()


def test_pairwise_interval_of_a_pair_is_that_of_agreement_for_two_annotators():
    """With two annotators, the pair's detection and overall cells are the annotator
    cells' and the "(all)" cell's: the same interval, widened by the same rule (overall's
    events detection's matches in both)."""
    for seed in (7, 36):
        df = blind_corpus(seed, n_annotators=2)
        res = iaf.agreement(df, n_boot=100, seed=3)
        for component in ("detection", "overall"):
            cell = res.sel(component=component, label="(all)", annotator="(all)")
            p = res.iaa.pairwise(component=component, n_boot=100, seed=3)
            pair = p.sel(annotator_a="blind0", annotator_b="blind1")
            assert float(pair) == pytest.approx(float(cell.agreement))
            assert float(pair.ci_low) == pytest.approx(float(cell.ci_low))
            assert float(pair.ci_high) == pytest.approx(float(cell.ci_high))


def test_pairwise_of_identical_annotators_reads_1_with_the_bound_of_its_items():
    """The widening of rare matches touches cells with few matched items only; identical
    annotators, who match everywhere, read 1 with an upper bound of 1. Their low end is
    that of the rule of rare disagreements: no item disagrees, and k items cannot show
    that none ever would (1 - p_U, the Clopper-Pearson upper bound of the share of k
    items; they read 1.00 [1.00, 1.00] before, as classification's cells did before its
    rule)."""
    df = blind_corpus(1, n_annotators=1)
    df = pd.concat([df, df.assign(annotator="copy")], ignore_index=True)
    p = iaf.pairwise(df, component="detection", n_boot=50)
    cell = p.sel(annotator_a="blind0", annotator_b="copy")
    assert float(cell) == pytest.approx(1.0)
    assert float(cell.ci_high) == pytest.approx(1.0)
    k = df["item"].nunique()
    assert float(cell.ci_low) == pytest.approx(1 - scipy.stats.beta.ppf(0.975, 1, k))


def test_overall_of_blind_annotators_with_no_matched_item_covers_zero():
    """A cell whose within units hold no match at all, while chance expects fewer than
    the rule of three's 3.7 matched items, covers 0 on detection (the documented
    widening, ``MIN_EVENT_ITEMS``); overall, which rests on the same matches, must too.
    Its events were every item with any overlap (28 of a cell's 40 items, 1 with a
    match), so the widening never fired and 18 of 150 such cells missed 0; they are the
    items where detection has a match now (``matched_set_events``)."""
    checked = 0
    for seed in range(30, 42):
        res = iaf.agreement(blind_corpus(seed), n_boot=100, seed=seed)
        det = res.sel(component="detection", label="(all)")
        ove = res.sel(component="overall", label="(all)")
        for ann in res.annotator.values:
            d, o = det.sel(annotator=ann), ove.sel(annotator=ann)
            # no within pair matched: the within detection distance is 1 everywhere
            if not float(d.observed) == 1.0:
                continue
            checked += 1
            assert _covers(float(d.ci_low), float(d.ci_high))
            assert _covers(float(o.ci_low), float(o.ci_high)), (
                f"seed {seed}, {ann}: overall {float(o.agreement):.4f} "
                f"[{float(o.ci_low):.4f}, {float(o.ci_high):.4f}]"
            )
    assert checked >= 3


def test_classification_with_no_within_disagreement_covers_zero():
    """Blind annotators on classes in bands of their own, one label in ten a look-alike's:
    a classification cell defined (3 or more label disagreements expected over its
    annotators' matched within pairs) with none observed reads 1.00. Below the exact
    Poisson bound (3.7 disagreements at 97.5 %) seeing none does not rule out chance, and
    its interval must reach 0 (the bootstrap alone read 1.00 [1.00, 1.00]: every replicate
    holds no disagreement; ``widen_rare_disagreements`` widens it)."""
    found = 0
    for seed in (14, 25):
        df = blind_corpus(seed, classes=BANDS, confuse=0.1)
        res = iaf.agreement(df, n_boot=100, seed=seed)
        cls = res.sel(component="classification")
        for label in res.label.values:
            for ann in res.annotator.values:
                c = cls.sel(label=label, annotator=ann)
                if not (np.isfinite(float(c.ci_low)) and float(c.observed) == 0.0):
                    continue
                # a class's disagreement is a share of its annotators' matched pairs
                pairs = float(cls.sel(label="(all)", annotator=ann).n_units)
                if float(c.expected) * pairs >= 3.7:
                    continue
                found += 1
                assert _covers(float(c.ci_low), float(c.ci_high)), (
                    f"seed {seed}, {label}/{ann}: {float(c.agreement):.2f} "
                    f"[{float(c.ci_low):.2f}, {float(c.ci_high):.2f}], "
                    f"{float(c.expected) * pairs:.1f} disagreements expected"
                )
    assert found >= 1


def _with_copy(seed, n_items, n_annotators):
    """Blind annotators on classes in bands, three labels in ten a look-alike's (so that
    unrelated matched objects disagree), and ``copy``, who copies ``blind0`` exactly."""
    df = blind_corpus(seed, n_items=n_items, n_annotators=n_annotators, classes=BANDS, confuse=0.3)
    copy = df[df.annotator == "blind0"].assign(annotator="copy")
    return pd.concat([df, copy], ignore_index=True)


def test_pairwise_classification_of_a_pair_with_no_disagreement_is_not_certain():
    """The pairs' classification cells are widened by the same rule: a pair whose matched
    objects never disagree (a copy) reads 1 with an interval below 1, the exact binomial
    bound of no disagreeing item in 20 (the bootstrap alone: 1.00 [1.00, 1.00])."""
    p = iaf.pairwise(_with_copy(5, 20, 2), component="classification", n_boot=100, seed=1)
    cell = p.sel(annotator_a="blind0", annotator_b="copy")
    assert float(cell) == pytest.approx(1.0)
    assert 0.0 < float(cell.ci_low) < 0.95
    assert float(cell.ci_high) == pytest.approx(1.0)


def test_identical_labels_no_longer_claim_an_interval_of_zero_width():
    """Two annotators who agree on every label of 40 items: agreement 1, and an interval
    below 1 from the exact binomial bound of 0 disagreeing items in 40 (the bootstrap
    alone gave [1.00, 1.00], a certainty 40 items cannot give), far above 0; more items
    narrow it."""
    lows = []
    for n_items in (20, 80):
        df = _with_copy(5, n_items, 1)
        res = iaf.agreement(df, n_boot=100, seed=1)
        cell = res.sel(component="classification", label="(all)", annotator="(all)")
        assert float(cell.agreement) == pytest.approx(1.0)
        assert 0.5 < float(cell.ci_low) < 1.0
        assert float(cell.ci_high) == pytest.approx(1.0)
        lows.append(float(cell.ci_low))
    assert lows[1] > lows[0]


def test_a_corpus_of_one_class_says_so_in_every_classification_note():
    """With one class every classification cell is undefined; the note said why in the
    engine's words ("too few chance units", "no variation"), not what the user can change.
    It says there is one class, in the cells of agreement(), of the pairs and of windows."""
    df = blind_corpus(3, n_items=12, n_annotators=3).assign(label="car")
    res = iaf.agreement(df, n_boot=0)
    notes = res["note"].sel(component="classification").values.ravel().astype(str)
    assert all(n.startswith("one class") for n in notes)
    p = iaf.pairwise(df, component="classification", n_boot=0)
    upper = np.triu(np.ones(p.shape, dtype=bool), k=1)
    assert all(str(n).startswith("one class") for n in p["note"].values[upper])
    # a corpus of two classes keeps the engine's reasons
    two = blind_corpus(3, n_items=12, n_annotators=3)
    res2 = iaf.agreement(two, n_boot=0)
    notes2 = res2["note"].sel(component="classification").values.ravel().astype(str)
    assert not any(n.startswith("one class") for n in notes2)


def test_overall_without_a_match_anywhere_is_not_a_figure():
    """A class nobody matched, within items or by chance: detection is n/a ("no object
    pair matches"), and overall, which then rests on sub-threshold overlaps alone, read
    0.000 [0.000, 0.000] (or an interval wholly below 0 from the chance side alone). It
    is n/a with detection's note."""
    res = iaf.agreement(blind_corpus(36), n_boot=100, seed=36)
    det = res.sel(component="detection", label="bird")
    ove = res.sel(component="overall", label="bird")
    silent = np.char.startswith(det["note"].values.astype(str), "no object pair matches")
    assert silent.sum() >= 2
    assert np.isnan(ove["agreement"].values[silent]).all()
    assert (ove["note"].values[silent] == det["note"].values[silent]).all()
    # the classes with matches keep their overall figure
    car = res.sel(component="overall", label="car", annotator="(all)")
    assert np.isfinite(float(car["agreement"]))
