"""simulate_cuboids and cuboid agreement through the normal pipeline (iaf.agreement): identical
cuboids score 1, annotators who draw at random score about 0 (the chance baseline), noise
lowers agreement, and the dask path gives the in-memory figures."""

import warnings

import numpy as np
import pandas as pd
import pytest

import iaa_frames as iaf
from iaa_frames.errors import ParameterError

#: A road layout in a small area: chance pairs of overlapping cuboids between scenes exist,
#: so that the localization baseline has units.
SCENES = {"n_items": 40, "extent": 5.0, "road": 0.1}
ALL = {"label": "(all)", "annotator": "(all)"}


def sigma(df, seed=0, **kw):
    res = iaf.agreement(df, seed=seed, **kw)
    return res["agreement"].sel(ALL).to_series().to_dict()


@pytest.mark.parametrize("tilt", [0.0, 0.2], ids=["yaw only", "full rotation"])
def test_identical_cuboids_score_one(tilt):
    df = iaf.simulate_cuboids(noise=0.0, tilt=tilt, seed=1, **SCENES)
    got = sigma(df)
    for component in ("detection", "localization", "overall"):
        assert got[component] == pytest.approx(1.0, abs=1e-12), component


def test_random_cuboids_score_about_zero():
    # 5 seeds of three annotators drawing scenes of their own, unrelated to each other
    rows = []
    for seed in range(5):
        df = iaf.simulate_cuboids(
            annotators=(), random_annotators=("a", "b", "c"), seed=seed, **SCENES
        )
        rows.append(sigma(df, seed=seed))
    got = pd.DataFrame(rows)
    assert abs(got["detection"].mean()) <= 0.02
    assert abs(got["overall"].mean()) <= 0.02
    # localization has few matched pairs here (random cuboids rarely reach IoU 0.5): its
    # mean is within 3 standard errors of 0
    loc = got["localization"].dropna()
    assert len(loc) >= 4
    assert abs(loc.mean()) <= 3 * loc.std(ddof=1) / np.sqrt(len(loc))


def test_noise_lowers_agreement():
    low = sigma(iaf.simulate_cuboids(noise=0.02, seed=2, **SCENES))
    high = sigma(iaf.simulate_cuboids(noise=0.08, seed=2, **SCENES))
    assert high["localization"] < low["localization"] < 1
    assert high["overall"] < low["overall"]


def test_bird_eye_variant_runs_the_same_pipeline():
    df = iaf.simulate_cuboids(noise=0.05, seed=3, **SCENES)
    volume, ground = sigma(df), sigma(iaf.bird_eye_view(df))
    assert 0 < volume["localization"] < 1 and 0 < ground["localization"] < 1
    # heights are jittered too: the volumetric figures see more disagreement
    assert ground["overall"] > volume["overall"]


def test_simulation_is_deterministic_and_per_annotator():
    a = iaf.simulate_cuboids(n_items=5, annotators=("x", "y"), seed=4)
    b = iaf.simulate_cuboids(n_items=5, annotators=("y",), seed=4)
    pd.testing.assert_frame_equal(
        a[a["annotator"] == "y"].drop(columns="object_id").reset_index(drop=True),
        b.drop(columns="object_id").reset_index(drop=True),
    )
    upright = iaf.simulate_cuboids(n_items=5, seed=4)
    assert (upright[["cuboid_pitch", "cuboid_roll"]] == 0).all().all()


def test_bad_parameters():
    with pytest.raises(ParameterError, match="objects"):
        iaf.simulate_cuboids(objects=(0, 3))
    with pytest.raises(ParameterError, match="noise"):
        iaf.simulate_cuboids(noise=-1)


@pytest.mark.parametrize("npartitions", [1, 3])
def test_dask_equals_in_memory_on_cuboids(npartitions):
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    pytest.importorskip("distributed")
    df = iaf.simulate_cuboids(noise=0.05, tilt=0.1, seed=5, n_items=20, extent=5.0, road=0.1)
    with dask.config.set({"dataframe.convert-string": False}):
        ddf = dd.from_pandas(df, npartitions=npartitions, sort=False)
    params = {"n_chance": 300, "n_boot": 20, "seed": 7}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = iaf.agreement(ddf, **params)
    want = iaf.agreement(df, **params)
    for name, var in want.data_vars.items():
        a, b = got[name].values, var.values
        if np.issubdtype(b.dtype, np.number):
            np.testing.assert_allclose(a, b, rtol=0, atol=1e-12, equal_nan=True, err_msg=name)
