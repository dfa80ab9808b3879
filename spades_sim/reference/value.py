"""The reference twin of the heuristic's expected-value choices (``engine/strategy_value.py``):
the same model tables (``core/bidmodel.py``), the same terms in the same floating-point order.

Bids here are a list with -1 for a seat that has not bid (the kernel's packed 255)."""

from __future__ import annotations

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
    shape_index,
    tables,
)
from ..core.cards import TRUMP_MASK
from ..core.rules import Rules

NO_VALUE = -1e300
WINDOW = 3
UNKNOWN = 255  # a partner's bid not made yet (or no partner)


def model_of(rules: Rules) -> int:
    return shape_index(rules.players, rules.deck, rules.partnership)


def side_of(rules: Rules, seat: int) -> int:
    return seat % 2 if rules.partnership else seat


def bidding_context(rules: Rules, seat: int, bids) -> tuple[int, int, int]:
    """``(position, opp_made, partner_bid)``: how many have bid, the opponents' bids so far,
    and the partner's bid (``UNKNOWN`` when not made or without partnerships)."""
    position = 0
    opp_made = 0
    for other in range(rules.players):
        if bids[other] < 0:
            continue
        position += 1
        if side_of(rules, other) != side_of(rules, seat):
            opp_made += bids[other]
    partner_bid = UNKNOWN
    if rules.partnership and bids[(seat + 2) % 4] >= 0:
        partner_bid = bids[(seat + 2) % 4]
    return position, opp_made, partner_bid


def estimate_bin(estimate: float) -> int:
    index = int(estimate * 2.0 + 0.5) if estimate > 0.0 else 0
    return min(index, N_BINS - 1)


def points(rules: Rules, params: dict, contract: float, made: float, over: float, short: float,
           cross: float, side_score: int) -> float:
    """Expected points of a contract from its chances (``strategy_value.points_nb``)."""
    if rules.ten_for_two_hundred and contract >= 10.0:
        value = 200.0 * (2.0 * made - 1.0)
        made_points = 200.0
    elif rules.set_penalty == "per_bid":
        value = 10.0 * contract * (2.0 * made - 1.0)
        made_points = 10.0 * contract
    else:
        value = 10.0 * contract * made - 10.0 * short
        made_points = 10.0 * contract
    value += rules.overtrick_points * over
    if rules.bag_limit > 0:
        bag_price = rules.bag_penalty / rules.bag_limit
        value -= rules.bag_penalty * cross + params["bag_weight"] * bag_price * over
    if side_score + made_points >= rules.target:
        value += params["target_bonus"] * made
    return value


def bid_value(rules: Rules, params: dict, position: int, ebin: int, team: bool, bid: int,
              partner_part: float, side_bags: int, side_score: int) -> float:
    """Expected points of a number bid (``strategy_value.bid_value_nb``)."""
    t = tables()
    model = model_of(rules)
    room = rules.bag_limit - side_bags if rules.bag_limit > 0 else 0
    if team:
        index = bid + OFFSET
        made = t.side_surv[model, position, ebin, index]
        over = t.side_tail[model, position, ebin, index]
        short = over - (t.side_mean[model, position, ebin] - bid)
        cross = t.side_surv[model, position, ebin, min(index + room, Y_SIZE)]
    else:
        made = t.own_surv[model, position, ebin, bid]
        over = t.own_tail[model, position, ebin, bid]
        short = over - (t.own_mean[model, position, ebin] - bid)
        cross = t.own_surv[model, position, ebin, min(bid + room, K_SIZE)]
    return points(rules, params, bid + partner_part, float(made), float(over), float(short),
                  float(cross), side_score)


def partner_value(rules: Rules, params: dict, partner_bid: int, side_bags: int,
                  side_score: int) -> float:
    """Expected points of the partner's contract alone (``partner_value_nb``)."""
    t = tables()
    model = model_of(rules)
    contract = (float(t.scalars[model, S_PARTNER_BID]) if partner_bid == UNKNOWN
                else float(partner_bid))
    room = rules.bag_limit - side_bags if rules.bag_limit > 0 else 0
    made = t.err_surv[model, OFFSET]
    over = t.err_tail[model, OFFSET]
    short = over - t.err_mean[model]
    cross = t.err_surv[model, min(OFFSET + room, Y_SIZE)]
    return points(rules, params, contract, float(made), float(over), float(short), float(cross),
                  side_score)


def nil_features(rules: Rules, hand: int, partner_bid: int) -> list[float] | None:
    """The nil model's features of a hand (None with the deck's top trump: no nil)."""
    top = 53 if rules.deck == "jokers" else 51
    if hand >> top & 1:
        return None
    trumps = hand & TRUMP_MASK
    counts = [0] * 7  # aces, kings, queens, jacks, no low card, voids, singletons
    for suit in range(3):
        cards = hand >> (13 * suit) & 0x1FFF
        length = cards.bit_count()
        counts[0] += cards >> 12 & 1
        counts[1] += cards >> 11 & 1
        counts[2] += cards >> 10 & 1
        counts[3] += cards >> 9 & 1
        counts[4] += int(length > 0 and cards & 0x3F == 0)
        counts[5] += int(length == 0)
        counts[6] += int(length == 1)
    known = partner_bid != UNKNOWN
    return [1.0, trumps.bit_count(), (trumps & (0xF << (top - 3))).bit_count(), *counts,
            float(partner_bid) if known else 0.0, int(known)]


def nil_probability(rules: Rules, hand: int, partner_bid: int) -> float:
    """The model's chance that ``hand`` makes a nil (``nil_probability_nb``)."""
    features = nil_features(rules, hand, partner_bid)
    if features is None:
        return 0.0
    t = tables()
    w = t.nil_weights[model_of(rules)]
    z = float(w[0])
    for weight, value in zip(w[1:], features[1:]):
        z = z + weight * value
    index = int((z - NIL_Z_LOW) / NIL_Z_STEP + 0.5) if z > NIL_Z_LOW else 0
    return float(t.nil_prob[model_of(rules), min(index, NIL_Z_BINS - 1)])


def nil_gate(params: dict, hand: int, estimate: float, partner_bid: int) -> bool:
    side_aces_kings = sum(1 << (13 * suit + rank) for suit in range(3) for rank in (11, 12))
    return (
        estimate <= params["nil_threshold"]
        and (hand & TRUMP_MASK).bit_count() <= params["nil_max_spades"]
        and (hand & side_aces_kings).bit_count() <= params["nil_max_high"]
        and (partner_bid in (UNKNOWN, 0) or partner_bid >= params["nil_partner_min"])
    )


def double_nil_value(rules: Rules, p_own: float, own_bonus: float, p_partner: float,
                     partner_bonus: float) -> float:
    if rules.double_nil == "additive":
        return (2.0 * p_own - 1.0) * own_bonus + (2.0 * p_partner - 1.0) * partner_bonus
    if rules.double_nil == "fixed":
        return rules.double_nil_bonus * (p_own * p_partner - (1.0 - p_own) * (1.0 - p_partner))
    return p_own * p_partner * 2.0 * (own_bonus + partner_bonus)


def value_bid(rules: Rules, params: dict, seat: int, hand: int, estimate: float, bids,
              partner_blind: bool, legal: int, scores, bags) -> int:
    """The expected-value bid, or -1 when no number bid near the estimate is legal and nil is
    not chosen (``value_bid_nb``)."""
    t = tables()
    model = model_of(rules)
    position, opp_made, partner_bid = bidding_context(rules, seat, bids)
    side = side_of(rules, seat)
    side_score, side_bags = scores[side], bags[side]
    adjusted = estimate + t.beta[model, position] * (opp_made - t.opp_mean[model, position])
    adjusted = float(adjusted)
    ebin = estimate_bin(adjusted)
    partner_nil = partner_bid == 0
    team = bool(rules.partnership) and not partner_nil
    partner_part = 0.0
    if team:
        partner_part = (float(t.scalars[model, S_PARTNER_BID]) if partner_bid == UNKNOWN
                        else float(partner_bid))
    centre = int(adjusted + 0.5) if adjusted > 0.0 else 0
    centre = min(max(centre, 1), rules.hand_size)
    best, best_bid = NO_VALUE, -1
    # Up from the rounded estimate while the value rises, then down while it beats the best.
    for walk in (range(centre, min(centre + WINDOW, rules.hand_size) + 1),
                 range(centre - 1, max(centre - WINDOW, 1) - 1, -1)):
        for bid in walk:
            if legal >> bid & 1:
                value = bid_value(rules, params, position, ebin, team, bid, partner_part,
                                  side_bags, side_score)
                if value > best:
                    best, best_bid = value, bid
                else:
                    break
    partner_nil_value = 0.0
    p_partner = 0.0
    partner_bonus = 0.0
    if partner_nil:
        partner_bonus = float(rules.blind_nil_bonus if partner_blind else rules.nil_bonus)
        p_partner = float(t.scalars[model, S_BLIND_NIL if partner_blind else S_NIL_MADE])
        partner_nil_value = (2.0 * p_partner - 1.0) * partner_bonus
    if rules.nil and legal & 1 and nil_gate(params, hand, estimate, partner_bid):
        p_own = nil_probability(rules, hand, partner_bid)
        if partner_nil:
            nil_value = double_nil_value(rules, p_own, float(rules.nil_bonus), p_partner,
                                         partner_bonus)
        else:
            nil_value = (2.0 * p_own - 1.0) * rules.nil_bonus
            if rules.partnership:
                nil_value += partner_value(rules, params, partner_bid, side_bags, side_score)
        if best_bid < 0 or nil_value + params["nil_margin"] > best + partner_nil_value:
            return 0
    return best_bid


def look_value(rules: Rules, params: dict, position: int, side_score: int,
               side_bags: int) -> float:
    """Expected points of looking first (``look_value_nb``)."""
    t = tables()
    model = model_of(rules)
    team = bool(rules.partnership)
    partner_part = float(t.scalars[model, S_PARTNER_BID]) if team else 0.0
    total = 0.0
    for ebin in range(N_BINS):
        weight = float(t.bin_weights[model, position, ebin])
        if weight == 0.0:
            continue
        best = NO_VALUE
        for bid in range(1, rules.hand_size + 1):
            value = bid_value(rules, params, position, ebin, team, bid, partner_part, side_bags,
                              side_score)
            best = max(best, value)
        total += weight * best
    return total


def value_blind(rules: Rules, params: dict, seat: int, bids, blind_nil_ok: bool,
                blind_bids: int, scores, bags) -> int:
    """The expected-value blind choice: -1 look, 0 blind nil, else a blind bid
    (``value_blind_nb``)."""
    t = tables()
    model = model_of(rules)
    position, _opp, partner_bid = bidding_context(rules, seat, bids)
    side = side_of(rules, seat)
    side_score, side_bags = scores[side], bags[side]
    best = look_value(rules, params, position, side_score, side_bags)
    margin = params["blind_margin"]
    choice = -1
    if blind_nil_ok:
        value = (2.0 * float(t.scalars[model, S_BLIND_NIL]) - 1.0) * rules.blind_nil_bonus
        if rules.partnership:
            value += partner_value(rules, params, partner_bid, side_bags, side_score)
        if value + margin > best:
            best, choice = value + margin, 0
    if blind_bids:
        team = bool(rules.partnership) and partner_bid != 0
        partner_part = 0.0
        if team:
            partner_part = (float(t.scalars[model, S_PARTNER_BID]) if partner_bid == UNKNOWN
                            else float(partner_bid))
        for bid in range(1, rules.hand_size + 1):
            if blind_bids >> bid & 1:
                exact = float(t.own_pmf[model, position, PRIOR_BIN, bid])
                value = bid_value(rules, params, position, PRIOR_BIN, team, bid, partner_part,
                                  side_bags, side_score)
                value += rules.blind_bid_bonus_per_trick * bid * (2.0 * exact - 1.0)
                if value + margin > best:
                    best, choice = value + margin, bid
    return choice


def value_bump(rules: Rules, params: dict, seat: int, position: int, hand_estimate: float,
               bids, scores, bags) -> bool:
    """Whether one more trick bid adds expected points (``value_bump_nb``)."""
    bid = bids[seat]
    side = side_of(rules, seat)
    partner_bid = bids[(seat + 2) % 4] if rules.partnership else UNKNOWN
    team = bool(rules.partnership) and partner_bid != 0
    partner_part = float(partner_bid) if team else 0.0
    ebin = estimate_bin(hand_estimate)
    low = bid_value(rules, params, position, ebin, team, bid, partner_part, bags[side],
                    scores[side])
    high = bid_value(rules, params, position, ebin, team, bid + 1, partner_part, bags[side],
                     scores[side])
    return high > low
