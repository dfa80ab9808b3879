"""Strategy decisions inside the kernel: blind choices, bids, bumps, the draw deal's keep
choice and exchange passes, of every strategy kind (``strategy_kernels.py`` says how the state
reaches them)."""

from numba import njit

from .bits import (
    TRUMP_MASK,
    byte_of_nb,
    flag_of_nb,
    highest_card,
    lowest_card,
    nth_card_nb,
    popcount,
    rank_of_nb,
)
from .layout import (
    P_AGGRESSION,
    P_BAG_GUARD,
    P_BAG_GUARD_BOOST,
    P_BLIND_BID,
    P_BLIND_BID_DEFICIT,
    P_BLIND_NIL_DEFICIT,
    P_BUMP_THRESHOLD,
    P_ENDGAME_POINTS,
    P_ENDGAME_PUSH,
    P_ENDGAME_SAFE,
    P_EV_BID,
    P_KEEP_RANK,
    P_NIL_MAX_HIGH,
    P_NIL_MAX_SPADES,
    P_NIL_PARTNER_MIN,
    P_NIL_THRESHOLD,
    RATE_ONE,
    STRATEGY_RANDOM,
)
from .rng import bounded_nb
from .strategy_kernels import (
    SIDE_ACES_KINGS,
    highest_rank_nb,
    lowest_rank_nb,
    prefer_side_suits_nb,
    rate_of_nb,
)
from .strategy_value import value_bid_nb, value_blind_nb, value_bump_nb


@njit(cache=True, inline="always")
def choose_blind_nb(rules, kind, params, rates, seat, deficit, partner_nil, blind_nil_ok,
                    blind_bids, bids, scores, bags, state):
    """``(choice, state)`` before ``seat`` looks at its cards: -1 to look, 0 for blind nil, or a
    blind number bid from the bitmask ``blind_bids`` (bit ``b`` = blind ``b`` allowed).

    Called only when an option exists. ``random``: one draw ``u = bounded(RATE_ONE)``; blind
    nil when ``u < blind_nil_rate`` (if allowed), else a blind bid when ``u`` is below the sum of
    both rates (if any is allowed; then a second draw picks it uniformly); else look.
    ``heuristic``: blind nil when trailing by ``blind_nil_deficit`` (unless the partner already
    bid a nil, ``partner_nil``), else the allowed blind bid nearest to ``blind_bid`` (at or
    below it first) when trailing by ``blind_bid_deficit``; with ``ev_bid``, once trailing by
    those deficits, the choice with the best expected score (``strategy_value.value_blind_nb``;
    ``bids`` packed, ``scores`` and ``bags`` per side).
    ``rates`` is ``(blind_nil_rates, blind_bid_rates)`` from ``random_rates_nb``; ``deficit``
    is how far the seat's side trails the leading other side.
    """
    if kind == STRATEGY_RANDOM:
        draw, state = bounded_nb(state, RATE_ONE)
        threshold = rate_of_nb(rates[0], seat) if blind_nil_ok else 0
        if draw < threshold:
            return 0, state
        if blind_bids:
            threshold += rate_of_nb(rates[1], seat)
            if draw < threshold:
                index, state = bounded_nb(state, popcount(blind_bids))
                return nth_card_nb(blind_bids, index), state
        return -1, state
    seat_params = params[seat]
    if seat_params[P_EV_BID] != 0:
        nil_ok = blind_nil_ok and not partner_nil and deficit >= seat_params[P_BLIND_NIL_DEFICIT]
        bid_ok = blind_bids if deficit >= seat_params[P_BLIND_BID_DEFICIT] else 0
        if not nil_ok and not bid_ok:
            return -1, state
        return value_blind_nb(rules, seat_params, seat, bids, nil_ok, bid_ok, scores,
                              bags), state
    return heuristic_blind_nb(seat_params, deficit, blind_nil_ok and not partner_nil,
                              blind_bids), state


@njit(cache=True)
def heuristic_blind_nb(seat_params, deficit, blind_nil_ok, blind_bids):
    """The heuristic's blind choice (see ``choose_blind_nb``); deterministic."""
    if blind_nil_ok and deficit >= seat_params[P_BLIND_NIL_DEFICIT]:
        return 0
    if blind_bids and deficit >= seat_params[P_BLIND_BID_DEFICIT]:
        want = int(seat_params[P_BLIND_BID])
        at_or_below = blind_bids & ((2 << want) - 1)
        if at_or_below:
            return highest_card(at_or_below)
        return lowest_card(blind_bids)
    return -1


@njit(cache=True, inline="always")
def choose_bid_nb(rules, kind, param_rows, random_bids, seat, hands, estimate, bids, blind,
                  legal, scores, bags, score_aware, memo, state):
    """``(bid, state)``: the bid of ``seat`` (0..hand_size; 0 is nil where nil is on).

    ``legal`` is the bitmask of the bids the rules allow here (``bidding.legal_bids_nb``);
    ``hands`` the 4-tuple of holdings (picked by seat only where a strategy looks at its cards);
    ``estimate`` the heuristic's trick estimate of the seat's hand (``estimate_tricks_nb``).
    ``param_rows`` holds every seat's parameters as a row of a float64[4, N_PARAMS] array
    (``simulate.py`` builds it once per kernel call: a row read by a runtime seat is a load, where
    a tuple picked by a runtime seat is a jump table and a copy); ``random_bids`` packs each
    random seat's
    ``bid_min`` and ``bid_max`` (``random_bid_ranges_nb``). ``bids`` is packed; seats that have
    not bid yet read 255. ``random`` picks uniformly among the legal bids in
    ``bid_min..bid_max`` (among all legal bids when none is there): one ``bounded`` draw.
    ``heuristic`` bids nil when its estimate is at most ``nil_threshold`` with at most
    ``nil_max_spades`` trumps, at most ``nil_max_high`` side aces and kings, no trump ace, its
    partner not a nil bidder and (if it has bid) bidding at least ``nil_partner_min``; else
    ``round(estimate + aggression + score_adjustment)`` within 1..hand_size (see
    ``score_adjustment_nb``, skipped unless ``score_aware``; ``scores`` and ``bags`` are per-side
    4-tuples); when that bid is not
    allowed, the nearest allowed one (above first), and nil only as a last resort. With
    ``ev_bid`` (the default) the heuristic bids by expected score instead
    (``strategy_value.value_bid_nb``; ``blind`` is a bit per seat, for a partner's blind nil;
    ``memo`` is ``(groups, keys, values)``, the seats' memo groups and the kernel call's memo).
    """
    hand_size = rules.hand_size
    if kind == STRATEGY_RANDOM:
        low = (random_bids >> (16 * seat)) & 0xFF
        high = (random_bids >> (16 * seat + 8)) & 0xFF
        candidates = legal & ((2 << high) - (1 << low))
        if candidates == 0:
            candidates = legal
        index, state = bounded_nb(state, popcount(candidates))
        return nth_card_nb(candidates, index), state
    seat_params = param_rows[seat]
    hand = hands[seat]
    if seat_params[P_EV_BID] != 0:
        adjustment = 0.0
        if score_aware:
            adjustment = score_adjustment_nb(rules, seat_params, seat, scores, bags)
        bid = value_bid_nb(rules, seat_params, (memo[0] >> (2 * seat)) & 3, seat, hand,
                           estimate + seat_params[P_AGGRESSION] + adjustment, bids,
                           flag_of_nb(blind, (seat + 2) & 3) != 0, legal, scores, bags,
                           memo[1], memo[2])
        if bid >= 0:
            return bid, state
        fallback = int(estimate + seat_params[P_AGGRESSION] + adjustment + 0.5)
        return nearest_legal_bid_nb(min(max(fallback, 1), hand_size), legal, hand_size), state
    # Unbid seats read 255, so this sees only a nil the partner has already bid.
    partner_bid = 255
    if rules.partnership != 0:
        partner_bid = byte_of_nb(bids, (seat + 2) & 3)
    if (
        rules.nil
        and partner_bid != 0
        and (partner_bid == 255 or partner_bid >= seat_params[P_NIL_PARTNER_MIN])
        and estimate <= seat_params[P_NIL_THRESHOLD]
        and popcount(hand & TRUMP_MASK) <= seat_params[P_NIL_MAX_SPADES]
        and popcount(hand & SIDE_ACES_KINGS) <= seat_params[P_NIL_MAX_HIGH]
        and (hand & (1 << 51)) == 0
    ):
        bid = 0
    else:
        adjustment = 0.0
        if score_aware:
            adjustment = score_adjustment_nb(rules, seat_params, seat, scores, bags)
        bid = int(estimate + seat_params[P_AGGRESSION] + adjustment + 0.5)
        if bid < 1:
            bid = 1
        if bid > hand_size:
            bid = hand_size
    return nearest_legal_bid_nb(bid, legal, hand_size), state


@njit(cache=True, inline="always")
def score_adjustment_nb(rules, seat_params, seat, scores, bags):
    """What the heuristic adds to its bid for the score: ``bag_guard_boost`` when its side is
    within ``bag_guard`` bags of the bag limit (a higher bid leaves fewer overtricks); at the
    end of a game (``endgame_points`` > 0), ``endgame_safe`` when its side leads and is within
    ``endgame_points`` of the target, else ``endgame_push`` when a side ahead of it is."""
    side = (seat & 1) if rules.partnership else seat
    adjustment = 0.0
    guard = seat_params[P_BAG_GUARD]
    if guard > 0 and rules.bag_limit > 0 and bags[side] >= rules.bag_limit - guard:
        adjustment += seat_params[P_BAG_GUARD_BOOST]
    window = seat_params[P_ENDGAME_POINTS]
    if window > 0:
        own = scores[side]
        best_other = -(1 << 62)  # below any score (core/rules.py: MAX_SCORE)
        for other in range(rules.n_sides):
            if other != side and scores[other] > best_other:
                best_other = scores[other]
        if own > best_other and rules.target - own <= window:
            adjustment += seat_params[P_ENDGAME_SAFE]
        elif best_other > own and rules.target - best_other <= window:
            adjustment += seat_params[P_ENDGAME_PUSH]
    return adjustment


@njit(cache=True)
def nearest_legal_bid_nb(bid, legal, hand_size):
    """``bid`` if ``legal`` allows it, else the nearest allowed non-zero bid (above first), else
    0 (``legal`` is never empty)."""
    if (legal >> bid) & 1:
        return bid
    for distance in range(1, hand_size + 1):
        up = bid + distance
        if up <= hand_size and (legal >> up) & 1:
            return up
        down = bid - distance
        if down >= 1 and (legal >> down) & 1:
            return down
    return 0


@njit(cache=True)
def choose_bump_nb(rules, kind, params, bump_rates, seat, position, hand_estimate, bids, scores,
                   bags, state):
    """``(bump, state)``: whether ``seat`` raises its ``bid`` by one (``bid_bump``).

    ``random``: ``bounded(RATE_ONE) < bump_rate``. ``heuristic``: when ``estimate + aggression -
    bid >= bump_threshold``; with ``ev_bid``, when the higher bid's expected score is higher
    (``strategy_value.value_bump_nb``). ``hand_estimate`` is the seat's trick estimate
    (``estimate_tricks_nb``), ``bids`` packed (all known), ``position`` the seat's bidding
    position, ``scores`` and ``bags`` per side.
    """
    if kind == STRATEGY_RANDOM:
        draw, state = bounded_nb(state, RATE_ONE)
        return draw < rate_of_nb(bump_rates, seat), state
    seat_params = params[seat]
    estimate = hand_estimate + seat_params[P_AGGRESSION]
    if seat_params[P_EV_BID] != 0:
        return value_bump_nb(rules, seat_params, seat, position, estimate, bids, scores,
                             bags), state
    return estimate - byte_of_nb(bids, seat) >= seat_params[P_BUMP_THRESHOLD], state


@njit(cache=True)
def choose_keep_nb(kind, params, keep_rates, seat, face_up, state):
    """``(keep, state)``: in the draw deal, whether ``seat`` keeps the face-up card (else it
    takes the face-down one). ``random``: ``bounded(RATE_ONE) < keep_rate``. ``heuristic``: keep
    a card of rank ``keep_rank`` or higher (trumps included: a face-down card is an average
    card, and keeping every trump would leave both players so long in trumps that the trick
    estimate, which counts long trumps, overbids)."""
    if kind == STRATEGY_RANDOM:
        draw, state = bounded_nb(state, RATE_ONE)
        return draw < rate_of_nb(keep_rates, seat), state
    return rank_of_nb(face_up) >= params[seat][P_KEEP_RANK], state


@njit(cache=True, inline="always")
def choose_pass_nb(kind, hand, n_cards, nil_bidder, state):
    """``(cards, state)``: the bitmask of ``n_cards`` cards ``hand`` passes in an exchange.

    ``random``: one card at a time, uniformly among those left (``n_cards`` draws).
    ``heuristic``: the nil bidder passes its highest cards (by rank, ties: the lowest suit); its
    partner passes back its lowest, side suits before trumps.
    """
    passed = 0
    left = hand
    for _ in range(n_cards):
        if kind == STRATEGY_RANDOM:
            index, state = bounded_nb(state, popcount(left))
            card = nth_card_nb(left, index)
        elif nil_bidder:
            card = highest_rank_nb(left)
        else:
            card = lowest_rank_nb(prefer_side_suits_nb(left))
        passed |= 1 << card
        left ^= 1 << card
    return passed, state
