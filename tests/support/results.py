"""Hand-built agreement results with known values, for the tests of the views, plots and
report (``from results import make_result, make_pairwise``).

The Dataset is assembled by :func:`iaa_frames.core.engine.result.build_dataset` from the package's
own :data:`~iaa_frames.core.engine.result.COMPONENTS` and
:data:`~iaa_frames.core.engine.result.VARIABLES`, so it has
exactly the schema of :func:`iaa_frames.agreement`; only the numbers are made up (random
but plausible, seeded). Known values make the checks exact (whisker extents, annotation
text); the integration tests run the real engine.
"""

import numpy as np

from iaa_frames.core.engine.result import (
    COMPONENTS,
    NO_VARIATION_NOTE,
    VARIABLES,
    build_dataset,
    build_pairwise,
)
from iaa_frames.frame.schema import ALL

#: Dataset attrs of the hand-built results.
ATTRS = {
    "distance": "giou",
    "match_threshold": 0.5,
    "seed": 0,
    "n_boot": 200,
    "normalization": "image size",
    "version": "0+test",
}


def make_result(
    labels=("car", "person", "bicycle"),
    annotators=("ana", "ben", "chloe"),
    seed=0,
    nan_cells=(("classification", "bicycle", ALL),),
):
    """A result Dataset (component, label, annotator) with random but plausible values.

    Support (``n_units``) decreases with the label's position, so that the order of the
    labels by support is ``labels``. Every cell of ``nan_cells`` (component, label,
    annotator) is undefined, with the note of a cell without variation.
    """
    rng = np.random.default_rng(seed)
    lab = [ALL, *labels]
    ann = [ALL, *annotators]
    comps = list(COMPONENTS)
    shape = (len(comps), len(lab), len(ann))
    agreement = rng.uniform(-0.2, 0.95, shape)
    half = rng.uniform(0.02, 0.15, shape)
    n_units = rng.integers(5, 500, shape).astype(float)
    n_units *= np.linspace(3, 1, len(lab))[None, :, None]
    # the support of a class (localization, all annotators) decreases along `labels`
    loc = comps.index("localization")
    n_units[loc, 1:, 0] = np.sort(n_units[loc, 1:, 0])[::-1]
    data = {
        "agreement": agreement,
        "observed": rng.uniform(0, 0.5, shape),
        "expected": rng.uniform(0.5, 1, shape),
        "ks": rng.uniform(0, 1, shape),
        "ks_sign": np.ones(shape),
        "ks_pvalue": rng.uniform(0, 0.01, shape),
        "n_units": np.round(n_units),
        "n_items": np.round(n_units / 3) + 1,
        "n_chance": np.full(shape, 2000.0),
        "ci_low": agreement - half,
        "ci_high": agreement + half,
        "raw_iou": rng.uniform(0.6, 0.95, shape),
        "frac_below_chance": rng.uniform(0, 1, shape),
        "presence_alpha": rng.uniform(-0.1, 0.3, shape),
        "label_alpha": rng.uniform(0.5, 1, shape),
        "matched_share": rng.uniform(0.5, 1, shape),
    }
    assert set(data) == set(VARIABLES)  # the package's variables, no more, no less
    # raw_iou only for localization, presence_alpha only for detection, no KS for alpha
    for c, comp in enumerate(comps):
        if comp != "localization":
            data["raw_iou"][c] = np.nan
        if comp != "detection":
            data["presence_alpha"][c] = np.nan
        if comp != "classification":
            data["label_alpha"][c] = np.nan
        if comp != "localization":
            data["matched_share"][c] = np.nan
        if comp == "classification":
            for v in ("ks", "ks_sign", "ks_pvalue", "n_chance", "frac_below_chance"):
                data[v][c] = np.nan
    note = np.full(shape, "", dtype=object)
    for comp, label, a in nan_cells:
        if label not in lab or a not in ann:
            continue
        i, j, k = comps.index(comp), lab.index(label), ann.index(a)
        for v in ("agreement", "ci_low", "ci_high", "observed", "expected"):
            data[v][i, j, k] = np.nan
        note[i, j, k] = NO_VARIATION_NOTE
    return build_dataset({**data, "note": note}, labels=lab, annotators=ann, attrs=ATTRS)


def make_pairwise(annotators=("ana", "ben", "chloe"), seed=0, component="localization"):
    """An annotator x annotator agreement table (symmetric, NaN diagonal), as
    :func:`iaa_frames.pairwise` returns it."""
    rng = np.random.default_rng(seed)
    n = len(annotators)
    m = rng.uniform(-0.1, 0.9, (n, n))
    m = (m + m.T) / 2
    np.fill_diagonal(m, np.nan)
    note = np.full((n, n), "", dtype=object)
    np.fill_diagonal(note, "not applicable")
    n_units, n_chance = np.full((n, n), 40.0), np.full((n, n), 500.0)
    np.fill_diagonal(n_units, np.nan)
    np.fill_diagonal(n_chance, np.nan)
    values = {"agreement": m, "n_units": n_units, "n_chance": n_chance, "note": note}
    return build_pairwise(
        values, annotators=list(annotators), attrs={"component": component, "measure": "sigma"}
    )
