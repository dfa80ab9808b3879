"""Pure rule helpers of the deal and the auction: misdeals, nil, legal bids, blind bids,
exchanges.

Shared by the reference twin (``reference/``) and the hand-log replay (``handlog.py``); the
engine has its own compiled versions (``engine/bidding.py``) and the tests hold them equal.
"""

from __future__ import annotations

from .cards import KQJ_MASK, TRUMP_MASK, cards_of
from .rules import Rules


def is_misdeal(hand_mask: int) -> bool:
    """A hand with no trump or no K, Q or J (``misdeal_redeal``)."""
    return (hand_mask & TRUMP_MASK) == 0 or (hand_mask & KQJ_MASK) == 0


def is_nil(rules: Rules, bid: int, blind: bool) -> bool:
    """A bid of 0 is nil where ``nil`` is on; a blind 0 is always a (blind) nil."""
    return bid == 0 and (rules.nil or bool(blind))


def bids_of(mask: int) -> list[int]:
    """The bids of a bid bitmask (bit ``b`` = bid ``b``), lowest first."""
    return cards_of(mask)


def legal_bids(rules: Rules, seat: int, position: int, bids, blind, zero_is_nil: bool) -> int:
    """Bitmask of the bids (bit ``b`` = bid ``b``, 0..hand_size) ``seat`` may make.

    Parameters
    ----------
    rules : Rules
    seat : int
    position : int
        0-based place of ``seat`` in the bidding order (``players - 1`` bids last).
    bids : sequence of int, one per seat
        The bids made so far (before any bump); -1 (or None) for a seat yet to bid.
    blind : sequence of bool, one per seat
    zero_is_nil : bool
        Whether a 0 from ``seat`` here would be a nil (a blind 0 always is).

    Returns
    -------
    int
        ``bids_total_not_tricks``: the last bidder may not make the total equal the number of
        tricks. ``min_team_bid``: once the partner has bid, and not a nil, the two bids must
        reach the minimum, unless this bid is a nil.

    >>> from spades_sim.core.rules import preset
    >>> rules = preset("classic", bids_total_not_tricks=True, min_team_bid=5)
    >>> bids_of(legal_bids(rules, 3, 3, [4, 3, 2, -1], [False] * 4, True))  # not 4, not 1
    [0, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13]
    """
    size = rules.hand_size
    legal = (2 << size) - 1
    if rules.bids_total_not_tricks and position == rules.players - 1:
        total = sum(bids[other] for other in range(rules.players) if other != seat)
        if total <= size:
            legal &= ~(1 << (size - total))
    if rules.min_team_bid > 0 and rules.partnership:
        partner = (seat + 2) % 4
        partner_bid = bids[partner]
        if _has_bid(partner_bid) and not is_nil(rules, partner_bid, blind[partner]):
            need = rules.min_team_bid - partner_bid
            if need > 0:
                allowed = ~((1 << need) - 1)
                if zero_is_nil:
                    allowed |= 1
                legal &= allowed
    return legal


def _has_bid(bid) -> bool:
    return bid is not None and bid >= 0


def deficit(rules: Rules, seat: int, scores) -> int:
    """How far the seat's side trails the best other side (negative when ahead).

    >>> from spades_sim.core.rules import preset
    >>> deficit(preset("classic"), 1, [250, 40]), deficit(preset("cutthroat"), 0, [90, 100, 20])
    (210, 10)
    """
    side = rules.side_of(seat)
    best_other = max(score for other, score in enumerate(scores) if other != side)
    return best_other - scores[side]


def blind_allowed(min_deficit: int, behind: int) -> bool:
    """Whether a blind bid whose ``..._min_deficit`` field is ``min_deficit`` is allowed to a side
    that trails the leading other side by ``behind`` (negative when ahead).

    rules.md: allowed "only when the bidder's side trails the leading other side by at least the
    field's ``..._min_deficit``", and "a ``..._min_deficit`` of 0 means always allowed, even when
    ahead".

    >>> blind_allowed(100, 100), blind_allowed(100, 99), blind_allowed(0, -300)
    (True, False, True)
    """
    return min_deficit == 0 or behind >= min_deficit


def exchange_size(rules: Rules, seat: int, bids, blind) -> int:
    """Cards ``seat`` passes to its partner (who passes as many back); 0 when it does not.

    A blind-nil bidder whose partner did not also bid blind nil passes ``blind_nil_exchange``
    (also when the partner bid a plain nil); a plain nil bidder whose partner bid no nil at all
    passes ``nil_exchange``. Two blind nils, or two plain nils, never exchange.

    >>> from spades_sim.core.rules import preset
    >>> rules = preset("classic", nil_exchange=2)
    >>> [exchange_size(rules, seat, [0, 4, 0, 3], [True, False, False, False]) for seat in range(4)]
    [3, 0, 0, 0]
    >>> [exchange_size(rules, seat, [3, 0, 5, 4], [False] * 4) for seat in range(4)]
    [0, 2, 0, 0]
    """
    if not rules.partnership:
        return 0
    partner = (seat + 2) % 4
    if bids[seat] == 0 and blind[seat]:
        partner_blind_nil = bids[partner] == 0 and blind[partner]
        return 0 if partner_blind_nil else rules.blind_nil_exchange
    if bids[seat] == 0 and rules.nil and not is_nil(rules, bids[partner], blind[partner]):
        return rules.nil_exchange
    return 0
