"""Fast group numbers for the analyses' group-bys: one int64 code per row instead of pandas'
multi-key machinery.

``DataFrame.groupby`` with several keys (``config, duplicate, game_id, hand_id, side``) spends
most of its time building the group index (``compress_group_index``, hashing every key), and
``drop_duplicates`` and ``transform`` pay the same again; on a report's millions of rows that
was most of the build. Here each key becomes small integer codes in its sort order (a
categorical's codes, a bool, an integer offset from its minimum) and the keys are combined into
one number per row whose order is the keys' lexicographic order, then numbered densely. The
groups, their order and the rows in each are exactly those of ``groupby(keys, sort=True,
observed=True)``, so a reduction over the codes gives the very same values (the same rows in
the same order). Keys this cannot number exactly (floats, text, missing values, ranges too wide
to combine) give ``None`` and the callers keep pandas' own path.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: The widest combined range numbered with a table instead of a sort.
_TABLE_RANGE = 1 << 24
_MAX_RANGE = 1 << 62


def _key_codes(column: pd.Series) -> tuple[np.ndarray, int] | None:
    """``(codes, size)``: the column as integers from 0 in its sort order, or None."""
    dtype = column.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        codes = column.cat.codes.to_numpy()
        if len(codes) and codes.min() < 0:  # missing values: pandas drops their rows
            return None
        return codes, len(dtype.categories)
    if pd.api.types.is_bool_dtype(dtype) and not isinstance(dtype, pd.BooleanDtype):
        return column.to_numpy(dtype=bool).view(np.int8), 2
    if pd.api.types.is_integer_dtype(dtype) and isinstance(dtype, np.dtype):
        values = column.to_numpy()
        if not len(values):
            return values.astype(np.int64), 1
        low, high = int(values.min()), int(values.max())
        if high - low < _TABLE_RANGE:
            return (np.subtract(values, low, dtype=np.int64) if low else values,
                    high - low + 1)
        codes, uniques = pd.factorize(values, sort=True)
        return codes.astype(np.int64), max(len(uniques), 1)
    return None


def group_codes(frame: pd.DataFrame, keys) -> tuple[np.ndarray, int] | None:
    """``(codes, n_groups)``: each row's group number (0 to ``n_groups - 1``, in the sorted
    order of the keys, as ``frame.groupby(keys, sort=True, observed=True)`` numbers its
    groups), or None where a key cannot be numbered exactly (see the module docstring).

    >>> frame = pd.DataFrame({"a": [2, 1, 2, 1], "b": [True, False, False, False]})
    >>> codes, n = group_codes(frame, ["a", "b"])
    >>> codes.tolist(), n
    ([2, 0, 1, 0], 3)
    """
    keys = list(keys)
    combined = np.zeros(len(frame), dtype=np.int64)
    span = 1
    for key in keys:
        found = _key_codes(frame[key])
        if found is None:
            return None
        codes, size = found
        if span * size >= _MAX_RANGE:
            return None
        combined *= size
        combined += codes
        span *= size
    if not len(combined):
        return combined, 0
    rising = np.diff(combined)
    if (rising >= 0).all():  # rows already in key order (per hand, per configuration): one pass
        number = np.zeros(len(combined), dtype=np.int64)
        np.cumsum(rising > 0, out=number[1:])
        return number, int(number[-1]) + 1
    if span <= max(_TABLE_RANGE, 4 * len(combined)):
        present = np.zeros(span, dtype=bool)
        present[combined] = True
        number = np.cumsum(present, dtype=np.int64) - 1
        return number[combined], int(number[-1]) + 1
    uniques, codes = np.unique(combined, return_inverse=True)
    return codes.astype(np.int64).reshape(-1), len(uniques)


def seat_grid(frame: pd.DataFrame) -> tuple[int, np.ndarray] | None:
    """``(players, sides)`` where the rows of ``frame`` are one configuration's hands one
    after the other, each as ``players`` rows (seats 0 to ``players - 1`` in order; ``sides``:
    their sides, alike in every hand), the hand ids rising and each hand of one ``duplicate``
    and ``game_id`` (the tidy frame of one configuration's independent hands); else None.
    Then a side-hand (``config, duplicate, game_id, hand_id, side``) is the rows of one side
    among one hand's ``players`` rows, and its group numbers need no sort.

    >>> frame = pd.DataFrame({"config": pd.Categorical(["c"] * 4), "duplicate": False,
    ...     "game_id": -1, "hand_id": [5, 5, 7, 7], "seat": [0, 1, 0, 1], "side": [0, 1, 0, 1]})
    >>> players, sides = seat_grid(frame)
    >>> players, sides.tolist()
    (2, [0, 1])
    """
    keys = ("config", "duplicate", "game_id", "hand_id", "seat", "side")
    if not len(frame) or any(key not in frame.columns for key in keys):
        return None
    config = frame["config"]
    if not isinstance(config.dtype, pd.CategoricalDtype):
        return None
    codes = config.cat.codes.to_numpy()
    if codes[0] < 0 or (codes != codes[0]).any():
        return None
    seat = frame["seat"].to_numpy()
    if not pd.api.types.is_integer_dtype(seat.dtype) or seat.min() < 0:
        return None
    players = int(seat.max()) + 1
    if len(seat) % players or not (seat.reshape(-1, players) == np.arange(players)).all():
        return None
    ids = frame["hand_id"].to_numpy().reshape(-1, players)
    sides = frame["side"].to_numpy().reshape(-1, players)
    if not ((ids == ids[:, :1]).all() and (np.diff(ids[:, 0]) > 0).all()
            and (sides == sides[:1]).all()):
        return None
    for key in ("duplicate", "game_id"):
        values = frame[key].to_numpy().reshape(-1, players)
        if not (values == values[:, :1]).all():
            return None
    return players, sides[0].astype(np.int64)


def text_values(column: pd.Series) -> np.ndarray:
    """``column.astype(str).to_numpy()``: the column as an object array of text, taken from
    the categories of a categorical column (one text per category, not per row: converting
    millions of rows to pandas' Arrow-backed text and back costs seconds).

    >>> text_values(pd.Series(["b", "a", "b"], dtype="category")).tolist()
    ['b', 'a', 'b']
    """
    if isinstance(column.dtype, pd.CategoricalDtype):
        codes = column.cat.codes.to_numpy()
        if not len(codes) or codes.min() >= 0:
            names = np.empty(max(len(column.cat.categories), 1), dtype=object)
            names[:len(column.cat.categories)] = [str(c) for c in column.cat.categories]
            return names[codes]
    return column.astype(str).to_numpy()


def first_positions(codes: np.ndarray, n_groups: int) -> np.ndarray:
    """The position of each group's first row, by group number."""
    first = np.full(n_groups, len(codes), dtype=np.int64)
    np.minimum.at(first, codes, np.arange(len(codes), dtype=np.int64))
    return first


def first_rows(frame: pd.DataFrame, keys) -> pd.DataFrame:
    """``frame.drop_duplicates(subset=keys)``: the first row of each group, in frame order."""
    found = group_codes(frame, keys)
    if found is None:
        return frame.drop_duplicates(subset=list(keys))
    codes, n_groups = found
    return frame.iloc[np.sort(first_positions(codes, n_groups))]


def group_sums(frame: pd.DataFrame, keys, column: str) -> np.ndarray | None:
    """Each row's group total of the integer ``column`` (``groupby(keys)[column]
    .transform("sum")``, as int64), or None where the keys cannot be numbered exactly."""
    found = group_codes(frame, keys)
    if found is None:
        return None
    codes, n_groups = found
    values = frame[column].to_numpy(dtype=np.int64)
    totals = np.zeros(n_groups, dtype=np.int64)
    np.add.at(totals, codes, values)
    return totals[codes]


def join_unique(left: pd.DataFrame, right: pd.DataFrame, on, suffix: str) -> pd.DataFrame:
    """``left.merge(right, on=on, suffixes=("", suffix))`` (an inner join, in the order of
    ``left``'s rows) where ``right`` holds each key once: each row of ``left`` with a match,
    then the columns of its match (``suffix`` added to the names ``left`` has too); pandas'
    own merge where the keys cannot be numbered or repeat in ``right``."""
    on = list(on)
    if len(right) and len(left) % len(right) == 0 and _aligned(left, right, on):
        rows = np.tile(np.arange(len(right), dtype=np.int64), len(left) // len(right))
        return _joined(left.reset_index(drop=True), right, on, rows, suffix)
    keys = pd.concat([left[on], right[on]], ignore_index=True)
    found = group_codes(keys, on)
    if found is not None:
        codes, n_groups = found
        match = np.full(n_groups, -1, dtype=np.int64)
        right_codes = codes[len(left):]
        match[right_codes] = np.arange(len(right), dtype=np.int64)
        if np.count_nonzero(match >= 0) == len(right):  # (each key of right once)
            rows = match[codes[:len(left)]]
            keep = rows >= 0
            return _joined(left.iloc[np.flatnonzero(keep)].reset_index(drop=True), right, on,
                           rows[keep], suffix)
    return left.merge(right, on=on, suffixes=("", suffix))


def _aligned(left: pd.DataFrame, right: pd.DataFrame, on) -> bool:
    """Whether ``left``'s keys are ``right``'s, in their order, repeated (the configurations
    of a run, one after the other, pair with the baseline row by row), each key of ``right``
    once."""
    repeats = len(left) // len(right)
    for key in on:
        mine, theirs = left[key].to_numpy(), right[key].to_numpy()
        if mine.dtype != theirs.dtype or mine.dtype.kind not in "iub":
            return False
        if not (mine.reshape(repeats, len(right)) == theirs[None, :]).all():
            return False
    found = group_codes(right, on)
    return found is not None and found[1] == len(right)


def _joined(left: pd.DataFrame, right: pd.DataFrame, on, rows, suffix: str) -> pd.DataFrame:
    """``left`` (index reset) beside the rows ``rows`` of ``right``'s other columns."""
    other = right.drop(columns=on).iloc[rows].reset_index(drop=True)
    other.columns = [f"{name}{suffix}" if name in left.columns else name
                     for name in other.columns]
    return pd.concat([left, other], axis=1)
