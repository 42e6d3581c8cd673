"""Hostile review, round 6: every simulator checks its seed, its counts and its numbers the
same way (:mod:`iaa_frames.simulate.limits`), and refuses up front a corpus too large to
build in memory.

Before: ``simulate_tracks(annotators={})`` was pandas' "No objects to concatenate",
``classes=()`` numpy's "high <= 0", ``seed=-1`` numpy's "expected non-negative integer"
(also in ``simulate_cuboids``, ``simulate_keypoints`` and ``simulate_polylines``), and
``n_sequences=True`` one sequence; ``simulate(objects_per_item=1e9)`` and
``simulate(n_items=10**9)`` tried to allocate and died with a ``MemoryError``.
"""

import time

import pytest

import iaa_frames as iaf
from iaa_frames.errors import IAAError, ParameterError
from iaa_frames.simulate import (
    KeypointProfile,
    PolylineProfile,
    simulate_keypoints,
    simulate_polylines,
)

KP = {"a": KeypointProfile(), "b": KeypointProfile(jitter=0.1)}
PL = {"a": PolylineProfile(), "b": PolylineProfile(jitter=0.1)}

SIMULATORS = {
    "simulate": lambda **kw: iaf.simulate(**{"n_items": 2, **kw}),
    "simulate_with_truth": lambda **kw: iaf.simulate_with_truth(**{"n_items": 2, **kw}),
    "simulate_crowd": lambda **kw: iaf.simulate_crowd(**{"n_items": 2, "n_workers": 8, **kw}),
    "simulate_cuboids": lambda **kw: iaf.simulate_cuboids(**{"n_items": 2, **kw}),
    "simulate_keypoints": lambda **kw: simulate_keypoints(**{"n_items": 2, "annotators": KP, **kw}),
    "simulate_polylines": lambda **kw: simulate_polylines(**{"n_items": 2, "annotators": PL, **kw}),
    "simulate_tracks": lambda **kw: iaf.simulate_tracks(**{"n_sequences": 1, "n_frames": 3, **kw}),
    "simulate_drift": lambda **kw: iaf.simulate_drift(**{"n_items": 4, **kw}),
}


@pytest.mark.parametrize("name", SIMULATORS)
@pytest.mark.parametrize(
    "seed, shown",
    [(-1, "-1"), (1.5, "1.5"), (True, "True"), ("3", "'3'"), (2**64, str(2**64))],
    ids=["negative", "float", "bool", "text", "beyond-int64"],
)
def test_every_simulator_checks_its_seed(name, seed, shown):
    with pytest.raises(ParameterError, match=rf"^seed must be .*; got {shown}$"):
        SIMULATORS[name](seed=seed)


COUNTS = [
    ("simulate", "n_items"),
    ("simulate_crowd", "n_items"),
    ("simulate_crowd", "n_workers"),
    ("simulate_cuboids", "n_items"),
    ("simulate_keypoints", "n_items"),
    ("simulate_keypoints", "max_people"),
    ("simulate_polylines", "n_items"),
    ("simulate_polylines", "max_lines"),
    ("simulate_tracks", "n_sequences"),
    ("simulate_tracks", "n_frames"),
    ("simulate_tracks", "n_tracks"),
    ("simulate_drift", "n_items"),
]


@pytest.mark.parametrize("name, count", COUNTS, ids=[f"{n}-{c}" for n, c in COUNTS])
@pytest.mark.parametrize(
    "value, shown", [(True, "True"), (1.5, "1.5"), (0, "0"), ("2", "'2'")], ids=str
)
def test_every_count_is_an_integer_not_a_bool(name, count, value, shown):
    with pytest.raises(ParameterError, match=rf"^{count} must be an integer >= \d; got {shown}$"):
        SIMULATORS[name](**{count: value})


def test_a_count_of_numpy_type_is_still_a_count():
    import numpy as np

    a = iaf.simulate_tracks(n_sequences=np.int64(2), n_frames=4, seed=np.int64(1))
    b = iaf.simulate_tracks(n_sequences=2, n_frames=4, seed=1)
    assert a.equals(b)


# -- simulate_tracks: the defects of the review, and the profile fields ------------------


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"annotators": {}}, r"annotators must be None or a non-empty dict .*; got \{\}"),
        ({"annotators": ["A", "B"]}, r"annotators must be None or a non-empty dict .*\['A', 'B'\]"),
        ({"classes": ()}, r"classes must be a non-empty sequence of strings .*got \(\)"),
        ({"classes": "person"}, r"classes must be a non-empty sequence .*got 'person'"),
        ({"annotators": {"A": {"jitter": "a"}}}, r"annotator 'A': jitter must be a finite"),
        ({"annotators": {"A": {"miss": 1.0}}}, r"annotator 'A': miss must be .* < 1.0; got 1.0"),
        ({"annotators": {"A": {"swaps": "x"}}}, r"annotator 'A': swaps must be an integer"),
        ({"annotators": {"A": {"swaps": True}}}, r"annotator 'A': swaps must be an integer"),
        ({"annotators": {"A": {"swaps": 10**9}}}, r"annotator 'A': swaps must be at most 1,000"),
        ({"annotators": {"A": {"random_ids": "no"}}}, r"random_ids must be True or False"),
        ({"annotators": {"A": None}}, r"annotator 'A': a track profile is a dict"),
    ],
    ids=[
        "no-annotators",
        "annotator-list",
        "no-classes",
        "classes-string",
        "jitter-text",
        "miss-one",
        "swaps-text",
        "swaps-bool",
        "swaps-huge",
        "random-ids-text",
        "profile-none",
    ],
)
def test_simulate_tracks_refuses_with_a_parameter_error(kwargs, message):
    with pytest.raises(ParameterError, match=message):
        iaf.simulate_tracks(n_sequences=1, n_frames=3, **kwargs)


def test_simulate_tracks_n_sequences_true_is_refused_not_one_sequence():
    with pytest.raises(ParameterError, match=r"^n_sequences must be an integer >= 1; got True$"):
        iaf.simulate_tracks(n_sequences=True)


# -- the other simulators' parameters ---------------------------------------------------


@pytest.mark.parametrize(
    "name, kwargs, message",
    [
        ("simulate_cuboids", {"noise": "a"}, r"^noise must be a finite number >= 0.0; got 'a'$"),
        ("simulate_cuboids", {"extent": float("inf")}, r"^extent must be a finite number"),
        ("simulate_cuboids", {"annotators": "ab"}, r"^annotators must be .*; got 'ab'$"),
        ("simulate_cuboids", {"objects": (1.5, 3)}, r"^objects must be \(fewest, most\)"),
        ("simulate_cuboids", {"road": "x"}, r"^road must be a finite number >= 0.0; got 'x'$"),
        ("simulate_keypoints", {"image_size": "x"}, r"^image_size must be None or \(width"),
        ("simulate_keypoints", {"label": None}, r"^label must be a non-empty string"),
        ("simulate_keypoints", {"kind": "coco"}, r"^kind must be a KeypointsKind"),
        (
            "simulate_keypoints",
            {"annotators": {"a": KeypointProfile(joint_jitter={"tail": 1.0})}},
            r"annotator 'a': joint_jitter names \['tail'\], not joints of the kind",
        ),
        (
            "simulate_keypoints",
            {"annotators": {"a": KeypointProfile(swap_joints=("tail",))}},
            r"annotator 'a': swap_joints names \['tail'\], not joints of the kind",
        ),
        ("simulate_polylines", {"classes": "lane"}, r"^classes must be a non-empty sequence"),
        ("simulate_polylines", {"kind": "polyline"}, r"^kind must be a PolylineKind"),
        ("simulate_polylines", {"n_vertices": 99}, r"n_vertices must be an integer in 2\.\.\d+"),
        ("simulate_drift", {"drift_at": "x"}, r"^drift_at must be a finite number .*; got 'x'$"),
        ("simulate_drift", {"start": "never"}, r"^start and freq must give"),
        ("simulate_drift", {"annotators": "AB"}, r"^annotators must be .*; got 'AB'$"),
        ("simulate_drift", {"annotators": ()}, r"^annotators must name at least one"),
        ("simulate_drift", {"seed": 2**63 - 2}, r"^seed must be at most"),
    ],
)
def test_other_parameters_are_parameter_errors(name, kwargs, message):
    with pytest.raises(ParameterError, match=message):
        SIMULATORS[name](**kwargs)


@pytest.mark.parametrize("field", ["jitter", "swap", "occlusion", "drop", "miss"])
@pytest.mark.parametrize("value", [True, float("inf"), float("nan")], ids=str)
def test_keypoint_profile_numbers_are_finite_and_not_bools(field, value):
    with pytest.raises(ParameterError, match=rf"KeypointProfile\.{field} must be"):
        KeypointProfile(**{field: value})


@pytest.mark.parametrize("field", ["jitter", "miss", "flip"])
@pytest.mark.parametrize("value", [True, float("inf")], ids=str)
def test_polyline_profile_numbers_are_finite_and_not_bools(field, value):
    with pytest.raises(ParameterError, match=rf"PolylineProfile\.{field} must be"):
        PolylineProfile(**{field: value})


# -- a bounded allocation ---------------------------------------------------------------


@pytest.mark.parametrize(
    "name, kwargs, shown",
    [
        ("simulate", {"objects_per_item": 1e9}, "objects_per_item=1000000000.0"),
        ("simulate", {"n_items": 10**9}, "n_items=1000000000"),
        (
            "simulate",
            {"annotators": {"a": {"false_positives": 1e9}}},
            "false_positives=1000000000.0",
        ),
        ("simulate_with_truth", {"n_items": 10**9}, "n_items=1000000000"),
        ("simulate_crowd", {"n_items": 10**6, "n_workers": 10**4}, "n_workers=10000"),
        ("simulate_crowd", {"objects_per_item": 1e9}, "objects_per_item=1000000000.0"),
        ("simulate_cuboids", {"objects": (1, 10**9)}, "objects=(1, 1000000000)"),
        ("simulate_cuboids", {"n_items": 10**9}, "n_items=1000000000"),
        ("simulate_keypoints", {"max_people": 10**9}, "max_people=1000000000"),
        ("simulate_polylines", {"n_items": 10**9}, "n_items=1000000000"),
        ("simulate_tracks", {"n_frames": 10**9}, "n_frames=1000000000"),
        ("simulate_tracks", {"n_tracks": 10**9}, "n_tracks=1000000000"),
        ("simulate_drift", {"n_items": 10**9}, "n_items=1000000000"),
    ],
)
def test_a_corpus_too_large_for_memory_is_refused_up_front(name, kwargs, shown):
    start = time.perf_counter()
    with pytest.raises(ParameterError) as info:
        SIMULATORS[name](**kwargs)
    message = str(info.value)
    assert message.startswith(f"{name}(")
    assert shown in message.split(" would build")[0]
    assert "MAX_SIMULATED_ROWS = 20,000,000" in message
    assert "would build about" in message and "rows" in message
    assert time.perf_counter() - start < 5  # nothing was allocated


def test_the_cap_is_public_and_a_large_valid_corpus_is_still_built():
    from iaa_frames.simulate.limits import MAX_SIMULATED_ROWS

    assert MAX_SIMULATED_ROWS == 20_000_000
    df = iaf.simulate(n_items=2_000, objects_per_item=10, seed=0)  # ~ 60,000 rows
    assert len(df) > 50_000


def test_every_error_is_an_iaa_error():
    assert issubclass(ParameterError, IAAError)


NAMED = {
    "simulate": lambda names: iaf.simulate(n_items=2, annotators=dict.fromkeys(names, "good")),
    "simulate_keypoints": lambda names: simulate_keypoints(
        n_items=2, annotators=dict.fromkeys(names, KeypointProfile())
    ),
    "simulate_polylines": lambda names: simulate_polylines(
        n_items=2, annotators=dict.fromkeys(names, PolylineProfile())
    ),
    "simulate_cuboids": lambda names: iaf.simulate_cuboids(n_items=2, annotators=list(names)),
    "simulate_tracks": lambda names: iaf.simulate_tracks(
        n_sequences=1, n_frames=3, annotators=dict.fromkeys(names, {})
    ),
    "simulate_drift": lambda names: iaf.simulate_drift(n_items=2, annotators=list(names)),
}


@pytest.mark.parametrize("name", NAMED)
@pytest.mark.parametrize(
    "names, message",
    [
        (("a", 1), r"^annotator names must be non-empty strings, got 1$"),
        (("a", ""), r"^annotator names must be non-empty strings, got ''$"),
        (("a", "(all)"), r"^the annotator name '\(all\)' is reserved$"),
    ],
    ids=["int", "empty", "reserved"],
)
def test_every_simulator_checks_annotator_names_the_same_way(name, names, message):
    with pytest.raises(ParameterError, match=message):
        NAMED[name](names)


def test_cuboids_refuse_a_name_twice():
    with pytest.raises(ParameterError, match=r"^annotator names must be distinct"):
        iaf.simulate_cuboids(n_items=2, annotators=["a"], random_annotators=["a"])


@pytest.mark.parametrize(
    "keyword, hint",
    [
        ("colour", "; it takes n_items, n_workers, per_item, mix, seed, kind, classes"),
        ("n_worker", "; did you mean 'n_workers'?"),
        ("objects_per_itm", "; did you mean 'objects_per_item' or 'objects_per'?"),
    ],
)
def test_simulate_crowd_names_itself_for_an_unknown_keyword(keyword, hint):
    with pytest.raises(TypeError) as info:
        iaf.simulate_crowd(n_items=2, n_workers=4, **{keyword: 1})
    message = str(info.value)
    assert message.startswith(f"simulate_crowd() got an unexpected keyword argument {keyword!r}")
    assert hint in message
