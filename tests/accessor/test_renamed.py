"""One name per thing: the former accessor and figure names still work for a release, with
a FutureWarning naming the new one."""

import pytest

import iaa_frames as iaf
from iaa_frames import plot
from iaa_frames.accessor.frame import RENAMED, IAAAccessor
from iaa_frames.plot.accessor import RENAMED as RENAMED_PLOTS
from iaa_frames.plot.accessor import FramePlots, ResultPlots


@pytest.mark.parametrize(("old", "new"), sorted(RENAMED.items()))
def test_former_frame_method_names_warn_and_give_the_new_method(old, new):
    df = iaf.simulate(n_items=2, seed=0)
    with pytest.warns(FutureWarning, match=rf"\.{old}\(\) is deprecated.*use \.{new}\(\)"):
        method = getattr(df.iaa, old)
    assert method.__func__ is getattr(IAAAccessor, new)
    assert old not in dir(IAAAccessor)  # completion offers the new name only


def test_former_figure_names_warn_and_give_the_new_figure():
    df = iaf.simulate(n_items=6, seed=0)
    assert RENAMED_PLOTS == {"agreement": "forest"}
    with pytest.warns(FutureWarning, match=r"use \.forest\(\)"):
        assert df.iaa.plot.agreement.__func__ is FramePlots.forest
    res = df.iaa.agreement(n_chance=50, n_boot=0)
    with pytest.warns(FutureWarning, match=r"use \.forest\(\)"):
        assert res.iaa.plot.agreement.__func__ is ResultPlots.forest
    with pytest.warns(FutureWarning, match="use iaa_frames.plot.forest"):
        fig = plot.agreement(res, components=["localization"])
    assert [ax.get_title() for ax in fig.axes] == ["localization σ", "raw IoU"]


def test_other_missing_names_raise_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'sigmaa'"):
        iaf.simulate(n_items=2, seed=0).iaa.sigmaa  # noqa: B018
