"""The AEC environment's state: one table in the engine's arrays, every seat deciding every
choice (``engine/env_table.py``). :class:`EngineTable` deals an episode (hand or game
``episode`` of a seed's run, as the engine deals it), takes one action a call and keeps the
observation vector and action mask of the seat to act; :meth:`EngineTable.result` gives a
finished hand in ``Hand.result()``'s form.
"""

from __future__ import annotations

import numpy as np

from ..core.encoding import OBSERVATION_SIZE
from ..core.seeding import stream_keys
from ..core.strategies import make_strategy
from ..core.view import VIEW_SIZE
from .actions import N_ACTIONS


class EngineTable:
    """One table of ``rules`` in the engine (see the module docstring).

    After :meth:`start` and each :meth:`act`: ``over`` (the episode ended), ``seat`` (the seat to
    act), ``phase`` (``table_slots.PHASE_*``), ``legal`` (its choices as bits),
    ``offset`` (the environment's number of choice 0), ``obs`` and ``mask`` (the seat to act's,
    overwritten by the next call), and ``hands_done`` (hands finished in the episode).
    """

    def __init__(self, rules):
        from ..engine import env_table
        from ..engine import table_slots as slots
        from ..engine.calls import kernel_strategies
        from ..engine.decide import TABLE_SIZE, table_nb
        from ..engine.search import SCRATCH_SIZE
        from ..engine.strategy_value import memo_table_nb
        from ..engine.toolchain import announce_compile
        from ..engine.unsafe import entry_point

        self.rules = rules
        players = rules.players
        kernel_rules = rules.kernel_tuple()
        kinds, params = kernel_strategies([make_strategy("heuristic")] * players, rules)
        table = np.zeros(TABLE_SIZE, dtype=np.int64)
        table_nb(kernel_rules, kinds, params, table)
        seats = (1 << players) - 1
        self._slots = slots
        self.state = np.zeros(slots.STATE_SIZE, dtype=np.int64)
        self._records = {False: np.zeros((1, slots.RECORD_WIDTH), dtype=np.int64),
                         True: np.zeros((rules.hand_cap, slots.RECORD_WIDTH), dtype=np.int64)}
        self.records = self._records[False]
        self.game_records = np.zeros((1, slots.GAME_RECORD_WIDTH), dtype=np.int64)
        self.obs = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
        self.mask = np.zeros(N_ACTIONS, dtype=np.int8)
        self._common = (kernel_rules, table, np.ascontiguousarray(params, dtype=np.float64),
                        memo_table_nb(), np.zeros(SCRATCH_SIZE, dtype=np.int64),
                        np.zeros(4, dtype=np.int64))
        self._mask = seats | (seats << slots.FULL_SHIFT)
        self._tail = (self.game_records, self.state, np.zeros(3, dtype=np.uint64),
                      np.zeros(VIEW_SIZE, dtype=np.int64), np.zeros(108, dtype=np.int64))
        self._offsets = [int(offset) for offset in env_table.ACTION_OFFSETS]
        self._encode = env_table.encode_nb
        self._kernel_rules = kernel_rules
        announce_compile("the environment's table", "one to two minutes", "env_table.py",
                         "env_run_nb")
        example = (*self._common, np.uint64(0), np.uint64(0), 0, False, self._mask,
                   self.records, *self._tail, -1, self.obs, self.mask)
        self._run = entry_point(env_table.env_run_nb, example)
        self.over = True

    def start(self, seed: int, episode: int, whole_game: bool) -> None:
        """Deal hand (``whole_game``: game) ``episode`` of ``seed``'s run; run to its first
        decision."""
        deal_key, play_key = stream_keys(seed)
        slots = self._slots
        self.records = self._records[whole_game]
        self._head = (*self._common, np.uint64(deal_key), np.uint64(play_key), episode,
                      whole_game, self._mask, self.records, *self._tail)
        self.state[:] = 0
        self.records[:] = 0
        self.records[:, slots.R_PLAYS:] = -1
        self.whole_game = whole_game
        self.actions: list[int] = []  # (the environment's numbers, for a replay on Hand)
        self._call(-1)

    def act(self, choice: int, action: int) -> None:
        """Take ``choice`` (legal: the caller checked), the environment's ``action``."""
        self.actions.append(action)
        self._call(choice)

    def _call(self, choice: int) -> None:
        outcome = self._run(*self._head, choice, self.obs, self.mask)
        state, slots = self.state, self._slots
        self.over = outcome == slots.DONE
        self.hands_done = int(state[slots.S_ROW])
        if self.over:
            self.seat = -1
            self.phase = -1
            self.legal = 0
            self.offset = 0
        else:
            self.seat = int(state[slots.S_SEAT])
            self.phase = int(state[slots.S_PHASE])
            self.legal = int(state[slots.S_LEGAL])
            self.offset = self._offsets[self.phase]

    def observe(self, seat: int) -> np.ndarray:
        """``seat``'s observation vector now (a new array)."""
        if seat == self.seat:
            return self.obs.copy()
        out = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
        self._encode(self._kernel_rules, self.state, self.records, seat if seat >= 0 else 0,
                     self.over, out)
        return out

    def result(self, index: int) -> dict:
        """Hand ``index`` of the episode (finished) as ``Hand.result()`` gives it."""
        from ..engine.mixed import hand_arrays

        hand = hand_arrays(self.records[index:index + 1], True)
        players, sides = self.rules.players, self.rules.n_sides

        def listed(array, width, kind=int):
            return [kind(x) for x in array[0, :width].tolist()]

        n_plays = players * self.rules.hand_size
        return {
            "dealer": int(hand.dealer[0]),
            "first_leader": int(hand.first_leader[0]),
            "hands": listed(hand.hands, players),
            "blind": listed(hand.blind, players, bool),
            "bids": listed(hand.bids, players),
            "bumped": listed(hand.bumped, players, bool),
            "exchange": [tuple(entry) for entry in hand.exchange[0].tolist() if entry[2] >= 0],
            "plays": list(zip(hand.play_seats[0, :n_plays].tolist(),
                              hand.plays[0, :n_plays].tolist())),
            "tricks": listed(hand.tricks, players),
            "score_before": listed(hand.score_before, sides),
            "bags_before": listed(hand.bags_before, sides),
            "score_delta": listed(hand.score_delta, sides),
            "bags_after": listed(hand.bags_after, sides),
        }

    def hand_id(self, index: int) -> int:
        return int(self.records[index, self._slots.R_HAND_ID])

    def game_over(self) -> tuple[list[int], list[int], int]:
        """Whole game, over: final scores, final bags and the winning side (-1 none)."""
        slots, sides = self._slots, self.rules.n_sides
        row = self.game_records[0]
        return ([int(x) for x in row[slots.G_FINAL_SCORE:slots.G_FINAL_SCORE + sides]],
                [int(x) for x in row[slots.G_FINAL_BAGS:slots.G_FINAL_BAGS + sides]],
                int(row[slots.G_WINNER]))
