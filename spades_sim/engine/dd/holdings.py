"""Small card-set helpers of the search: suits, runs of top cards and the strongest play.

All are inlined into the search (``inline="always"``): a call that is not inlined copies its
tuple arguments, and these run at every node. The holdings are row ``HANDS_ROW`` of the moves
array (``layout.py``).
"""

from __future__ import annotations

from numba import njit

from ..bits import TRUMP_MASK, highest_card, lowest_card, popcount
from ..trick import follow_mask_nb
from .layout import HANDS_ROW, SEATS

#: Every card below the jokers and the spades' range: the non-trumps of any deck.
NON_TRUMP_MASK = (1 << 39) - 1


@njit(cache=True, inline="always")
def suit_cards_nb(suit):
    """All the cards of suit 0..3; the trump suit includes both jokers."""
    return (0x7FFF if suit == 3 else 0x1FFF) << (13 * suit)


@njit(cache=True, inline="always")
def between_nb(low, high):
    """Bits strictly between card ``low`` and card ``high`` (``low < high``)."""
    return ((1 << high) - 1) & ~((2 << low) - 1)


@njit(cache=True, inline="always")
def union_nb(moves):
    """Every card still held."""
    union = 0
    for seat in range(SEATS):
        union |= moves[HANDS_ROW, seat]
    return union


@njit(cache=True, inline="always")
def top_run_nb(mine, live):
    """How many of the highest cards of ``live`` belong to ``mine``, counted from the top."""
    count = 0
    while live != 0:
        top = highest_card(live)
        if ((mine >> top) & 1) == 0:
            break
        count += 1
        live ^= 1 << top
    return count


@njit(cache=True, inline="always")
def top_cards_nb(live, count):
    """The ``count`` highest cards of ``live``."""
    cards = 0
    for _ in range(count):
        top = highest_card(live)
        cards |= 1 << top
        live ^= 1 << top
    return cards


@njit(cache=True, inline="always")
def longest_other_nb(moves, players, seat, cards):
    """The most of ``cards`` that one seat other than ``seat`` holds."""
    longest = 0
    for other in range(players):
        if other != seat:
            longest = max(longest, popcount(moves[HANDS_ROW, other] & cards))
    return longest


@njit(cache=True, inline="always")
def best_strength_nb(held, led_mask):
    """The strongest card (``card_strength_nb``) a seat holding ``held`` may play to a
    trick of the led suit ``led_mask``; 0 when it can only discard."""
    legal = follow_mask_nb(held, led_mask)
    if legal & TRUMP_MASK:
        return highest_card(legal & TRUMP_MASK) + 128
    if legal & led_mask:
        return highest_card(legal & led_mask) + 64
    return 0


@njit(cache=True, inline="always")
def least_strength_nb(held, led_mask):
    """The weakest card (``card_strength_nb``) a seat holding ``held`` may play to a trick
    of the led suit ``led_mask``: 0 when it may discard a card of a third suit."""
    legal = follow_mask_nb(held, led_mask)
    if legal & led_mask:
        return lowest_card(legal & led_mask) + (128 if (led_mask & TRUMP_MASK) else 64)
    if (legal & ~TRUMP_MASK) != 0:
        return 0
    return lowest_card(legal) + 128


@njit(cache=True, inline="always")
def winner_rel_nb(moves, card, owner, on_table):
    """A card that wins a trick by rank, with the cards of its owner's hand equivalent to
    it: their owners matter to an answer that relies on its rank (a lower one of them would
    have won too, and was not tried)."""
    owner_hand = moves[HANDS_ROW, owner]
    below = ((1 << card) - 1) & suit_cards_nb(3 if card >= 39 else card // 13)
    floor = ((union_nb(moves) & ~owner_hand) | on_table) & below
    if floor != 0:
        below &= ~((2 << highest_card(floor)) - 1)
    return (1 << card) | (owner_hand & below)
