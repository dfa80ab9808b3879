"""The optional columns of a run, after the tidy columns of ``core.schema.TIDY_TYPES``: the par
columns of a run played with par (``--par``), then the ``cards`` column of a run played with
``--cards`` and the seat's hand features derived from it (``core.features.FEATURE_TYPES``):
their names and types.

They live here, not in ``schema.py``, because ``schema.py`` is part of the engine's hash (the
kernels take their record arrays from it): a run without them keeps its columns, its bytes and
its identity. ``docs/runs.md`` documents each column.
"""

from __future__ import annotations

from .features import FEATURE_TYPES
from .schema import TIDY_TYPES

#: The par columns and their types: ``par_tricks`` (int8), the double-dummy tricks of the row's
#: side (of its seat, against all the others, without partnerships); ``par_nil_safe`` (bool,
#: missing where the seat did not bid nil), whether the seat's nil is double-dummy safe.
PAR_TYPES = {"par_tricks": "int8", "par_nil_safe": "bool"}
PAR_COLUMNS = tuple(PAR_TYPES)
#: The only columns of a run that may hold missing values.
NULLABLE_COLUMNS = ("par_nil_safe",)
#: The cards column of a run played with ``--cards``: ``cards`` (int64), the seat's cards as
#: dealt (with ``deal = draw``, after the draw; before any exchange), a bitboard with bit
#: ``card`` set for each card held (``core/cards.py``: card indices 0..53, so never
#: negative): about 8 bytes a row.
CARDS_TYPES = {"cards": "int64"}


def tidy_types(par: bool = False, cards: bool = False) -> dict:
    """The columns of a run and their types: ``TIDY_TYPES``, with ``par`` the par columns after
    them, and with ``cards`` the cards column and the ``seat_*`` feature columns last."""
    return {**TIDY_TYPES, **(PAR_TYPES if par else {}),
            **({**CARDS_TYPES, **FEATURE_TYPES} if cards else {})}


def tidy_columns(par: bool = False, cards: bool = False) -> tuple:
    """The column names of a run, in order (:func:`tidy_types`)."""
    return tuple(tidy_types(par, cards))
