"""The order names are shown in: digit runs as numbers, letters without case ("2" before
"10", "car" before "Christmas_tree"), for classes, annotators and items in every table and
figure.
"""

from __future__ import annotations

import re

__all__ = ["natural_key"]


def natural_key(name) -> tuple:
    """Sort key reading digit runs as numbers and letters without case.

    Examples
    --------
    >>> sorted(["10", "2", "1", "100"], key=natural_key)
    ['1', '2', '10', '100']
    >>> sorted(["car", "Christmas_tree", "air_conditioner"], key=natural_key)
    ['air_conditioner', 'car', 'Christmas_tree']
    >>> sorted(["m³", "²", "m2"], key=natural_key)  # superscripts are letters, not numbers
    ['m2', 'm³', '²']
    """
    # the runs re's \d splits off are decimal digits; "²" passes str.isdigit() but not int()
    parts = re.split(r"(\d+)", str(name))
    return tuple((0, int(p), "") if p.isdecimal() else (1, 0, p.casefold()) for p in parts if p)
