"""Items that look like copies: found by the fingerprint search, named in a warning."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest

import iaa_frames as iaf
from iaa_frames.core.matching.copies import find_copies, warn_copies
from iaa_frames.core.matching.corpus import prepare
from iaa_frames.errors import CopiedItemsWarning, ParameterError


def _copied(df, items, *, jitter=0.0, seed=0):
    """``df`` with ``items`` copied under the names ``<item>_copy``, every box coordinate
    moved by up to ``jitter`` pixels."""
    copy = df[df["item"].isin(items)].copy()
    copy["item"] = copy["item"] + "_copy"
    rng = np.random.default_rng(seed)
    for c in ("x0", "y0", "x1", "y1"):
        copy[c] = copy[c] + rng.uniform(-jitter, jitter, len(copy))
    out = pd.concat([df, copy], ignore_index=True)
    return out.assign(object_id=np.arange(len(out)))


def _drawn_items(df, n, least=2):
    """``n`` items on which every annotator drew at least ``least`` objects."""
    per = df[df["x0"].notna()].groupby(["item", "annotator"]).size().unstack()
    return list(per.index[(per >= least).all(axis=1)][:n])


def _brute_force(corpus, tolerance):
    """Pairs of items that are copies by the rule of the module notes, over every pair
    of items and every annotator (itertools)."""
    s = corpus.annotations
    box = corpus.shapes.boxes
    ann, covered = {}, set()
    for slot in range(s.empty):
        covered.add((s.item[slot], s.annotator[slot]))
        if s.count[slot]:
            objs = range(s.start[slot], s.start[slot] + s.count[slot])
            ann[(s.item[slot], s.annotator[slot])] = [(corpus.label[o], box[o]) for o in objs]
    found = set()
    for a, b in itertools.combinations(range(len(corpus.items)), 2):
        both = [k for (i, k) in ann if i == a and (b, k) in ann]
        one = [
            k
            for (i, k) in ann
            if (i == a and (b, k) in covered and (b, k) not in ann)
            or (i == b and (a, k) in covered and (a, k) not in ann)
        ]
        if len(both) < 2 or one:
            continue
        worst, n_objects, ok = 0.0, 0, True
        for k in both:
            x, y = ann[(a, k)], ann[(b, k)]
            if len(x) != len(y) or any(lx != ly for (lx, _), (ly, _) in zip(x, y)):
                ok = False
                break
            worst = max([worst] + [np.abs(bx - by).max() for (_, bx), (_, by) in zip(x, y)])
            n_objects += len(x)
        if ok and worst <= tolerance and (worst == 0 or n_objects >= 2 * len(both)):
            found.add((str(corpus.items[a]), str(corpus.items[b])))
    return found


@pytest.mark.parametrize("jitter", [0.0, 1.0])
def test_copies_are_found_and_named(jitter):
    df = iaf.simulate(n_items=40, seed=1)
    picked = _drawn_items(df, 6)
    both = _copied(df, picked, jitter=jitter)
    found = find_copies(both)
    pairs = {frozenset(p) for p in zip(found["item"], found["copy"])}
    assert pairs == {frozenset((i, i + "_copy")) for i in picked}
    assert found["exact"].all() == (jitter == 0)
    assert (found["max_difference"] <= 1.0 / 480 + 1e-12).all()  # 1 px of a 640 x 480 image
    assert (found["n_annotators"] == 3).all()
    assert found["copy_set"].nunique() == len(picked)


def test_the_search_finds_what_brute_force_finds():
    # a mixture: exact copies, jittered copies, a copy of a copy, and lazy annotators
    # who draw the same boxes on every image
    df = iaf.simulate(
        n_items=30,
        annotators={"A": "good", "B": "lazy-center", "C": "lazy-center"},
        objects_per_item=4.0,
        seed=2,
    )
    picked = _drawn_items(df, 4, least=1)
    both = _copied(_copied(df, picked[:2]), [picked[0] + "_copy"], jitter=0.5, seed=1)
    both = _copied(both, picked[2:], jitter=2.0, seed=2)
    # a copy on which one annotator drew nothing: not reported
    blank = both["item"].eq(picked[3] + "_copy") & both["annotator"].eq("A")
    cover = both[blank].iloc[:1].assign(label=None, x0=np.nan, y0=np.nan, x1=np.nan, y1=np.nan)
    both = pd.concat([both[~blank], cover], ignore_index=True)
    corpus = prepare(both)
    found = find_copies(corpus)
    assert picked[2] + "_copy" in set(found["copy"]) | set(found["item"])
    assert picked[3] + "_copy" not in set(found["copy"]) | set(found["item"])
    for tolerance in (0.0, 0.002, 0.005, 0.02):
        found = find_copies(corpus, tolerance=tolerance)
        got = {frozenset(p) for p in zip(found["item"], found["copy"])}
        want = {frozenset(p) for p in _brute_force(corpus, tolerance)}
        assert got == want, tolerance


def test_warning_names_copies_without_a_group_column_only():
    df = iaf.simulate(n_items=40, seed=1)
    picked = _drawn_items(df, 3)
    both = _copied(df, picked)
    with pytest.warns(CopiedItemsWarning, match=f"'{picked[0]}' and '{picked[0]}_copy'") as rec:
        iaf.agreement(both, n_boot=0)
    message = rec[0].message
    assert "'group' column" in str(message)
    assert set(message.copies["copy"]) | set(message.copies["item"]) >= set(picked)
    grouped = both.assign(group=both["item"].str.removesuffix("_copy"))
    with warnings.catch_warnings():
        warnings.simplefilter("error", CopiedItemsWarning)
        iaf.agreement(grouped, n_boot=0)


@pytest.mark.parametrize(
    "annotators",
    [
        None,
        {"A": "sloppy", "B": "sloppy", "C": "misser"},
        {"A": "random", "B": "random"},
    ],
)
def test_no_warning_on_corpora_without_copies(annotators):
    df = iaf.simulate(n_items=300, annotators=annotators, seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CopiedItemsWarning)
        warn_copies(prepare(df))


def test_image_blind_annotators_alone_do_not_make_copies():
    # two annotators draw the same boxes on every image; the third does not: items are
    # only reported where the third drew nothing on either (a documented limit)
    df = iaf.simulate(
        n_items=300, annotators={"A": "lazy-center", "B": "good", "C": "lazy-center"}, seed=3
    )
    found = find_copies(df)
    drew = set(df.loc[(df["annotator"] == "B") & df["x0"].notna(), "item"])
    assert len(found) <= 3
    assert not (set(found["item"]) | set(found["copy"])) & drew


def test_dask_warns_as_in_memory():
    dd = pytest.importorskip("dask.dataframe")
    df = iaf.simulate(n_items=30, seed=1)
    both = _copied(df, _drawn_items(df, 2))
    with pytest.warns(CopiedItemsWarning, match="_copy"):
        iaf.dask.pair_tables(dd.from_pandas(both, npartitions=3), n_chance=100)


def test_bad_tolerance():
    with pytest.raises(ParameterError, match="tolerance"):
        find_copies(iaf.simulate(n_items=3, seed=0), tolerance=-1)
