"""The heuristic's expected-value choices inside the kernel: bids, nil, blind choices, bumps.

With ``ev_bid`` on (the default), the heuristic scores each choice it has by the expected points
its side makes with it under the rules in force, from the trick model of ``core/bidmodel.py``
(the tables are compiled in as constants: the model file is part of the engine's hash, so a refit
recompiles), and takes the best. ``reference/strategies.py`` mirrors every function here in the
same floating-point order; ``docs/strategies.md`` explains the model and the terms.

The expected points of a number bid ``b`` with the side's contract ``C = b + partner part``:

- made with probability ``P(Y >= b)`` (``Y``: the seat's tricks plus the partner's tricks beyond
  its bid; the seat's own tricks ``T`` when it bids alone), ``E[(Y - b)+]`` overtricks and
  ``E[(b - Y)+]`` tricks short;
- ``10 C`` made or lost (``per_bid``), or lost 10 per trick short (``per_trick_short``), or 200
  either way at 10 or more (``ten_for_two_hundred``); ``overtrick_points`` per overtrick;
- the bag penalty times the chance that the overtricks reach the side's bag limit this hand, and
  ``bag_weight`` times the long-run price of a bag (``bag_penalty / bag_limit``) per overtrick;
- ``target_bonus`` times the chance of making it, when making it takes the side to the target.
"""

import numpy as np
from numba import njit

from ..core.bidmodel import (
    K_SIZE,
    N_BINS,
    NIL_Z_BINS,
    NIL_Z_LOW,
    NIL_Z_STEP,
    OFFSET,
    PRIOR_BIN,
    S_BLIND_NIL,
    S_NIL_MADE,
    S_PARTNER_BID,
    Y_SIZE,
    tables,
)
from .bits import TRUMP_MASK, byte_of_nb, popcount, sum_bytes_nb, zero_bytes_nb
from .layout import (
    DECK_JOKERS,
    DOUBLE_NIL_ADDITIVE,
    DOUBLE_NIL_FIXED,
    P_BAG_WEIGHT,
    P_BLIND_MARGIN,
    P_NIL_MARGIN,
    P_NIL_MAX_HIGH,
    P_NIL_MAX_SPADES,
    P_NIL_PARTNER_MIN,
    P_NIL_THRESHOLD,
    P_TARGET_BONUS,
    SET_PER_BID,
    STRATEGY_RANDOM,
)
from .strategy_kernels import SIDE_ACES_KINGS, estimate_tricks_nb

# The model's arrays, frozen into the compiled code (module-level arrays are constants to numba).
_TABLES = tables()
OWN_PMF = _TABLES.own_pmf
OWN_SURV = _TABLES.own_surv
OWN_TAIL = _TABLES.own_tail
OWN_MEAN = _TABLES.own_mean
SIDE_SURV = _TABLES.side_surv
SIDE_TAIL = _TABLES.side_tail
SIDE_MEAN = _TABLES.side_mean
ERR_SURV = _TABLES.err_surv
ERR_TAIL = _TABLES.err_tail
ERR_MEAN = _TABLES.err_mean
BETA = _TABLES.beta
OPP_MEAN = _TABLES.opp_mean
SCALARS = _TABLES.scalars
NIL_WEIGHTS = _TABLES.nil_weights
NIL_PROB = _TABLES.nil_prob
BIN_WEIGHTS = _TABLES.bin_weights
SIDE_RANKS = 1 | (1 << 13) | (1 << 26)  # shifted by a rank: that rank's side-suit cards
NO_VALUE = -1e300  # below any expected score
WINDOW = 3  # number bids tried either side of the rounded estimate


@njit(cache=True, inline="always")
def side_of_nb(rules, seat):
    return (seat & 1) if rules.partnership else seat


@njit(cache=True)
def bidding_context_nb(rules, seat, bids):
    """``(position, opp_made, partner_bid)`` from the packed bids (255 = not bid yet):
    the seat's bidding position (how many have bid), the sum of the opponents' bids made so
    far, and the partner's bid (255 when unknown or without partnerships)."""
    seated = (1 << rules.players) - 1
    unbid = zero_bytes_nb(~bids) & seated  # (unseated bytes read 0, not 255)
    position = rules.players - popcount(unbid)
    if rules.partnership != 0:
        opponents = 0b0101 << ((seat & 1) ^ 1)
    else:
        opponents = seated & ~(1 << seat)
    opp_made = sum_bytes_nb(bids, opponents & ~unbid)
    partner_bid = 255
    if rules.partnership != 0:
        partner_bid = byte_of_nb(bids, (seat + 2) & 3)
    return position, opp_made, partner_bid


@njit(cache=True, inline="always")
def estimate_bin_nb(estimate):
    """The half-trick bin of an adjusted estimate, clamped to the table."""
    index = int(estimate * 2.0 + 0.5) if estimate > 0.0 else 0
    return min(index, N_BINS - 1)


@njit(cache=True, inline="always")
def points_nb(rules, seat_params, contract, made, over, short, cross, side_score):
    """Expected points of a contract from its chances: ``made`` P(made), ``over`` expected
    overtricks, ``short`` expected tricks short, ``cross`` P(the overtricks reach the bag
    limit). ``contract`` may be fractional (a partner's bid still to come, by its mean)."""
    if rules.ten_for_two_hundred != 0 and contract >= 10.0:
        value = 200.0 * (2.0 * made - 1.0)
        made_points = 200.0
    elif rules.set_penalty == SET_PER_BID:
        value = 10.0 * contract * (2.0 * made - 1.0)
        made_points = 10.0 * contract
    else:
        value = 10.0 * contract * made - 10.0 * short
        made_points = 10.0 * contract
    value += rules.overtrick_points * over
    if rules.bag_limit > 0:
        bag_price = rules.bag_penalty / rules.bag_limit
        value -= rules.bag_penalty * cross + seat_params[P_BAG_WEIGHT] * bag_price * over
    if side_score + made_points >= rules.target:
        value += seat_params[P_TARGET_BONUS] * made
    return value


def _bid_value(rules, seat_params, position, ebin, team, bid, partner_part, side_bags,
               side_score):
    """Expected points of the number bid ``bid``: with the side table when ``team`` (the
    partner bids a number too: ``partner_part`` its bid, or the mean bid while unknown), else
    with the seat's own tricks alone."""
    model = rules.bid_model
    room = rules.bag_limit - side_bags if rules.bag_limit > 0 else 0
    if team:
        index = bid + OFFSET
        made = SIDE_SURV[model, position, ebin, index]
        over = SIDE_TAIL[model, position, ebin, index]
        short = over - (SIDE_MEAN[model, position, ebin] - bid)
        cross = SIDE_SURV[model, position, ebin, min(index + room, Y_SIZE)]
    else:
        made = OWN_SURV[model, position, ebin, bid]
        over = OWN_TAIL[model, position, ebin, bid]
        short = over - (OWN_MEAN[model, position, ebin] - bid)
        cross = OWN_SURV[model, position, ebin, min(bid + room, K_SIZE)]
    return points_nb(rules, seat_params, bid + partner_part, made, over, short, cross,
                     side_score)


# The bidder's loop inlines it (no call per candidate bid); the rest call one shared copy.
bid_value_nb = njit(cache=True)(_bid_value)
bid_value_inline_nb = njit(cache=True, inline="always")(_bid_value)


@njit(cache=True)
def partner_value_nb(rules, seat_params, partner_bid, side_bags, side_score):
    """Expected points of the partner's contract alone (the seat bids nil): its bid, or the
    mean bid while unknown, against the partner's bid-error distribution."""
    model = rules.bid_model
    contract = SCALARS[model, S_PARTNER_BID] if partner_bid == 255 else float(partner_bid)
    room = rules.bag_limit - side_bags if rules.bag_limit > 0 else 0
    made = ERR_SURV[model, OFFSET]
    over = ERR_TAIL[model, OFFSET]
    short = over - ERR_MEAN[model]
    cross = ERR_SURV[model, min(OFFSET + room, Y_SIZE)]
    return points_nb(rules, seat_params, contract, made, over, short, cross, side_score)


@njit(cache=True, inline="always")
def nil_features_nb(rules, hand, partner_bid):
    """The nil model's features of ``hand``: ``(trumps, top trumps, side aces, kings, queens,
    jacks, side suits without a card below 8, voids, singletons, the partner's bid (0 while
    unknown), 1 when it is known)``; the intercept is the model's first weight."""
    top = 53 if rules.deck == DECK_JOKERS else 51
    trumps = hand & TRUMP_MASK
    n_trumps = popcount(trumps)
    top_trumps = popcount(trumps & (0xF << (top - 3)))
    aces = popcount(hand & (SIDE_RANKS << 12))
    kings = popcount(hand & (SIDE_RANKS << 11))
    queens = popcount(hand & (SIDE_RANKS << 10))
    jacks = popcount(hand & (SIDE_RANKS << 9))
    no_low = 0
    voids = 0
    singletons = 0
    for suit in range(3):
        cards = (hand >> (13 * suit)) & 0x1FFF
        length = popcount(cards)
        voids += length == 0
        singletons += length == 1
        no_low += length > 0 and (cards & 0x3F) == 0
    known = partner_bid != 255
    partner = float(partner_bid) if known else 0.0
    return (n_trumps, top_trumps, aces, kings, queens, jacks, no_low, voids, singletons, partner,
            int(known))


@njit(cache=True)
def nil_probability_nb(rules, hand, partner_bid):
    """The model's chance that ``hand`` makes a nil (0 with the deck's top trump): the logistic
    function of the weighted features, read from its table."""
    model = rules.bid_model
    top = 53 if rules.deck == DECK_JOKERS else 51
    if (hand >> top) & 1:
        return 0.0
    f = nil_features_nb(rules, hand, partner_bid)
    w = NIL_WEIGHTS[model]
    z = (w[0] + w[1] * f[0] + w[2] * f[1] + w[3] * f[2] + w[4] * f[3] + w[5] * f[4]
         + w[6] * f[5] + w[7] * f[6] + w[8] * f[7] + w[9] * f[8] + w[10] * f[9]
         + w[11] * f[10])
    index = int((z - NIL_Z_LOW) / NIL_Z_STEP + 0.5) if z > NIL_Z_LOW else 0
    return NIL_PROB[model, min(index, NIL_Z_BINS - 1)]


@njit(cache=True)
def model_inputs_nb(rules, seat_params, hands, dealers, bids, estimates, opp_made, positions,
                    partner_known, nil_features):
    """The trick model's inputs for every seat of ``n`` played hands (the fit's front door,
    not the hot loop): ``hands`` int64[n, 4] as dealt, ``dealers`` [n], ``bids`` [n, 4] final
    bids. Fills ``estimates`` (the heuristic's estimate with ``seat_params``), ``opp_made``
    (the opponents' bids made before the seat's turn), ``positions`` (bidding position),
    ``partner_known`` (the partner bid before the seat) and ``nil_features`` [n, 4, 11] (with
    the partner's bid where it was made before)."""
    players = rules.players
    for row in range(hands.shape[0]):
        dealer = dealers[row]
        for position in range(players):
            seat = (dealer + 1 + position) % players
            made = 0
            for earlier in range(position):
                other = (dealer + 1 + earlier) % players
                if side_of_nb(rules, other) != side_of_nb(rules, seat):
                    made += bids[row, other]
            partner_bid = 255
            if rules.partnership != 0:
                partner = (seat + 2) & 3
                if (partner - dealer - 1) % players < position:
                    partner_bid = bids[row, partner]
            estimates[row, seat] = estimate_tricks_nb(rules, seat_params, hands[row, seat])
            opp_made[row, seat] = made
            positions[row, seat] = position
            partner_known[row, seat] = partner_bid != 255
            f = nil_features_nb(rules, hands[row, seat], partner_bid)
            out = nil_features[row, seat]
            out[0], out[1], out[2], out[3], out[4], out[5] = f[0], f[1], f[2], f[3], f[4], f[5]
            out[6], out[7], out[8], out[9], out[10] = f[6], f[7], f[8], f[9], f[10]


@njit(cache=True)
def nil_gate_nb(rules, seat_params, hand, estimate, partner_bid):
    """Whether the heuristic considers a nil at all (its gates, as in the rounding mode)."""
    return (
        estimate <= seat_params[P_NIL_THRESHOLD]
        and popcount(hand & TRUMP_MASK) <= seat_params[P_NIL_MAX_SPADES]
        and popcount(hand & SIDE_ACES_KINGS) <= seat_params[P_NIL_MAX_HIGH]
        and (partner_bid == 255 or partner_bid == 0
             or partner_bid >= seat_params[P_NIL_PARTNER_MIN])
    )


@njit(cache=True)
def double_nil_value_nb(rules, p_own, own_bonus, p_partner, partner_bonus):
    """Expected points of both partners' nils together, by the double-nil scoring."""
    mode = rules.double_nil
    if mode == DOUBLE_NIL_ADDITIVE:
        return (2.0 * p_own - 1.0) * own_bonus + (2.0 * p_partner - 1.0) * partner_bonus
    if mode == DOUBLE_NIL_FIXED:
        return rules.double_nil_bonus * (p_own * p_partner - (1.0 - p_own) * (1.0 - p_partner))
    return p_own * p_partner * 2.0 * (own_bonus + partner_bonus)


# The bidder's memo: the number-bid walk depends on few inputs, and hands repeat them, so each
# kernel call keeps its results in a direct-mapped table (``memo_table_nb``) keyed by all of
# them. A hit returns exactly what the walk would compute: the memo changes speed, not bids.
MEMO_BITS = 12
MEMO_SIZE = 1 << MEMO_BITS
_MEMO_HASH = np.uint64(0x9E3779B97F4A7C15)  # odd: a multiplicative (Fibonacci) hash
_MEMO_SHIFT = np.uint64(64 - MEMO_BITS)


@njit(cache=True, inline="always")
def memo_table_nb():
    """An empty memo (``value_bid_nb``): one buffer of ``2 * MEMO_SIZE`` words, read as keys
    (int64, 0 = empty) and, through a float64 view of the same buffer, as values. Slot ``i``
    keeps its key at ``2 i`` and its value at ``2 i + 1``: one cache line holds both, so a
    lookup misses the cache once. The caller owns the one buffer and makes both views from
    it."""
    return np.zeros(2 * MEMO_SIZE, dtype=np.int64)


@njit(cache=True, inline="always")
def memo_groups_nb(kinds, params):
    """Each seat's memo group, 2 bits per seat: the first seat with the same parameters of
    the walk (``bag_weight``, ``target_bonus``), so that seats playing alike share entries."""
    packed = 0
    for seat in range(4):
        group = seat
        for other in range(seat):
            if (kinds[other] != STRATEGY_RANDOM
                    and params[other][P_BAG_WEIGHT] == params[seat][P_BAG_WEIGHT]
                    and params[other][P_TARGET_BONUS] == params[seat][P_TARGET_BONUS]):
                group = other
                break
        packed |= group << (2 * seat)
    return packed


@njit(cache=True)
def walk_bids_nb(rules, seat_params, position, ebin, centre, team, partner_part, legal,
                 side_bags, side_score):
    """``(best value, best bid)`` among the legal number bids near ``centre`` (-1 when none):
    up from the rounded estimate while the value rises, then down from below it while it beats
    the best so far (the value is single-peaked in the bid in practice; a dip ends the walk
    either way), within WINDOW of it."""
    hand_size = rules.hand_size
    best = NO_VALUE
    best_bid = -1
    for bid in range(centre, min(centre + WINDOW, hand_size) + 1):
        if (legal >> bid) & 1:
            value = bid_value_inline_nb(rules, seat_params, position, ebin, team, bid,
                                        partner_part, side_bags, side_score)
            if value > best:
                best = value
                best_bid = bid
            else:
                break
    for bid in range(centre - 1, max(centre - WINDOW, 1) - 1, -1):
        if (legal >> bid) & 1:
            value = bid_value_inline_nb(rules, seat_params, position, ebin, team, bid,
                                        partner_part, side_bags, side_score)
            if value > best:
                best = value
                best_bid = bid
            else:
                break
    return best, best_bid


@njit(cache=True, inline="always")
def nil_choice_nb(rules, seat_params, hand, partner_bid, partner_blind, best, best_bid,
                  side_bags, side_score):
    """Whether the seat bids nil rather than ``best_bid`` (of expected value ``best``; -1 when
    no number bid was legal): the nil's expected points (a double nil's, when the partner bid
    nil) plus ``nil_margin`` against the number bid's plus the partner's nil alone."""
    model = rules.bid_model
    partner_nil = partner_bid == 0
    partner_nil_value = 0.0
    p_partner = 0.0
    partner_bonus = 0.0
    if partner_nil:
        partner_bonus = float(rules.blind_nil_bonus if partner_blind else rules.nil_bonus)
        p_partner = SCALARS[model, S_BLIND_NIL if partner_blind else S_NIL_MADE]
        partner_nil_value = (2.0 * p_partner - 1.0) * partner_bonus
    p_own = nil_probability_nb(rules, hand, partner_bid)
    if partner_nil:
        nil_value = double_nil_value_nb(rules, p_own, float(rules.nil_bonus), p_partner,
                                        partner_bonus)
    else:
        nil_value = (2.0 * p_own - 1.0) * rules.nil_bonus
        if rules.partnership != 0:
            nil_value += partner_value_nb(rules, seat_params, partner_bid, side_bags,
                                          side_score)
    return best_bid < 0 or nil_value + seat_params[P_NIL_MARGIN] > best + partner_nil_value


@njit(cache=True, inline="always")
def value_bid_nb(rules, seat_params, group, seat, hand, estimate, bids, partner_blind, legal,
                 scores, bags, memo_keys, memo_values):
    """The expected-value bid of ``seat`` (see the module doc); ``estimate`` is the heuristic's
    trick estimate plus ``aggression`` and its score adjustment; ``partner_blind`` whether the
    partner's bid was blind; ``group`` the seat's memo group (``memo_groups_nb``) and
    ``memo_keys``, ``memo_values`` the kernel call's memo (``memo_table_nb``)."""
    model = rules.bid_model
    hand_size = rules.hand_size
    position, opp_made, partner_bid = bidding_context_nb(rules, seat, bids)
    side = side_of_nb(rules, seat)
    side_score = scores[side]
    side_bags = bags[side]
    adjusted = estimate + BETA[model, position] * (opp_made - OPP_MEAN[model, position])
    ebin = estimate_bin_nb(adjusted)
    team = rules.partnership != 0 and partner_bid != 0
    partner_part = 0.0
    if team:
        partner_part = SCALARS[model, S_PARTNER_BID] if partner_bid == 255 else float(partner_bid)
    centre = int(adjusted + 0.5) if adjusted > 0.0 else 0
    centre = min(max(centre, 1), hand_size)
    # The walk reads the score only to ask whether a contract reaches the target (at most
    # max(200, 20 * hand_size) points): below that, the key leaves the score out.
    if 0 <= side_bags < 256 and side_score + max(200, 20 * hand_size) < rules.target:
        key = ((((((legal << 8 | partner_bid) << 8 | side_bags) << 5 | centre) << 6 | ebin)
                << 2 | position) << 2) | group
        slot = np.int64((np.uint64(key) * _MEMO_HASH) >> _MEMO_SHIFT) << 1
        entry = memo_keys[slot]
        if entry >> 6 == key:
            best = memo_values[slot + 1]
            best_bid = (entry & 63) - 1
        else:
            best, best_bid = walk_bids_nb(rules, seat_params, position, ebin, centre, team,
                                          partner_part, legal, side_bags, side_score)
            memo_keys[slot] = key << 6 | (best_bid + 1)
            memo_values[slot + 1] = best
    else:
        best, best_bid = walk_bids_nb(rules, seat_params, position, ebin, centre, team,
                                      partner_part, legal, side_bags, side_score)
    if rules.nil != 0 and (legal & 1) and nil_gate_nb(rules, seat_params, hand, estimate,
                                                       partner_bid):
        if nil_choice_nb(rules, seat_params, hand, partner_bid, partner_blind, best, best_bid,
                         side_bags, side_score):
            return 0
    if best_bid < 0:
        return -1  # the caller takes the nearest legal bid
    return best_bid


@njit(cache=True)
def look_value_nb(rules, seat_params, position, side_score, side_bags):
    """Expected points of looking at the cards first: over the bins of the estimate, weighted
    by how often a hand falls in each, the best number bid of the bin (nil not counted)."""
    model = rules.bid_model
    team = rules.partnership != 0
    partner_part = SCALARS[model, S_PARTNER_BID] if team else 0.0
    total = 0.0
    for ebin in range(N_BINS):
        weight = BIN_WEIGHTS[model, position, ebin]
        if weight == 0.0:
            continue
        best = NO_VALUE
        for bid in range(1, rules.hand_size + 1):
            value = bid_value_nb(rules, seat_params, position, ebin, team, bid, partner_part,
                                 side_bags, side_score)
            best = max(best, value)
        total += weight * best
    return total


@njit(cache=True)
def value_blind_nb(rules, seat_params, seat, bids, blind_nil_ok, blind_bids, scores, bags):
    """The expected-value blind choice (-1 look, 0 blind nil, else a blind bid), called once
    the seat trails by its ``blind_*_deficit``: a blind nil or the best blind bid when its
    expected points plus ``blind_margin`` beat looking."""
    model = rules.bid_model
    position, _opp, partner_bid = bidding_context_nb(rules, seat, bids)
    side = side_of_nb(rules, seat)
    side_score = scores[side]
    side_bags = bags[side]
    look = look_value_nb(rules, seat_params, position, side_score, side_bags)
    margin = seat_params[P_BLIND_MARGIN]
    best = look
    choice = -1
    if blind_nil_ok:
        value = (2.0 * SCALARS[model, S_BLIND_NIL] - 1.0) * rules.blind_nil_bonus
        if rules.partnership != 0:
            value += partner_value_nb(rules, seat_params, partner_bid, side_bags, side_score)
        if value + margin > best:
            best = value + margin
            choice = 0
    if blind_bids:
        team = rules.partnership != 0 and partner_bid != 0
        partner_part = 0.0
        if team:
            partner_part = (SCALARS[model, S_PARTNER_BID] if partner_bid == 255
                            else float(partner_bid))
        for bid in range(1, rules.hand_size + 1):
            if (blind_bids >> bid) & 1:
                exact = OWN_PMF[model, position, PRIOR_BIN, bid]
                value = bid_value_nb(rules, seat_params, position, PRIOR_BIN, team, bid,
                                     partner_part, side_bags, side_score)
                value += rules.blind_bid_bonus_per_trick * bid * (2.0 * exact - 1.0)
                if value + margin > best:
                    best = value + margin
                    choice = bid
    return choice


@njit(cache=True)
def value_bump_nb(rules, seat_params, seat, position, hand_estimate, bids, scores, bags):
    """Whether raising the bid by one adds expected points (the bids all known; the estimate
    bin from ``hand_estimate``, the estimate plus ``aggression``, at the seat's bidding
    ``position``; the opponents' bids do not shift it here)."""
    bid = byte_of_nb(bids, seat)
    side = side_of_nb(rules, seat)
    partner_bid = byte_of_nb(bids, (seat + 2) & 3) if rules.partnership != 0 else 255
    team = rules.partnership != 0 and partner_bid != 0
    partner_part = float(partner_bid) if team else 0.0
    ebin = estimate_bin_nb(hand_estimate)
    low = bid_value_nb(rules, seat_params, position, ebin, team, bid, partner_part, bags[side],
                       scores[side])
    high = bid_value_nb(rules, seat_params, position, ebin, team, bid + 1, partner_part,
                        bags[side], scores[side])
    return high > low
