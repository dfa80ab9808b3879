"""Many Spades tables at once as NumPy arrays, stepped by the engine: :class:`BatchEnv`.

For learning at engine speed: ``n_tables`` tables, each an independent hand per episode, with
the learner's seats deciding through :meth:`BatchEnv.step` (one action per table a call) and
built-in strategies (``opponents``) deciding inside the engine's loop. A table returns to the
learner only when one of its seats must bid or play; the learner seats' other choices (blind
choices, bumps, exchange passes, the draw deal's keep) are the default heuristic's, unless
``every_choice=True`` gives them to the learner too. The kernel is ``engine/batch.py``;
``docs/environment.md`` is the guide.

>>> import numpy as np
>>> from spades_sim.env import BatchEnv
>>> batch = BatchEnv(8, "classic", opponents={1: "heuristic", 3: "heuristic"})
>>> views, masks = batch.reset(seed=1)
>>> views.shape, masks.shape, masks.dtype
((8, 85), (8, 95), dtype('bool'))
>>> rng = np.random.default_rng(0)
>>> actions = np.array([rng.choice(np.flatnonzero(row)) for row in masks])
>>> views, masks, rewards, dones = batch.step(actions)
>>> rewards.shape, dones.shape
((8, 4), (8,))
"""

from __future__ import annotations

import numpy as np

from ..core.encoding import OBSERVATION_SIZE
from ..core.errors import SpadesError
from ..core.limits import MAX_UNITS
from ..core.seeding import check_seed, stream_keys
from ..core.strategies import Strategy, make_strategy, parse_strategy
from ..core.view import PHASE_PLAY, V_PHASE, V_SEAT, VIEW_SIZE
from .actions import N_ACTIONS
from .aec import resolve_rules


class BatchEnv:
    """``n_tables`` tables of ``rules`` stepped together by the engine.

    Parameters
    ----------
    n_tables : int
        Tables stepped by one call (at least 1).
    rules : str or Rules
        A preset name or a :class:`~spades_sim.core.rules.Rules` (``rule_overrides`` as for
        :func:`~spades_sim.env.env`).
    opponents : dict, optional
        Seat -> built-in strategy (a spec such as ``"heuristic"``, ``"random"``,
        ``"heuristic:nil_threshold=0.3"``, ``"mc"``, or a :class:`Strategy`). The other seats
        are the learner's; at least one seat must be.
    rule_overrides : dict, optional
        Rule fields to change.
    every_choice : bool
        False (the default): the learner's seats take the bids and the card play, and the
        observation is the engine's view (``views``). True: they take every choice (blind
        choices, bumps, exchange passes one card a step, the draw deal's keeps too), and the
        observation is the AEC environment's vector (``observations``).

    Attributes after :meth:`reset` (every one a NumPy array with a row per table, updated in
    place by :meth:`step`):

    ``views``    int64[N, VIEW_SIZE]: the engine's view of the seat to act (``core/view.py``,
                 the array numba plug-ins read), the observation (``every_choice=False``).
    ``observations`` float32[N, 902]: the AEC environment's observation vector of the seat
                 to act (``every_choice=True``; ``spades_sim.env.OFFSETS``).
    ``masks``    bool[N, 95]: the legal actions, in the environment's numbering.
    ``to_act``   int64[N]: the seat to act.
    ``rewards``  float32[N, 4]: per seat, its side's score change when the table's hand ended
                 with the last step, else 0 (seats past ``rules.players`` stay 0).
    ``dones``    bool[N]: the table's hand ended with the last step; its row already shows the
                 next episode's first decision (auto-reset).
    ``hand_ids`` int64[N]: the hand each table plays: table ``i``'s ``k``-th episode is hand
                 ``k * n_tables + i`` of the run with seed ``seed``, as the engine (and
                 :class:`~spades_sim.game.Hand` ``.deal(rules, seed, hand_id)``) deals it.
    """

    def __init__(self, n_tables: int, rules="classic", *, opponents=None, rule_overrides=None,
                 every_choice=False):
        if isinstance(n_tables, bool) or not isinstance(n_tables, (int, np.integer)) \
                or n_tables < 1:
            raise SpadesError(f"n_tables: {n_tables!r} is not an integer >= 1")
        self.rules = resolve_rules(rules, rule_overrides)
        players = self.rules.players
        opponents = {} if opponents is None else opponents
        if not isinstance(opponents, dict):
            raise SpadesError(f"opponents: {opponents!r} is not a dict of seat -> strategy")
        strategies = [make_strategy("heuristic") for _ in range(players)]
        for seat, spec in opponents.items():
            if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) \
                    or not 0 <= seat < players:
                raise SpadesError(f"opponents: seat {seat!r} is not a seat 0..{players - 1}")
            strategy = parse_strategy(spec) if isinstance(spec, str) else spec
            if not isinstance(strategy, Strategy):
                raise SpadesError(f"opponents: seat {seat}: {spec!r} is not a built-in strategy")
            strategies[seat] = strategy
        self.learner_seats = [seat for seat in range(players) if seat not in opponents]
        if not self.learner_seats:
            raise SpadesError("opponents: every seat is an opponent; leave one to the learner")
        if not isinstance(every_choice, bool):
            raise SpadesError(f"every_choice: {every_choice!r} is not a bool (True or False)")
        self.every_choice = every_choice
        self.n_tables = int(n_tables)
        self.strategies = strategies
        self._kernel = None
        self.views = np.zeros((self.n_tables, VIEW_SIZE), dtype=np.int64)
        self.masks = np.zeros((self.n_tables, N_ACTIONS), dtype=bool)
        self.rewards = np.zeros((self.n_tables, 4), dtype=np.float32)
        self.dones = np.zeros(self.n_tables, dtype=bool)
        self.hand_ids = np.zeros(self.n_tables, dtype=np.int64)
        self.observations = np.zeros((self.n_tables if every_choice else 0, OBSERVATION_SIZE),
                                     dtype=np.float32)
        self.seed = None

    @property
    def to_act(self) -> np.ndarray:
        if self.every_choice:
            return self._states[:, _S_SEAT]
        return self.views[:, V_SEAT]

    @property
    def playing(self) -> np.ndarray:
        """bool[N]: the table is in the play (else the auction, or a choice before the play)."""
        if self.every_choice:
            return self._states[:, _S_PHASE] == PHASE_PLAY
        return self.views[:, V_PHASE] == PHASE_PLAY

    def _build(self) -> None:
        from ..engine import batch
        from ..engine.calls import kernel_strategies
        from ..engine.decide import TABLE_SIZE, table_nb
        from ..engine.search import SCRATCH_SIZE
        from ..engine.strategy_value import memo_table_nb
        from ..engine.table_slots import FULL_SHIFT, RECORD_WIDTH, STATE_SIZE
        from ..engine.toolchain import announce_compile

        announce_compile("the batched environment", "one to two minutes", "batch.py",
                         "batch_step_nb")
        rules = self.rules.kernel_tuple()
        kinds, params = kernel_strategies(self.strategies, self.rules)
        table = np.zeros(TABLE_SIZE, dtype=np.int64)
        table_nb(rules, kinds, params, table)
        n = self.n_tables
        self._batch = batch
        self._states = np.zeros((n, STATE_SIZE), dtype=np.int64)
        self._rngs = np.zeros((n, 3), dtype=np.uint64)
        self._records = np.zeros((n, 1, RECORD_WIDTH), dtype=np.int64)
        self._common = (rules, table, np.ascontiguousarray(params, dtype=np.float64),
                        memo_table_nb(), np.zeros(SCRATCH_SIZE, dtype=np.int64),
                        np.zeros(4, dtype=np.int64))
        self._learner_mask = sum(1 << seat for seat in self.learner_seats)
        if self.every_choice:
            self._learner_mask |= self._learner_mask << FULL_SHIFT
        self._tables = (self.hand_ids, self._records, np.zeros((0, 12), dtype=np.int64),
                        self._states, self._rngs, self.views, np.zeros(108, dtype=np.int64))

    def reset(self, seed=0) -> tuple[np.ndarray, np.ndarray]:
        """Deal episode 0 at every table (table ``i`` plays hand ``i`` of ``seed``'s run) and
        run each to its first learner decision; returns ``(views, masks)``."""
        seed = check_seed(seed)
        if self._kernel is None:
            self._build()
        if self.n_tables > MAX_UNITS:
            raise SpadesError(f"n_tables {self.n_tables}: more than {MAX_UNITS:,} hands")
        self.seed = seed
        deal_key, play_key = stream_keys(seed)
        self._keys = (np.uint64(deal_key), np.uint64(play_key))
        self.rewards[:] = 0
        self.dones[:] = False
        if self.every_choice:
            self._kernel = self._batch.batch_step_all_nb
            self._batch.batch_reset_all_nb(*self._common, *self._keys, self._learner_mask,
                                           *self._tables, self.observations, self.masks)
            return self.observations, self.masks
        self._kernel = self._batch.batch_step_nb
        self._batch.batch_reset_nb(*self._common, *self._keys, self._learner_mask, *self._tables)
        self._batch.masks_nb(self.views, self.masks)
        return self.views, self.masks

    def step(self, actions) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Take ``actions`` (int[N]: one legal action per table, environment numbers) and run
        every table to its next learner decision; returns ``(views, masks, rewards, dones)``,
        the attributes, updated in place. An illegal action is refused with one line naming
        the table; nothing is taken then."""
        if self.seed is None:
            raise SpadesError("step() before reset(): call reset(seed) first")
        actions = np.asarray(actions)
        if actions.shape != (self.n_tables,) or actions.dtype.kind not in "iu":
            raise SpadesError(f"actions: expected {self.n_tables} integers (one per table), "
                              f"got an array of shape {actions.shape} and dtype {actions.dtype}")
        actions = np.ascontiguousarray(actions, dtype=np.int64)
        extra = (self.observations, self.masks) if self.every_choice else ()
        bad = self._kernel(*self._common, *self._keys, self._learner_mask, *self._tables,
                           actions, self.rewards, self.dones, *extra)
        if bad >= 0:
            legal = ", ".join(str(a) for a in np.flatnonzero(self.masks[bad]))
            raise SpadesError(f"table {bad}: action {int(actions[bad])} is not legal for seat "
                              f"{int(self.to_act[bad])}; legal: {legal}")
        if self.every_choice:
            return self.observations, self.masks, self.rewards, self.dones
        self._batch.masks_nb(self.views, self.masks)
        return self.views, self.masks, self.rewards, self.dones

    def random_actions(self, policy_state: np.ndarray) -> np.ndarray:
        """A uniformly random legal action per table, drawn in the engine from
        ``policy_state`` (uint64[1], advanced in place): a numba agent for tests and
        benchmarks."""
        actions = np.empty(self.n_tables, dtype=np.int64)
        if self.every_choice:
            self._batch.random_mask_actions_nb(self.masks, policy_state, actions)
        else:
            self._batch.random_actions_nb(self.views, policy_state, actions)
        return actions


# (numba-free: engine/table_slots.py's slots, checked equal by tests/test_env_batch.py)
_S_SEAT, _S_PHASE = 4, 54
