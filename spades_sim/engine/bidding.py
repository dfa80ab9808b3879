"""The bidding round: blind bids, the bid constraints, bid bumps, and who exchanges cards.

Everything here takes and returns scalars (packed per-seat bytes and bits), like the rest of the
hot loop. The strategies' choices come from ``strategy_kernels.py``; the rules of the auction are
here (``docs/rules.md``, "A hand, step by step", steps 4 to 6).
"""

from numba import njit

from .bits import byte_of_nb, flag_of_nb, wrap_seat_nb
from .layout import (
    STRATEGY_RANDOM,
)
from .plugin import plugin_bid_nb
from .strategy_bids import choose_bid_nb, choose_blind_nb, choose_bump_nb
from .strategy_kernels import estimate_tricks_nb


@njit(cache=True, inline="always")
def legal_bids_nb(rules, seat, position, bids, blind, zero_is_nil):
    """Bitmask of the bids (0..hand_size) ``seat`` may make as the ``position``-th bidder.

    ``bids_total_not_tricks``: the last bidder may not make the total of all bids equal the
    number of tricks. ``min_team_bid``: once the partner has bid (and not nil), the two bids must
    reach the minimum, unless this bid is a nil (``zero_is_nil``: a 0 here would be a nil).
    """
    hand_size = rules.hand_size
    players = rules.players
    legal = (2 << hand_size) - 1
    if rules.bids_total_not_tricks and position == players - 1:
        total = 0
        for other in range(players):
            if other != seat:
                total += byte_of_nb(bids, other)
        if total <= hand_size:
            legal &= ~(1 << (hand_size - total))
    if rules.min_team_bid > 0 and rules.partnership:
        partner = (seat + 2) & 3
        partner_bid = byte_of_nb(bids, partner)
        partner_nil = partner_bid == 0 and (rules.nil != 0 or flag_of_nb(blind, partner) != 0)
        if partner_bid != 0xFF and not partner_nil:
            need = rules.min_team_bid - partner_bid
            if need > 0:
                allowed = ~((1 << need) - 1)
                if zero_is_nil:
                    allowed |= 1
                legal &= allowed
    return legal


@njit(cache=True)
def blind_allowed_nb(deficit, min_deficit):
    """A blind bid is allowed when the side trails by at least ``min_deficit``; a minimum of 0
    means always, even when ahead (the spec's "details that are easy to get wrong")."""
    return min_deficit == 0 or deficit >= min_deficit


@njit(cache=True)
def deficit_nb(rules, seat, scores):
    """How far the seat's side trails the best other side (negative when ahead)."""
    side = (seat & 1) if rules.partnership else seat
    best_other = -(1 << 62)  # below any score (core/rules.py: MAX_SCORE)
    for other in range(rules.n_sides):
        if other != side and scores[other] > best_other:
            best_other = scores[other]
    return best_other - scores[side]


@njit(cache=True, inline="always")
def bid_round_nb(rules, kinds_packed, params, param_rows, random_bids, rates, blind_floor,
                 score_aware, dealer, hands, scores, bags, memo, state, plugins):
    """One round of bidding from the dealer's left; returns ``(bids, blind, bumped, state)``.

    ``bids`` packed 8 bits per seat (final bids, after any bump); ``blind`` and ``bumped`` a bit
    per seat. ``hands``, ``scores`` and ``bags`` (per side, before the hand) are 4-tuples;
    ``rates`` is ``(blind_nil, blind_bid, bump)`` packed thresholds
    (``strategy_kernels.random_rates_nb``); ``blind_floor`` the smallest deficit at which any
    heuristic seat would bid blind (``heuristic_blind_floor_nb``), so that the common case skips
    its parameter lookup; ``score_aware`` whether any seat adjusts its bid for the score
    (``score_aware_nb``); ``memo`` the expected-value bidder's memo and ``param_rows`` the
    parameters as an array (``strategy_bids.choose_bid_nb``). Play-stream draws, in
    order: each bidder's blind choice (only when a blind option is allowed), then its bid (only
    when it looked), then each bump choice in bidding order (``bid_bump``).

    ``plugins``: ``None``, or the plug-in tuple (``plugin.py``): a plug-in seat's non-blind bid
    is its plug-in's; its other choices are those of its kind (the heuristic).
    """
    players = rules.players
    hand_size = rules.hand_size
    nil_on = rules.nil != 0
    # Without bid constraints every bid is legal: skip computing the masks (the common case).
    constrained = rules.bids_total_not_tricks != 0 or rules.min_team_bid > 0
    every_bid = (2 << hand_size) - 1
    blind_rules = rules.blind_nil != 0 or rules.blind_bids != 0
    bids = (1 << (8 * players)) - 1  # 255 = not bid yet
    blind = 0
    first = wrap_seat_nb(dealer + 1, players)
    # Every heuristic (and mc) seat's trick estimate, before the auction: four independent
    # chains of additions that the processor overlaps, each in its own fixed order as before.
    estimates = (
        estimate_tricks_nb(rules, params[0], hands[0]) if byte_of_nb(kinds_packed, 0) else 0.0,
        estimate_tricks_nb(rules, params[1], hands[1]) if byte_of_nb(kinds_packed, 1) else 0.0,
        estimate_tricks_nb(rules, params[2], hands[2]) if byte_of_nb(kinds_packed, 2) else 0.0,
        estimate_tricks_nb(rules, params[3], hands[3]) if byte_of_nb(kinds_packed, 3) else 0.0,
    )
    for position in range(players):
        seat = wrap_seat_nb(first + position, players)
        kind = byte_of_nb(kinds_packed, seat)
        choice = -1
        if blind_rules:
            deficit = deficit_nb(rules, seat, scores)
            if kind == STRATEGY_RANDOM or deficit >= blind_floor:
                blind_nil_ok = rules.blind_nil != 0 and blind_allowed_nb(
                    deficit, rules.blind_nil_min_deficit)
                if blind_nil_ok and constrained:
                    blind_nil_ok = legal_bids_nb(rules, seat, position, bids, blind, True) & 1 != 0
                blind_bids = 0
                if rules.blind_bids and blind_allowed_nb(deficit,
                                                            rules.blind_bid_min_deficit):
                    blind_bids = every_bid
                    if constrained:
                        blind_bids = legal_bids_nb(rules, seat, position, bids, blind, nil_on)
                    blind_bids &= (2 << rules.blind_bid_max) - 2
                if blind_nil_ok or blind_bids:
                    partner = (seat + 2) & 3
                    partner_nil = rules.partnership != 0 and byte_of_nb(bids, partner) == 0 and (
                        nil_on or flag_of_nb(blind, partner) != 0
                    )
                    choice, state = choose_blind_nb(rules, kind, params, rates, seat, deficit,
                                                    partner_nil, blind_nil_ok, blind_bids, bids,
                                                    scores, bags, state)
        if choice >= 0:
            bid = choice
            blind |= 1 << seat
        else:
            legal = every_bid
            if constrained:
                legal = legal_bids_nb(rules, seat, position, bids, blind, nil_on)
            if plugins is not None and (plugins[2] >> seat) & 1:
                bid, state = plugin_bid_nb(plugins, rules, seat, position, dealer, hands[seat],
                                           legal, bids, blind, scores, bags, state)
            else:
                bid, state = choose_bid_nb(rules, kind, param_rows, random_bids, seat, hands,
                                           estimates[seat], bids, blind, legal, scores, bags,
                                           score_aware, memo, state)
            if bid < 0 or bid > hand_size or ((legal >> bid) & 1) == 0:
                raise ValueError("a strategy made a bid the rules do not allow")
        bids = (bids & ~(0xFF << (8 * seat))) | (bid << (8 * seat))
    bumped = 0
    if rules.bid_bump:
        for position in range(players):
            seat = wrap_seat_nb(first + position, players)
            bid = byte_of_nb(bids, seat)
            nil = bid == 0 and (rules.nil != 0 or flag_of_nb(blind, seat) != 0)
            if nil or flag_of_nb(blind, seat) or bid >= hand_size:
                continue
            bump, state = choose_bump_nb(rules, byte_of_nb(kinds_packed, seat), params, rates[2],
                                         seat, position, estimates[seat], bids, scores, bags,
                                         state)
            if bump:
                bids += 1 << (8 * seat)
                bumped |= 1 << seat
    return bids, blind, bumped, state


@njit(cache=True, inline="always")
def exchange_size_nb(rules, seat, bids, blind):
    """Cards ``seat`` passes to its partner (who passes as many back); 0 when it does not.

    A blind-nil bidder whose partner did not also bid blind nil passes ``blind_nil_exchange``
    (also when the partner bid a plain nil); a plain nil bidder whose partner bid no nil at all
    passes ``nil_exchange``. Two blind nils, or two plain nils, never exchange.
    """
    if not rules.partnership:
        return 0
    partner = (seat + 2) & 3
    nil_on = rules.nil != 0
    seat_zero = byte_of_nb(bids, seat) == 0
    partner_zero = byte_of_nb(bids, partner) == 0
    seat_blind_nil = seat_zero and flag_of_nb(blind, seat) != 0
    partner_blind_nil = partner_zero and flag_of_nb(blind, partner) != 0
    partner_nil = partner_zero and (nil_on or partner_blind_nil)
    if seat_blind_nil:
        return 0 if partner_blind_nil else rules.blind_nil_exchange
    if seat_zero and nil_on and not partner_nil:
        return rules.nil_exchange
    return 0
