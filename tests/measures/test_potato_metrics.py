"""potato_metrics: Potato's admin-page keys from its in-memory rows, by our estimators."""

import copy
import json

import numpy as np
import pytest

import iaa_frames as iaf
import iaa_frames.core.engine.assemble as assemble
import iaa_frames.measures.potato as potato

POTATO_KEYS = (
    "mean_agreement", "mean_matched_iou", "detection_f1", "mean_object_count_diff", "n_items",
    "n_annotators", "n_scored_pairs", "n_empty_pairs", "sigma", "ks", "detection_alpha",
    "classification_alpha",
)  # fmt: skip


def sample_rows():
    rows = {}
    for f in sorted((iaf.sample_path("potato") / "annotation_output").glob("*/user_state.json")):
        st = json.loads(f.read_text())
        for item, pairs in st["instance_id_to_label_to_value"].items():
            rows.setdefault(item, {})[st["user_id"]] = json.loads(pairs[0][1])
    return rows


def test_potato_keys_match_the_reader_and_are_cached():
    rows = sample_rows()
    m = iaf.potato_metrics(rows, n_boot=20)
    assert set(POTATO_KEYS) <= set(m)
    assert (m["n_items"], m["n_annotators"], m["n_empty_pairs"]) == (40, 3, 2)
    res = iaf.agreement(iaf.read_potato(iaf.sample_path("potato")), n_boot=20, progress=False)
    cell = res.sel(label="(all)", annotator="(all)")
    np.testing.assert_allclose(m["sigma"], float(cell["agreement"].sel(component="localization")))
    np.testing.assert_allclose(
        m["detection_alpha"], float(cell["presence_alpha"].sel(component="detection"))
    )
    assert set(m["annotators"]) == {"ana", "ben", "detector"}
    lo, hi = m["components"]["detection"]["ci_low"], m["components"]["detection"]["ci_high"]
    assert lo < m["components"]["detection"]["agreement"] < hi
    again = iaf.potato_metrics(sample_rows(), n_boot=20)
    assert again == m
    again["sigma"] = 0  # a copy: the cache is not changed
    again["annotators"]["ana"]["detection"]["agreement"] = -1
    third = iaf.potato_metrics(rows, n_boot=20)
    assert third == m and third["sigma"] == m["sigma"]


@pytest.fixture
def builds(monkeypatch):
    """The pair-table builds (matching of real and chance pairs: most of the cost) made
    while the test runs, from an empty cache."""
    made = []
    build = assemble.pair_tables_from

    def counted(df, settings):
        made.append(len(df))
        return build(df, settings)

    monkeypatch.setattr(assemble, "pair_tables_from", counted)
    potato.clear_cache()
    yield made
    potato.clear_cache()


def test_one_build_per_content_and_none_for_equal_rows(builds):
    rows = sample_rows()
    first = iaf.potato_metrics(rows, n_boot=0)
    assert len(builds) == 1  # one matching of the project, nothing computed twice
    # equal content in new dicts, items and users in another order: served from the cache
    shuffled = {
        item: dict(reversed(list(by_user.items())))
        for item, by_user in reversed(list(copy.deepcopy(rows).items()))
    }
    for again in (sample_rows(), shuffled, rows):
        assert iaf.potato_metrics(again, n_boot=0) == first
    assert len(builds) == 1
    # changed data, or other settings, are computed
    changed = copy.deepcopy(rows)
    changed.pop(next(iter(changed)))
    assert iaf.potato_metrics(changed, n_boot=0)["n_items"] == first["n_items"] - 1
    iaf.potato_metrics(rows, n_boot=0, match_threshold=0.3)
    assert len(builds) == 3


def box(x, label="car"):
    return {"type": "bbox", "label": label,
            "coordinates": {"x": x, "y": 0.1, "width": 0.2, "height": 0.2}}  # fmt: skip


def tiny(shift):
    return {f"img{i}": {"ana": [box(0.05 * i)], "ben": [box(0.05 * i + shift)]} for i in range(6)}


def test_the_cache_is_bounded_least_recently_used_first_out(builds, monkeypatch):
    monkeypatch.setattr(potato, "CACHE_SIZE", 2)
    for shift in (0.01, 0.02, 0.01, 0.03):  # 0.01 is used again: 0.02 goes first
        iaf.potato_metrics(tiny(shift), n_boot=0)
    assert len(potato._CACHE) == 2 and len(builds) == 3
    iaf.potato_metrics(tiny(0.01), n_boot=0)
    iaf.potato_metrics(tiny(0.03), n_boot=0)
    assert len(builds) == 3
    iaf.potato_metrics(tiny(0.02), n_boot=0)
    assert len(builds) == 4


def test_cache_key_of_numpy_values_and_mixed_keys():
    """A long array's ``str`` elides its middle: the key reads every value."""
    a, b = np.zeros(2000), np.zeros(2000)
    b[1000] = 1
    assert potato.cache_key({"i": {"u": [{"counts": a}]}}, 0.5, 0) != potato.cache_key(
        {"i": {"u": [{"counts": b}]}}, 0.5, 0
    )
    assert potato.cache_key({"i": {"u": [{"x": np.float64(0.25)}]}}, 0.5, 0) == (
        potato.cache_key({"i": {"u": [{"x": 0.25}]}}, 0.5, 0)
    )
    mixed = {1: {"u": []}, "img2": {"u": []}}  # keys that do not sort together
    assert potato.cache_key(mixed, 0.5, 0) == potato.cache_key(
        dict(reversed(mixed.items())), 0.5, 0
    )


def test_a_change_of_the_kinds_similarity_settings_is_computed_again(builds, monkeypatch):
    from iaa_frames.geometry.kinds import KEYPOINTS

    iaf.potato_metrics(tiny(0.01), n_boot=0)
    iaf.potato_metrics(tiny(0.01), n_boot=0)
    assert len(builds) == 1
    monkeypatch.setattr(KEYPOINTS, "mirror_aware", False)  # skeletons would match otherwise
    iaf.potato_metrics(tiny(0.01), n_boot=0)
    assert len(builds) == 2
