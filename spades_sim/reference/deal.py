"""The reference twin's deals (``engine/deal.py``): shuffle, misdeal redeal, the draw deal."""

from __future__ import annotations

from ..core.bidding import is_misdeal
from ..core.cards import cards_of, mask_of
from ..core.errors import DealFilterError
from ..core.features import SeatFeatures, count_features
from ..core.rules import Rules
from ..core.strategies import Strategy
from .strategies import choose_keep, estimate_tricks
from .stream import Stream


def shuffled_deck(rules: Rules, stream: Stream) -> list[int]:
    """The rules' deck in ascending index order, then Fisher-Yates from the top on ``stream``:
    for ``i = n-1 .. 1`` swap ``deck[i]`` with ``deck[bounded(i + 1)]``."""
    deck = cards_of(rules.deck_mask)
    for i in range(len(deck) - 1, 0, -1):
        j = stream.bounded(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def deal(rules: Rules, stream: Stream) -> list[int]:
    """Shuffle and deal on the deal stream; one bitboard per seat.

    After :func:`shuffled_deck`, seat ``s`` gets ``deck[s*hand_size:(s+1)*hand_size]``. With
    ``misdeal_redeal`` the whole deal repeats on the same stream while a hand is a misdeal.
    """
    size = rules.hand_size
    while True:
        deck = shuffled_deck(rules, stream)
        hands = [mask_of(deck[seat * size:(seat + 1) * size]) for seat in range(rules.players)]
        if not rules.misdeal_redeal or not any(is_misdeal(hand) for hand in hands):
            return hands


def draw_deal(rules: Rules, strategies, dealer: int, deal_stream: Stream,
              play_stream: Stream) -> list[int]:
    """The two-player draw deal (``deal = "draw"``); one bitboard per seat.

    The stock is :func:`shuffled_deck` (deal stream). The player left of the dealer draws first
    from ``deck[0:26]``: pair ``p`` is ``deck[2p]`` (face up) and ``deck[2p + 1]`` (face down);
    it keeps the face-up card or takes the face-down one (:func:`choose_keep`, play stream).
    Then the other player does the same with ``deck[26:52]``.
    """
    deck = shuffled_deck(rules, deal_stream)
    hands = [0, 0]
    first = (dealer + 1) % 2
    for turn, seat in enumerate((first, 1 - first)):
        stock = deck[26 * turn:26 * (turn + 1)]
        for pair in range(rules.hand_size):
            face_up, face_down = stock[2 * pair], stock[2 * pair + 1]
            keep = choose_keep(strategies[seat], face_up, play_stream)
            hands[seat] |= 1 << (face_up if keep else face_down)
    return hands


def filtered_deal(rules: Rules, stream: Stream, deal_filter) -> list[int]:
    """The first :func:`deal` on ``stream`` that ``deal_filter`` (``core.features.DealFilter``)
    accepts: deals follow one another on the same stream (``engine/features.py``); a
    ``DealFilterError`` after ``max_tries`` deals with none accepted."""
    params = Strategy("heuristic").defaults()
    for _ in range(deal_filter.max_tries):
        hands = deal(rules, stream)
        seats = []
        for hand in hands:
            values = count_features(rules, hand)
            values[-1] = estimate_tricks(rules, params, hand)
            seats.append(SeatFeatures(*values, hand))
        if deal_filter.accepts(seats):
            return hands
    raise DealFilterError(f"deal filter {deal_filter.describe()!r} accepted none of "
                          f"{deal_filter.max_tries:,} deals")
