"""Trick mechanics: legal-move masks, which cards would win the trick, trick winners."""

from numba import njit

from .bits import TRUMP_MASK, suit_mask_nb, suit_of_nb
from .layout import (
    SPADES_LEAD_AFTER_FIRST_TRICK,
    SPADES_LEAD_ANYTIME,
)


@njit(cache=True, inline="always")
def lead_mask_nb(rules, hand, spades_broken, trick_index):
    """Bitboard of the cards ``hand`` may lead.

    Trumps only when ``spades_lead`` allows it (``anytime``; ``after_first_trick`` from the
    second trick; ``broken`` once broken) or when the hand holds nothing else.
    """
    mode = rules.spades_lead
    side_cards = hand & ~TRUMP_MASK
    trumps_allowed = (
        spades_broken
        | (mode == SPADES_LEAD_ANYTIME)
        | ((mode == SPADES_LEAD_AFTER_FIRST_TRICK) & (trick_index > 0))
        | (side_cards == 0)
    )
    return hand if trumps_allowed else side_cards


@njit(cache=True, inline="always")
def follow_mask_nb(hand, led_mask):
    """Bitboard of the cards ``hand`` may play to a trick whose led suit is ``led_mask``
    (``suit_mask_of_card_nb`` of the lead): that suit if it holds any, else anything."""
    follow = hand & led_mask
    # A select, not a branch: whether a seat can follow is unpredictable.
    return follow if follow != 0 else hand


@njit(cache=True, inline="always")
def winning_cards_nb(legal, winning_card):
    """The cards of ``legal`` that would take the lead from ``winning_card`` right now."""
    above = ~((2 << winning_card) - 1)  # bits strictly above the winning card
    if winning_card >= 39:
        return legal & TRUMP_MASK & above
    return (legal & suit_mask_nb(suit_of_nb(winning_card)) & above) | (legal & TRUMP_MASK)


@njit(cache=True, inline="always")
def suit_mask_of_card_nb(card):
    """All the cards of ``card``'s suit (the trumps, jokers included, for a spade or joker).

    Compares instead of ``card // 13``: this is on the critical path from a lead to the
    followers' legal masks.
    """
    suit = int(card >= 13) + int(card >= 26)  # (ints: NumPy bools would add as a logical or)
    return TRUMP_MASK if card >= 39 else 0x1FFF << (13 * suit)


@njit(cache=True, inline="always")
def card_strength_nb(card, led_mask):
    """Trick-taking strength: 0 for an off-suit non-trump, ``card + 64`` for the led suit,
    ``card + 128`` for a trump. The highest strength in a trick wins it; written without
    branches because the outcome is unpredictable and mispredictions dominate the hot loop.
    """
    strength = card + 64 if (led_mask >> card) & 1 else 0
    return card + 128 if card >= 39 else strength
