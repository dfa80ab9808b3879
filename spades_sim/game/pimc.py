"""``pimc``: the perfect-information sampling player (the method of the strongest bridge
programs), a Python plug-in that ships with the package and is named like a built-in
(``--strategy pimc:samples=20``; ``core/strategies.py``, ``SHIPPED``).

For each card decision with more than one legal card it deals the cards the seat cannot see
anew, ``samples`` times, consistently with what the seat has seen (:func:`~.sampling.
sample_hidden`: its cards, the cards played, voids shown, hand counts, the cards it passed),
drawing from the hand's own play stream (``obs.rng``), so the same seed gives the same play
whatever the jobs or chunks. Each sampled deal is solved double dummy for every legal card
(:func:`~spades_sim.engine.dd.solve_cards`, one transposition table for the cards), and each
live nil that matters is checked with :func:`~spades_sim.engine.dd.nil_safe` after the card.
The card with the best total over the samples is played; ties go to the heuristic's card when
it is among the best, else to the lowest card.

Live nils come first. For each nil still unbroken that matters (every one in partnership
play; the seat's own in individual play) and each sample, the nil's state after the card is
2 when it is double-dummy safe (:func:`~spades_sim.engine.dd.nil_safe`: its bidder and partner
avoid every trick against a defence out to set it), 1 when good play sets it, and 0 when its
bidder holds the trick's winning card right after the card. The card with the highest sum of
these states over the samples (counted positive for the seat's side's nils, negative for the
others') is played: a nil bidder keeps its nil safe where it can and otherwise does not take
the trick, its partner covers it, the opponents try to set it.

Among the cards equal there, a card's value in one sample (``score=1``, the default) is the
hand's score, by the rules' scoring, of the final tricks that sample implies: the tricks taken
so far plus the double-dummy tricks of the seat's side from here on (the others take the
rest), each live nil counted as made when it is safe (one trick to its bidder otherwise); in
partnership play the side's points minus the other side's, in individual play (two or three
players, or four without partnerships) the seat's own points (the solver then plays the seat
alone against all the others, whose tricks are not split among them). A seat with its own
live nil in individual play is valued by the nil alone. With ``score=0`` the value is the
side's double-dummy tricks (classic perfect-information sampling).

The player never looks at the hidden cards: it reads only the seat's observation and the deals
it samples. Bids and every other choice (blind bids, bumps, passes, draw-deal keeps) are the
default heuristic's. Its cost per card decision is ``samples`` double-dummy solves of the
position (plus one nil search per legal card and live nil), so it is fast late in the hand
and as slow as the solver on full deals early in it.
"""

from __future__ import annotations

from ..core.bidding import is_nil
from ..core.errors import StrategyError
from ..core.scoring import score_side
from ..core.strategies import SHIPPED
from ..core.tricks import breaks_spades, trick_winner
from ..engine.dd import nil_safe, solve_cards
from .agents import HEURISTIC, BuiltinAgent
from .observation import Observation
from .sampling import sample_hidden
from .state import Hand


def _suit(card: int) -> int:
    return 3 if card >= 39 else card // 13


class Pimc:
    """The perfect-information sampling player (the module docstring).

    Parameters
    ----------
    samples : int, optional
        Deals sampled per card decision, 1 to 10000 (default 20).
    score : int, optional
        1 (default): value a card by the hand's score of its double-dummy tricks; 0: by the
        tricks alone (live nils first either way).

    Raises
    ------
    StrategyError
        A parameter out of its range.
    """

    def __init__(self, samples: int = 20, score: int = 1):
        kind = SHIPPED["pimc"].kind
        for name, value in (("samples", samples), ("score", score)):
            param = kind.param(name)
            if (isinstance(value, bool) or not isinstance(value, (int, float))
                    or not float(value).is_integer() or not param.low <= value <= param.high):
                raise StrategyError(f"strategy pimc: parameter {name}={value!r} is not an "
                                    f"integer in {int(param.low)}..{int(param.high)}")
        self.samples = int(samples)
        self.score = bool(score)
        self._heuristic = BuiltinAgent(HEURISTIC)

    def bid(self, obs: Observation) -> int:
        """The default heuristic's bid."""
        return self._heuristic.act(obs._hand, obs.legal_mask)

    def play(self, obs: Observation) -> int:
        """The card with the best total value over ``samples`` sampled deals."""
        legal = obs.legal
        if len(legal) == 1:
            return legal[0]
        hand = obs._hand
        preferred = self._heuristic.act(hand, obs.legal_mask)
        totals = card_values(hand, obs.seat, self.samples, obs.rng, score=self.score)
        return best_card(totals, preferred)


def best_card(totals: dict, preferred: int | None = None) -> int:
    """The card of highest total (numbers, or tuples compared in order); among equal ones
    ``preferred`` if it is one, else the lowest."""
    top = max(totals.values())
    best = [card for card, total in totals.items() if total == top]
    return preferred if preferred in best else min(best)


# A live nil after a card, in one sample: safe double dummy; lost if the others play well; or
# lost at once (its bidder holds the trick's winning card).
NIL_SAFE, NIL_UNSAFE, NIL_TAKING = 2, 1, 0


def card_values(hand: Hand, seat: int, samples: int, rng, *, score: bool = True
                ) -> dict[int, tuple[int, int]]:
    """Each legal card's totals over ``samples`` deals of the hidden cards.

    Parameters
    ----------
    hand : Hand
        A hand in the play phase with ``seat`` to act.
    seat : int
        The seat deciding; only what it may see is used (the hidden cards are sampled).
    samples : int
        How many deals to sample.
    rng
        The generator the deals are drawn from (``obs.rng``; anything with ``bounded(n)``).
    score : bool, optional
        Value by the hand's score (True) or by the tricks (False); the module docstring.

    Returns
    -------
    dict of int to (int, int)
        For each legal card, ``(nil, value)``: ``nil`` the sum over the samples and the live
        nils that matter of the nil's state after the card (2 safe, 1 lost against good play,
        0 its bidder holds the trick's winning card), counted positive for the seat's side's
        nils and negative for the others'; ``value`` the sum of the card's values (the score
        or the tricks). Cards compare by ``nil`` first.
    """
    rules = hand.rules
    legal = [card for card in range(54) if hand.legal_card_mask() >> card & 1]
    nil_totals = dict.fromkeys(legal, 0)
    totals = dict.fromkeys(legal, 0)
    players = rules.players
    trick = [card for _, card in hand.trick]
    broken = hand.spades_broken
    if trick and trick[0] >= 39 and not broken:
        # A trump led while spades were unbroken came from an all-trump hand, which the
        # sampled holdings need not show; let the solver accept that lead.
        broken = True
    live = [s for s in range(players)
            if is_nil(rules, hand.bids[s], hand.blind[s]) and hand.tricks[s] == 0]
    nils = live if rules.partnership else [s for s in live if s == seat]
    side = rules.side_of(seat)
    own_nil_only = not rules.partnership and seat in nils
    for _ in range(samples):
        deal = sample_hidden(hand, seat, rng).hands
        solved = {} if own_nil_only else solve_cards(
            rules, deal, hand.leader, trick=trick, trick_index=hand.trick_index,
            spades_broken=broken)
        for card in legal:
            levels = {nil: _nil_level(rules, deal, hand.leader, trick, hand.trick_index,
                                      broken, seat, card, nil) for nil in nils}
            nil_totals[card] += sum(level if rules.side_of(nil) == side else -level
                                    for nil, level in levels.items())
            tricks = solved.get(card, 0)
            if score:
                safe = {nil: level == NIL_SAFE for nil, level in levels.items()}
                totals[card] += _score_value(hand, seat, tricks, safe)
            else:
                totals[card] += tricks
    return {card: (nil_totals[card], totals[card]) for card in legal}


def _score_value(hand: Hand, seat: int, future: int, safe: dict[int, bool]) -> int:
    """The hand's score for the seat's side (minus the other side's in partnership play) when
    its side takes ``future`` more tricks and the live nils in ``safe`` are made or not."""
    rules = hand.rules
    tricks = list(hand.tricks)
    side = rules.side_of(seat)
    if not rules.partnership:
        tricks[seat] += (0 if safe[seat] else 1) if seat in safe else future
        return score_side(rules, side, hand.bids, hand.blind, tricks, hand.bags[side])[0]
    left = rules.hand_size - hand.trick_index
    value = 0
    for each in range(rules.n_sides):
        seats = [s for s in range(rules.players) if rules.side_of(s) == each]
        count = future if each == side else left - future
        takers = [s for s in seats if s not in safe]  # the seats with no live nil
        for nil in seats:
            if nil in safe and not safe[nil]:
                tricks[nil] += 1
                count -= 1
        count = max(count, 0)
        if takers:
            tricks[takers[0]] += count
        elif count:  # (both bid nil: the tricks go to one that fails, else to the first)
            failing = [s for s in seats if not safe[s]]
            tricks[(failing or seats)[0]] += count
        points = score_side(rules, each, hand.bids, hand.blind, tricks, hand.bags[each])[0]
        value += points if each == side else -points
    return value


def _nil_level(rules, deal, leader: int, trick: list[int], trick_index: int, broken: bool,
               seat: int, card: int, nil_seat: int) -> int:
    """The state of ``nil_seat``'s live nil once ``seat`` plays ``card`` (``NIL_SAFE``,
    ``NIL_UNSAFE`` or ``NIL_TAKING``), double dummy."""
    after = list(deal)
    before = after[seat]
    after[seat] = before & ~(1 << card)
    cards = trick + [card]
    if len(cards) < rules.players:
        if nil_safe(rules, after, leader, nil_seat, trick=cards, trick_index=trick_index,
                    spades_broken=broken):
            return NIL_SAFE
        winner = (leader + trick_winner(cards)) % rules.players
        return NIL_TAKING if winner == nil_seat else NIL_UNSAFE
    winner = (leader + trick_winner(cards)) % rules.players
    if winner == nil_seat:
        return NIL_TAKING
    if trick_index + 1 == rules.hand_size:
        return NIL_SAFE
    led = _suit(trick[0]) if trick else None
    broken = broken or breaks_spades(rules, card, len(trick), led, before)
    safe = nil_safe(rules, after, winner, nil_seat, trick_index=trick_index + 1,
                    spades_broken=broken)
    return NIL_SAFE if safe else NIL_UNSAFE


__all__ = ["Pimc", "best_card", "card_values"]
