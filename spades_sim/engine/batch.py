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

With the learner's seats also marked to make every choice (``table_slots.FULL_SHIFT``),
``batch_step_all_nb`` takes any decision's action (blind choices, bumps, pass cards, keeps as
well) and writes the AEC environment's observation vector and mask of each table's seat to act
(``env_table.py``) in place of the view.
"""

import numpy as np
from numba import njit

from ..core.view import PHASE_PLAY, V_LEGAL, V_PHASE
from .env_table import ACTION_OFFSETS, encode_nb, mask_nb
from .rng import bounded_nb
from .table import mixed_run_nb
from .table_slots import (
    DONE,
    R_PLAYS,
    R_SCORE_DELTA,
    S_ACTION,
    S_LEGAL,
    S_PHASE,
    S_SEAT,
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
def batch_reset_all_nb(rules, table, param_rows, memo, scratch, played_by, deal_key, play_key,
                       learner_mask, episodes, records, game_records, states, rngs, views, deck,
                       observations, masks):
    """``batch_reset_nb`` for learner seats that make every choice (``learner_mask``'s
    ``FULL_SHIFT`` bits set): writes each table's ``observations`` row (the AEC environment's
    vector, ``env_table.encode_nb``) and ``masks`` row."""
    batch_reset_nb(rules, table, param_rows, memo, scratch, played_by, deal_key, play_key,
                   learner_mask, episodes, records, game_records, states, rngs, views, deck)
    for i in range(states.shape[0]):
        _observe_nb(rules, states[i], records[i], observations[i], masks[i])


@njit(cache=True)
def batch_step_all_nb(rules, table, param_rows, memo, scratch, played_by, deal_key, play_key,
                      learner_mask, episodes, records, game_records, states, rngs, views, deck,
                      actions, rewards, dones, observations, masks):
    """``batch_step_nb`` for learner seats that make every choice: ``actions`` in the
    environment's numbering for whatever the seat to act decides (``env/actions.py``); the
    tables' ``observations`` and ``masks`` rows rewritten. Returns ``OK`` or the first table
    whose action is not legal (nothing taken)."""
    n_tables = states.shape[0]
    for i in range(n_tables):
        choice = actions[i] - ACTION_OFFSETS[states[i, S_PHASE]]
        if choice < 0 or choice > 62 or ((states[i, S_LEGAL] >> choice) & 1) == 0:
            return i
    players = rules.players
    for i in range(n_tables):
        state = states[i]
        state[S_ACTION] = actions[i] - ACTION_OFFSETS[state[S_PHASE]]
        for seat in range(4):
            rewards[i, seat] = 0.0
        dones[i] = False
        outcome = mixed_run_nb(rules, table, param_rows, memo, scratch, played_by, deal_key,
                               play_key, episodes[i], ONE, HANDS, learner_mask, records[i],
                               game_records, state, rngs[i], views[i], deck)
        if outcome == DONE:
            row = records[i]
            for seat in range(players):
                side = seat % 2 if rules.partnership != 0 else seat
                rewards[i, seat] = row[0, R_SCORE_DELTA + side]
            dones[i] = True
            episodes[i] += n_tables
            start_episode_nb(rules, table, param_rows, memo, scratch, played_by, deal_key,
                             play_key, learner_mask, episodes[i], row, game_records, state,
                             rngs[i], views[i], deck)
        _observe_nb(rules, state, records[i], observations[i], masks[i])
    return OK


@njit(cache=True)
def _observe_nb(rules, state, records, observation, mask):
    encode_nb(rules, state, records, state[S_SEAT], False, observation)
    mask_nb(state, False, mask)


@njit(cache=True)
def random_mask_actions_nb(masks, policy_rng, actions):
    """A random legal action at every table from ``masks`` (uniform over the legal ones), drawn
    from ``policy_rng[0]``: the numba agent of tables whose learner makes every choice."""
    state = policy_rng[0]
    for i in range(masks.shape[0]):
        count = 0
        for action in range(N_ACTIONS):
            count += masks[i, action]
        pick, state = bounded_nb(state, count)
        for action in range(N_ACTIONS):
            if masks[i, action]:
                if pick == 0:
                    actions[i] = action
                    break
                pick -= 1
    policy_rng[0] = state


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

