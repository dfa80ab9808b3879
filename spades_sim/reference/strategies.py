"""The reference twin's strategies: every decision of ``random`` and the heuristic family,
mirroring ``engine/strategy_*.py`` decision for decision (floating-point sums in the same
order, so ties and thresholds fall the same way).
"""

from __future__ import annotations

from ..core.bidding import bids_of, is_nil
from ..core.cards import (
    NON_TRUMP_MASK,
    TRUMP_MASK,
    cards_of,
    highest,
    lowest,
    rank_of,
    suit_cards,
    suit_of,
)
from ..core.rules import Rules
from ..core.strategies import RATE_ONE, Strategy
from . import value
from .stream import Stream

ACE_OF_SPADES, KING_OF_SPADES, QUEEN_OF_SPADES = 51, 50, 49


def lowest_rank(mask: int) -> int:
    """The card of lowest rank in ``mask`` (ties: the lowest suit)."""
    best_card, best_rank = -1, 99
    for suit in range(4):
        cards = suit_cards(mask, suit)
        if cards:
            card = lowest(cards)
            if rank_of(card) < best_rank:
                best_card, best_rank = card, rank_of(card)
    return best_card


def highest_rank(mask: int) -> int:
    """The card of highest rank in ``mask`` (ties: the lowest suit)."""
    best_card, best_rank = -1, -1
    for suit in range(4):
        cards = suit_cards(mask, suit)
        if cards:
            card = highest(cards)
            if rank_of(card) > best_rank:
                best_card, best_rank = card, rank_of(card)
    return best_card


def prefer_side_suits(mask: int) -> int:
    """The non-trumps of ``mask`` when it has any, else ``mask``."""
    side_cards = mask & NON_TRUMP_MASK
    return side_cards if side_cards else mask


def winning_cards(legal: int, winning_card: int) -> int:
    """The cards of ``legal`` that would take the lead from ``winning_card`` now."""
    above = ~((2 << winning_card) - 1)
    if winning_card >= 39:
        return legal & TRUMP_MASK & above
    return (suit_cards(legal, suit_of(winning_card)) & above) | (legal & TRUMP_MASK)


def rate_threshold(rate: float) -> int:
    """A random strategy's probability as its threshold out of ``RATE_ONE``:
    ``round(rate * RATE_ONE)``, computed as the kernel does (``int(rate * RATE_ONE + 0.5)``)."""
    return int(rate * RATE_ONE + 0.5)


def chance(rate: float, stream: Stream) -> bool:
    """One draw ``bounded(RATE_ONE)``: true when it falls below the threshold of ``rate``."""
    return stream.bounded(RATE_ONE) < rate_threshold(rate)


def estimate_tricks(rules: Rules, params: dict, hand: int) -> float:
    """The heuristic's trick estimate (same terms, same order as the kernel).

    Side suits: ``ace`` per ace, ``king`` per guarded king, ``queen`` per twice-guarded queen,
    ``long_suit`` per card beyond the fourth; the deck's three highest trumps (AS, KS, QS; BJ,
    LJ, AS with jokers) ``trump_honour`` each when held with enough trumps; ``long_spade`` per
    trump beyond ``rules.trump_share``; ``ruff`` per spare trump that can ruff (two per void,
    one per singleton). Scaled by ``draw_scale`` after the draw
    deal, else by ``4 / players``. The kernel adds ``param * 0`` where a term does not apply,
    which leaves the sum bit for bit as if the term were skipped, as it is here.
    """
    estimate = 0.0
    ruff_chances = 0
    for suit in range(3):
        cards = suit_cards(hand, suit)
        length = cards.bit_count()
        if length == 0:
            ruff_chances += 2
        elif length == 1:
            ruff_chances += 1
        base = 13 * suit
        if cards & (1 << (base + 12)):
            estimate += params["ace"]
        if length >= 2 and cards & (1 << (base + 11)):
            estimate += params["king"]
        if length >= 3 and cards & (1 << (base + 10)):
            estimate += params["queen"]
        if length > 4:
            estimate += params["long_suit"] * (length - 4)
    trumps = hand & TRUMP_MASK
    n_trumps = trumps.bit_count()
    top = highest(rules.deck_mask)  # the deck's highest trump: AS, or BJ with jokers
    honours = 0
    for rank_below, needed in ((0, 1), (1, 2), (2, 3)):
        if trumps >> (top - rank_below) & 1 and n_trumps >= needed:
            honours += 1
    estimate += params["trump_honour"] * honours
    if n_trumps > rules.trump_share:
        estimate += params["long_spade"] * (n_trumps - rules.trump_share)
    spare = min(n_trumps - honours, ruff_chances)
    if spare > 0:
        estimate += params["ruff"] * spare
    if rules.deal == "draw":
        return estimate * params["draw_scale"]
    if rules.players != 4:
        return estimate * (4.0 / rules.players)
    return estimate


def choose_keep(strategy: Strategy, face_up: int, play_stream: Stream) -> bool:
    """Draw deal: whether to keep the face-up card (else take the face-down one).

    ``random``: a ``keep_rate`` chance. ``heuristic``: a card of rank ``keep_rank`` or higher
    (jokers rank 13 and 14).
    """
    if strategy.kind.name == "random":
        return chance(strategy.params["keep_rate"], play_stream)
    return rank_of(face_up) >= strategy.params["keep_rank"]


def choose_blind(rules: Rules, strategy: Strategy, seat: int, behind: int, partner_nil: bool,
                 blind_nil_ok: bool, blind_bids: int, bids, scores, bags,
                 play_stream: Stream) -> int:
    """Before looking at its cards: -1 to look, 0 for blind nil, or a blind number bid.

    Called only when an option exists: ``blind_nil_ok``, or ``blind_bids`` (a bid bitmask of
    the blind number bids allowed). ``random``: one draw ``u = bounded(RATE_ONE)``; blind nil
    when ``u`` is below the ``blind_nil_rate`` threshold (if allowed), else a blind bid when it
    is below both thresholds together (if one is allowed: a second draw picks it uniformly).
    ``heuristic``: blind nil when trailing by ``blind_nil_deficit`` and the partner has not bid
    a nil, else the allowed blind bid nearest to ``blind_bid`` (at or below it first) when
    trailing by ``blind_bid_deficit``; with ``ev_bid``, once trailing by those deficits, the
    choice with the best expected score (:func:`value.value_blind`).
    """
    params = strategy.params
    if strategy.kind.name == "random":
        draw = play_stream.bounded(RATE_ONE)
        threshold = rate_threshold(params["blind_nil_rate"]) if blind_nil_ok else 0
        if draw < threshold:
            return 0
        if blind_bids:
            threshold += rate_threshold(params["blind_bid_rate"])
            if draw < threshold:
                options = bids_of(blind_bids)
                return options[play_stream.bounded(len(options))]
        return -1
    if params["ev_bid"]:
        nil_ok = blind_nil_ok and not partner_nil and behind >= params["blind_nil_deficit"]
        bid_ok = blind_bids if behind >= params["blind_bid_deficit"] else 0
        if not nil_ok and not bid_ok:
            return -1
        return value.value_blind(rules, params, seat, bids, nil_ok, bid_ok, scores, bags)
    if blind_nil_ok and not partner_nil and behind >= params["blind_nil_deficit"]:
        return 0
    if blind_bids and behind >= params["blind_bid_deficit"]:
        want = int(params["blind_bid"])
        at_or_below = [bid for bid in bids_of(blind_bids) if bid <= want]
        return at_or_below[-1] if at_or_below else bids_of(blind_bids)[0]
    return -1


def nearest_legal_bid(bid: int, legal: int, hand_size: int) -> int:
    """``bid`` if ``legal`` allows it, else the nearest allowed non-zero bid (above first), else
    0.

    >>> nearest_legal_bid(4, 0b1101111, 13), nearest_legal_bid(4, 0b0000001, 13)
    (5, 0)
    """
    if legal >> bid & 1:
        return bid
    for distance in range(1, hand_size + 1):
        up, down = bid + distance, bid - distance
        if up <= hand_size and legal >> up & 1:
            return up
        if down >= 1 and legal >> down & 1:
            return down
    return 0


def score_adjustment(rules: Rules, params: dict, seat: int, scores, bags) -> float:
    """What the heuristic adds to its bid for the score (``engine/strategy_bids.py``,
    ``score_adjustment_nb``): ``bag_guard_boost`` within ``bag_guard`` bags of the bag limit;
    with ``endgame_points`` > 0, ``endgame_safe`` when its side leads within that many points
    of the target, else ``endgame_push`` when a side ahead of it is."""
    side = seat % 2 if rules.partnership else seat
    adjustment = 0.0
    guard = params["bag_guard"]
    if guard > 0 and rules.bag_limit > 0 and bags[side] >= rules.bag_limit - guard:
        adjustment += params["bag_guard_boost"]
    window = params["endgame_points"]
    if window > 0:
        own = scores[side]
        best_other = max(scores[other] for other in range(rules.n_sides) if other != side)
        if own > best_other and rules.target - own <= window:
            adjustment += params["endgame_safe"]
        elif best_other > own and rules.target - best_other <= window:
            adjustment += params["endgame_push"]
    return adjustment


SIDE_ACES_KINGS = sum(1 << (13 * suit + rank) for suit in range(3) for rank in (11, 12))


def choose_bid(rules: Rules, strategy: Strategy, seat: int, hand: int, bids: list[int],
               legal: int, scores, bags, play_stream: Stream, blind=None) -> int:
    """The bid of ``seat`` having seen ``hand``; ``bids`` holds -1 for seats yet to bid and
    ``legal`` is the bid bitmask of :func:`legal_bids`; ``scores`` and ``bags`` per side.

    ``random``: uniform among the legal bids in ``bid_min..bid_max``, among all the legal ones
    when none is there (one draw). ``heuristic``: nil (see the conditions below) or
    ``round(estimate + aggression + score_adjustment)`` within 1..hand_size, then
    :func:`nearest_legal_bid`; with ``ev_bid`` (the default), the bid of best expected score
    (:func:`value.value_bid`; ``blind``, a flag per seat, tells a partner's blind nil).
    """
    params = strategy.params
    if strategy.kind.name == "random":
        low, high = int(params["bid_min"]), int(params["bid_max"])
        candidates = [bid for bid in bids_of(legal) if low <= bid <= high] or bids_of(legal)
        return candidates[play_stream.bounded(len(candidates))]
    estimate = estimate_tricks(rules, params, hand)
    if params["ev_bid"]:
        adjustment = score_adjustment(rules, params, seat, scores, bags)
        partner_blind = bool(rules.partnership and blind and blind[(seat + 2) % 4])
        bid = value.value_bid(rules, params, seat, hand, estimate + params["aggression"]
                              + adjustment, bids, partner_blind, legal, scores, bags)
        if bid >= 0:
            return bid
        fallback = int(estimate + params["aggression"] + adjustment + 0.5)
        return nearest_legal_bid(min(max(fallback, 1), rules.hand_size), legal, rules.hand_size)
    partner_bid = bids[(seat + 2) % rules.players] if rules.partnership else -1
    if (
        rules.nil
        and partner_bid != 0
        and (partner_bid == -1 or partner_bid >= params["nil_partner_min"])
        and estimate <= params["nil_threshold"]
        and (hand & TRUMP_MASK).bit_count() <= params["nil_max_spades"]
        and (hand & SIDE_ACES_KINGS).bit_count() <= params["nil_max_high"]
        and not hand & (1 << ACE_OF_SPADES)
    ):
        bid = 0
    else:
        adjustment = score_adjustment(rules, params, seat, scores, bags)
        bid = min(max(int(estimate + params["aggression"] + adjustment + 0.5), 1),
                  rules.hand_size)
    return nearest_legal_bid(bid, legal, rules.hand_size)


def choose_bump(rules: Rules, strategy: Strategy, seat: int, position: int, hand: int, bids,
                scores, bags, play_stream: Stream) -> bool:
    """Bid bump: whether to raise the seat's bid by one. ``random``: a ``bump_rate`` chance.
    ``heuristic``: when ``estimate + aggression - bid >= bump_threshold``; with ``ev_bid``, when
    the higher bid has the higher expected score (:func:`value.value_bump`)."""
    params = strategy.params
    if strategy.kind.name == "random":
        return chance(params["bump_rate"], play_stream)
    estimate = estimate_tricks(rules, params, hand) + params["aggression"]
    if params["ev_bid"]:
        return value.value_bump(rules, params, seat, position, estimate, bids, scores, bags)
    return estimate - bids[seat] >= params["bump_threshold"]


def choose_pass(strategy: Strategy, hand: int, n_cards: int, nil_bidder: bool,
                play_stream: Stream) -> int:
    """The bitmask of the ``n_cards`` cards ``hand`` passes in an exchange.

    ``random``: one card at a time, uniformly among those left. ``heuristic``: the nil bidder
    passes its highest cards by rank (ties: the lowest suit); its partner passes back its
    lowest, side suits before trumps.
    """
    passed = 0
    left = hand
    for _ in range(n_cards):
        if strategy.kind.name == "random":
            card = cards_of(left)[play_stream.bounded(left.bit_count())]
        elif nil_bidder:
            card = highest_rank(left)
        else:
            card = lowest_rank(prefer_side_suits(left))
        passed |= 1 << card
        left &= ~(1 << card)
    return passed


def _is_live_nil(rules, bids, blind, tricks, seat) -> bool:
    return is_nil(rules, bids[seat], blind[seat]) and tricks[seat] == 0


RULE_BAG_ROOM = 2  # (engine/layout.py)


def play_switches(rules: Rules, params: dict, seat: int, bids, blind, bags) -> tuple[bool, int]:
    """``(avoid_bags, set_margin)`` of this hand for ``seat``: the parameters, or with
    ``rule_play`` as the rules and the side's bags make them (``rule_play_bits_nb``): duck
    within ``RULE_BAG_ROOM`` bags of the limit, else keep winning when an overtrick earns more
    than a bag's price; chase every set under ``per_trick_short``, or against a side that bid
    10 or more with ``ten_for_two_hundred``."""
    avoid = bool(params["avoid_bags"])
    margin = int(params["set_margin"])
    if not params["rule_play"]:
        return avoid, margin
    side = seat % 2 if rules.partnership else seat
    if rules.bag_limit > 0 and bags[side] >= rules.bag_limit - RULE_BAG_ROOM:
        avoid = True
    elif rules.bag_limit == 0 or rules.overtrick_points * rules.bag_limit > rules.bag_penalty:
        avoid = False
    chase = rules.set_penalty != "per_bid"
    if rules.ten_for_two_hundred and not chase:
        for other_side in range(rules.n_sides):
            if other_side == side:
                continue
            contract = sum(bids[other] for other in range(rules.players)
                           if (other % 2 if rules.partnership else other) == other_side
                           and not is_nil(rules, bids[other], blind[other]))
            chase |= contract >= 10
    if chase:
        margin = 30
    return avoid, margin


def choose_card(rules: Rules, strategy: Strategy, seat: int, hand: int, legal: int,
                position: int, leader: int, winning_card: int, winning_seat: int, bids, blind,
                tricks, played_mask: int, play_stream: Stream, bags=(0, 0, 0, 0),
                switch_seat: int | None = None) -> int:
    """The card ``seat`` plays from the non-empty bitboard ``legal``.

    ``position`` is the place in the trick (0 = leading); ``played_mask`` every card played so
    far this hand. The heuristic's priorities: its own live nil ducks; a partner's live nil is
    covered (``cover_nil``); an opponent's live nil is played under (``bust_nil``); else it wins
    cheaply while its side still needs tricks, and once the contract is safe ducks
    (``avoid_bags``) unless an opponent can still be set (``set_margin``); both as
    :func:`play_switches` makes them from ``bags`` (per side, before the hand) for
    ``switch_seat`` (default ``seat``; a search's playouts play every seat with the searcher's).
    """
    if strategy.kind.name == "random":
        return cards_of(legal)[play_stream.bounded(legal.bit_count())]
    params = strategy.params
    players = rules.players
    leading = position == 0
    winners = 0 if leading else winning_cards(legal, winning_card)
    losers = legal & ~winners

    # 1. Our own live nil: lose every trick we can.
    if _is_live_nil(rules, bids, blind, tricks, seat):
        if leading:
            return lowest_rank(prefer_side_suits(legal))
        if losers:
            return highest_rank(prefer_side_suits(losers))
        return lowest(winners)

    # 2. Partner's live nil: cover it.
    if rules.partnership and params["cover_nil"]:
        partner = (seat + 2) % 4
        if _is_live_nil(rules, bids, blind, tricks, partner):
            if leading:
                return highest_rank(prefer_side_suits(legal))
            partner_played = (partner - leader) % players < position
            if partner_played:
                if winning_seat == partner and winners:
                    return lowest(winners)
            elif winners:
                return highest(winners)

    # 3. An opponent's live nil (the first one clockwise): stay under it.
    for offset in range(1, players if params["bust_nil"] else 1):
        other = (seat + offset) % players
        if rules.partnership and other % 2 == seat % 2:
            continue
        if _is_live_nil(rules, bids, blind, tricks, other):
            if leading:
                return lowest_rank(prefer_side_suits(legal))
            if not (other - leader) % players < position:
                return lowest_rank(prefer_side_suits(legal))
            if winning_seat == other:
                if losers:
                    return highest_rank(prefer_side_suits(losers))
                return lowest(winners)
            break

    # 4. Our contract.
    def side_need(member: int) -> int:  # tricks the side of ``member`` lacks for its contract
        contract = taken = 0
        for other in range(players):
            same_side = other == member or (rules.partnership and other % 2 == member % 2)
            if same_side and not is_nil(rules, bids[other], blind[other]):
                contract += bids[other]
                taken += tricks[other]
        return contract - taken

    avoid_bags, set_margin = play_switches(rules, params, seat if switch_seat is None
                                           else switch_seat, bids, blind, bags)
    win_tricks = side_need(seat) > 0 or not avoid_bags
    if not win_tricks and set_margin >= 0:
        left = rules.hand_size - sum(tricks)
        for offset in range(1, players):
            other = (seat + offset) % players
            if rules.partnership and other % 2 == seat % 2:
                continue
            need = side_need(other)
            if 0 < need and left - need <= set_margin:
                win_tricks = True
    if win_tricks:
        if leading:
            unseen = rules.deck_mask & ~played_mask & ~hand
            for suit in range(4):
                cards = suit_cards(legal, suit)
                if cards:
                    top = highest(cards)
                    if not suit_cards(unseen, suit) & ~((2 << top) - 1):
                        return top  # a master card
            return lowest_rank(prefer_side_suits(legal))
        if rules.partnership and winning_seat % 2 == seat % 2 and losers:
            return lowest_rank(prefer_side_suits(losers))
        if winners:
            return lowest(winners)
        return lowest_rank(prefer_side_suits(losers))
    if leading:
        return lowest_rank(prefer_side_suits(legal))
    if losers:
        return highest_rank(prefer_side_suits(losers))
    return lowest(winners)
