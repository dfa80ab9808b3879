"""The par columns of a run played with par (``--par``): their names and types, after the tidy
columns of ``core.schema.TIDY_TYPES``.

They live here, not in ``schema.py``, because ``schema.py`` is part of the engine's hash (the
kernels take their record arrays from it): a run without par keeps its columns, its bytes and
its identity. ``docs/runs.md`` documents each column.
"""

from __future__ import annotations

from .schema import TIDY_TYPES

#: The par columns and their types: ``par_tricks`` (int8), the double-dummy tricks of the row's
#: side (of its seat, against all the others, without partnerships); ``par_nil_safe`` (bool,
#: missing where the seat did not bid nil), whether the seat's nil is double-dummy safe.
PAR_TYPES = {"par_tricks": "int8", "par_nil_safe": "bool"}
PAR_COLUMNS = tuple(PAR_TYPES)
#: The only columns of a run that may hold missing values.
NULLABLE_COLUMNS = ("par_nil_safe",)


def tidy_types(par: bool = False) -> dict:
    """The columns of a run and their types: ``TIDY_TYPES``, and with ``par`` the par columns
    after them."""
    return {**TIDY_TYPES, **PAR_TYPES} if par else dict(TIDY_TYPES)


def tidy_columns(par: bool = False) -> tuple:
    """The column names of a run, in order (:func:`tidy_types`)."""
    return tuple(tidy_types(par))
