"""A table with Python seats, stepped by the engine: the hand loop as a resumable kernel.

``mixed_run_nb`` plays the hands or games of ``simulate._run_nb`` with the same helpers, in the
same order, drawing the same numbers, and stops when a Python seat (bit ``seat`` of
``python_mask``) must make a non-blind bid or play a card: it fills ``view`` (the array numba
plug-ins read, ``core/view.py``) for that seat, leaves the play stream's state in ``rng[1]`` and
returns ``YIELD``. The caller decides, writes the action into ``state[S_ACTION]`` (and the play
stream's state back into ``rng[1]``, where the seat drew from it) and calls again: the kernel
takes the action and runs on, every built-in decision inside it, until the next Python decision
or the end of the piece (``DONE``). Every other choice of a Python seat (blind choices, bumps,
exchange passes, the draw deal's keep) is the heuristic's, as for a numba plug-in
(``plugin.py``); the Python layer (``game/fast.py``) sends a seat that decides those itself
through the game-state API instead.

All the loop's state between calls lives in ``state`` (int64[STATE_SIZE], named slots ``S_*``)
and ``rng`` (uint64[3]: the deal, play and search streams), so a piece is resumable at any
decision. The kernel trusts the action: the caller checks it against ``view[V_LEGAL]``.
"""

import numpy as np
from numba import config, njit

from ..core.view import (
    PHASE_BID,
    PHASE_PLAY,
    V_FIRST_LEADER,
    V_LEADER,
    V_LED_SUIT,
    V_PLAYED,
    V_PLAYED_BY,
    V_SPADES_BROKEN,
    V_TRICK,
    V_TRICK_CARDS,
    V_VOIDS,
    V_WINNING_CARD,
    V_WINNING_SEAT,
)
from .bidding import blind_allowed_nb, deficit_nb, exchange_size_nb, legal_bids_nb
from .bits import TRUMP_MASK, byte_of_nb, flag_of_nb, lowest_card, wrap_seat_nb
from .deal import draw_deal_nb, ordered_deck_nb, shuffle_deal_nb
from .decide import (
    T_BLIND_BID_RATES,
    T_BLIND_FLOOR,
    T_BLIND_NIL_RATES,
    T_BUMP_RATES,
    T_KEEP_RATES,
    T_KINDS,
    T_MEMO_GROUPS,
    T_PLAY,
    T_RANDOM_BIDS,
    T_RULE_BAG_FLOOR,
    T_RULE_MASK,
    T_RULE_STATIC,
    T_SCORE_AWARE,
)
from .layout import (
    DEAL_DRAW,
    FIRST_LEADER_DEALER_LEFT,
    FIRST_LEADER_RANDOM,
    FIRST_LEADER_TWO_OF_CLUBS,
    GAME_SHIFT,
    N_PARAMS,
    SEARCH_KEY_XOR,
    STRATEGY_MC,
    STRATEGY_RANDOM,
)
from .plugin import fill_common_nb, fill_rules_nb
from .rng import bounded_nb, seed_nb
from .scoring import score_side_nb
from .search import mc_card_nb, suit_index_nb
from .simulate import game_over_nb
from .strategy_bids import choose_bid_nb, choose_blind_nb, choose_bump_nb, choose_pass_nb
from .strategy_kernels import estimate_tricks_nb, rule_play_bits_nb
from .strategy_play import choose_card_nb, credit_nb, hand_facts_nb
from .trick import card_strength_nb, follow_mask_nb, lead_mask_nb, suit_mask_of_card_nb

DONE = 0
YIELD = 1

# The stages of a hand.
STAGE_START = 0  # a unit (hand or game) begins
STAGE_DEAL = 1
STAGE_BID = 2
STAGE_PLAY = 3

# Named slots of ``state``.
S_UNIT = 0  # units (hands or games) finished
S_ROW = 1  # rows written
S_STAGE = 2
S_ACTION = 3  # the Python seat's action, -1 none
S_SEAT = 4  # the seat to act
S_POSITION = 5  # bidding position, or place in the trick
S_LOOKED = 6  # 1: the bidder at S_POSITION has made its blind choice and looks
S_DEALER = 7
S_KEY_INDEX = 8
S_GAME_ID = 9
S_FIRST_DEALER = 10
S_N_HANDS = 11
S_BIDS = 12
S_BLIND = 13
S_BUMPED = 14
S_TRICKS = 15
S_PLAYED = 16
S_TAKEN = 17
S_BROKEN = 18
S_VOIDS = 19
S_LEADER = 20
S_FIRST_LEADER = 21
S_TRICK_INDEX = 22
S_LED_MASK = 23
S_WIN_STRENGTH = 24
S_WIN_SEAT = 25
S_TRICK_CARDS = 26
S_ILLEGAL = 27
S_HAND_PLAY = 28
S_FACTS = 29  # + 0..2
S_HANDS = 32  # + seat: held now
S_DEALT = 36  # + seat: as dealt
S_SCORES = 40  # + side: before the hand
S_BAGS = 44  # + side
S_PLAYED_BY = 48  # + seat
S_N_EXCHANGED = 52
S_HAND_ID = 53  # the hand's id as the API numbers it (key index, or hand within the game)
STATE_SIZE = 54

# Columns of ``records`` (int64, a row per hand): the fields of ``core/schema.HandArrays``,
# flat, so that a call takes one array, not the sixteen of the named tuple (each array an
# argument costs a fraction of a microsecond, and a table with a Python seat calls the kernel
# once per Python decision). ``mixed.py`` unpacks them.
R_HAND_ID = 0
R_GAME_ID = 1
R_DEALER = 2
R_FIRST_LEADER = 3
R_HANDS = 4  # + seat
R_BLIND = 8
R_BIDS = 12
R_BUMPED = 16
R_TRICKS = 20
R_SCORE_BEFORE = 24  # + side
R_BAGS_BEFORE = 28
R_SCORE_DELTA = 32
R_BAGS_AFTER = 36
R_PLAYS = 40  # + play (MAX_PLAYS)
R_PLAY_SEATS = 92
R_EXCHANGE = 144  # + 3 * entry + (from, to, card) (MAX_EXCHANGE entries)
RECORD_WIDTH = 192
# Columns of ``game_records`` (a row per game), as ``core/schema.GameArrays``.
G_GAME_ID = 0
G_FIRST_DEALER = 1
G_N_HANDS = 2
G_WINNER = 3
G_FINAL_SCORE = 4  # + side
G_FINAL_BAGS = 8
GAME_RECORD_WIDTH = 12

_SEARCH_KEY_XOR = np.uint64(SEARCH_KEY_XOR)

if config.DISABLE_JIT:

    def params_of_nb(row):
        return tuple(row)

else:
    from numba.np.unsafe.ndarray import to_fixed_tuple

    @njit(cache=True, inline="always")
    def params_of_nb(row):
        """A seat's parameter row as the tuple ``search.mc_card_nb`` is typed for."""
        return to_fixed_tuple(row, N_PARAMS)


@njit(cache=True, inline="always")
def _four(state, slot):
    return (state[slot], state[slot + 1], state[slot + 2], state[slot + 3])


@njit(cache=True)
def _fill_view_nb(view, rules, state, seat, phase, position, legal):
    """The numba plug-ins' view for ``seat`` (``plugin.plugin_bid_nb``, ``plugin_card_nb``)."""
    tricks = state[S_TRICKS] if phase == PHASE_PLAY else 0
    fill_common_nb(view, rules, phase, seat, state[S_DEALER], position, state[S_HANDS + seat],
                   legal, state[S_BIDS], state[S_BLIND], tricks, _four(state, S_SCORES),
                   _four(state, S_BAGS))
    if phase == PHASE_BID:
        for slot in (V_TRICK, V_LEADER, V_LED_SUIT, V_WINNING_CARD, V_WINNING_SEAT,
                     V_FIRST_LEADER):
            view[slot] = -1
        view[V_SPADES_BROKEN] = 0
        view[V_PLAYED] = 0
        view[V_VOIDS] = 0
        for i in range(4):
            view[V_PLAYED_BY + i] = 0
            view[V_TRICK_CARDS + i] = -1
        return
    view[V_TRICK] = state[S_TRICK_INDEX]
    view[V_LEADER] = state[S_LEADER]
    leading = position == 0
    view[V_LED_SUIT] = -1 if leading else suit_index_nb(state[S_TRICK_CARDS] & 0xFF)
    view[V_WINNING_CARD] = -1 if leading else state[S_WIN_STRENGTH] & 63
    view[V_WINNING_SEAT] = -1 if leading else state[S_WIN_SEAT]
    view[V_FIRST_LEADER] = state[S_FIRST_LEADER]
    view[V_SPADES_BROKEN] = state[S_BROKEN]
    view[V_PLAYED] = state[S_PLAYED]
    view[V_VOIDS] = state[S_VOIDS]
    for i in range(4):
        view[V_PLAYED_BY + i] = state[S_PLAYED_BY + i]
        view[V_TRICK_CARDS + i] = (state[S_TRICK_CARDS] >> (8 * i)) & 0xFF if i < position else -1


@njit(cache=True)
def mixed_run_nb(rules, table, param_rows, memo, scratch, played_by, deal_key, play_key,
                 first_unit, n_units, games_mode, python_mask, records, game_records, state, rng,
                 view, deck):
    """Play (or go on playing) ``n_units`` hands or games until a Python seat must act
    (``YIELD``) or the piece is done (``DONE``: ``state[S_UNIT]`` units, ``state[S_ROW]``
    rows). ``table``, ``param_rows`` and ``memo`` as for ``decide.py`` (the table's own seats);
    ``scratch`` int64[SCRATCH_SIZE] and ``played_by`` int64[4] the search's (``search.py``);
    ``records`` and ``game_records`` the rows written (``R_*``, ``G_*``; plays and exchanges
    always recorded, in rows the caller filled with -1 there); ``deck`` int64[108] scratch.
    A fresh piece starts from ``state`` zeroed with ``state[S_ACTION] = -1``."""
    players = rules.players
    hand_size = rules.hand_size
    capacity = records.shape[0]
    kinds_packed = table[T_KINDS]
    memo_tuple = (table[T_MEMO_GROUPS], memo, memo.view(np.float64))
    rates = (table[T_BLIND_NIL_RATES], table[T_BLIND_BID_RATES], table[T_BUMP_RATES])
    n_cards = ordered_deck_nb(rules, deck)
    while True:
        stage = state[S_STAGE]
        if stage == STAGE_START:
            unit = state[S_UNIT]
            if unit == n_units:
                return DONE
            fill_rules_nb(view, rules)
            key_index = first_unit + unit
            state[S_DEALER] = key_index % players
            state[S_GAME_ID] = -1
            state[S_HAND_ID] = key_index
            if games_mode:
                if capacity - state[S_ROW] < rules.hand_cap:
                    return DONE
                game_id = first_unit + unit
                state[S_GAME_ID] = game_id
                key_index = (game_id << GAME_SHIFT) + 1
                dealer, _ = bounded_nb(seed_nb(deal_key, game_id << GAME_SHIFT), players)
                state[S_DEALER] = dealer
                state[S_FIRST_DEALER] = dealer
                state[S_HAND_ID] = 0
            state[S_KEY_INDEX] = key_index
            for side in range(4):
                state[S_SCORES + side] = 0
                state[S_BAGS + side] = 0
            state[S_N_HANDS] = 0
            state[S_STAGE] = STAGE_DEAL
        elif stage == STAGE_DEAL:
            key_index = state[S_KEY_INDEX]
            dealer = state[S_DEALER]
            deal_state = seed_nb(deal_key, key_index)
            play_state = seed_nb(play_key, key_index)
            rng[2] = seed_nb(play_key ^ _SEARCH_KEY_XOR, key_index)
            if rules.deal == DEAL_DRAW:
                hand0, hand1, deal_state, play_state = draw_deal_nb(
                    rules, kinds_packed, param_rows, table[T_KEEP_RATES], dealer, deal_state,
                    play_state, deck, n_cards)
                hand2 = 0
                hand3 = 0
            else:
                hand0, hand1, hand2, hand3, deal_state = shuffle_deal_nb(rules, deal_state, deck,
                                                                         n_cards)
            rng[0] = deal_state
            rng[1] = play_state
            for seat, hand in enumerate((hand0, hand1, hand2, hand3)):
                state[S_HANDS + seat] = hand
                state[S_DEALT + seat] = hand
                state[S_PLAYED_BY + seat] = 0
            state[S_BIDS] = (1 << (8 * players)) - 1
            state[S_BLIND] = 0
            state[S_POSITION] = 0
            state[S_LOOKED] = 0
            state[S_N_EXCHANGED] = 0
            state[S_STAGE] = STAGE_BID
        elif stage == STAGE_BID:
            if state[S_POSITION] == players:
                _finish_auction_nb(rules, table, param_rows, state, rng, records, rates)
                continue
            dealer = state[S_DEALER]
            position = state[S_POSITION]
            seat = wrap_seat_nb(dealer + 1 + position, players)
            kind = byte_of_nb(kinds_packed, seat)
            bids = state[S_BIDS]
            blind = state[S_BLIND]
            scores = _four(state, S_SCORES)
            bags = _four(state, S_BAGS)
            nil_on = rules.nil != 0
            constrained = rules.bids_total_not_tricks != 0 or rules.min_team_bid > 0
            every_bid = (2 << hand_size) - 1
            choice = -1
            if state[S_LOOKED] == 0 and (rules.blind_nil != 0 or rules.blind_bids != 0):
                deficit = deficit_nb(rules, seat, scores)
                if kind == STRATEGY_RANDOM or deficit >= table[T_BLIND_FLOOR]:
                    blind_nil_ok = rules.blind_nil != 0 and blind_allowed_nb(
                        deficit, rules.blind_nil_min_deficit)
                    if blind_nil_ok and constrained:
                        blind_nil_ok = legal_bids_nb(rules, seat, position, bids, blind,
                                                     True) & 1 != 0
                    blind_bids = 0
                    if rules.blind_bids and blind_allowed_nb(deficit,
                                                                rules.blind_bid_min_deficit):
                        blind_bids = every_bid
                        if constrained:
                            blind_bids = legal_bids_nb(rules, seat, position, bids, blind,
                                                       nil_on)
                        blind_bids &= (2 << rules.blind_bid_max) - 2
                    if blind_nil_ok or blind_bids:
                        partner = (seat + 2) & 3
                        partner_nil = rules.partnership != 0 and byte_of_nb(bids, partner) == 0 \
                            and (nil_on or flag_of_nb(blind, partner) != 0)
                        choice, rng[1] = choose_blind_nb(rules, kind, param_rows, rates, seat,
                                                         deficit, partner_nil, blind_nil_ok,
                                                         blind_bids, bids, scores, bags, rng[1])
            if choice >= 0:
                bid = choice
                state[S_BLIND] = blind | (1 << seat)
            else:
                legal = every_bid
                if constrained:
                    legal = legal_bids_nb(rules, seat, position, bids, blind, nil_on)
                if (python_mask >> seat) & 1:
                    if state[S_ACTION] < 0:
                        state[S_LOOKED] = 1
                        state[S_SEAT] = seat
                        _fill_view_nb(view, rules, state, seat, PHASE_BID, position, legal)
                        return YIELD
                    bid = state[S_ACTION]
                    state[S_ACTION] = -1
                else:
                    estimate = 0.0
                    if kind != STRATEGY_RANDOM:
                        estimate = estimate_tricks_nb(rules, param_rows[seat],
                                                      state[S_HANDS + seat])
                    hand = state[S_HANDS + seat]
                    bid, rng[1] = choose_bid_nb(rules, kind, param_rows, table[T_RANDOM_BIDS],
                                                seat, (hand, hand, hand, hand), estimate, bids,
                                                blind, legal, scores, bags,
                                                table[T_SCORE_AWARE] != 0, memo_tuple, rng[1])
                if bid < 0 or bid > hand_size or ((legal >> bid) & 1) == 0:
                    raise ValueError("a strategy made a bid the rules do not allow")
            state[S_BIDS] = (bids & ~(0xFF << (8 * seat))) | (bid << (8 * seat))
            state[S_POSITION] = position + 1
            state[S_LOOKED] = 0
        elif stage == STAGE_PLAY:
            if state[S_TRICK_INDEX] == hand_size:
                if _score_nb(rules, state, records, game_records, games_mode):
                    state[S_UNIT] += 1
                    state[S_STAGE] = STAGE_START
                else:
                    state[S_STAGE] = STAGE_DEAL
                continue
            if _play_nb(rules, table, param_rows, scratch, played_by, python_mask, state, rng,
                        records, view):
                return YIELD


@njit(cache=True)
def _finish_auction_nb(rules, table, param_rows, state, rng, records, rates):
    """Bumps, exchanges, the first leader and the play's per-hand facts (``_run_nb``)."""
    players = rules.players
    hand_size = rules.hand_size
    kinds_packed = table[T_KINDS]
    dealer = state[S_DEALER]
    first = wrap_seat_nb(dealer + 1, players)
    bids = state[S_BIDS]
    blind = state[S_BLIND]
    scores = _four(state, S_SCORES)
    bags = _four(state, S_BAGS)
    bumped = 0
    if rules.bid_bump:
        for position in range(players):
            seat = wrap_seat_nb(first + position, players)
            bid = byte_of_nb(bids, seat)
            nil = bid == 0 and (rules.nil != 0 or flag_of_nb(blind, seat) != 0)
            if nil or flag_of_nb(blind, seat) or bid >= hand_size:
                continue
            kind = byte_of_nb(kinds_packed, seat)
            estimate = 0.0
            if kind != STRATEGY_RANDOM:
                estimate = estimate_tricks_nb(rules, param_rows[seat], state[S_HANDS + seat])
            bump, rng[1] = choose_bump_nb(rules, kind, param_rows, rates[2], seat, position,
                                          estimate, bids, scores, bags, rng[1])
            if bump:
                bids += 1 << (8 * seat)
                bumped |= 1 << seat
    state[S_BIDS] = bids
    state[S_BUMPED] = bumped
    row = state[S_ROW]
    n_exchanged = 0
    if rules.partnership != 0 and (rules.blind_nil_exchange > 0 or rules.nil_exchange > 0) \
            and ((bids - 0x01010101) & ~bids & 0x80808080) != 0:
        for position in range(players):
            seat = wrap_seat_nb(first + position, players)
            n_pass = exchange_size_nb(rules, seat, bids, blind)
            if n_pass == 0:
                continue
            partner = (seat + 2) & 3
            given, rng[1] = choose_pass_nb(byte_of_nb(kinds_packed, seat),
                                           state[S_HANDS + seat], n_pass, True, rng[1])
            state[S_HANDS + seat] ^= given
            state[S_HANDS + partner] |= given
            returned, rng[1] = choose_pass_nb(byte_of_nb(kinds_packed, partner),
                                              state[S_HANDS + partner], n_pass, False, rng[1])
            state[S_HANDS + partner] ^= returned
            state[S_HANDS + seat] |= returned
            for giver, taker, cards in ((seat, partner, given), (partner, seat, returned)):
                while cards:
                    records[row, R_EXCHANGE + 3 * n_exchanged] = giver
                    records[row, R_EXCHANGE + 3 * n_exchanged + 1] = taker
                    records[row, R_EXCHANGE + 3 * n_exchanged + 2] = lowest_card(cards)
                    n_exchanged += 1
                    cards &= cards - 1
    state[S_N_EXCHANGED] = n_exchanged
    if rules.first_leader == FIRST_LEADER_DEALER_LEFT:
        leader = wrap_seat_nb(dealer + 1, players)
    elif rules.first_leader == FIRST_LEADER_RANDOM:
        leader, rng[0] = bounded_nb(rng[0], players)
    else:  # two_of_clubs: its holder leads it
        leader = 0
        for seat in range(players):
            if state[S_HANDS + seat] & 1:
                leader = seat
    state[S_LEADER] = leader
    state[S_FIRST_LEADER] = leader
    facts = (0, 0, 0)
    if kinds_packed != 0:
        facts = hand_facts_nb(rules, bids, blind)
    for i in range(3):
        state[S_FACTS + i] = facts[i]
    hand_play = table[T_PLAY]
    if table[T_RULE_MASK] != 0:
        hand_play = table[T_RULE_STATIC]
        if max(max(bags[0], bags[1]), max(bags[2], bags[3])) >= table[T_RULE_BAG_FLOOR]:
            hand_play = rule_play_bits_nb(rules, table[T_PLAY], table[T_RULE_MASK], bids, blind,
                                          bags)
    state[S_HAND_PLAY] = hand_play
    for slot in (S_TRICKS, S_PLAYED, S_TAKEN, S_BROKEN, S_VOIDS, S_TRICK_INDEX, S_POSITION,
                 S_ILLEGAL, S_TRICK_CARDS):
        state[slot] = 0
    state[S_STAGE] = STAGE_PLAY


@njit(cache=True)
def _play_nb(rules, table, param_rows, scratch, played_by, python_mask, state, rng, records,
             view):
    """One card of the play (``_run_nb``'s trick loop, one step); True to yield to Python."""
    players = rules.players
    k = state[S_POSITION]
    leader = state[S_LEADER]
    trick_index = state[S_TRICK_INDEX]
    seat = wrap_seat_nb(leader + k, players)
    hand = state[S_HANDS + seat]
    kind = byte_of_nb(table[T_KINDS], seat)
    broken = state[S_BROKEN] != 0
    led_mask = state[S_LED_MASK]
    if k == 0:
        legal = lead_mask_nb(rules, hand, broken, trick_index)
        if trick_index == 0 and rules.first_leader == FIRST_LEADER_TWO_OF_CLUBS:
            legal = 1
    else:
        legal = follow_mask_nb(hand, led_mask)
    facts = (state[S_FACTS], state[S_FACTS + 1], state[S_FACTS + 2])
    if (python_mask >> seat) & 1:
        if state[S_ACTION] < 0:
            state[S_SEAT] = seat
            _fill_view_nb(view, rules, state, seat, PHASE_PLAY, k, legal)
            return True
        card = state[S_ACTION]
        state[S_ACTION] = -1
    elif kind == STRATEGY_MC:
        for other in range(4):
            played_by[other] = state[S_PLAYED_BY + other]
        if k == 0:
            card, rng[2] = mc_card_nb(
                rules, params_of_nb(param_rows[seat]),
                byte_of_nb(state[S_HAND_PLAY], seat), facts, seat, hand, legal, 0, leader, 0, 0,
                leader, broken, trick_index, state[S_TRICKS], state[S_BIDS], state[S_BLIND],
                played_by, state[S_VOIDS], _four(state, S_BAGS), scratch, rng[2])
        else:
            card, rng[2] = mc_card_nb(
                rules, params_of_nb(param_rows[seat]),
                byte_of_nb(state[S_HAND_PLAY], seat), facts, seat, hand, legal, k, leader,
                led_mask, state[S_WIN_STRENGTH], state[S_WIN_SEAT], broken, trick_index,
                state[S_TRICKS], state[S_BIDS], state[S_BLIND], played_by, state[S_VOIDS],
                _four(state, S_BAGS), scratch, rng[2])
    elif k == 0:
        card, rng[1] = choose_card_nb(rules, kind, state[S_HAND_PLAY], seat, hand, legal, 0,
                                      leader, -1, -1, facts, state[S_TRICKS], state[S_TAKEN],
                                      state[S_PLAYED], rng[1])
    else:
        card, rng[1] = choose_card_nb(rules, kind, state[S_HAND_PLAY], seat, hand, legal, k,
                                      leader, state[S_WIN_STRENGTH] & 63, state[S_WIN_SEAT],
                                      facts, state[S_TRICKS], state[S_TAKEN], 0, rng[1])
    bit = 1 << card
    state[S_ILLEGAL] |= bit & ~legal
    state[S_PLAYED] |= bit
    state[S_HANDS + seat] = hand ^ bit
    state[S_PLAYED_BY + seat] |= bit
    row = state[S_ROW]
    records[row, R_PLAYS + trick_index * players + k] = card
    records[row, R_PLAY_SEATS + trick_index * players + k] = seat
    if k == 0:
        led_mask = suit_mask_of_card_nb(card)
        state[S_LED_MASK] = led_mask
        state[S_TRICK_CARDS] = card
        if (card >= 39) and (hand & ~TRUMP_MASK) == 0 and rules.broken_by_forced_lead != 0:
            state[S_BROKEN] = 1
        state[S_WIN_SEAT] = seat
        state[S_WIN_STRENGTH] = card_strength_nb(card, led_mask)
    else:
        led_suit = suit_index_nb(state[S_TRICK_CARDS] & 0xFF)
        if (hand & led_mask) == 0:
            state[S_VOIDS] |= 1 << (4 * seat + led_suit)
        state[S_TRICK_CARDS] |= card << (8 * k)
        if card >= 39 and (led_mask & TRUMP_MASK) == 0:
            state[S_BROKEN] = 1
        strength = card_strength_nb(card, led_mask)
        if strength > state[S_WIN_STRENGTH]:
            state[S_WIN_STRENGTH] = strength
            state[S_WIN_SEAT] = seat
    k += 1
    if k < players:
        state[S_POSITION] = k
        return False
    winner = state[S_WIN_SEAT]
    state[S_TRICKS] += 1 << (8 * winner)
    state[S_TAKEN] += credit_nb(facts, winner)
    state[S_LEADER] = winner
    state[S_TRICK_INDEX] = trick_index + 1
    state[S_POSITION] = 0
    return False


@njit(cache=True)
def _score_nb(rules, state, records, game_records, games_mode):
    """Score and record the hand (``_run_nb``); True when the unit is over."""
    if state[S_ILLEGAL]:
        raise ValueError("a strategy chose an illegal card")
    row = state[S_ROW]
    bids = state[S_BIDS]
    blind = state[S_BLIND]
    tricks = state[S_TRICKS]
    records[row, R_HAND_ID] = state[S_HAND_ID]
    records[row, R_GAME_ID] = state[S_GAME_ID]
    records[row, R_DEALER] = state[S_DEALER]
    records[row, R_FIRST_LEADER] = state[S_FIRST_LEADER]
    for seat in range(4):
        records[row, R_HANDS + seat] = state[S_DEALT + seat]
    for seat in range(rules.players):
        records[row, R_BIDS + seat] = byte_of_nb(bids, seat)
        records[row, R_BLIND + seat] = (blind >> seat) & 1
        records[row, R_BUMPED + seat] = (state[S_BUMPED] >> seat) & 1
        records[row, R_TRICKS + seat] = byte_of_nb(tricks, seat)
    for side in range(rules.n_sides):
        delta, bags_after = score_side_nb(rules, side, bids, blind, tricks, state[S_BAGS + side])
        records[row, R_SCORE_BEFORE + side] = state[S_SCORES + side]
        records[row, R_BAGS_BEFORE + side] = state[S_BAGS + side]
        records[row, R_SCORE_DELTA + side] = delta
        records[row, R_BAGS_AFTER + side] = bags_after
        state[S_SCORES + side] += delta
        state[S_BAGS + side] = bags_after
    state[S_ROW] = row + 1
    state[S_N_HANDS] += 1
    n_hands = state[S_N_HANDS]
    if not games_mode:
        return True
    over, winner = game_over_nb(rules, _four(state, S_SCORES))
    if not over and rules.max_hands > 0 and n_hands >= rules.max_hands:
        over = True
    elif not over and n_hands >= rules.hand_cap:
        over = True
        winner = -1
    if over:
        unit = state[S_UNIT]
        game_records[unit, G_GAME_ID] = state[S_GAME_ID]
        game_records[unit, G_FIRST_DEALER] = state[S_FIRST_DEALER]
        game_records[unit, G_N_HANDS] = n_hands
        game_records[unit, G_WINNER] = winner
        for side in range(rules.n_sides):
            game_records[unit, G_FINAL_SCORE + side] = state[S_SCORES + side]
            game_records[unit, G_FINAL_BAGS + side] = state[S_BAGS + side]
        return True
    state[S_DEALER] = wrap_seat_nb(state[S_DEALER] + 1, rules.players)
    state[S_KEY_INDEX] += 1
    state[S_HAND_ID] = n_hands
    return False
