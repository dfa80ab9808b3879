"""Filtered deals in Python: the deals a hand's deal stream gives, one after another (dealt by
the engine's deal kernel), until a deal filter (``core/features.py``) accepts one, as the
engine draws them (``engine/features.py``). ``Hand.deal`` uses it, and runs with a Python filter
use it to find how many deals each hand rejects before the engine plays the hand."""

from __future__ import annotations

from ..core.errors import DealFilterError
from ..core.features import SeatFeatures, count_features
from ..core.rules import Rules
from ..core.strategies import Strategy
from .stream import Stream, dealer


def _default_params():
    return Strategy("heuristic", Strategy("heuristic").defaults()).vector()


def seat_features(rules: Rules, hands, params=None) -> tuple:
    """The :class:`~spades_sim.core.features.SeatFeatures` of each seat's dealt bitboard;
    ``params`` the heuristic's parameter vector of the trick estimate (its defaults)."""
    from ..engine.decide import trick_estimates

    params = _default_params() if params is None else params
    estimates = trick_estimates(rules, params, [int(hand) for hand in hands])
    seats = []
    for hand, estimate in zip(hands, estimates, strict=True):
        values = count_features(rules, hand)
        values[-1] = float(estimate)
        seats.append(SeatFeatures(*values, int(hand)))
    return tuple(seats)


def filtered_deal(rules: Rules, stream: Stream, deal_filter, what: str = "a hand"):
    """``(hands, tries)``: the first deal on ``stream`` that ``deal_filter`` accepts, and the
    deals drawn for it; a :class:`DealFilterError` after ``max_tries`` deals with none
    accepted (``what`` names the hand in it)."""
    params = _default_params()
    deals = dealer(rules)
    for tries in range(1, deal_filter.max_tries + 1):
        hands, stream.state = deals.deal(stream.state)  # (misdeal redeals included)
        hands = hands[:rules.players]
        if deal_filter.accepts(seat_features(rules, hands, params)):
            return hands, tries
    raise DealFilterError(f"deal filter {deal_filter.describe()!r} accepted none of "
                          f"{deal_filter.max_tries:,} deals of {what}; loosen it or raise "
                          f"max_tries")


def redeals(rules: Rules, deal_key: int, first: int, count: int, deal_filter) -> list[int]:
    """The deals each independent hand ``first ...`` rejects before the one ``deal_filter``
    accepts (what the engine skips for a Python filter)."""
    return [filtered_deal(rules, Stream(int(deal_key), hand_id), deal_filter,
                          f"hand {hand_id}")[1] - 1
            for hand_id in range(first, first + count)]
