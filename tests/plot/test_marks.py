"""plot.marks.na_note: one line per kind of reason, whatever number each one carries."""

from __future__ import annotations

from iaa_frames.core.engine.labels import FEW_DISAGREEMENTS_NOTE
from iaa_frames.plot.marks import na_note


def test_reasons_that_differ_by_their_expected_number_make_one_line():
    """On a crowd (60 annotators, a few items each) every annotator's classification
    carried its own expected number of disagreements ("(1.5)", "(0.9)", ...): the
    annotator profiles' note had one four-line paragraph per annotator, longer than the
    plot; the reasons of one kind are one line, their numbers listed in order."""
    tail = ": unrelated matched objects almost always share a label"
    entries = [
        (f"classification of w{k}", f"{FEW_DISAGREEMENTS_NOTE} ({x}){tail}")
        for k, x in enumerate(["1.5", "0.9", "2.1", "1.5"])
    ]
    text = na_note(entries)
    assert text.count("\n") == 0
    assert f"{FEW_DISAGREEMENTS_NOTE} (0.9, 1.5, 2.1){tail}" in text
    assert "w0, classification of w1, classification of w2, classification of w3" in text


def test_counts_keep_their_form():
    """The chance-unit counts are still written as counts, with thousands separators."""
    entries = [
        ("ben", "too few chance units (n=1200: the whole chance population)"),
        ("ann", "too few chance units (n=27: the whole chance population)"),
        ("cy", "interval not reported: rests on 3 items (fewer than 4)"),
    ]
    assert na_note(entries).splitlines() == [
        "n/a: too few chance units (n=27, 1,200: the whole chance population): ben, ann",
        "n/a: interval not reported: rests on 3 items (fewer than 4): cy",
    ]
