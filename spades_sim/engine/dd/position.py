"""Checking a position given from Python and turning it into the search's arguments.

Plain Python (no kernel here): every fault of a position (wrong card counts, a card in two
places, an illegal card on the table, an argument of the wrong kind) raises
:class:`SpadesError` with one line that names it.
"""

from __future__ import annotations

import numpy as np

from ...core.cards import SUITS, parse_card
from ...core.errors import SpadesError
from ...core.rules import Rules
from ...core.tricks import breaks_spades, legal_cards


def kernel_rules(rules):
    """The rules and their kernel tuple; a one-line error for anything but a Rules value."""
    if isinstance(rules, Rules):
        return rules, rules.kernel_tuple()
    raise SpadesError(f"rules must be a Rules value (see spades_sim.core.rules.preset), "
                      f"not {type(rules).__name__}")


def card_arg(value, where: str) -> int:
    """A card given as an index 0..53 or a text such as "AS"."""
    if isinstance(value, str):
        return parse_card(value)
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) \
            and 0 <= int(value) <= 53:
        return int(value)
    raise SpadesError(f"{where}: {value!r} is not a card (an index 0..53 or a text like 'AS')")


def flag_arg(value, where: str) -> bool:
    """A yes-or-no argument: a bool (a NumPy one too), never a truthy text such as "no"."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise SpadesError(f"{where}: {value!r} is not a bool (True or False)")


def _sequence(value, where: str, what: str):
    """``value`` as a list, or one line when it is not a sequence (None, a number, a text)."""
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__iter__"):
        raise SpadesError(f"{where}: {value!r} is not a sequence of {what}")
    return list(value)


def _mask(holding, where: str) -> int:
    """A holding given as a bitboard int or as an iterable of cards (indices or texts)."""
    if isinstance(holding, (int, np.integer)) and not isinstance(holding, bool):
        value = int(holding)
        if value < 0 or value >> 54:
            raise SpadesError(f"{where}: bitboard {value} has bits outside 0..53")
        return value
    if isinstance(holding, str):
        holding = holding.split()
    mask = 0
    for item in _sequence(holding, where, "cards"):
        card = card_arg(item, where)
        if (mask >> card) & 1:
            raise SpadesError(f"{where}: card {item!r} is listed twice")
        mask |= 1 << card
    return mask


def parse_position(rules: Rules, hands, leader, trick, trick_index, spades_broken):
    """Check a position and turn it into the search's arguments; SpadesError names the fault."""
    players = rules.players
    hands = _sequence(hands, "hands", "holdings (one per seat)")
    trick = _sequence(trick, "trick", "cards")
    spades_broken = flag_arg(spades_broken, "spades_broken")
    if len(hands) != players:
        raise SpadesError(f"hands: {len(hands)} hands given; these rules have {players} players")
    masks = [_mask(h, f"hands[{s}]") for s, h in enumerate(hands)]
    if isinstance(leader, bool) or not isinstance(leader, (int, np.integer)) \
            or not 0 <= leader < players:
        raise SpadesError(f"leader: {leader!r} is not a seat 0..{players - 1}")
    leader = int(leader)
    if isinstance(trick_index, bool) or not isinstance(trick_index, (int, np.integer)) \
            or not 0 <= trick_index <= rules.hand_size:
        raise SpadesError(f"trick_index: {trick_index!r} is not 0..{rules.hand_size}")
    trick_index = int(trick_index)
    cards = []
    for position, item in enumerate(trick):
        if isinstance(item, tuple):
            if len(item) != 2:
                raise SpadesError(f"trick[{position}]: {item!r} is not a (seat, card) pair")
            seat, item = item
            if seat != (leader + position) % players:
                raise SpadesError(f"trick[{position}]: seat {seat!r} does not play "
                                  f"{position + 1}th after leader {leader}")
        cards.append(card_arg(item, f"trick[{position}]"))
    if len(cards) >= players:
        raise SpadesError(f"trick: {len(cards)} cards is a whole trick; pass the position after "
                          f"it (the winner leads, trick_index + 1)")
    if cards and trick_index == rules.hand_size:
        raise SpadesError("trick: no trick is left to play after the last one")
    seen = 0
    for seat, mask in enumerate(masks):
        if mask & ~rules.deck_mask:
            outside = [c for c in range(54) if (mask & ~rules.deck_mask) >> c & 1]
            raise SpadesError(f"hands[{seat}]: card {outside[0]} is not in this deck")
        if seen & mask:
            both = (seen & mask).bit_length() - 1
            raise SpadesError(f"hands[{seat}]: card {_card_text(both)} is in two hands")
        seen |= mask
    for position, card in enumerate(cards):
        if not (rules.deck_mask >> card) & 1:
            raise SpadesError(f"trick[{position}]: card {card} is not in this deck")
        if (seen >> card) & 1:
            raise SpadesError(f"trick[{position}]: card {_card_text(card)} is also in a hand")
        seen |= 1 << card
    remaining = rules.hand_size - trick_index
    for seat, mask in enumerate(masks):
        played = (seat - leader) % players < len(cards)
        want = remaining - (1 if played else 0)
        have = bin(mask).count("1")
        if have != want:
            raise SpadesError(f"hands[{seat}]: holds {have} cards; at trick {trick_index} with "
                              f"{len(cards)} card(s) on the table it should hold {want}")
    # Replay the trick's cards: legality, the broken flag, the winner so far.
    broken = bool(spades_broken)
    led_suit = None
    on_table = 0
    led_mask = 0
    win_strength, win_seat = -1, -1
    for position, card in enumerate(cards):
        seat = (leader + position) % players
        before = masks[seat] | (1 << card)
        if not (legal_cards(rules, before, led_suit, broken, trick_index) >> card) & 1:
            raise SpadesError(f"trick[{position}]: {_card_text(card)} is not a legal play for seat "
                              f"{seat} here")
        broken = broken or breaks_spades(rules, card, position, led_suit, before)
        if position == 0:
            led_suit = 3 if card >= 39 else card // 13
            led_mask = int(card_mask_of_suit(led_suit))
        strength = card + 128 if card >= 39 else (card + 64 if (led_mask >> card) & 1 else 0)
        if strength > win_strength:
            win_strength, win_seat = strength, seat
        on_table |= 1 << card
    if not cards and remaining > 0 and rules.first_leader == "two_of_clubs" \
            and trick_index == 0 and not masks[leader] & 1:
        raise SpadesError(f"leader: seat {leader} must lead 2C to the first trick (two_of_clubs) "
                          f"but does not hold it")
    full = np.zeros(4, dtype=np.int64)
    full[:players] = masks
    return full, (len(cards), leader, int(broken), trick_index, led_mask, win_strength, win_seat,
                  on_table)


def card_mask_of_suit(suit: int) -> int:
    """All the cards of a suit 0..3 (the trumps with both jokers for suit 3)."""
    return (0x7FFF if suit == 3 else 0x1FFF) << (13 * suit)


def _card_text(card: int) -> str:
    """A card's text ("AS", "LJ") for messages."""
    if card >= 52:
        return "LJ" if card == 52 else "BJ"
    return "23456789TJQKA"[card % 13] + SUITS[card // 13]
