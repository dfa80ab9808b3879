"""Deal the cards a seat cannot see anew, consistently with what it has seen: the search
players' determinization.

What a seat knows: its own cards, every card played (and by whom), the voids each seat has
shown, how many cards each seat still holds, the cards it passed to its partner in an exchange
(the partner still holds those it has not played or passed back) and, in the draw deal, the
face-up cards it turned down (out of play). The bids are not used. Cards go out one at a time,
each to a seat with the chance of its free places (a seat void in the card's suit has none), so
without voids every consistent deal is equally likely; with voids the deal is consistent but
not exactly uniform. When the voids leave so little room that ``MAX_TRIES`` such deals all run
into a card no seat may take, the cards of the last try are dealt by the search player's
void-respecting deal (``void_deal_nb`` of ``engine/search.py``: augmenting paths, so every void
shown is kept whenever some deal keeps them all).
"""

from __future__ import annotations

from ..core.cards import cards_of
from .state import Hand

MAX_TRIES = 100


def sample_hidden(hand: Hand, seat: int, rng, sees_own: bool = True) -> Hand:
    """A copy of ``hand`` in which the other seats hold a random deal of the cards ``seat``
    cannot see, consistent with what it has seen (the module docstring); ``rng`` is a
    :class:`~.observation.Generator` (or any object with ``bounded(n)``).

    ``sees_own=False``: ``seat`` has not seen its own cards either (a blind choice), and they
    are dealt anew with the others'.

    Only the holdings change: ``dealt`` and the other records stay as they were. When no
    random deal within ``MAX_TRIES`` tries respects every void shown, the last try's cards are
    dealt by augmenting paths (the module docstring), which keeps every void whenever a deal
    can.
    """
    rules = hand.rules
    players = rules.players
    known = [0] * players  # cards seat knows another seat holds
    for giver, taker, card in hand.exchange:
        if giver == seat:
            known[taker] |= 1 << card
    for other in range(players):
        known[other] &= hand.hands[other]  # (played, or passed back: no longer held)
    known[seat] = hand.hands[seat] if sees_own else 0
    out_of_play = hand.rejected[seat]
    pool = rules.deck_mask & ~hand.played_mask & ~out_of_play
    for other in range(players):
        pool &= ~known[other]
    cards = cards_of(pool)
    need = [0 if other == seat and sees_own
            else hand.hands[other].bit_count() - known[other].bit_count()
            for other in range(players)]
    spare = len(cards) - sum(need)  # cards out of play that seat cannot tell apart
    sampled = None
    for _ in range(MAX_TRIES):
        for i in range(len(cards) - 1, 0, -1):
            j = rng.bounded(i + 1)
            cards[i], cards[j] = cards[j], cards[i]
        lacking = list(need)
        room = spare
        deal = list(known)
        for card in cards:
            suit = 3 if card >= 52 else card // 13
            weights = [0 if (other == seat and sees_own) or hand.voids >> (4 * other + suit) & 1
                       else lacking[other] for other in range(players)]
            total = sum(weights) + room
            if total == 0:
                break
            pick = rng.bounded(total)
            for other in range(players):
                if pick < weights[other]:
                    deal[other] |= 1 << card
                    lacking[other] -= 1
                    break
                pick -= weights[other]
            else:
                room -= 1
        else:
            sampled = deal
            break
    if sampled is None:  # (the last try's card order, dealt by augmenting paths)
        from ..engine.decide import void_deal

        dealt = void_deal(cards, need + [0] * (4 - players), hand.voids, spare)
        sampled = [known[other] | dealt[other] for other in range(players)]
    copy = hand.clone()
    copy.hands = sampled
    return copy
