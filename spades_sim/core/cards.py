"""Cards: index <-> text, bitboard masks <-> card lists, pretty hands (pure Python).

Card index = ``suit * 13 + rank`` with suits C, D, H, S = 0..3 and ranks 2..A = 0..12, so
``2C = 0`` and ``AS = 51``. The jokers deck adds ``LJ = 52`` and ``BJ = 53``: the index order is
the trump order (BJ > LJ > AS > ... > 2S), so "higher index wins" holds among trumps.
A hand is an ``int64`` bitboard: bit ``card`` is set when the hand holds ``card``.
"""

from __future__ import annotations

from .errors import CardError

RANKS = "23456789TJQKA"
SUITS = "CDHS"
SPADES = 3
LITTLE_JOKER = 52
BIG_JOKER = 53
N_CARD_INDICES = 54

SUIT_MASKS = tuple(((1 << 13) - 1) << (13 * suit) for suit in range(4))
JOKER_MASK = (1 << LITTLE_JOKER) | (1 << BIG_JOKER)
STANDARD_DECK_MASK = (1 << 52) - 1
TRUMP_MASK = SUIT_MASKS[SPADES] | JOKER_MASK  # spades and both jokers
NON_TRUMP_MASK = SUIT_MASKS[0] | SUIT_MASKS[1] | SUIT_MASKS[2]
# J, Q and K of every suit (the misdeal check of ``misdeal_redeal``).
KQJ_MASK = sum(0b0111 << (13 * suit + 9) for suit in range(4))
TWO_OF_CLUBS = 0


def card_text(card: int) -> str:
    """Text of a card index.

    >>> card_text(0), card_text(51), card_text(34), card_text(53)
    ('2C', 'AS', 'TH', 'BJ')
    """
    if card == LITTLE_JOKER:
        return "LJ"
    if card == BIG_JOKER:
        return "BJ"
    if not 0 <= card < 52:
        raise CardError(f"card index {card} is out of range 0..53")
    return RANKS[card % 13] + SUITS[card // 13]


def parse_card(text: str) -> int:
    """Card index of a card text; raises ValueError naming the text when unknown.

    >>> parse_card("AS"), parse_card("2c"), parse_card("BJ")
    (51, 0, 53)
    """
    if not isinstance(text, str):
        raise CardError(f"unknown card {text!r}")
    upper = text.strip().upper()
    if upper == "LJ":
        return LITTLE_JOKER
    if upper == "BJ":
        return BIG_JOKER
    if len(upper) == 3 and upper.startswith("10"):
        upper = "T" + upper[2]
    if len(upper) != 2 or upper[0] not in RANKS or upper[1] not in SUITS:
        raise CardError(f"unknown card {text!r}")
    return SUITS.index(upper[1]) * 13 + RANKS.index(upper[0])


def suit_of(card: int) -> int:
    """Suit of a card (jokers count as spades).

    >>> suit_of(parse_card("TD")), suit_of(BIG_JOKER)
    (1, 3)
    """
    return SPADES if card >= 52 else card // 13


def rank_of(card: int) -> int:
    """Rank 0..12 (2..A); LJ = 13 and BJ = 14 outrank every card.

    >>> rank_of(parse_card("AS")), rank_of(parse_card("2D")), rank_of(BIG_JOKER)
    (12, 0, 14)
    """
    return card - 39 if card >= 52 else card % 13


def suit_cards(mask: int, suit: int) -> int:
    """The cards of ``suit`` in ``mask``; the spade suit includes the jokers."""
    return mask & (TRUMP_MASK if suit == SPADES else SUIT_MASKS[suit])


def lowest(mask: int) -> int:
    """Lowest card index of a non-empty mask.

    >>> lowest(0b1100)
    2
    """
    return (mask & -mask).bit_length() - 1


def highest(mask: int) -> int:
    """Highest card index of a non-empty mask.

    >>> highest(0b1100)
    3
    """
    return mask.bit_length() - 1


def mask_of(cards) -> int:
    """Bitboard of an iterable of card indices.

    >>> mask_of([0, 51]) == (1 | (1 << 51))
    True
    """
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def cards_of(mask: int) -> list[int]:
    """Card indices of a bitboard, lowest first.

    >>> cards_of(0b1001)
    [0, 3]
    """
    cards = []
    while mask:
        low = mask & -mask
        cards.append(low.bit_length() - 1)
        mask ^= low
    return cards


def texts_of(mask: int) -> list[str]:
    """Card texts of a bitboard, highest first (spades first, as players sort a hand).

    >>> texts_of(mask_of([parse_card("AS"), parse_card("2C"), parse_card("KH")]))
    ['AS', 'KH', '2C']
    """
    return [card_text(card) for card in reversed(cards_of(mask))]


def pretty_hand(mask: int) -> str:
    """One line per suit, highest first, for people.

    >>> print(pretty_hand(mask_of([parse_card(c) for c in ["AS", "TS", "2C"]])))
    S: A T
    H: -
    D: -
    C: 2
    """
    lines = []
    for suit in (3, 2, 1, 0):
        ranks = [RANKS[card % 13] for card in reversed(cards_of(mask & SUIT_MASKS[suit]))]
        if suit == SPADES:
            jokers = [card_text(card) for card in reversed(cards_of(mask & JOKER_MASK))]
            ranks = jokers + ranks
        lines.append(f"{SUITS[suit]}: {' '.join(ranks) if ranks else '-'}")
    return "\n".join(lines)
