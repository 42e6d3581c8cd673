"""Helpers shared by the tests of iaa_frames.io (no tests here; imported by the test_io_* modules)."""

from pathlib import Path

FIX = Path(__file__).parent / "fixtures"


def row_of(df, **match):
    """The single row of ``df`` whose columns equal ``match``."""
    mask = True
    for k, v in match.items():
        mask = mask & (df[k] == v)
    sub = df[mask]
    assert len(sub) == 1, f"{len(sub)} rows match {match}"
    return sub.iloc[0]
