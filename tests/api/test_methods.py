"""Tests for :mod:`iaa_frames.api.methods`: the accessor methods, written out, take the
keywords and the docstring of the functions they call, so ``help()`` and completion show
the real parameters."""

from __future__ import annotations

import inspect

import pytest

import iaa_frames as iaf
from iaa_frames.accessor.frame import IAAAccessor
from iaa_frames.plot.accessor import FramePlots, ResultPlots
from iaa_frames.settings.parameters import DEFAULT_N_BOOT, DEFAULTS, ENGINE

WRAPPED = {
    "agreement": iaf.agreement,
    "sigma": iaf.sigma,
    "ks": iaf.ks,
    "alpha": iaf.alpha,
    "pairwise": iaf.pairwise,
    "items": iaf.items,
    "conflicts": iaf.conflicts,
    "accuracy": iaf.accuracy,
    "annotator_quality": iaf.annotator_quality,
    "kalpha": iaf.kalpha,
}


def _keywords(func):
    return [
        (p.name, p.default)
        for p in inspect.signature(func).parameters.values()
        if p.kind is p.KEYWORD_ONLY
    ]


def test_df_iaa_sigma_lists_the_keywords_of_iaf_sigma():
    df = iaf.simulate(n_items=2, seed=0)
    assert _keywords(df.iaa.sigma) == _keywords(iaf.sigma)
    assert [name for name, _ in _keywords(df.iaa.sigma)] == [
        "component",
        "n_boot",
        "distance",
        "match_threshold",
        "n_chance",
        "seed",
        "overall",
        "progress",
    ]


@pytest.mark.parametrize("name", sorted(WRAPPED))
def test_each_method_has_the_signature_and_docstring_of_its_function(name):
    method, func = getattr(IAAAccessor, name), WRAPPED[name]
    assert _keywords(method) == _keywords(func)
    assert list(inspect.signature(method).parameters)[0] == "self"
    assert method.__doc__ == func.__doc__
    assert method.__name__ == name


@pytest.mark.parametrize("name", ["conflict_counts", "confusion", "item_agreement", "within"])
def test_a_function_of_tables_gets_its_keywords_then_the_engine_parameters(name):
    names = [n for n, _ in _keywords(getattr(IAAAccessor, name))]
    assert names[-len(ENGINE) :] == list(ENGINE)
    defaults = dict(_keywords(getattr(IAAAccessor, name)))
    assert all(defaults[n] == getattr(DEFAULTS, n) for n in ENGINE)


@pytest.mark.parametrize("name", ["forest", "decomposition", "annotators", "pairwise", "items"])
def test_a_frame_figure_takes_the_result_figure_s_keywords_then_agreement_s(name):
    drawn, engine = _keywords(getattr(ResultPlots, name)), _keywords(iaf.agreement)
    assert _keywords(getattr(FramePlots, name)) == drawn + engine
    assert dict(engine)["n_boot"] == DEFAULT_N_BOOT


def test_a_frame_figure_draws_what_the_result_figure_draws():
    df = iaf.simulate(n_items=8, seed=0)
    got = df.iaa.plot.forest(components=["localization"], n_chance=50, n_boot=0)
    res = df.iaa.agreement(n_chance=50, n_boot=0)
    want = res.iaa.plot.forest(components=["localization"])
    assert [ax.get_title() for ax in got.axes] == [ax.get_title() for ax in want.axes]


# ------------------------------------------- unknown keywords: "did you mean" (#42 item 5)


def test_an_accessor_method_names_itself_as_called_and_the_nearest_keyword():
    # Python said "AgreementMethods.agreement() got an unexpected keyword argument"
    df = iaf.simulate(n_items=6, seed=0)
    with pytest.raises(TypeError) as info:
        df.iaa.agreement(n_chanse=50, n_boot=0)
    assert str(info.value) == (
        "df.iaa.agreement() got an unexpected keyword argument 'n_chanse'; did you mean 'n_chance'?"
    )
    res = df.iaa.agreement(n_chance=50, n_boot=0)  # the suggestion followed
    with pytest.raises(
        TypeError, match=r"^df\.iaa\.sigma\(\) .*'componet'; did you mean 'component'"
    ):
        df.iaa.sigma(componet="detection", n_chance=50, n_boot=0)
    assert df.iaa.sigma(component="detection", n_chance=50, n_boot=0).ndim >= 0
    with pytest.raises(TypeError, match=r"^res\.iaa\.reading\(\) .*did you mean 'max_labels'"):
        res.iaa.reading(max_label=3)
    assert res.iaa.reading(max_labels=3)
    with pytest.raises(TypeError, match=r"^res\.iaa\.sigma\(\) .*it takes component"):
        res.iaa.sigma(zzz=1)


def test_every_accessor_method_says_did_you_mean():
    """Every public method of the four accessor classes checks its keywords (the three
    plot methods without doc_from were the last without it)."""
    import inspect

    from iaa_frames.accessor import IAAAccessor, ResultAccessor
    from iaa_frames.plot.accessor import FramePlots, ResultPlots

    classes = (IAAAccessor, ResultAccessor, FramePlots, ResultPlots)
    methods = [
        (cls.__name__, name, member)
        for cls in classes
        for name, member in inspect.getmembers(cls, inspect.isfunction)
        if not name.startswith("_")
    ]
    assert len(methods) > 40  # the mixins' methods included
    missing = [f"{c}.{n}" for c, n, m in methods if not hasattr(m, "__wrapped__")]
    df = iaf.simulate(n_items=6, seed=0)
    res = df.iaa.agreement(n_chance=50, n_boot=0)
    with pytest.raises(TypeError, match=r"^res\.iaa\.plot\.items\(\) .*did you mean 'top'"):
        res.iaa.plot.items(topp=3)
    with pytest.raises(TypeError, match=r"^df\.iaa\.plot\.item\(\) .*did you mean 'item'"):
        df.iaa.plot.item(itm="x")
    assert missing == []


def test_forest_by_names_the_figure_and_how_to_choose_its_rows():
    # issue #42 item 5: forest(by=...) named FramePlots.forest / ResultPlots.forest
    df = iaf.simulate(n_items=6, seed=0)
    res = df.iaa.agreement(n_chance=50, n_boot=0)
    with pytest.raises(TypeError) as info:
        res.iaa.plot.forest(by="annotator")
    text = str(info.value)
    assert text.startswith("res.iaa.plot.forest() got an unexpected keyword argument 'by'")
    assert "label=L draws one row per annotator" in text
    with pytest.raises(TypeError, match=r"^df\.iaa\.plot\.forest\(\) .*'by'.*label=L"):
        df.iaa.plot.forest(by="annotator", n_chance=50, n_boot=0)
    label = next(v for v in res["label"].values.tolist() if v != "(all)")
    fig = res.iaa.plot.forest(label=label, components=["localization"])  # the remedy
    rows = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    annotators = set(res["annotator"].values.tolist())
    assert rows and set(rows) <= annotators


def test_checked_methods_keep_their_signature_docstring_and_module():
    from iaa_frames.accessor.result import ResultAccessor
    from iaa_frames.api.methods import keywords_checked

    for klass in (IAAAccessor, ResultAccessor, FramePlots, ResultPlots):
        for name, member in inspect.getmembers(klass, inspect.isfunction):
            if name.startswith("_") or not hasattr(member, "__wrapped__"):
                continue
            assert inspect.signature(member) == inspect.signature(member.__wrapped__)
            assert member.__module__ == member.__wrapped__.__module__
            assert member.__globals__ is member.__wrapped__.__globals__  # doctest finds it

    # a method that takes **kwargs is left as it is
    def free(self, **kwargs): ...

    assert keywords_checked(free) is free
