"""Hostile review, round 6: on a dask DataFrame, a user's ``distance=`` callable is checked
as in memory (:func:`iaa_frames.core.matching.checked.engine_distance`).

Before: the dask path called ``get_distance`` itself, so a callable returning NaN leaked
numpy's "invalid value encountered in minimum" warning (and then wrong tables), and one
returning negative values gave ``iaa_frames.dask.pair_tables`` without a word. Each is now
the ``ParameterError`` of the in-memory path, naming the distance and the value.
"""

import warnings

import numpy as np
import pytest

import iaa_frames as iaf
from iaa_frames.errors import ParameterError
from iaa_frames.geometry.distances import get_distance

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("pyarrow")

import iaa_frames.dask as iad  # noqa: E402  (after the optional dependency is known)

GIOU = get_distance("giou")


def giou(a, b):
    return GIOU(a, b)


def negative(a, b):
    return GIOU(a, b) - 5


@pytest.fixture(scope="module")
def frames():
    df = iaf.simulate(n_items=8, seed=1).drop(columns="truth_id")
    with dask.config.set({"dataframe.convert-string": False}):
        return df, dd.from_pandas(df, npartitions=2, sort=False)


@pytest.mark.parametrize(
    "distance, shown",
    [
        (negative, r"'negative' returned -4\.\d+"),
        (lambda a, b: np.full(len(a), np.nan), "'<lambda>' returned nan"),
        (lambda a, b: np.full(len(a), -np.inf), "'<lambda>' returned -inf"),
        (lambda a, b: GIOU(a, b) * 1e306 + 1e306, r"'<lambda>' returned \d\.\d+e\+306"),
        (lambda a, b: np.array(["x"] * len(a)), "'<lambda>' returned values of dtype <U1"),
    ],
    ids=["negative", "nan", "-inf", "huge", "text"],
)
@pytest.mark.parametrize(
    "call",
    [
        lambda d, f: iad.pair_tables(d, n_chance=100, distance=f),
        lambda d, f: iaf.agreement(d, n_boot=0, n_chance=100, distance=f),
    ],
    ids=["dask.pair_tables", "agreement"],
)
def test_a_callable_returning_no_distance_is_a_parameter_error_on_dask(
    frames, call, distance, shown
):
    with dask.config.set(scheduler="synchronous"), warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no numpy warning on the way
        with pytest.raises(
            ParameterError, match=rf"^distance {shown}[: ].* a distance is a number"
        ):
            call(frames[1], distance)


def test_a_good_callable_gives_the_tables_of_memory(frames):
    df, ddf = frames
    with dask.config.set(scheduler="synchronous"):
        got = iad.pair_tables(ddf, n_chance=100, distance=giou)
    want = iaf.pair_tables(df, n_chance=100, distance=giou)
    assert got.localization_within.equals(want.localization_within)
    assert got.localization_between.equals(want.localization_between)


@pytest.mark.parametrize("value", [[{"item": "a"}], {"item": ["a"]}, None], ids=str)
def test_from_pandas_of_no_frame_is_a_parameter_error(value):
    with pytest.raises(ParameterError, match=r"^df must be a pandas DataFrame; got "):
        iad.from_pandas(value, npartitions=2)


def test_from_pandas_takes_a_numpy_integer_count(frames):
    ddf = iad.from_pandas(frames[0], npartitions=np.int64(2))
    assert ddf.npartitions == 2
    with pytest.raises(ParameterError, match=r"^npartitions must be a positive integer; got True"):
        iad.from_pandas(frames[0], npartitions=True)


@pytest.fixture(scope="module")
def parquet(tmp_path_factory, frames):
    return iaf.to_parquet(frames[0], tmp_path_factory.mktemp("pq"), rows_per_file=30)


@pytest.mark.parametrize(
    "columns, message",
    [
        ("item", r"^columns must be None or a list of column names .*; got 'item'$"),
        (3, r"^columns must be None or a list of column names .*; got 3$"),
        ([3], r"^columns must be column names \(strings\); got \[3\]$"),
        (["item", "nope"], r"^columns names \['nope'\], not columns of .*part-\d+\.parquet"),
    ],
    ids=["string", "int", "int-list", "unknown"],
)
def test_read_parquet_columns_are_a_parameter_error_not_an_unreadable_file(
    parquet, columns, message
):
    with pytest.raises(ParameterError, match=message):
        iad.read_parquet(parquet, columns=columns)


def test_read_parquet_path_is_checked():
    with pytest.raises(ParameterError, match=r"^path must be a str or os.PathLike; got None$"):
        iad.read_parquet(None)


def test_read_parquet_of_known_columns_still_reads(parquet, frames):
    ddf = iad.read_parquet(parquet, columns=("item", "annotator"))
    assert list(ddf.columns) == ["item", "annotator"]
    assert len(ddf.compute()) == len(frames[0])


@pytest.mark.parametrize("call", [iad.agreement, iad.pair_tables], ids=lambda f: f.__name__)
def test_a_pandas_frame_is_refused_naming_the_parameter(frames, call):
    with pytest.raises(ParameterError, match=r"^ddf must be a dask DataFrame; got DataFrame \("):
        call(frames[0], n_chance=50)
