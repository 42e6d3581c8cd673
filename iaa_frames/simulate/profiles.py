"""How a simulated annotator redraws the true objects: :class:`Profile` and the
named :data:`PRESETS`."""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Mapping

import numpy as np

from iaa_frames.errors import ParameterError

__all__ = ["FIELDS", "PRESETS", "Profile", "as_profile", "check_fields"]


@dataclasses.dataclass(frozen=True, kw_only=True)
class Profile:
    """How one simulated annotator redraws the true objects.

    All fields combine. The pipeline per annotator is: pick the *source* objects (the
    truth; or ``random`` shapes; or the ``lazy_center`` box), ``mirror`` them, drop each
    with probability ``miss``, relabel with probability ``confusion``, add ``jitter``, clip
    to the image, add ``false_positives``, and finally drop the items not reviewed
    (``coverage``).

    Parameters
    ----------
    jitter : float, default 0
        Localization noise: every box coordinate (or polygon vertex coordinate) moves by
        Normal(0, jitter · size), where size is the object's width for x and its height
        for y.
    miss : float in [0, 1], default 0
        Probability that each source object is not drawn.
    false_positives : float >= 0, default 0
        Expected number of spurious objects per reviewed item (Poisson), with random
        shapes and uniformly random classes.
    confusion : float in [0, 1], default 0
        Probability that a drawn object gets a different class, chosen uniformly among
        the wrong ones (no effect with a single class).
    lazy_center : bool, default False
        Ignore the truth: draw one central box covering the middle
        ``LAZY_CENTER_FRACTION`` (60 %) of each side of every item, labelled with the
        item's first true class (a random class on items without objects). With
        ``kind="polygon"`` the box is drawn as a rectangular polygon.
    random : bool, default False
        Ignore the image content: draw as many objects as the truth's count distribution
        would give (an independent draw, not the item's true count), with uniformly
        random positions, plausible sizes and uniformly random classes.
    mirror : bool, default False
        Draw the source objects mirrored horizontally about the image centre
        (systematic disagreement).
    coverage : float in (0, 1], default 1
        Probability that the annotator reviewed an item at all; items not reviewed get
        no rows, not even a coverage row.
    attribute_flip : float in [0, 1] or dict {attribute: float}, default 0
        Probability that a drawn object's attribute (``simulate(attributes=...)``) takes
        another value than the true one, chosen uniformly among the others: one rate
        for every attribute, or a rate per attribute (those not named: 0). Objects with
        no true counterpart (false positives, random and lazy-center draws) draw every
        attribute uniformly.

    See Also
    --------
    PRESETS : named profiles, usable as strings in ``simulate(annotators=...)``.

    Examples
    --------
    >>> from iaa_frames.simulate import Profile
    >>> Profile(jitter=0.05, miss=0.1)
    Profile(jitter=0.05, miss=0.1, false_positives=0.0, confusion=0.0, lazy_center=False, random=False, mirror=False, coverage=1.0, attribute_flip=0.0)
    >>> Profile.preset("sloppy", coverage=0.5).jitter
    0.15
    """

    jitter: float = 0.0
    miss: float = 0.0
    false_positives: float = 0.0
    confusion: float = 0.0
    lazy_center: bool = False
    random: bool = False
    mirror: bool = False
    coverage: float = 1.0
    attribute_flip: float | tuple = 0.0

    def __post_init__(self):
        ranges = {
            "jitter": (0.0, math.inf, "a finite number >= 0"),
            "miss": (0.0, 1.0, "a probability in [0, 1]"),
            "false_positives": (0.0, math.inf, "a finite number >= 0"),
            "confusion": (0.0, 1.0, "a probability in [0, 1]"),
            "coverage": (0.0, 1.0, "a probability in (0, 1]"),
        }
        for name, (lo, hi, what) in ranges.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise ParameterError(f"Profile.{name} must be {what}, got {value!r}")
            value = float(value)
            if not (math.isfinite(value) and lo <= value <= hi) or (
                name == "coverage" and value == 0.0
            ):
                raise ParameterError(f"Profile.{name} must be {what}, got {value!r}")
            object.__setattr__(self, name, value)
        for name in ("lazy_center", "random", "mirror"):
            value = getattr(self, name)
            if not isinstance(value, (bool, np.bool_)):
                raise ParameterError(f"Profile.{name} must be True or False, got {value!r}")
            object.__setattr__(self, name, bool(value))
        object.__setattr__(self, "attribute_flip", _flip_rates(self.attribute_flip))
        if self.lazy_center and self.random:
            raise ParameterError(
                "Profile: lazy_center and random both replace the truth; set at most one"
            )

    def flip_rate(self, attribute: str) -> float:
        """The probability that this annotator flips ``attribute``.

        Examples
        --------
        >>> from iaa_frames.simulate import Profile
        >>> p = Profile(attribute_flip={"color": 0.2})
        >>> p.flip_rate("color"), p.flip_rate("occluded")
        (0.2, 0.0)
        """
        if isinstance(self.attribute_flip, float):
            return self.attribute_flip
        return dict(self.attribute_flip).get(attribute, 0.0)

    @classmethod
    def preset(cls, name: str, /, **overrides) -> Profile:
        """The preset profile ``name`` (see :data:`PRESETS`), with fields overridden.

        Examples
        --------
        >>> from iaa_frames.simulate import Profile
        >>> Profile.preset("good").miss
        0.02
        """
        if not isinstance(name, str):
            raise ParameterError(f"a preset name must be a string, got {name!r}")
        key = name.strip().lower().replace("_", "-")
        if key not in PRESETS:
            raise ParameterError(
                f"unknown annotator preset {name!r}; valid presets: {', '.join(PRESETS)}"
            )
        return PRESETS[key].replace(**overrides)

    def replace(self, **changes) -> Profile:
        """A copy with some fields changed (validated like the constructor).

        Examples
        --------
        >>> from iaa_frames.simulate import Profile
        >>> Profile(jitter=0.1).replace(miss=0.2).miss
        0.2
        """
        check_fields(changes, "Profile.replace")
        return dataclasses.replace(self, **changes)


def _flip_rates(value):
    """A flip rate (float) or sorted ``((attribute, rate), ...)`` (hashable)."""
    what = "a probability in [0, 1] or a dict {attribute: probability}"

    def rate(v):
        if isinstance(v, bool) or not isinstance(v, numbers.Real) or not 0.0 <= v <= 1.0:
            raise ParameterError(f"Profile.attribute_flip must be {what}, got {value!r}")
        return float(v)

    if isinstance(value, Mapping):
        if not all(isinstance(k, str) for k in value):
            raise ParameterError(
                f"Profile.attribute_flip: attribute names must be strings, got {value!r}"
            )
        return tuple(sorted((k, rate(v)) for k, v in value.items()))
    if isinstance(value, tuple) and all(isinstance(x, tuple) and len(x) == 2 for x in value):
        return _flip_rates(dict(value))
    return rate(value)


FIELDS = tuple(f.name for f in dataclasses.fields(Profile))


def check_fields(mapping, where):
    unknown = [k for k in mapping if k not in FIELDS]
    if unknown:
        raise ParameterError(
            f"{where}: unknown profile field(s) {', '.join(map(repr, unknown))}; "
            f"valid fields: {', '.join(FIELDS)}"
        )


#: Named annotator profiles; strings accepted wherever a profile is.
PRESETS: dict[str, Profile] = {
    "perfect": Profile(),
    "good": Profile(jitter=0.02, miss=0.02),
    "sloppy": Profile(jitter=0.15),
    "misser": Profile(miss=0.3),
    "mislabeler": Profile(confusion=0.3),
    "random": Profile(random=True),
    "mirror": Profile(mirror=True),
    "lazy-center": Profile(lazy_center=True),
}


def as_profile(name, value) -> Profile:
    if isinstance(value, Profile):
        return value
    if isinstance(value, str):
        return Profile.preset(value)
    if isinstance(value, Mapping):
        fields = dict(value)
        base = fields.pop("preset", None)
        check_fields(fields, f"annotator {name!r}")
        if base is not None:
            return Profile.preset(base, **fields)
        return Profile(**fields)
    raise ParameterError(
        f"annotator {name!r}: a profile must be a Profile, a dict of its fields "
        f"({', '.join(FIELDS)}) or a preset name ({', '.join(PRESETS)}); got {value!r}"
    )
