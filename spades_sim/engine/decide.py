"""One decision of a built-in strategy at a time: the kernels the game-state API calls.

The hand loop (``simulate.py``) makes every decision of a built-in seat inside one kernel call;
a table with a Python plug-in is stepped by the game-state API (``game/``), which asks the
engine for each built-in decision here. Each kernel takes the state the hand loop holds at that
moment (packed bids, tricks and blind bits, bitboards, the generator state) and calls the very
helpers the loop calls (``strategy_bids.py``, ``strategy_play.py``, ``search.py``), so a table
stepped one decision at a time makes the loop's decisions with the loop's draws.

What the loop computes once per kernel call from the seats' strategies (the packed rates, the
play switches, the memo groups) a :class:`Decider` computes once per strategy
(:func:`table_nb`), for a table of four seats of that strategy: every packed value is per
seat, so the seat that acts reads its own.

Speed: numba's dispatcher types every argument on each call, and a rules tuple of 40 ints
costs about 4 microseconds to type, several times the decision itself; a :class:`Decider`
calls each kernel's compiled entry point (``unsafe.entry_point``) with arguments of the one
signature it compiled for.
"""

import numpy as np
from numba import njit

from ..core.strategies import N_PARAMS, STRATEGY_RANDOM, Strategy, kernel_arrays
from .bits import byte_of_nb
from .deal import ordered_deck_nb, shuffle_deal_nb, shuffle_nb
from .layout import P_BLIND_BID_RATE, P_BLIND_NIL_RATE, P_BUMP_RATE, P_KEEP_RATE, RULE_BAG_ROOM
from .search import SCRATCH_SIZE, mc_card_nb, void_deal_nb
from .strategy_bids import (
    choose_bid_nb,
    choose_blind_nb,
    choose_bump_nb,
    choose_keep_nb,
    choose_pass_nb,
)
from .strategy_kernels import (
    estimate_tricks_nb,
    heuristic_blind_floor_nb,
    play_bits_nb,
    random_bid_ranges_nb,
    random_rates_nb,
    rule_play_bits_nb,
    rule_play_mask_nb,
    score_aware_nb,
)
from .strategy_play import choose_card_nb, hand_facts_nb, taken_nb
from .strategy_value import memo_groups_nb, memo_table_nb
from .trick import card_strength_nb, suit_mask_of_card_nb
from .unsafe import entry_point

# The per-strategy constants (``table_nb``), named slots of one int64 array.
T_KINDS = 0  # the kind, a byte per seat (kinds_packed)
T_RANDOM_BIDS = 1
T_BLIND_NIL_RATES = 2
T_BLIND_BID_RATES = 3
T_BUMP_RATES = 4
T_KEEP_RATES = 5
T_BLIND_FLOOR = 6
T_SCORE_AWARE = 7
T_PLAY = 8  # the play switches, a byte per seat
T_RULE_MASK = 9
T_MEMO_GROUPS = 10
T_RULE_STATIC = 11  # the rule-play switches away from the bag limit
T_RULE_BAG_FLOOR = 12
TABLE_SIZE = 13


@njit(cache=True)
def table_nb(rules, kinds, params, table):
    """Fill ``table`` (int64[TABLE_SIZE]) with what ``simulate._run_nb`` computes once per
    kernel call from the seats' ``kinds`` and ``params`` (tuples, as the loop takes them)."""
    kinds_packed = 0
    for seat in range(4):
        kinds_packed |= kinds[seat] << (8 * seat)
    table[T_KINDS] = kinds_packed
    table[T_RANDOM_BIDS] = random_bid_ranges_nb(kinds, params)
    table[T_BLIND_NIL_RATES] = random_rates_nb(kinds, params, P_BLIND_NIL_RATE)
    table[T_BLIND_BID_RATES] = random_rates_nb(kinds, params, P_BLIND_BID_RATE)
    table[T_BUMP_RATES] = random_rates_nb(kinds, params, P_BUMP_RATE)
    table[T_KEEP_RATES] = random_rates_nb(kinds, params, P_KEEP_RATE)
    table[T_BLIND_FLOOR] = heuristic_blind_floor_nb(kinds, params)
    table[T_SCORE_AWARE] = 1 if score_aware_nb(kinds, params) else 0
    play_packed = play_bits_nb(kinds, params)
    rule_mask = rule_play_mask_nb(kinds, params)
    table[T_PLAY] = play_packed
    table[T_RULE_MASK] = rule_mask
    table[T_MEMO_GROUPS] = memo_groups_nb(kinds, params)
    table[T_RULE_STATIC] = rule_play_bits_nb(rules, play_packed, rule_mask, 0, 0, (0, 0, 0, 0))
    floor = rules.bag_limit - RULE_BAG_ROOM if rules.bag_limit > 0 else 1 << 62
    if rules.ten_for_two_hundred != 0:
        floor = -1
    table[T_RULE_BAG_FLOOR] = floor


@njit(cache=True, inline="always")
def _sides(values):
    return (values[0], values[1], values[2], values[3])


@njit(cache=True, inline="always")
def _hand_play_nb(rules, table, bids, blind, bags):
    """The play switches of this hand, as the loop picks them (``simulate._run_nb``)."""
    if table[T_RULE_MASK] == 0:
        return table[T_PLAY]
    if max(max(bags[0], bags[1]), max(bags[2], bags[3])) >= table[T_RULE_BAG_FLOOR]:
        return rule_play_bits_nb(rules, table[T_PLAY], table[T_RULE_MASK], bids, blind, bags)
    return table[T_RULE_STATIC]


@njit(cache=True)
def blind_nb(rules, table, param_rows, seat, deficit, partner_nil, blind_nil_ok, blind_bids,
             bids, scores, bags, state):
    """``(choice, state)``: the blind choice of ``seat`` (-1 look, 0 blind nil, else a blind
    bid from the bitmask ``blind_bids``), as ``bidding.bid_round_nb`` makes it; ``scores`` and
    ``bags`` int64[4] per side."""
    kind = byte_of_nb(table[T_KINDS], seat)
    if kind != STRATEGY_RANDOM and deficit < table[T_BLIND_FLOOR]:
        return -1, state  # (the loop does not ask: no draw)
    return choose_blind_nb(rules, kind, param_rows, (table[T_BLIND_NIL_RATES],
                                                     table[T_BLIND_BID_RATES]),
                           seat, deficit, partner_nil, blind_nil_ok, blind_bids, bids,
                           _sides(scores), _sides(bags), state)


@njit(cache=True)
def bid_nb(rules, table, param_rows, memo, seat, hand, bids, blind, legal, scores, bags, state):
    """``(bid, state)``: the bid of ``seat`` holding ``hand``, ``legal`` the allowed bids
    (``bidding.bid_round_nb``); ``memo`` the strategy's memo buffer (``memo_table_nb``)."""
    kind = byte_of_nb(table[T_KINDS], seat)
    estimate = 0.0
    if kind != STRATEGY_RANDOM:
        estimate = estimate_tricks_nb(rules, param_rows[seat], hand)
    return choose_bid_nb(rules, kind, param_rows, table[T_RANDOM_BIDS], seat,
                         (hand, hand, hand, hand), estimate, bids, blind, legal, _sides(scores),
                         _sides(bags), table[T_SCORE_AWARE] != 0,
                         (table[T_MEMO_GROUPS], memo, memo.view(np.float64)), state)


@njit(cache=True)
def bump_nb(rules, table, param_rows, seat, position, hand, bids, scores, bags, state):
    """``(bump, state)``: whether ``seat`` (bidding ``position``-th) raises its bid."""
    kind = byte_of_nb(table[T_KINDS], seat)
    estimate = 0.0
    if kind != STRATEGY_RANDOM:
        estimate = estimate_tricks_nb(rules, param_rows[seat], hand)
    return choose_bump_nb(rules, kind, param_rows, table[T_BUMP_RATES], seat, position,
                          estimate, bids, _sides(scores), _sides(bags), state)


@njit(cache=True)
def keep_nb(table, param_rows, seat, face_up, state):
    """``(keep, state)``: the draw deal's choice of ``seat`` for the ``face_up`` card."""
    return choose_keep_nb(byte_of_nb(table[T_KINDS], seat), param_rows, table[T_KEEP_RATES],
                          seat, face_up, state)


@njit(cache=True)
def pass_nb(table, seat, hand, n_cards, nil_bidder, state):
    """``(cards, state)``: the bitmask of the ``n_cards`` cards ``seat`` passes."""
    return choose_pass_nb(byte_of_nb(table[T_KINDS], seat), hand, n_cards, nil_bidder, state)


@njit(cache=True)
def card_nb(rules, table, seat, hand, legal, n_in_trick, leader, winning_card, winning_seat,
            bids, blind, tricks, played, bags, state):
    """``(card, state)``: the card of a ``random`` or heuristic seat (``winning_card`` and
    ``winning_seat`` -1 for a lead; ``played`` every card played this hand; ``bags`` int64[4]
    per side, before the hand)."""
    kind = byte_of_nb(table[T_KINDS], seat)
    facts = (0, 0, 0)
    if kind != STRATEGY_RANDOM:
        facts = hand_facts_nb(rules, bids, blind)
    hand_play = _hand_play_nb(rules, table, bids, blind, _sides(bags))
    if n_in_trick != 0:
        played = 0  # (the loop shows the cards played to leaders only)
    return choose_card_nb(rules, kind, hand_play, seat, hand, legal, n_in_trick, leader,
                          winning_card, winning_seat, facts, tricks, taken_nb(rules, facts,
                                                                              tricks),
                          played, state)


@njit(cache=True)
def mc_nb(rules, table, seat_params, seat, hand, legal, n_in_trick, leader, led_card,
          winning_card, winning_seat, spades_broken, trick_index, tricks, bids, blind,
          played_by, voids, bags, scratch, state):
    """``(card, state)``: the search player's card, ``state`` the search stream's
    (``search.mc_card_nb``); ``led_card`` and ``winning_card`` are -1 for a lead;
    ``played_by`` int64[4], ``scratch`` int64[SCRATCH_SIZE]."""
    facts = hand_facts_nb(rules, bids, blind)
    hand_bags = _sides(bags)
    play_bits = byte_of_nb(_hand_play_nb(rules, table, bids, blind, hand_bags), seat)
    if n_in_trick == 0:
        return mc_card_nb(rules, seat_params, play_bits, facts, seat, hand, legal, 0, leader, 0,
                          0, leader, spades_broken, trick_index, tricks, bids, blind, played_by,
                          voids, hand_bags, scratch, state)
    led_mask = suit_mask_of_card_nb(led_card)
    return mc_card_nb(rules, seat_params, play_bits, facts, seat, hand, legal, n_in_trick,
                      leader, led_mask, card_strength_nb(winning_card, led_mask), winning_seat,
                      spades_broken, trick_index, tricks, bids, blind, played_by, voids,
                      hand_bags, scratch, state)


@njit(cache=True)
def deal_nb(rules, state, deck, out):
    """Deal one hand on the deal stream (``deal.shuffle_deal_nb``, misdeal redeal included):
    the seats' bitboards into ``out`` (int64[4]); returns the state. ``deck``:
    int64[2 * 54] scratch."""
    n_cards = ordered_deck_nb(rules, deck)
    out[0], out[1], out[2], out[3], state = shuffle_deal_nb(rules, state, deck, n_cards)
    return state


@njit(cache=True)
def shuffled_deck_nb(rules, state, deck):
    """The rules' deck shuffled on the deal stream (``deal.shuffle_nb``) in ``deck[:n]``;
    returns ``(n, state)``. ``deck``: int64[2 * 54] scratch."""
    n_cards = ordered_deck_nb(rules, deck)
    return n_cards, shuffle_nb(state, deck, n_cards)


@njit(cache=True)
def estimates_nb(rules, params, hands, out):
    """The heuristic's trick estimate (``estimate_tricks_nb``, parameters ``params``) of each
    bitboard of ``hands`` into ``out``."""
    for index in range(hands.shape[0]):
        out[index] = estimate_tricks_nb(rules, params, hands[index])


# -- the Python side ----------------------------------------------------------------------------

_DECK_SIZE = 2 * 54


def _u64(state) -> np.uint64:
    return np.uint64(state)


class Decider:
    """The decisions of one built-in strategy under one set of rules, a kernel call each.

    Every method takes the state as the game-state API holds it (Python ints: bitboards,
    packed bids and tricks, bits per seat) and the generator's state, and returns the decision
    and the generator's new state (a Python int).
    """

    def __init__(self, rules, strategy: Strategy):
        self.rules = rules.kernel_tuple()
        kinds, params = kernel_arrays([strategy] * 4, rules)
        self.kind = int(kinds[0])
        kinds_tuple = tuple(int(kind) for kind in kinds)
        params_tuple = tuple(tuple(float(value) for value in row) for row in params)
        self.table = np.zeros(TABLE_SIZE, dtype=np.int64)
        table_nb(self.rules, kinds_tuple, params_tuple, self.table)
        self.param_rows = np.ascontiguousarray(params, dtype=np.float64)
        self.seat_params = params_tuple[0]
        assert len(self.seat_params) == N_PARAMS
        self.memo = memo_table_nb()
        self.scratch = np.zeros(SCRATCH_SIZE, dtype=np.int64)
        self.played_by = np.zeros(4, dtype=np.int64)
        self.scores = np.zeros(4, dtype=np.int64)
        self.bags = np.zeros(4, dtype=np.int64)
        self._blind = entry_point(blind_nb, (self.rules, self.table, self.param_rows, 0, 0,
                                             False, False, 0, 0, self.scores, self.bags,
                                             _u64(1)))
        self._bid = entry_point(bid_nb, (self.rules, self.table, self.param_rows, self.memo, 0,
                                         0, 0, 0, 1, self.scores, self.bags, _u64(1)))
        self._bump = entry_point(bump_nb, (self.rules, self.table, self.param_rows, 0, 0, 0, 0,
                                           self.scores, self.bags, _u64(1)))
        self._keep = entry_point(keep_nb, (self.table, self.param_rows, 0, 0, _u64(1)))
        self._pass = entry_point(pass_nb, (self.table, 0, 1, 1, False, _u64(1)))
        self._card = entry_point(card_nb, (self.rules, self.table, 0, 1, 1, 0, 0, -1, -1, 0, 0,
                                           0, 0, self.bags, _u64(1)))
        self._mc = None

    def _per_side(self, target: np.ndarray, values) -> np.ndarray:
        """``values`` (a list per seat or side) copied into ``target``."""
        for side, value in enumerate(values):
            target[side] = value
        return target

    def blind(self, seat, deficit, partner_nil, blind_nil_ok, blind_bids, bids, scores, bags,
              state):
        choice, state = self._blind(self.rules, self.table, self.param_rows, seat, deficit,
                                    bool(partner_nil), bool(blind_nil_ok), blind_bids, bids,
                                    self._per_side(self.scores, scores),
                                    self._per_side(self.bags, bags), _u64(state))
        return int(choice), int(state)

    def bid(self, seat, hand, bids, blind, legal, scores, bags, state):
        bid, state = self._bid(self.rules, self.table, self.param_rows, self.memo, seat, hand,
                               bids, blind, legal, self._per_side(self.scores, scores),
                               self._per_side(self.bags, bags), _u64(state))
        return int(bid), int(state)

    def bump(self, seat, position, hand, bids, scores, bags, state):
        bump, state = self._bump(self.rules, self.table, self.param_rows, seat, position, hand,
                                 bids, self._per_side(self.scores, scores),
                                 self._per_side(self.bags, bags), _u64(state))
        return bool(bump), int(state)

    def keep(self, seat, face_up, state):
        keep, state = self._keep(self.table, self.param_rows, seat, face_up, _u64(state))
        return bool(keep), int(state)

    def pass_cards(self, seat, hand, n_cards, nil_bidder, state):
        cards, state = self._pass(self.table, seat, hand, n_cards, bool(nil_bidder),
                                  _u64(state))
        return int(cards), int(state)

    def card(self, seat, hand, legal, n_in_trick, leader, winning_card, winning_seat, bids,
             blind, tricks, played, bags, state):
        card, state = self._card(self.rules, self.table, seat, hand, legal, n_in_trick, leader,
                                 winning_card, winning_seat, bids, blind, tricks, played,
                                 self._per_side(self.bags, bags), _u64(state))
        return int(card), int(state)

    def mc_card(self, seat, hand, legal, n_in_trick, leader, led_card, winning_card,
                winning_seat, spades_broken, trick_index, tricks, bids, blind, played_by, voids,
                bags, state):
        played = self._per_side(self.played_by, played_by)
        args = (self.rules, self.table, self.seat_params, seat, hand, legal, n_in_trick, leader,
                led_card, winning_card, winning_seat, bool(spades_broken), trick_index, tricks,
                bids, blind, played, voids, self._per_side(self.bags, bags), self.scratch,
                _u64(state))
        if self._mc is None:
            self._mc = entry_point(mc_nb, args)
        card, state = self._mc(*args)
        return int(card), int(state)


class Dealer:
    """The deal stream's kernels for one set of rules (``deal.py``)."""

    def __init__(self, rules):
        self.rules = rules.kernel_tuple()
        self.deck = np.zeros(_DECK_SIZE, dtype=np.int64)
        self.out = np.zeros(4, dtype=np.int64)
        self._deal = entry_point(deal_nb, (self.rules, _u64(1), self.deck, self.out))
        self._shuffled = entry_point(shuffled_deck_nb, (self.rules, _u64(1), self.deck))

    def deal(self, state) -> tuple[list[int], int]:
        """``(one bitboard per seat, state)``: one deal, misdeal redeals included."""
        state = self._deal(self.rules, _u64(state), self.deck, self.out)
        return [int(hand) for hand in self.out], int(state)

    def shuffled_deck(self, state) -> tuple[list[int], int]:
        """``(the shuffled deck, state)`` (the draw deal's stock)."""
        n_cards, state = self._shuffled(self.rules, _u64(state), self.deck)
        return [int(card) for card in self.deck[:n_cards]], int(state)


def trick_estimates(rules, params, hands) -> np.ndarray:
    """The heuristic's trick estimate of each bitboard of ``hands`` (float64), with the
    parameter vector ``params`` (float64[N_PARAMS])."""
    hands = np.ascontiguousarray(hands, dtype=np.int64).reshape(-1)
    out = np.zeros(len(hands), dtype=np.float64)
    estimates_nb(rules.kernel_tuple(), np.ascontiguousarray(params, dtype=np.float64), hands,
                 out)
    return out


def void_deal(pool, counts, voids: int, discard_room: int) -> list[int]:
    """``search.void_deal_nb`` on Python values: the cards of ``pool`` (in order) dealt to the
    four seats (``counts`` cards each) and the discards, respecting ``voids``."""
    pool_array = np.zeros(max(len(pool), 1), dtype=np.int64)
    pool_array[:len(pool)] = pool
    sampled = np.zeros(4, dtype=np.int64)
    void_deal_nb(pool_array, len(pool), np.ascontiguousarray(counts[:4], dtype=np.int64),
                 voids, discard_room, sampled)
    return [int(hand) for hand in sampled]
