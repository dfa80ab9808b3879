"""The Python side of ``table.py``: a piece of a run whose Python seats decide between calls.

:class:`MixedPiece` allocates the arrays of one piece (hands ``first ...`` or games
``first ...``), converts the table's strategies once, and steps ``table.mixed_run_nb``:
:meth:`MixedPiece.step` runs the engine until a Python seat must act (it returns the seat) or the
piece is done (it returns -1); :meth:`MixedPiece.act` hands the seat's action back.
"""

from __future__ import annotations

import numpy as np

from ..core import schema
from ..core.schema import MAX_EXCHANGE, MAX_PLAYS, MAX_SIDES
from ..core.view import VIEW_SIZE
from .calls import kernel_strategies
from .decide import TABLE_SIZE, table_nb
from .search import SCRATCH_SIZE
from .strategy_value import memo_table_nb
from .table import mixed_run_nb
from .table_slots import (
    FULL_SHIFT,
    G_FINAL_BAGS,
    G_FINAL_SCORE,
    G_FIRST_DEALER,
    G_GAME_ID,
    G_N_HANDS,
    G_WINNER,
    GAME_RECORD_WIDTH,
    R_BAGS_AFTER,
    R_BAGS_BEFORE,
    R_BIDS,
    R_BLIND,
    R_BUMPED,
    R_DEALER,
    R_EXCHANGE,
    R_FIRST_LEADER,
    R_GAME_ID,
    R_HAND_ID,
    R_HANDS,
    R_PLAY_SEATS,
    R_PLAYS,
    R_SCORE_BEFORE,
    R_SCORE_DELTA,
    R_TRICKS,
    RECORD_WIDTH,
    S_ACTION,
    S_ROW,
    S_SEAT,
    S_UNIT,
    STATE_SIZE,
    YIELD,
)
from .toolchain import announce_compile
from .unsafe import entry_point

GAMES_PER_CALL = 2048  # as ``calls.py``: bounds the hand arrays allocated at once
MEAN_HANDS_PER_GAME = 24


class MixedPiece:
    """Hands (``games=False``) or games ``first .. first + count - 1`` of a run with stream keys
    ``keys``; ``strategies`` one per seat (the default heuristic at a Python seat, whose other
    choices are the heuristic's); ``python_seats`` the seats that bid and play in Python, and
    ``full_seats`` (some of them) those that make every other choice in Python too.

    Attributes the caller reads while a seat acts: ``view`` (``core/view.py``, filled for that
    seat), ``state`` and ``rng`` (``table.py``'s slots; ``rng[1]`` the play stream's state),
    ``records`` (this batch's rows, ``table.R_*``) and ``first`` (the batch's first unit).
    """

    def __init__(self, rules, strategies, python_seats, keys, first: int, count: int,
                 games: bool, full_seats=()):
        self.rules = rules
        self.kernel_rules = rules.kernel_tuple()
        kinds, params = kernel_strategies(strategies, rules)
        self.table = np.zeros(TABLE_SIZE, dtype=np.int64)
        table_nb(self.kernel_rules, kinds, params, self.table)
        self.param_rows = np.ascontiguousarray(params, dtype=np.float64)
        self.memo = memo_table_nb()
        self.scratch = np.zeros(SCRATCH_SIZE, dtype=np.int64)
        self.played_by = np.zeros(4, dtype=np.int64)
        self.python_mask = sum(1 << seat for seat in python_seats) + sum(
            1 << (FULL_SHIFT + seat) for seat in full_seats)
        self.keys = (int(keys[0]), int(keys[1]))
        self.games = games
        self.view = np.zeros(VIEW_SIZE, dtype=np.int64)
        self.deck = np.zeros(2 * 54, dtype=np.int64)
        self.rng = np.zeros(3, dtype=np.uint64)
        self.state = np.zeros(STATE_SIZE, dtype=np.int64)
        self.next_first, self.end = first, first + count
        self.hand_parts: list = []
        self.game_parts: list = []
        self._run = None
        self._batch()

    def _batch(self) -> None:
        """Arrays for the next batch of units (all of them for hands)."""
        self.first = self.next_first
        count = self.end - self.first
        if self.games:
            count = min(count, GAMES_PER_CALL)
            rows = max(count * MEAN_HANDS_PER_GAME, self.rules.hand_cap)
        else:
            rows = count
        self.count = count
        self.records = np.zeros((rows, RECORD_WIDTH), dtype=np.int64)
        self.records[:, R_PLAYS:] = -1
        self.game_records = np.zeros((count if self.games else 0, GAME_RECORD_WIDTH),
                                     dtype=np.int64)
        self.state[:] = 0
        self.state[S_ACTION] = -1
        self.args = (self.kernel_rules, self.table, self.param_rows, self.memo, self.scratch,
                     self.played_by, np.uint64(self.keys[0]), np.uint64(self.keys[1]),
                     self.first, self.count, self.games, self.python_mask, self.records,
                     self.game_records, self.state, self.rng, self.view, self.deck)

    def step(self) -> int:
        """Run until a Python seat must act (its seat) or the piece is done (-1)."""
        if self._run is None:
            announce_compile("the hand loop stepped for Python seats", "one to two minutes",
                             "table.py", "mixed_run_nb")
            self._run = entry_point(mixed_run_nb, self.args)
        while True:
            if self._run(*self.args) == YIELD:
                return int(self.state[S_SEAT])
            done = int(self.state[S_UNIT])
            self.hand_parts.append(self.records[:int(self.state[S_ROW])])
            if self.games:
                self.game_parts.append(self.game_records[:done])
            self.next_first = self.first + done
            if self.next_first >= self.end:
                return -1
            self._batch()

    def act(self, action: int) -> None:
        """The action of the seat that must act (checked by the caller)."""
        self.state[S_ACTION] = action

    def result(self, record_plays: bool):
        """The hand arrays (and, for games, the game arrays) of the whole piece."""
        hands = hand_arrays(np.concatenate(self.hand_parts), record_plays)
        if not self.games:
            return hands
        return hands, game_arrays(np.concatenate(self.game_parts))


def hand_arrays(records: np.ndarray, record_plays: bool) -> schema.HandArrays:
    """``core/schema.HandArrays`` of ``records`` (``table.R_*`` columns)."""
    out = schema.allocate_hands(len(records), record_plays)
    for name, column in _HAND_COLUMNS.items():
        target = getattr(out, name)
        width = 1 if target.ndim == 1 else target.shape[1]
        target[:] = records[:, column] if target.ndim == 1 else records[:, column:column + width]
    if record_plays:
        out.plays[:] = records[:, R_PLAYS:R_PLAYS + MAX_PLAYS]
        out.play_seats[:] = records[:, R_PLAY_SEATS:R_PLAY_SEATS + MAX_PLAYS]
        out.exchange[:] = records[:, R_EXCHANGE:R_EXCHANGE + 3 * MAX_EXCHANGE].reshape(
            -1, MAX_EXCHANGE, 3)
    return out


def game_arrays(records: np.ndarray) -> schema.GameArrays:
    """``core/schema.GameArrays`` of ``records`` (``table.G_*`` columns)."""
    games = schema.allocate_games(len(records))
    games.game_id[:] = records[:, G_GAME_ID]
    games.first_dealer[:] = records[:, G_FIRST_DEALER]
    games.n_hands[:] = records[:, G_N_HANDS]
    games.winner[:] = records[:, G_WINNER]
    games.final_score[:] = records[:, G_FINAL_SCORE:G_FINAL_SCORE + MAX_SIDES]
    games.final_bags[:] = records[:, G_FINAL_BAGS:G_FINAL_BAGS + MAX_SIDES]
    return games


_HAND_COLUMNS = {
    "hand_id": R_HAND_ID, "game_id": R_GAME_ID, "dealer": R_DEALER,
    "first_leader": R_FIRST_LEADER, "hands": R_HANDS, "blind": R_BLIND, "bids": R_BIDS,
    "bumped": R_BUMPED, "tricks": R_TRICKS, "score_before": R_SCORE_BEFORE,
    "bags_before": R_BAGS_BEFORE, "score_delta": R_SCORE_DELTA, "bags_after": R_BAGS_AFTER,
}
