"""Pure rule helpers of the play: legal cards, who wins a trick, when spades break.

Shared by the reference twin (``reference/``) and the hand-log replay (``handlog.py``); the
engine has its own compiled versions (``engine/trick.py``) and the tests hold them equal.
"""

from __future__ import annotations

from .cards import NON_TRUMP_MASK, TWO_OF_CLUBS, suit_cards, suit_of
from .rules import Rules


def legal_cards(rules: Rules, hand_mask: int, led_suit: int | None, spades_broken: bool,
                trick_index: int) -> int:
    """Bitboard of the cards of ``hand_mask`` that may be played now.

    Parameters
    ----------
    rules : Rules
        The rule variant (``spades_lead`` and ``first_leader`` matter here).
    hand_mask : int
        The cards the seat holds now.
    led_suit : int or None
        Suit of the card led to this trick (0..3, jokers are spades), or None when leading.
    spades_broken : bool
        Whether spades are broken before this play.
    trick_index : int
        0-based index of the trick.

    Returns
    -------
    int
        A bitboard: following, the cards of the led suit if any, else the whole hand; leading,
        trumps only where ``spades_lead`` allows it or when the hand holds nothing else, and
        under ``first_leader = "two_of_clubs"`` only the 2C to the first trick (empty when the
        seat does not hold it).

    Examples
    --------
    >>> from spades_sim.core.cards import cards_of, mask_of
    >>> from spades_sim.core.rules import preset
    >>> hand = mask_of([0, 40])  # 2C and 3S
    >>> cards_of(legal_cards(preset("classic"), hand, None, False, 3))
    [0]
    >>> cards_of(legal_cards(preset("classic"), hand, 3, False, 3))
    [40]
    """
    if led_suit is not None:
        follow = suit_cards(hand_mask, led_suit)
        return follow if follow else hand_mask
    if rules.first_leader == "two_of_clubs" and trick_index == 0:
        return hand_mask & (1 << TWO_OF_CLUBS)
    if rules.spades_lead == "anytime" or spades_broken:
        return hand_mask
    if rules.spades_lead == "after_first_trick" and trick_index > 0:
        return hand_mask
    side_cards = hand_mask & NON_TRUMP_MASK
    return side_cards if side_cards else hand_mask


def beats(card: int, winning_card: int) -> bool:
    """True when ``card`` takes the trick from ``winning_card``.

    A trump (spade or joker) beats any non-trump and every lower trump; otherwise only a higher
    card of the same suit wins.

    >>> beats(39, 12), beats(11, 12), beats(25, 12)
    (True, False, False)
    """
    card_trump = card >= 39
    winner_trump = winning_card >= 39
    if card_trump:
        return (not winner_trump) or card > winning_card
    if winner_trump:
        return False
    return suit_of(card) == suit_of(winning_card) and card > winning_card


def trick_winner(cards) -> int:
    """Position (0 = the lead) of the card that wins a trick of ``cards`` in play order.

    >>> trick_winner([5, 12, 40, 3])
    2
    """
    best = 0
    for position in range(1, len(cards)):
        if beats(cards[position], cards[best]):
            best = position
    return best


def breaks_spades(rules: Rules, card: int, position: int, led_suit: int | None,
                  hand_mask: int) -> bool:
    """Whether playing ``card`` breaks spades.

    ``position`` is the 0-based place in the trick, ``led_suit`` the suit led (None when
    leading), ``hand_mask`` the hand before the play. A trump played on another suit's lead
    breaks spades; with ``broken_by_forced_lead``, so does a trump led from an all-trump hand.
    """
    if card < 39:
        return False
    if position == 0:
        return rules.broken_by_forced_lead and (hand_mask & NON_TRUMP_MASK) == 0
    return led_suit != 3
