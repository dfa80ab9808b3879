"""Many tables stepped at once for learning: ``table.mixed_run_nb`` over a batch of tables.

Each table is one resumable hand loop (``table.py``: its ``state``, ``rng`` and ``view`` rows
here), with the learner's seats as its "Python" seats (bit ``seat`` of ``learner_mask``): the
loop stops when a learner seat must bid or play and fills that table's ``view`` row; every
other seat's decisions, and the learner seats' other choices (blind choices, bumps, exchange
passes, the draw deal's keep), are the built-in strategies' inside the loop. An episode is one
independent hand: table ``i``'s ``k``-th episode is hand ``k * n_tables + i`` of the run whose
stream keys are ``deal_key`` and ``play_key``, dealt and played as the engine plays that hand.

Actions are the environment's numbers (``env/actions.py``): a card ``0 .. 53`` in the play, a
bid ``54 + bid`` in the auction. ``batch_step_nb`` takes one action per table, runs each table
to its next learner decision, and writes what the learner sees: when a table's hand ends, its
``rewards`` row (each seat's side's score change), ``dones`` and the next episode starts at
once (auto-reset), so the view is always a decision to take.
"""

import numpy as np
from numba import njit

from ..core.view import PHASE_PLAY, V_LEGAL, V_PHASE
from .rng import bounded_nb
from .table import mixed_run_nb
from .table_slots import (
    DONE,
    R_PLAYS,
    R_SCORE_DELTA,
    S_ACTION,
    STATE_SIZE,
)

BID_OFFSET = 54  # env/actions.py: a bid b is action 54 + b
N_ACTIONS = 95  # env/actions.py
OK = -1  # batch_step_nb's answer when every action was legal
# One independent hand a call, typed as the other callers of ``mixed_run_nb`` pass them (int64,
# bool, not the literals 1 and False): each new set of argument types compiles the whole loop
# once more.
ONE = np.int64(1)
HANDS = np.bool_(False)


@njit(cache=True)
def start_episode_nb(rules, table, param_rows, memo, scratch, played_by, deal_key, play_key,
                     learner_mask, hand_id, records, game_records, state, rng, view, deck):
    """Start hand ``hand_id`` at one table and run it to the first learner decision."""
    for slot in range(STATE_SIZE):
        state[slot] = 0
    state[S_ACTION] = -1
    for column in range(R_PLAYS, records.shape[1]):
        records[0, column] = -1
    return mixed_run_nb(rules, table, param_rows, memo, scratch, played_by, deal_key, play_key,
                        hand_id, ONE, HANDS, learner_mask, records, game_records, state, rng,
                        view, deck)


@njit(cache=True)
def batch_reset_nb(rules, table, param_rows, memo, scratch, played_by, deal_key, play_key,
                   learner_mask, episodes, records, game_records, states, rngs, views, deck):
    """Start episode 0 at every table (table ``i`` plays hand ``i``); ``episodes`` int64[N]
    is set to each table's hand id."""
    n_tables = states.shape[0]
    for i in range(n_tables):
        episodes[i] = i
        start_episode_nb(rules, table, param_rows, memo, scratch, played_by, deal_key,
                         play_key, learner_mask, i, records[i], game_records, states[i],
                         rngs[i], views[i], deck)


@njit(cache=True)
def batch_step_nb(rules, table, param_rows, memo, scratch, played_by, deal_key, play_key,
                  learner_mask, episodes, records, game_records, states, rngs, views, deck,
                  actions, rewards, dones):
    """Take ``actions[i]`` (int64[N], environment numbers) at every table and run each to its
    next learner decision. Writes ``rewards`` (float32[N, 4]: 0, or at the end of a hand each
    seat's side's score change), ``dones`` (bool[N]: the table's hand ended and the next one
    started) and the tables' rows of ``states``, ``rngs``, ``views``, ``records``,
    ``episodes``. Returns ``OK`` (-1), or the first table whose action is not legal (nothing
    is taken at that table or after it)."""
    n_tables = states.shape[0]
    for i in range(n_tables):
        action = actions[i]
        view = views[i]
        if view[V_PHASE] != PHASE_PLAY:
            action -= BID_OFFSET
        if action < 0 or action > 62 or ((view[V_LEGAL] >> action) & 1) == 0:
            return i
    players = rules.players
    for i in range(n_tables):
        action = actions[i]
        view = views[i]
        if view[V_PHASE] != PHASE_PLAY:
            action -= BID_OFFSET
        state = states[i]
        state[S_ACTION] = action
        for seat in range(4):
            rewards[i, seat] = 0.0
        dones[i] = False
        outcome = mixed_run_nb(rules, table, param_rows, memo, scratch, played_by, deal_key,
                               play_key, episodes[i], ONE, HANDS, learner_mask, records[i],
                               game_records, state, rngs[i], view, deck)
        if outcome == DONE:
            row = records[i]
            for seat in range(players):
                side = seat % 2 if rules.partnership != 0 else seat
                rewards[i, seat] = row[0, R_SCORE_DELTA + side]
            dones[i] = True
            episodes[i] += n_tables
            start_episode_nb(rules, table, param_rows, memo, scratch, played_by, deal_key,
                             play_key, learner_mask, episodes[i], row, game_records, state,
                             rngs[i], view, deck)
    return OK


@njit(cache=True)
def random_actions_nb(views, policy_rng, actions):
    """A random legal action at every table (uniform over the legal ones), drawn from
    ``policy_rng[0]`` (uint64 state, advanced in place): the benchmark's numba agent."""
    state = policy_rng[0]
    for i in range(views.shape[0]):
        legal = views[i, V_LEGAL]
        count = 0
        bits = legal
        while bits:
            bits &= bits - 1
            count += 1
        pick, state = bounded_nb(state, count)
        bits = legal
        for _ in range(pick):
            bits &= bits - 1
        action = 0
        low = bits & -bits
        while low > 1:
            low >>= 1
            action += 1
        if views[i, V_PHASE] != PHASE_PLAY:
            action += BID_OFFSET
        actions[i] = action
    policy_rng[0] = state


@njit(cache=True)
def masks_nb(views, masks):
    """The legal-action mask of every table (bool[N, N_ACTIONS], environment numbers)."""
    for i in range(views.shape[0]):
        legal = views[i, V_LEGAL]
        offset = 0 if views[i, V_PHASE] == PHASE_PLAY else BID_OFFSET
        for action in range(N_ACTIONS):
            masks[i, action] = False
        for bit in range(63):
            if (legal >> bit) & 1:
                masks[i, offset + bit] = True

