"""potato_metrics: Potato's admin-page keys from its in-memory rows, by our estimators."""

import json
import time

import numpy as np

import iaa_frames as iaf

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
    t = time.perf_counter()
    again = iaf.potato_metrics(sample_rows(), n_boot=20)
    assert time.perf_counter() - t < 0.1 and again == m
    again["sigma"] = 0  # a copy: the cache is not changed
    assert iaf.potato_metrics(rows, n_boot=20)["sigma"] == m["sigma"]
