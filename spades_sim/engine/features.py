"""Hand features and deal filters in the engine: the features of ``core/features.py`` computed
from a bitboard, the clause table of a declarative deal filter evaluated as data, and the deal
loop of a filtered hand (rejection on the hand's own deal stream).

Feature codes, operator codes and the clause columns are those of ``core/features.py``.
"""

import numpy as np
from numba import njit

from .bits import popcount
from .deal import ordered_deck_nb, shuffle_deal_nb
from .rng import seed_nb
from .strategy_kernels import estimate_tricks_nb

# Feature codes (core/features.py: FEATURES).
F_CLUBS, F_DIAMONDS, F_HEARTS, F_SPADES, F_HCP, F_ACES, F_KINGS, F_SPADE_HONOURS = range(8)
F_VOIDS, F_SINGLETONS, F_TRICK_ESTIMATE = 8, 9, 10
N_FEATURES = 11
_RANK_COLUMN = 1 | (1 << 13) | (1 << 26) | (1 << 39)  # the 2 of every suit
_HONOUR_TRUMPS = (7 << 49) | (3 << 52)  # QS, KS, AS and both jokers


@njit(cache=True)
def _suit_length_nb(hand, suit):
    if suit == 3:
        return popcount((hand >> 39) & 0x7FFF)  # spades and jokers
    return popcount((hand >> (13 * suit)) & 0x1FFF)


@njit(cache=True)
def feature_nb(rules, params, hand, feature):
    """Feature ``feature`` (a code) of the dealt ``hand``, as a float64; ``params`` the default
    heuristic's parameter vector (for ``trick_estimate``)."""
    if feature <= F_SPADES:
        return float(_suit_length_nb(hand, feature))
    jokers = popcount((hand >> 52) & 3)
    if feature == F_HCP:
        return float(4 * (popcount(hand & (_RANK_COLUMN << 12)) + jokers)
                     + 3 * popcount(hand & (_RANK_COLUMN << 11))
                     + 2 * popcount(hand & (_RANK_COLUMN << 10))
                     + popcount(hand & (_RANK_COLUMN << 9)))
    if feature == F_ACES:
        return float(popcount(hand & (_RANK_COLUMN << 12)))
    if feature == F_KINGS:
        return float(popcount(hand & (_RANK_COLUMN << 11)))
    if feature == F_SPADE_HONOURS:
        return float(popcount(hand & _HONOUR_TRUMPS))
    if feature == F_VOIDS or feature == F_SINGLETONS:
        wanted = 0 if feature == F_VOIDS else 1
        count = 0
        for suit in range(4):
            count += _suit_length_nb(hand, suit) == wanted
        return float(count)
    return estimate_tricks_nb(rules, params, hand)


@njit(cache=True)
def accepts_nb(rules, params, clauses, hand0, hand1, hand2, hand3):
    """Whether the clause table ``clauses`` (float64 (n, 5): group, seat, feature, operator,
    value; clauses of a group joined by ``and``, groups by ``or``) accepts the deal."""
    n_clauses = clauses.shape[0]
    if n_clauses == 0:
        return True
    group = clauses[0, 0]
    ok = True
    for index in range(n_clauses):
        if clauses[index, 0] != group:
            if ok:
                return True
            group = clauses[index, 0]
            ok = True
        if not ok:
            continue
        seat = int(clauses[index, 1])
        hand = hand0 if seat == 0 else hand1 if seat == 1 else hand2 if seat == 2 else hand3
        value = feature_nb(rules, params, hand, int(clauses[index, 2]))
        op = int(clauses[index, 3])
        right = clauses[index, 4]
        if op == 0:
            ok = value < right
        elif op == 1:
            ok = value <= right
        elif op == 2:
            ok = value == right
        elif op == 3:
            ok = value != right
        elif op == 4:
            ok = value >= right
        else:
            ok = value > right
    return ok


@njit(cache=True)
def filtered_deal_nb(rules, deal_filter, skip, state, deck, n_cards):
    """Deal a filtered hand: ``(hand0, hand1, hand2, hand3, state, tries)``.

    Deals (``shuffle_deal_nb``, misdeal redeals included) follow one another on the hand's deal
    stream; the first that comes after the first ``skip`` and that the filter's clauses accept
    is the hand's. ``tries`` counts the deals drawn; it is 0 when ``max_tries`` deals were
    drawn with none accepted (the hands returned are then the last deal's).
    """
    clauses, params, max_tries = deal_filter[0], deal_filter[1], deal_filter[3]
    tries = 0
    while True:
        hand0, hand1, hand2, hand3, state = shuffle_deal_nb(rules, state, deck, n_cards)
        tries += 1
        if tries > skip and accepts_nb(rules, params, clauses, hand0, hand1, hand2, hand3):
            return hand0, hand1, hand2, hand3, state, tries
        if tries >= max_tries:
            return hand0, hand1, hand2, hand3, state, 0


@njit(cache=True)
def card_features_nb(rules, params, hands, out):
    """Every feature of each bitboard of ``hands`` (int64 (n,)) into ``out`` (float64
    (n, N_FEATURES)), in code order."""
    for row in range(hands.shape[0]):
        for feature in range(N_FEATURES):
            out[row, feature] = feature_nb(rules, params, hands[row], feature)


@njit(cache=True)
def filter_tries_nb(rules, deal_filter, deal_key, first_hand_id, out):
    """Deals drawn by the filter for independent hands ``first_hand_id ...`` (one per entry of
    ``out``, int64, written in place; 0 for a hand with no deal accepted in ``max_tries``).
    Returns the number of hands measured (it stops after the first failure)."""
    deck = np.zeros(108, dtype=np.int64)
    n_cards = ordered_deck_nb(rules, deck)
    for unit in range(out.shape[0]):
        state = seed_nb(deal_key, first_hand_id + unit)
        tries = filtered_deal_nb(rules, deal_filter, 0, state, deck, n_cards)[5]
        out[unit] = tries
        if tries == 0:
            return unit + 1
    return out.shape[0]
