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
)
from .bidding import blind_allowed_nb, deficit_nb, legal_bids_nb
from .bits import TRUMP_MASK, byte_of_nb, flag_of_nb, wrap_seat_nb
from .deal import draw_deal_nb, ordered_deck_nb, shuffle_deal_nb, shuffle_nb
from .decide import (
    T_BLIND_BID_RATES,
    T_BLIND_FLOOR,
    T_BLIND_NIL_RATES,
    T_BUMP_RATES,
    T_KEEP_RATES,
    T_KINDS,
    T_MEMO_GROUPS,
    T_RANDOM_BIDS,
    T_SCORE_AWARE,
)
from .layout import (
    DEAL_DRAW,
    FIRST_LEADER_TWO_OF_CLUBS,
    GAME_SHIFT,
    N_PARAMS,
    SEARCH_KEY_XOR,
    STRATEGY_MC,
    STRATEGY_RANDOM,
)
from .plugin import fill_rules_nb
from .rng import bounded_nb, seed_nb
from .search import mc_card_nb, suit_index_nb
from .strategy_bids import choose_bid_nb, choose_blind_nb, choose_keep_nb
from .strategy_kernels import estimate_tricks_nb
from .strategy_play import choose_card_nb, credit_nb
from .table_slots import (
    DONE,
    FULL_SHIFT,
    PHASE_BLIND,
    PHASE_KEEP,
    R_PLAY_SEATS,
    R_PLAYS,
    S_ACTION,
    S_BAGS,
    S_BIDS,
    S_BLIND,
    S_BROKEN,
    S_BUMPED,
    S_DEALER,
    S_DEALT,
    S_DECLINED,
    S_DRAW,
    S_FACE_UP,
    S_FACTS,
    S_FIRST_DEALER,
    S_GAME_ID,
    S_HAND_ID,
    S_HAND_PLAY,
    S_HANDS,
    S_ILLEGAL,
    S_KEY_INDEX,
    S_LEADER,
    S_LED_MASK,
    S_LOOKED,
    S_N_EXCHANGED,
    S_N_HANDS,
    S_PLAYED,
    S_PLAYED_BY,
    S_POSITION,
    S_ROW,
    S_SCORES,
    S_STAGE,
    S_STOCK_KEY,
    S_TAKEN,
    S_TRICK_CARDS,
    S_TRICK_INDEX,
    S_TRICKS,
    S_UNIT,
    S_VOIDS,
    S_WIN_SEAT,
    S_WIN_STRENGTH,
    STAGE_BID,
    STAGE_BUMP,
    STAGE_DEAL,
    STAGE_DRAW,
    STAGE_EXCHANGE,
    STAGE_PLAY,
    STAGE_START,
    YIELD,
    four_nb,
)
from .table_steps import (
    auction_done_nb,
    bump_step_nb,
    exchange_step_nb,
    fill_view_nb,
    score_nb,
    yield_nb,
)
from .trick import card_strength_nb, follow_mask_nb, lead_mask_nb, suit_mask_of_card_nb

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
            # (the ordered deck here, once a hand, not once a call: a call per decision made
            # it a fifth of a batched environment step)
            n_cards = ordered_deck_nb(rules, deck)
            key_index = state[S_KEY_INDEX]
            dealer = state[S_DEALER]
            deal_state = seed_nb(deal_key, key_index)
            play_state = seed_nb(play_key, key_index)
            rng[2] = seed_nb(play_key ^ _SEARCH_KEY_XOR, key_index)
            for seat in range(4):
                state[S_HANDS + seat] = 0
                state[S_PLAYED_BY + seat] = 0
            state[S_DECLINED] = 0
            state[S_DECLINED + 1] = 0
            state[S_N_EXCHANGED] = 0
            state[S_BIDS] = (1 << (8 * players)) - 1  # (none yet, for a keep's view)
            state[S_BLIND] = 0
            state[S_BUMPED] = 0
            if rules.deal == DEAL_DRAW and (python_mask >> FULL_SHIFT) & 3:
                # a seat keeps for itself: the draw pair by pair (STAGE_DRAW)
                state[S_STOCK_KEY] = deal_state
                rng[0] = shuffle_nb(deal_state, deck, n_cards)
                rng[1] = play_state
                state[S_DRAW] = 0
                state[S_STAGE] = STAGE_DRAW
                continue
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
            _dealt_nb(state, players)
        elif stage == STAGE_DRAW:
            if _draw_nb(rules, table, param_rows, python_mask, state, rng, deck):
                return YIELD
            _dealt_nb(state, players)
        elif stage == STAGE_BID:
            if state[S_POSITION] == players:
                auction_done_nb(rules, state)
                continue
            dealer = state[S_DEALER]
            position = state[S_POSITION]
            seat = wrap_seat_nb(dealer + 1 + position, players)
            kind = byte_of_nb(kinds_packed, seat)
            bids = state[S_BIDS]
            blind = state[S_BLIND]
            scores = four_nb(state, S_SCORES)
            bags = four_nb(state, S_BAGS)
            nil_on = rules.nil != 0
            constrained = rules.bids_total_not_tricks != 0 or rules.min_team_bid > 0
            every_bid = (2 << hand_size) - 1
            choice = -1
            if state[S_LOOKED] == 0 and (rules.blind_nil != 0 or rules.blind_bids != 0):
                deficit = deficit_nb(rules, seat, scores)
                full = (python_mask >> (FULL_SHIFT + seat)) & 1
                if full or kind == STRATEGY_RANDOM or deficit >= table[T_BLIND_FLOOR]:
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
                    if (blind_nil_ok or blind_bids) and full:
                        if state[S_ACTION] < 0:
                            yield_nb(state, seat, PHASE_BLIND,
                                     1 | ((blind_bids | int(blind_nil_ok)) << 1))
                            return YIELD
                        choice = state[S_ACTION] - 1  # (-1: the seat looks)
                        state[S_ACTION] = -1
                        state[S_LOOKED] = 1
                    elif blind_nil_ok or blind_bids:
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
                        yield_nb(state, seat, PHASE_BID, legal)
                        fill_view_nb(view, rules, state, seat, PHASE_BID, position, legal)
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
        elif stage == STAGE_BUMP:
            if bump_step_nb(rules, table, param_rows, python_mask, state, rng, rates):
                return YIELD
        elif stage == STAGE_EXCHANGE:
            if exchange_step_nb(rules, table, python_mask, state, rng, records):
                return YIELD
        elif stage == STAGE_PLAY:
            if state[S_TRICK_INDEX] == hand_size:
                if score_nb(rules, state, records, game_records, games_mode):
                    state[S_UNIT] += 1
                    state[S_STAGE] = STAGE_START
                else:
                    state[S_STAGE] = STAGE_DEAL
                continue
            if _play_nb(rules, table, param_rows, scratch, played_by, python_mask, state, rng,
                        records, view):
                return YIELD


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
            yield_nb(state, seat, PHASE_PLAY, legal)
            fill_view_nb(view, rules, state, seat, PHASE_PLAY, k, legal)
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
                played_by, state[S_VOIDS], four_nb(state, S_BAGS), scratch, rng[2])
        else:
            card, rng[2] = mc_card_nb(
                rules, params_of_nb(param_rows[seat]),
                byte_of_nb(state[S_HAND_PLAY], seat), facts, seat, hand, legal, k, leader,
                led_mask, state[S_WIN_STRENGTH], state[S_WIN_SEAT], broken, trick_index,
                state[S_TRICKS], state[S_BIDS], state[S_BLIND], played_by, state[S_VOIDS],
                four_nb(state, S_BAGS), scratch, rng[2])
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
def _dealt_nb(state, players):
    """The cards are dealt: record them and open the auction."""
    for seat in range(4):
        state[S_DEALT + seat] = state[S_HANDS + seat]
    state[S_BIDS] = (1 << (8 * players)) - 1
    state[S_BLIND] = 0
    state[S_BUMPED] = 0
    state[S_POSITION] = 0
    state[S_LOOKED] = 0
    state[S_N_EXCHANGED] = 0
    state[S_STAGE] = STAGE_BID


@njit(cache=True)
def _draw_nb(rules, table, param_rows, python_mask, state, rng, deck):
    """The draw deal (``deal.draw_deal_nb``) from pair ``state[S_DRAW]`` on, where a seat keeps
    for itself; True to yield it the face-up card (``state[S_ACTION]``: 1 keep, 0 take the
    face-down card). The stock is shuffled again from ``state[S_STOCK_KEY]`` at each call."""
    n_cards = ordered_deck_nb(rules, deck)
    shuffle_nb(state[S_STOCK_KEY], deck, n_cards)
    hand_size = rules.hand_size
    first = wrap_seat_nb(state[S_DEALER] + 1, 2)
    draw = state[S_DRAW]
    while draw < 2 * hand_size:
        turn = draw // hand_size
        pair = draw - turn * hand_size
        seat = first if turn == 0 else 1 - first
        face_up = deck[26 * turn + 2 * pair]
        face_down = deck[26 * turn + 2 * pair + 1]
        if (python_mask >> (FULL_SHIFT + seat)) & 1:
            if state[S_ACTION] < 0:
                state[S_DRAW] = draw
                state[S_FACE_UP] = face_up
                yield_nb(state, seat, PHASE_KEEP, 3)
                return True
            keep = state[S_ACTION] == 1
            state[S_ACTION] = -1
        else:
            keep, rng[1] = choose_keep_nb(byte_of_nb(table[T_KINDS], seat), param_rows,
                                          table[T_KEEP_RATES], seat, face_up, rng[1])
        state[S_HANDS + seat] |= 1 << (face_up if keep else face_down)
        if not keep:
            state[S_DECLINED + seat] |= 1 << face_up
        draw += 1
    state[S_DRAW] = draw
    state[S_FACE_UP] = -1
    return False
