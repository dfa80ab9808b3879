"""One table of the PettingZoo environment, stepped by the engine: every seat decides every
choice itself (``table.FULL_SHIFT``), and each call takes one action, runs the hand loop of
``table.py`` to the next decision and writes what the seat to act sees: the observation vector
of ``core/encoding.py`` and the action mask, in the environment's numbering (``env/actions.py``).

``encode_nb`` fills the vector from the loop's ``state`` (``table_slots.py``) exactly as
``env/encoding.encode`` fills it from a seat's ``Observation``: the same blocks, values and
``float32`` rounding (``tests/test_env.py`` compares them at every step of every preset).
"""

import numpy as np
from numba import njit

from ..core.encoding import N_BIDS, N_CARDS, OFFSETS, SCORE_CLIP
from ..core.rules import MAX_HAND_SIZE
from ..core.view import PHASE_PLAY
from .bits import byte_of_nb
from .layout import DEAL_DRAW, DECK_JOKERS
from .search import suit_index_nb
from .table import mixed_run_nb
from .table_slots import (
    DONE,
    PHASE_BLIND,
    PHASE_KEEP,
    PHASE_PASS,
    R_BAGS_BEFORE,
    R_EXCHANGE,
    R_SCORE_BEFORE,
    S_ACTION,
    S_BAGS,
    S_BIDS,
    S_BLIND,
    S_BROKEN,
    S_BUMPED,
    S_DEALER,
    S_DECLINED,
    S_FACE_UP,
    S_HANDS,
    S_LEADER,
    S_LEGAL,
    S_N_EXCHANGED,
    S_PASS_LEFT,
    S_PASS_STEP,
    S_PASSED,
    S_PHASE,
    S_PLAYED_BY,
    S_POSITION,
    S_ROW,
    S_SCORES,
    S_SEAT,
    S_TRICK_CARDS,
    S_TRICK_INDEX,
    S_TRICKS,
    S_VOIDS,
    S_WIN_SEAT,
)

# The environment's first action number of each yielded phase (``env/actions.py``), by
# ``PHASE_*`` value: bid 54, play 0, blind 72 (look; blind bids follow), bump 91, pass 0,
# keep 93.
ACTION_OFFSETS = np.array([54, 0, 72, 91, 0, 93], dtype=np.int64)
# The observation's phase index (``core/encoding.PHASES``) of each ``PHASE_*`` value, and of
# a finished episode.
_PHASE_INDEX = (2, 5, 1, 3, 4, 0)
_OVER_INDEX = 6

_HAND = OFFSETS["hand"]
_PLAYED_BY = OFFSETS["played_by"]
_TRICK = OFFSETS["trick"]
_LEADER = OFFSETS["leader"]
_LED_SUIT = OFFSETS["led_suit"]
_WINNING = OFFSETS["winning"]
_BIDS = OFFSETS["bids"]
_BLIND = OFFSETS["blind"]
_BUMPED = OFFSETS["bumped"]
_TRICKS = OFFSETS["tricks"]
_VOIDS = OFFSETS["voids"]
_PHASE = OFFSETS["phase"]
_TO_ACT = OFFSETS["to_act"]
_SPADES_BROKEN = OFFSETS["spades_broken"]
_TRICK_INDEX = OFFSETS["trick_index"]
_DEALER = OFFSETS["dealer"]
_FACE_UP = OFFSETS["face_up"]
_DECLINED = OFFSETS["declined"]
_PASS_COUNT = OFFSETS["pass_count"]
_PASSING_AS_NIL = OFFSETS["passing_as_nil"]
_PASS_CHOSEN = OFFSETS["pass_chosen"]
_GIVEN = OFFSETS["given"]
_RECEIVED = OFFSETS["received"]
_SCORES = OFFSETS["scores"]
_BAGS = OFFSETS["bags"]
_PLAYERS = OFFSETS["players"]
_RULES = OFFSETS["rules"]
_MAX_EXCHANGE = 4  # (pass_count is scaled by it: core/encoding.MAX_EXCHANGE)
ONE = np.int64(1)  # (one unit a call, an int64 as the other callers of mixed_run_nb pass it)


@njit(cache=True)
def env_run_nb(rules, table, param_rows, memo, scratch, played_by, deal_key, play_key, unit,
               games_mode, python_mask, records, game_records, state, rng, view, deck, action,
               obs, mask):
    """Take ``action`` (the index of a legal choice, ``table_slots.py``'s numbering; -1 at the
    first call of an episode) and run to the next decision or the end of the episode (hand or
    game ``unit``); write the observation and mask of the seat to act (at the end: of seat 0,
    mask all zero). Returns ``table.py``'s ``YIELD`` or ``DONE``."""
    state[S_ACTION] = action
    outcome = mixed_run_nb(rules, table, param_rows, memo, scratch, played_by, deal_key,
                           play_key, unit, ONE, games_mode, python_mask, records, game_records,
                           state, rng, view, deck)
    over = outcome == DONE
    encode_nb(rules, state, records, 0 if over else state[S_SEAT], over, obs)
    mask_nb(state, over, mask)
    return outcome


@njit(cache=True)
def mask_nb(state, over, mask):
    """The legal actions of the seat to act, in the environment's numbering (int8[95])."""
    mask[:] = 0
    if over:
        return
    offset = ACTION_OFFSETS[state[S_PHASE]]
    legal = state[S_LEGAL]
    bit = 0
    while legal:
        if legal & 1:
            mask[offset + bit] = 1
        legal >>= 1
        bit += 1


@njit(cache=True, inline="always")
def _cards_nb(obs, start, cards):
    while cards:
        low = cards & -cards
        card = 0
        while low > 1:
            low >>= 1
            card += 1
        obs[start + card] = 1.0
        cards &= cards - 1


@njit(cache=True)
def encode_nb(rules, state, records, seat, over, obs):
    """``seat``'s observation vector (``core/encoding.py``) of the table in ``state``: the hand
    being played (or, ``over``, the one just finished)."""
    obs[:] = 0.0
    players = rules.players
    size = rules.hand_size
    phase = state[S_PHASE]
    playing = over or phase == PHASE_PLAY
    to_act = -1 if over else state[S_SEAT]
    row = state[S_ROW] - 1 if over else state[S_ROW]
    hand = state[S_HANDS + seat]
    if phase == PHASE_BLIND and to_act == seat and rules.deal != DEAL_DRAW:
        hand = 0  # (a blind choice is made before the seat sees its cards: Observation.hand)
    _cards_nb(obs, _HAND, hand)
    for other in range(players):
        relative = (other - seat) % players
        _cards_nb(obs, _PLAYED_BY + N_CARDS * relative, state[S_PLAYED_BY + other])
    if playing and not over:
        leader = state[S_LEADER]
        position = state[S_POSITION]
        for k in range(position):
            card = (state[S_TRICK_CARDS] >> (8 * k)) & 0xFF
            obs[_TRICK + N_CARDS * ((leader + k - seat) % players) + card] = 1.0
        obs[_LEADER + (leader - seat) % players] = 1.0
        if position > 0:
            obs[_LED_SUIT + suit_index_nb(state[S_TRICK_CARDS] & 0xFF)] = 1.0
            obs[_WINNING + (state[S_WIN_SEAT] - seat) % players] = 1.0
    bids = state[S_BIDS]
    for other in range(players):
        relative = (other - seat) % players
        bid = byte_of_nb(bids, other)
        if bid < N_BIDS:
            obs[_BIDS + N_BIDS * relative + bid] = 1.0
        obs[_BLIND + relative] = (state[S_BLIND] >> other) & 1
        obs[_BUMPED + relative] = (state[S_BUMPED] >> other) & 1
        if playing:
            obs[_TRICKS + relative] = byte_of_nb(state[S_TRICKS], other) / size
            for suit in range(4):
                if (state[S_VOIDS] >> (4 * other + suit)) & 1:
                    obs[_VOIDS + 4 * relative + suit] = 1.0
    obs[_PHASE + (_OVER_INDEX if over else _PHASE_INDEX[phase])] = 1.0
    if to_act >= 0:
        obs[_TO_ACT + (to_act - seat) % players] = 1.0
    if playing:
        obs[_SPADES_BROKEN] = state[S_BROKEN]
        obs[_TRICK_INDEX] = state[S_TRICK_INDEX] / size
    obs[_DEALER + (state[S_DEALER] - seat) % players] = 1.0
    if phase == PHASE_KEEP and to_act == seat:
        obs[_FACE_UP + state[S_FACE_UP]] = 1.0
    if seat < 2:
        _cards_nb(obs, _DECLINED, state[S_DECLINED + seat])
    if phase == PHASE_PASS and to_act == seat:
        obs[_PASS_COUNT] = state[S_PASS_LEFT] / _MAX_EXCHANGE
        obs[_PASSING_AS_NIL] = 1.0 if (state[S_PASS_STEP] & 1) == 0 else 0.0
        _cards_nb(obs, _PASS_CHOSEN, hand & state[S_PASSED])
    for entry in range(state[S_N_EXCHANGED]):
        giver = records[row, R_EXCHANGE + 3 * entry]
        taker = records[row, R_EXCHANGE + 3 * entry + 1]
        card = records[row, R_EXCHANGE + 3 * entry + 2]
        if giver == seat:
            obs[_GIVEN + card] = 1.0
        elif taker == seat:
            obs[_RECEIVED + card] = 1.0
    n_sides = rules.n_sides
    side = seat % 2 if rules.partnership != 0 else seat
    for other_side in range(n_sides):
        relative = (other_side - side) % n_sides
        if over:
            score = records[row, R_SCORE_BEFORE + other_side]
            bags = records[row, R_BAGS_BEFORE + other_side]
        else:
            score = state[S_SCORES + other_side]
            bags = state[S_BAGS + other_side]
        obs[_SCORES + relative] = min(max(score / rules.target, -SCORE_CLIP), SCORE_CLIP)
        if rules.bag_limit:
            obs[_BAGS + relative] = min(bags / rules.bag_limit, 1.0)
    obs[_PLAYERS + players - 2] = 1.0
    obs[_RULES] = 1.0 if rules.partnership != 0 else 0.0
    obs[_RULES + 1] = 1.0 if rules.deck == DECK_JOKERS else 0.0
    obs[_RULES + 2] = 1.0 if rules.deal == DEAL_DRAW else 0.0
    obs[_RULES + 3] = size / MAX_HAND_SIZE
