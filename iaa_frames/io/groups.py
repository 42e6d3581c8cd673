"""The ``group`` column a reader adds where its export names a natural group of images
(the video of a frame): see :func:`iaa_frames.validate`."""

from __future__ import annotations

import pandas as pd

from iaa_frames.errors import ReaderError
from iaa_frames.frame.schema import GROUP

__all__ = ["with_groups"]


def with_groups(out, groups: dict, *, return_dropped: bool = False, reader: str = "reader"):
    """The reader's output with a ``group`` column from ``groups`` (item -> set of group
    names), missing for the items it does not name; unchanged when ``groups`` is empty.

    Raises
    ------
    ReaderError
        If an item is given two groups (the message names the item and the groups).

    Examples
    --------
    >>> df = pd.DataFrame({"item": ["a", "b", "c"]})
    >>> with_groups(df, {"a": {"v1"}, "b": {"v1"}})["group"].tolist()
    ['v1', 'v1', nan]
    """
    if not groups:
        return out
    twice = {k: sorted(v) for k, v in groups.items() if len(v) > 1}
    if twice:
        shown = "; ".join(f"{k!r}: {', '.join(map(repr, v))}" for k, v in list(twice.items())[:5])
        raise ReaderError(
            f"{reader}: {len(twice)} image(s) belong to two or more groups ({shown}); an "
            "image belongs to one video"
        )
    frame = out[0] if return_dropped else out
    name = {k: next(iter(v)) for k, v in groups.items()}
    frame[GROUP] = pd.Series(frame["item"].map(name), index=frame.index, dtype="str")
    return (frame, out[1]) if return_dropped else frame
