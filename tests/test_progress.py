"""Progress bars (#25 point 8): one bar per stage, its total fixed when it opens, never
nested, every bar ending at its total exactly once; silent by default on short runs."""

from __future__ import annotations

import io
import re
from concurrent.futures import Future

import pytest

import iaa_frames as iaf
from iaa_frames import progress
from iaa_frames.core.chance import gating
from iaa_frames.core.chance.strata import STEPS
from iaa_frames.core.engine import assemble
from iaa_frames.core.tables.pairs import pair_tables


class Recorder:
    """Every bar the engine opens (through ``iaa_frames.progress.tqdm``), with its total
    at creation, the totals and positions seen at every update, and how many of the
    engine's bars were open at once."""

    def __init__(self, monkeypatch, file=None):
        self.bars = []
        self.open = 0
        self.most_open = 0
        rec = self
        base = progress.tqdm

        class Recording(base):
            def __init__(self, *args, **kwargs):
                if file is not None:
                    kwargs["file"] = file
                super().__init__(*args, **kwargs)
                self.log = {"desc": self.desc, "total": self.total, "seen": [], "ns": [self.n]}
                self.log["closed"] = False
                rec.bars.append(self.log)
                rec.open += 1
                rec.most_open = max(rec.most_open, rec.open)

            def update(self, n=1):
                out = super().update(n)
                self.log["seen"].append(self.total)
                self.log["ns"].append(self.n)
                return out

            def close(self):
                if not self.log["closed"]:
                    self.log["closed"] = True
                    self.log["final"] = self.n
                    self.log["seen"].append(self.total)
                    rec.open -= 1
                super().close()

        monkeypatch.setattr(progress, "tqdm", Recording)

    def check(self):
        """Every bar closed at its total, the total never changed, positions only grow
        and reach the total once (at the end), one bar open at a time."""
        assert self.bars
        assert self.most_open == 1
        for bar in self.bars:
            assert bar["closed"], bar["desc"]
            assert all(t == bar["total"] for t in bar["seen"]), bar["desc"]
            assert bar["final"] == bar["total"], bar["desc"]
            ns = bar["ns"]
            assert all(b >= a for a, b in zip(ns, ns[1:], strict=False)), bar["desc"]
            assert max(ns) <= bar["total"], bar["desc"]
            # 100 % once: only the last position equals the total (a bar of 0 starts there)
            assert bar["total"] == 0 or ns.count(bar["total"]) == 1, (bar["desc"], ns)

    def descs(self):
        return [b["desc"] for b in self.bars]


@pytest.fixture(scope="module")
def sampled():
    """A corpus whose chance population is sampled (over 20,000 pairings)."""
    return iaf.simulate(n_items=120, seed=3)


def test_agreement_bars_one_per_stage(monkeypatch, sampled):
    rec = Recorder(monkeypatch)
    ds = iaf.agreement(sampled, n_chance=300, n_boot=20, progress=True)
    assert ds.attrs["chance_population"] == "sampled"
    rec.check()
    names = rec.descs()
    for stage in ("within-item matching", "chance index", "chance pairings", "bootstrap"):
        assert names.count(stage) == 1, names
    assert names.index("within-item matching") < names.index("chance index")
    assert names.index("chance index") < names.index("chance pairings")
    assert names.index("chance pairings") < names.index("bootstrap")
    steps = rec.bars[names.index("chance pairings")]
    assert steps["total"] == len(STEPS) * progress.Steps.SCALE


def test_ungated_strata_at_tau_zero(monkeypatch, sampled):
    # at tau = 0 no index is built: the strata draw pairings and test them
    rec = Recorder(monkeypatch)
    t = pair_tables(sampled, match_threshold=0.0, n_chance=200, progress=True)
    assert t.params["chance_population"] == "sampled"
    rec.check()
    assert "chance index" not in rec.descs() and "chance pairings" in rec.descs()


def test_enumerated_chance_population(monkeypatch):
    rec = Recorder(monkeypatch)
    t = pair_tables(iaf.simulate(n_items=10, seed=0), n_chance=100, progress=True)
    assert t.params["chance_population"] == "enumerated"
    rec.check()
    assert rec.descs() == ["within-item matching", "chance pairings", "per-class chance matching"]


def _pairs_of(counts):
    """Object pairs of two different annotators, from per-annotator counts per group."""
    total = counts.groupby(level=0).sum()
    squares = (counts**2).groupby(level=0).sum()
    return int(((total**2 - squares) // 2).sum())


def test_within_matching_total_counts_every_candidate_pair(monkeypatch, sampled):
    # the old bar's total grew as the chance work was found (261k -> 2.41M): now the
    # within-item total is fixed: the candidate pairs of whole annotations and of classes
    rec = Recorder(monkeypatch)
    t = pair_tables(sampled, n_chance=200, progress=True)
    rec.check()
    u = t.units
    whole = _pairs_of(u.groupby(["item", "annotator"]).size())
    by_class = _pairs_of(u.groupby([u["item"] * 1000 + u["label"], "annotator"]).size())
    bar = rec.bars[rec.descs().index("within-item matching")]
    assert bar["total"] == whole + by_class


def test_threshold_sweep_names_each_stage_with_its_threshold(monkeypatch):
    rec = Recorder(monkeypatch)
    iaf.agreement(
        iaf.simulate(n_items=8, seed=0),
        match_threshold=[0.3, 0.6],
        n_chance=50,
        n_boot=5,
        progress=True,
    )
    rec.check()
    names = rec.descs()
    assert "τ = 0.3 (1/2): within-item matching" in names
    assert "τ = 0.6 (2/2): within-item matching" in names
    assert names.count("bootstrap") == 2


def test_tree_index_over_budget_ends_at_its_total(monkeypatch, sampled):
    # the R-tree gives up past its budget: its bar still ends (at its total), and the
    # strata that draw pairings instead have their own bar
    monkeypatch.setattr(gating, "OBJECT_PAIR_BUDGET", 0)
    monkeypatch.setattr(gating, "TREE_PAIR_BUDGET", 10)
    rec = Recorder(monkeypatch)
    pair_tables(sampled, n_chance=200, progress=True)
    rec.check()
    assert rec.descs().count("chance index") == 1


def test_tree_index_bar(monkeypatch, sampled):
    monkeypatch.setattr(gating, "OBJECT_PAIR_BUDGET", 0)
    rec = Recorder(monkeypatch)
    t = pair_tables(sampled, n_chance=200, progress=True)
    rec.check()
    bar = rec.bars[rec.descs().index("chance index")]
    assert bar["total"] == len(t.corpus.objects)


def test_text_output_reaches_100_percent_once_per_bar(monkeypatch, sampled):
    out = io.StringIO()
    Recorder(monkeypatch, file=out)
    iaf.agreement(sampled, n_chance=300, n_boot=10, progress=True)
    text = out.getvalue()
    lines = [s for s in re.split(r"[\r\n]", text) if s.strip()]
    for stage in ("within-item matching", "chance index", "chance pairings", "bootstrap"):
        seen = [s for s in lines if s.startswith(stage + ":")]
        pct = [int(m.group(1)) for s in seen if (m := re.search(r":\s+(\d+)%", s))]
        assert pct and pct[-1] == 100, stage
        assert pct == sorted(pct), (stage, pct)  # never back (no restart)


def test_default_is_silent_on_a_small_corpus(capsys):
    df = iaf.simulate(n_items=20, seed=0)
    iaf.agreement(df, n_chance=200, n_boot=20)
    iaf.agreement(df, n_chance=200, n_boot=0, match_threshold=[0.3, 0.6])
    assert capsys.readouterr().err == ""


def test_default_bars_wait_for_the_delay(monkeypatch):
    kw = []
    base = progress.tqdm

    class Spy(base):
        def __init__(self, *args, **kwargs):
            kw.append(kwargs)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(progress, "tqdm", Spy)
    pair_tables(iaf.simulate(n_items=10, seed=0), n_chance=100)
    assert kw and all(k["delay"] == progress.DELAY and not k["disable"] for k in kw)
    assert progress.DELAY == 2.0
    kw.clear()
    pair_tables(iaf.simulate(n_items=10, seed=0), n_chance=100, progress=False)
    assert kw == []  # no tqdm at all: quiet bars


def test_steps_pass_over_skipped_steps_and_never_go_back():
    out = io.StringIO()
    with progress.Bars(True, file=out).steps(["a", "b", "c", "d"], desc="s") as steps:
        steps.start("a")
        steps.part(1, 2)
        half = steps.bar.n
        assert 0 < half < progress.Steps.SCALE
        steps.start("c")
        assert steps.bar.n == 2 * progress.Steps.SCALE
        steps.part(5, 4)  # more than the total: stays inside the step
        assert steps.bar.n < 3 * progress.Steps.SCALE
        steps.start("b")  # a step out of order does not move the bar back
        assert steps.bar.n >= 2 * progress.Steps.SCALE
    assert steps.bar.n == steps.bar.total == 4 * progress.Steps.SCALE
    assert "s: 100%" in out.getvalue()


def test_steps_left_by_an_error_stay_short():
    with pytest.raises(ValueError):
        with progress.Bars(True, file=io.StringIO()).steps(["a", "b"], desc="s") as steps:
            steps.start("b")
            raise ValueError
    assert steps.bar.n == progress.Steps.SCALE < steps.bar.total


def test_ks_bar_when_the_tests_outlast_the_bootstrap(monkeypatch):
    import queue
    import threading

    rec = Recorder(monkeypatch)
    done, future = queue.SimpleQueue(), Future()
    done.put("detection")  # one component finished before the wait

    def finish():
        for name in ("localization", "overall"):
            done.put(name)
        future.set_result({"ks": 1})

    timer = threading.Timer(0.2, finish)
    timer.start()
    assert assemble._await_tests(future, done, True) == {"ks": 1}
    timer.join()
    rec.check()
    assert rec.descs() == ["KS tests"] and rec.bars[0]["ns"][0] == 1


def test_no_ks_bar_when_the_tests_are_done(monkeypatch):
    import queue

    rec = Recorder(monkeypatch)
    done, future = queue.SimpleQueue(), Future()
    for name in ("detection", "localization", "overall"):
        done.put(name)
    future.set_result({})
    assert assemble._await_tests(future, done, True) == {}
    assert rec.bars == []


def test_ks_errors_propagate(monkeypatch):
    import queue

    Recorder(monkeypatch)
    done, future = queue.SimpleQueue(), Future()
    future.set_exception(RuntimeError("boom"))
    with pytest.raises(RuntimeError, match="boom"):
        assemble._await_tests(future, done, True)


def test_progress_false_makes_no_bar_and_the_same_result(monkeypatch, capsys):
    """``progress=False`` opens no tqdm bar at all (a quiet stand-in counts the work), and
    the result is that of a run with every bar shown."""
    rec = Recorder(monkeypatch, file=io.StringIO())
    df = iaf.simulate(n_items=10, seed=4)
    quiet = iaf.agreement(df, n_boot=20, n_chance=300, progress=False)
    assert rec.bars == []
    shown = iaf.agreement(df, n_boot=20, n_chance=300, progress=True)
    rec.check()
    assert quiet.equals(shown)
    assert capsys.readouterr().err == ""


def test_the_quiet_bar_counts_as_a_bar():
    with progress.Bars(False).steps(["a", "b"], desc="demo") as steps:
        steps.start("b")
        steps.part(1, 2)
    assert isinstance(steps.bar, progress.QuietBar)
    assert steps.bar.n == steps.bar.total == 2 * progress.Steps.SCALE
