"""The counting player of ``counter_python.py``, as a numba plug-in: the same bids and cards,
decided from the engine's array view at engine speed.

    spades-sim match examples/strategies/counter_numba.py:CounterNumba heuristic --hands 100000
"""

from numba import njit

from spades_sim.core import view as v

SPADES = 3
NO_CARD = 99
PARTNERSHIP = v.rule_slot("partnership")  # (a global: numba reads it as a constant)


@njit(cache=True)
def rank(card):
    """2 .. A as 0 .. 12; the jokers above the ace (13, 14)."""
    return card % 13 if card < 52 else card - 39


@njit(cache=True)
def suit(card):
    return SPADES if card >= 52 else card // 13


@njit(cache=True)
def beats(card, best):
    if card >= 39:
        return best < 39 or card > best
    return best < 39 and suit(card) == suit(best) and card > best


@njit(cache=True)
def estimate(hand):
    tricks = 0
    for s in range(3):
        length = 0
        for r in range(13):
            length += (hand >> (13 * s + r)) & 1
        ace = (hand >> (13 * s + 12)) & 1
        king = (hand >> (13 * s + 11)) & 1
        tricks += ace + (1 if king and length >= 2 else 0)
    spades = 0
    for card in range(39, 54):
        spades += (hand >> card) & 1
    tricks += max(spades - 3, 0) + ((hand >> 51) & 1) + ((hand >> 50) & 1)
    return tricks


@njit(cache=True)
def bid(view, params, rng):
    """The estimate plus ``bias`` (params 0), within 1 .. hand size; the nearest legal bid,
    preferring a non-zero one, then the higher."""
    want = min(max(estimate(view[v.V_HAND]) + int(params[0]), 1), view[v.V_HAND_SIZE])
    legal = view[v.V_LEGAL]
    best, best_key = -1, 1 << 30
    for b in range(view[v.V_HAND_SIZE] + 1):
        if legal >> b & 1:
            key = (10000 if b == 0 else 0) + 100 * abs(b - want) + (99 - b)
            if key < best_key:
                best, best_key = b, key
    return best


@njit(cache=True)
def lowest_rank(cards):
    best = NO_CARD
    for card in range(54):
        if cards >> card & 1 and (best == NO_CARD or rank(card) < rank(best)):
            best = card
    return best


@njit(cache=True)
def highest_rank(cards):
    best = NO_CARD
    for card in range(54):
        if cards >> card & 1 and (best == NO_CARD or rank(card) >= rank(best)):
            best = card
    return best


@njit(cache=True)
def play(view, params, rng):
    legal = view[v.V_LEGAL]
    seat, players = view[v.V_SEAT], view[v.V_PLAYERS]
    partnership = view[PARTNERSHIP] != 0
    contract = max(view[v.V_BIDS + seat], 0)
    taken = view[v.V_TRICKS + seat]
    if partnership:
        partner = (seat + 2) % 4
        contract += max(view[v.V_BIDS + partner], 0)
        taken += view[v.V_TRICKS + partner]
    if taken >= contract:
        return lowest_rank(legal)  # duck: the lowest rank
    winning = view[v.V_WINNING_CARD]
    if winning < 0:
        return highest_rank(legal)  # lead the highest rank
    if partnership and view[v.V_WINNING_SEAT] == (seat + 2) % players:
        return lowest_rank(legal)  # partner wins: keep cards
    best = NO_CARD  # the cheapest winner: a side-suit card before a trump, then the lowest rank
    for card in range(54):
        if legal >> card & 1 and beats(card, winning):
            key = 100 * (card >= 39) + rank(card)
            if best == NO_CARD or key < 100 * (best >= 39) + rank(best):
                best = card
    if best != NO_CARD:
        return best
    return lowest_rank(legal)


class CounterNumba:
    params = {"bias": 0.0}
    tunable = {"bias": (-2, 3, "int")}  # (bid adds int(bias): whole numbers are what differ)
    bid = bid
    play = play
