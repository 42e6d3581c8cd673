"""A small hand-built agreement Dataset with the schema of DESIGN §6, for plot tests.

Known values make the checks exact (whisker extents, annotation text); the integration
tests run the real engine.
"""

import numpy as np
import xarray as xr

COMPONENTS = ["detection", "classification", "localization", "overall"]
MEASURES = ["sigma", "alpha", "sigma", "sigma"]

VARIABLES = {
    "agreement": "chance-corrected agreement",
    "observed": "observed disagreement",
    "expected": "expected (chance) disagreement",
    "ks": "KS statistic",
    "ks_sign": "KS sign",
    "ks_pvalue": "KS p-value",
    "n_units": "number of units",
    "n_chance": "number of chance units",
    "ci_low": "CI lower bound",
    "ci_high": "CI upper bound",
    "raw_iou": "raw IoU of matched pairs",
    "frac_below_chance": "share of within distances below the chance 5% quantile",
    "presence_alpha": "presence alpha",
}


def make_result(labels=("car", "person", "bicycle"), annotators=("ana", "ben", "chloe"),
                seed=0, nan_cells=(("classification", "bicycle", "(all)"),)):
    """A Dataset (component, label, annotator) with random but plausible values."""
    rng = np.random.default_rng(seed)
    lab = ["(all)", *labels]
    ann = ["(all)", *annotators]
    shape = (len(COMPONENTS), len(lab), len(ann))
    agreement = rng.uniform(-0.2, 0.95, shape)
    half = rng.uniform(0.02, 0.15, shape)
    n_units = rng.integers(5, 500, shape).astype(float)
    # support decreasing with label index so that the top-N order is known
    n_units *= np.linspace(3, 1, len(lab))[None, :, None]
    data = {
        "agreement": agreement,
        "observed": rng.uniform(0, 0.5, shape),
        "expected": rng.uniform(0.5, 1, shape),
        "ks": rng.uniform(0, 1, shape),
        "ks_sign": np.ones(shape),
        "ks_pvalue": rng.uniform(0, 0.01, shape),
        "n_units": np.round(n_units),
        "n_chance": np.full(shape, 2000.0),
        "ci_low": agreement - half,
        "ci_high": agreement + half,
        "raw_iou": rng.uniform(0.6, 0.95, shape),
        "frac_below_chance": rng.uniform(0, 1, shape),
        "presence_alpha": rng.uniform(-0.1, 0.3, shape),
    }
    # raw_iou only for localization, presence_alpha only for detection
    for c, comp in enumerate(COMPONENTS):
        if comp != "localization":
            data["raw_iou"][c] = np.nan
        if comp != "detection":
            data["presence_alpha"][c] = np.nan
        if comp == "classification":
            for v in ("ks", "ks_sign", "ks_pvalue", "n_chance", "frac_below_chance"):
                data[v][c] = np.nan
    note = np.full(shape, "", dtype=object)
    for comp, label, a in nan_cells:
        if label not in lab or a not in ann:
            continue
        i, j, k = COMPONENTS.index(comp), lab.index(label), ann.index(a)
        for v in ("agreement", "ci_low", "ci_high", "observed", "expected"):
            data[v][i, j, k] = np.nan
        note[i, j, k] = "expected disagreement is 0"
    dims = ("component", "label", "annotator")
    ds = xr.Dataset(
        {k: (dims, v, {"long_name": VARIABLES[k], "description": VARIABLES[k]})
         for k, v in data.items()},
        coords={"component": COMPONENTS, "label": lab, "annotator": ann,
                "measure": ("component", MEASURES)},
        attrs={"distance": "giou", "match_threshold": 0.5, "seed": 0, "n_boot": 200,
               "normalization": "image size", "version": "0+test"},
    )
    ds["note"] = (dims, note, {"long_name": "note", "description": "why NaN"})
    return ds


def make_pairwise(annotators=("ana", "ben", "chloe"), seed=0):
    """An annotator x annotator DataArray, symmetric, NaN diagonal."""
    rng = np.random.default_rng(seed)
    n = len(annotators)
    m = rng.uniform(-0.1, 0.9, (n, n))
    m = (m + m.T) / 2
    np.fill_diagonal(m, np.nan)
    return xr.DataArray(m, dims=("annotator_a", "annotator_b"),
                        coords={"annotator_a": list(annotators), "annotator_b": list(annotators)},
                        attrs={"long_name": "chance-corrected agreement",
                               "component": "localization"}, name="agreement")
