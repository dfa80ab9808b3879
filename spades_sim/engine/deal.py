"""Dealing: the ordered deck, a Fisher-Yates shuffle on the deal stream, misdeal redeal."""

from numba import njit

from .bits import HONOURS_KQJ_MASK, TRUMP_MASK, lowest_card, popcount
from .layout import R_DECK_MASK, R_HAND_SIZE, R_MISDEAL_REDEAL, R_PLAYERS
from .rng import bounded_nb


@njit(cache=True, inline="always")
def shuffle_deal_nb(rules, state, deck, n_cards):
    """Shuffle and deal one hand on the deal stream; return ``(hand0, hand1, hand2, hand3, state)``.

    Draw contract: ``deck[:n_cards]`` is refilled with the cards of the rules' deck in ascending
    index order (kept at ``deck[n_cards:2*n_cards]`` by ``ordered_deck_nb``, one scratch array
    rather than two so the inlined call passes one array); then for ``i = n-1 .. 1`` a
    Fisher-Yates step swaps ``deck[i]`` with ``deck[bounded(i + 1)]``; seat ``s`` receives
    ``deck[s*hand_size : (s+1)*hand_size]``
    (cards past ``players * hand_size`` stay undealt; seats past ``players`` get 0). With
    ``misdeal_redeal`` the whole procedure repeats, on the same stream, while some hand has no
    trump or no K, Q or J.
    """
    players = rules[R_PLAYERS]
    hand_size = rules[R_HAND_SIZE]
    while True:
        # deck[n_cards:2*n_cards] holds the ordered deck (``ordered_deck_nb``).
        for i in range(n_cards):
            deck[i] = deck[n_cards + i]
        for i in range(n_cards - 1, 0, -1):
            j, state = bounded_nb(state, i + 1)
            card = deck[j]
            deck[j] = deck[i]
            deck[i] = card
        hand0 = 0
        hand1 = 0
        hand2 = 0
        hand3 = 0
        for k in range(hand_size):
            hand0 |= 1 << deck[k]
            hand1 |= 1 << deck[hand_size + k]
            if players > 2:
                hand2 |= 1 << deck[2 * hand_size + k]
            if players > 3:
                hand3 |= 1 << deck[3 * hand_size + k]
        if not rules[R_MISDEAL_REDEAL] or not (
            _misdealt_nb(hand0) or _misdealt_nb(hand1) or _misdealt_nb(hand2)
            or (players == 4 and _misdealt_nb(hand3))
        ):
            return hand0, hand1, hand2, hand3, state


@njit(cache=True, inline="always")
def _misdealt_nb(hand):
    """A hand with no trump (jokers count) or no K, Q or J calls for a redeal."""
    return (hand & TRUMP_MASK) == 0 or (hand & HONOURS_KQJ_MASK) == 0


@njit(cache=True, inline="always")
def ordered_deck_nb(rules, deck):
    """Write the rules' deck in ascending order at ``deck[n:2n]``; return ``n``."""
    n_cards = popcount(rules[R_DECK_MASK])
    mask = rules[R_DECK_MASK]
    position = n_cards
    while mask:
        deck[position] = lowest_card(mask)
        position += 1
        mask &= mask - 1
    return n_cards
