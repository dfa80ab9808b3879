"""Strategy decisions inside the kernel: bids and card choices of every strategy kind.

A strategy is an integer kind plus a float parameter vector; the kernels dispatch on the kind,
so a new parameter value never recompiles. ``core/strategies.py`` documents the parameters;
``reference/strategies.py`` mirrors every decision here line for line.

The hand state reaches these functions as scalars only (no arrays, hence no reference counting
in the hot loop): ``bids`` and ``tricks`` are packed 8 bits per seat (an unbid seat reads 255),
``blind`` is a bit per seat, ``params`` is the seat's parameter tuple, and the play-stream state
is taken and returned.
"""

import numpy as np
from numba import njit

from .bits import (
    NON_TRUMP_MASK,
    TRUMP_MASK,
    byte_of_nb,
    flag_of_nb,
    highest_card,
    lowest_card,
    nth_card_nb,
    popcount,
    rank_of_nb,
    suit_mask_nb,
    wrap_seat_nb,
)
from .layout import (
    DEAL_DRAW,
    DECK_JOKERS,
    P_ACE,
    P_AGGRESSION,
    P_AVOID_BAGS,
    P_BAG_GUARD,
    P_BAG_GUARD_BOOST,
    P_BLIND_BID,
    P_BLIND_BID_DEFICIT,
    P_BLIND_NIL_DEFICIT,
    P_BUMP_THRESHOLD,
    P_BUST_NIL,
    P_COVER_NIL,
    P_DRAW_SCALE,
    P_ENDGAME_POINTS,
    P_ENDGAME_PUSH,
    P_ENDGAME_SAFE,
    P_KEEP_RANK,
    P_KING,
    P_LONG_SPADE,
    P_LONG_SUIT,
    P_NIL_MAX_HIGH,
    P_NIL_MAX_SPADES,
    P_NIL_PARTNER_MIN,
    P_NIL_THRESHOLD,
    P_QUEEN,
    P_RANDOM_BID_MAX,
    P_RANDOM_BID_MIN,
    P_RUFF,
    P_SET_MARGIN,
    P_TRUMP_HONOUR,
    PLAY_AFTER_CONTRACT,
    PLAY_BUST_NIL,
    PLAY_COVER_NIL,
    PLAY_KEEP_BAGS,
    PLAY_SET_SHIFT,
    RATE_ONE,
    STRATEGY_RANDOM,
)
from .rng import bounded_nb
from .trick import winning_cards_nb


@njit(cache=True, inline="always")
def is_nil_nb(rules, bids, blind, seat):
    """The seat's bid is a nil (0 with nil on) or a blind nil (a blind 0)."""
    return byte_of_nb(bids, seat) == 0 and (rules.nil != 0 or flag_of_nb(blind, seat) != 0)


# The side-suit aces and kings (clubs, diamonds, hearts): a nil feature.
SIDE_ACES_KINGS = (0b11 << 11) | (0b11 << 24) | (0b11 << 37)
# Bit ``13 * suit`` for each suit: shifted left by a rank, the four cards of that rank.
RANK_COLUMN = 1 | (1 << 13) | (1 << 26) | (1 << 39)


@njit(cache=True, inline="always")
def ranks_present_nb(mask):
    """Bit ``rank`` set when ``mask`` holds a card of that rank in any suit (jokers: 13, 14)."""
    return (
        (mask & 0x1FFF)
        | ((mask >> 13) & 0x1FFF)
        | ((mask >> 26) & 0x1FFF)
        | ((mask >> 39) & 0x7FFF)
    )


@njit(cache=True, inline="always")
def card_of_rank_nb(mask, rank):
    """The card of ``rank`` in ``mask`` in the lowest suit that has it (jokers: their own)."""
    if rank >= 13:
        return 39 + rank
    return lowest_card(mask & (RANK_COLUMN << rank))


@njit(cache=True, inline="always")
def lowest_rank_nb(mask):
    """The card of lowest rank in a non-empty ``mask`` (ties: the lowest suit)."""
    return card_of_rank_nb(mask, lowest_card(ranks_present_nb(mask)))


@njit(cache=True, inline="always")
def highest_rank_nb(mask):
    """The card of highest rank in a non-empty ``mask`` (ties: the lowest suit)."""
    return card_of_rank_nb(mask, highest_card(ranks_present_nb(mask)))


@njit(cache=True, inline="always")
def prefer_side_suits_nb(mask):
    """The non-trumps of ``mask`` when it has any, else ``mask`` (discard side cards first)."""
    side_cards = mask & NON_TRUMP_MASK
    if side_cards:
        return side_cards
    return mask


@njit(cache=True, inline="always")
def estimate_tricks_nb(rules, params, hand):
    """Heuristic trick estimate of a hand (see ``core/strategies.py`` for the parameters).

    Side suits: an ace counts ``ace``, a king with at least one guard ``king``, a queen with at
    least two guards ``queen``, each card beyond the fourth ``long_suit``. Trumps: the deck's
    three highest trumps (A, K, Q of spades; BJ, LJ, AS with jokers) count ``trump_honour`` each
    when held with at least as many trumps as there are higher
    ones (the second with two trumps, the third with three); each trump beyond the expected
    share (``trump_share`` of the rules tuple, ``round(trumps in the deck * hand size / cards in
    the deck)``: 3 for classic, 4 with jokers or three players) counts ``long_spade``; the spare
    trumps (not counted as honours) ruff: ``ruff`` per spare trump, up to two per void and one
    per singleton. The total is scaled by ``4 / players``: with fewer players each takes more
    tricks with the same cards; after the two-player draw deal by ``draw_scale`` instead, since
    both players then hold hand-picked cards and a strong hand meets a strong hand.
    """
    # Written without branches (the outcomes are unpredictable): a term whose condition fails
    # adds ``parameter * 0``, a zero, which leaves the sum bit for bit as if it were skipped.
    estimate = 0.0
    ruff_chances = 0
    for suit in range(3):
        cards = (hand >> (13 * suit)) & 0x1FFF
        length = popcount(cards)
        ruff_chances += (length == 0) * 2 + (length == 1)
        estimate += params[P_ACE] * ((cards >> 12) & 1)
        estimate += params[P_KING] * ((cards >> 11) & (length >= 2))
        estimate += params[P_QUEEN] * ((cards >> 10) & (length >= 3))
        estimate += params[P_LONG_SUIT] * max(length - 4, 0)
    trumps = hand & TRUMP_MASK
    n_trumps = popcount(trumps)
    top = 53 if rules.deck == DECK_JOKERS else 51  # the highest trump of the deck
    honours = (
        ((trumps >> top) & 1)
        + (((trumps >> (top - 1)) & 1) & (n_trumps >= 2))
        + (((trumps >> (top - 2)) & 1) & (n_trumps >= 3))
    )
    estimate += params[P_TRUMP_HONOUR] * honours
    estimate += params[P_LONG_SPADE] * max(n_trumps - rules.trump_share, 0)
    estimate += params[P_RUFF] * max(min(n_trumps - honours, ruff_chances), 0)
    if rules.deal == DEAL_DRAW:
        return estimate * params[P_DRAW_SCALE]
    if rules.players != 4:  # (a float division, skipped in the common case)
        return estimate * (4.0 / rules.players)
    return estimate


@njit(cache=True, inline="always")
def random_bid_ranges_nb(kinds, params):
    """Every random seat's ``bid_min`` and ``bid_max`` packed 16 bits per seat (low byte the
    minimum); zeros for seats of other kinds. Packed once per kernel call, so that a random seat
    does not pick a parameter tuple by its runtime seat (a jump table) at every bid."""
    packed = 0
    for seat in range(4):
        if kinds[seat] == STRATEGY_RANDOM:
            low = int(params[seat][P_RANDOM_BID_MIN])
            high = int(params[seat][P_RANDOM_BID_MAX])
            packed |= (low | (high << 8)) << (16 * seat)
    return packed


@njit(cache=True, inline="always")
def random_rates_nb(kinds, params, slot):
    """Every random seat's probability in parameter ``slot`` as a threshold out of
    ``RATE_ONE`` (``round(rate * RATE_ONE)``), packed 16 bits per seat; 0 for other kinds."""
    packed = 0
    for seat in range(4):
        if kinds[seat] == STRATEGY_RANDOM:
            threshold = int(params[seat][slot] * RATE_ONE + 0.5)
            packed |= threshold << (16 * seat)
    return packed


@njit(cache=True, inline="always")
def heuristic_blind_floor_nb(kinds, params):
    """The smallest deficit at which some heuristic (or mc) seat would bid blind
    (``blind_nil_deficit`` or ``blind_bid_deficit``); infinity when no seat is one."""
    floor = np.inf
    for seat in range(4):
        if kinds[seat] != STRATEGY_RANDOM:  # the heuristic, and mc which bids like it
            floor = min(floor, params[seat][P_BLIND_NIL_DEFICIT], params[seat][P_BLIND_BID_DEFICIT])
    return floor


@njit(cache=True, inline="always")
def play_bits_nb(kinds, params):
    """Every non-random seat's play switches packed a byte per seat (``layout.PLAY_*``):
    ``cover_nil``, ``bust_nil`` and not ``avoid_bags`` as bits, ``set_margin + 1`` above them
    (``layout.PLAY_*``).
    Packed once per kernel call, so the card choice reads them with a shift."""
    packed = 0
    for seat in range(4):
        if kinds[seat] != STRATEGY_RANDOM:
            seat_params = params[seat]
            bits = (
                PLAY_COVER_NIL * int(seat_params[P_COVER_NIL])
                | PLAY_BUST_NIL * int(seat_params[P_BUST_NIL])
                | PLAY_KEEP_BAGS * (1 - int(seat_params[P_AVOID_BAGS]))
                | (int(seat_params[P_SET_MARGIN]) + 1) << PLAY_SET_SHIFT
            )
            packed |= bits << (8 * seat)
    return packed


@njit(cache=True, inline="always")
def score_aware_nb(kinds, params):
    """Whether some heuristic (or mc) seat adjusts its bids for the score (``bag_guard`` or
    ``endgame_points`` above 0); when none does, the bids skip ``score_adjustment_nb``."""
    aware = False
    for seat in range(4):
        if kinds[seat] != STRATEGY_RANDOM:
            aware |= params[seat][P_BAG_GUARD] > 0 or params[seat][P_ENDGAME_POINTS] > 0
    return aware


@njit(cache=True, inline="always")
def rate_of_nb(packed, seat):
    """The seat's threshold out of ``RATE_ONE`` from ``random_rates_nb``."""
    return (packed >> (16 * seat)) & 0xFFFF


@njit(cache=True, inline="always")
def choose_blind_nb(kind, params, rates, seat, deficit, partner_nil, blind_nil_ok, blind_bids,
                    state):
    """``(choice, state)`` before ``seat`` looks at its cards: -1 to look, 0 for blind nil, or a
    blind number bid from the bitmask ``blind_bids`` (bit ``b`` = blind ``b`` allowed).

    Called only when an option exists. ``random``: one draw ``u = bounded(RATE_ONE)``; blind
    nil when ``u < blind_nil_rate`` (if allowed), else a blind bid when ``u`` is below the sum of
    both rates (if any is allowed; then a second draw picks it uniformly); else look.
    ``heuristic``: blind nil when trailing by ``blind_nil_deficit`` (unless the partner already
    bid a nil, ``partner_nil``), else the allowed blind bid nearest to ``blind_bid`` (at or
    below it first) when trailing by ``blind_bid_deficit``.
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
    return heuristic_blind_nb(params[seat], deficit, blind_nil_ok and not partner_nil,
                              blind_bids), state


@njit(cache=True, inline="always")
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
def choose_bid_nb(rules, kind, params, random_bids, seat, hands, bids, legal, scores, bags,
                  score_aware, state):
    """``(bid, state)``: the bid of ``seat`` (0..hand_size; 0 is nil where nil is on).

    ``legal`` is the bitmask of the bids the rules allow here (``bidding.legal_bids_nb``);
    ``hands`` the 4-tuple of holdings (picked by seat only where a strategy looks at its cards).
    ``params`` holds every seat's parameter tuple; ``random_bids`` packs each random seat's
    ``bid_min`` and ``bid_max`` (``random_bid_ranges_nb``). ``bids`` is packed; seats that have
    not bid yet read 255. ``random`` picks uniformly among the legal bids in
    ``bid_min..bid_max`` (among all legal bids when none is there): one ``bounded`` draw.
    ``heuristic`` bids nil when its estimate is at most ``nil_threshold`` with at most
    ``nil_max_spades`` trumps, at most ``nil_max_high`` side aces and kings, no trump ace, its
    partner not a nil bidder and (if it has bid) bidding at least ``nil_partner_min``; else
    ``round(estimate + aggression + score_adjustment)`` within 1..hand_size (see
    ``score_adjustment_nb``, skipped unless ``score_aware``; ``scores`` and ``bags`` are per-side
    4-tuples); when that bid is not
    allowed, the nearest allowed one (above first), and nil only as a last resort.
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
    seat_params = params[seat]
    hand = hands[seat]
    estimate = estimate_tricks_nb(rules, seat_params, hand)
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
        best_other = -(1 << 40)
        for other in range(rules.n_sides):
            if other != side and scores[other] > best_other:
                best_other = scores[other]
        if own > best_other and rules.target - own <= window:
            adjustment += seat_params[P_ENDGAME_SAFE]
        elif best_other > own and rules.target - best_other <= window:
            adjustment += seat_params[P_ENDGAME_PUSH]
    return adjustment


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
def choose_bump_nb(rules, kind, params, bump_rates, seat, hand, bid, state):
    """``(bump, state)``: whether ``seat`` raises its ``bid`` by one (``bid_bump``).

    ``random``: ``bounded(RATE_ONE) < bump_rate``. ``heuristic``: when ``estimate + aggression -
    bid >= bump_threshold``.
    """
    if kind == STRATEGY_RANDOM:
        draw, state = bounded_nb(state, RATE_ONE)
        return draw < rate_of_nb(bump_rates, seat), state
    seat_params = params[seat]
    margin = estimate_tricks_nb(rules, seat_params, hand) + seat_params[P_AGGRESSION] - bid
    return margin >= seat_params[P_BUMP_THRESHOLD], state


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
def choose_card_nb(rules, kind, play_packed, seat, hand, legal, n_in_trick, leader, winning_card,
                   winning_seat, facts, tricks, played_mask, state):
    """``(card, state)``: the card ``seat`` plays from ``legal`` (a non-empty bitboard).

    The heuristic's play parameters come packed a byte per seat in ``play_packed``
    (``play_bits_nb``): a parameter tuple picked by a runtime seat costs a jump table per
    card. ``played_mask`` (the cards played so far) is
    given to leaders only: the heuristic reads it only when leading.

    ``random`` picks the ``bounded(popcount(legal))``-th lowest legal card (one draw). The
    heuristic, in order of priority: a live nil bidder ducks (dumps its highest safe card); the
    partner of a live nil covers it (``cover_nil``: wins high ahead of it, overtakes it
    cheaply); against a live opponent nil it plays low under it (``bust_nil``); otherwise it
    wins cheaply while its side still needs tricks (leading a master, never overtaking a winning
    partner), and once the contract is safe ducks (``avoid_bags``) unless an opponent can still
    be set (``set_margin``).
    """
    if kind == STRATEGY_RANDOM:
        index, state = bounded_nb(state, popcount(legal))
        return nth_card_nb(legal, index), state
    return heuristic_card_nb(rules, byte_of_nb(play_packed, seat), seat, hand, legal, n_in_trick,
                             leader, winning_card, winning_seat, facts, tricks,
                             played_mask), state


@njit(cache=True, inline="always")
def hand_facts_nb(rules, bids, blind):
    """Per-hand facts the play policy reads, computed once after bidding.

    Returns ``(nil_bits, contracts, contract_seats)``. ``nil_bits``: bit ``seat`` set for a nil
    or blind-nil bidder. ``contracts``: packed 8 bits per seat, the contract of the seat's side
    (the sum of the side's non-nil bids). ``contract_seats``: packed 4 bits per seat, bit
    ``other`` of nibble ``seat`` set when ``other`` is on the seat's side and not nil (whose
    tricks count toward that contract).
    """
    players = rules.players
    partnership = rules.partnership != 0
    nil_bits = 0
    for seat in range(players):
        if is_nil_nb(rules, bids, blind, seat):
            nil_bits |= 1 << seat
    contracts = 0
    contract_seats = 0
    for seat in range(players):
        contract = 0
        for other in range(players):
            same_side = other == seat or (partnership and (other & 1) == (seat & 1))
            if same_side and not (nil_bits >> other) & 1:
                contract += byte_of_nb(bids, other)
                contract_seats |= 1 << (4 * seat + other)
        contracts |= contract << (8 * seat)
    return nil_bits, contracts, contract_seats


@njit(cache=True, inline="always")
def keep_winning_nb(rules, play_bits, seat, facts, tricks):
    """Once the seat's contract is made: whether it keeps winning tricks, because bags do not
    matter to it (``avoid_bags = 0``) or because an opponent still needs at least ``tricks left
    - set_margin`` tricks (setting it)."""
    if play_bits & PLAY_KEEP_BAGS:
        return True
    set_margin = (play_bits >> PLAY_SET_SHIFT) - 1
    if set_margin < 0:
        return False
    _, contracts, contract_seats = facts
    players = rules.players
    partnership = rules.partnership != 0
    left = rules.hand_size - (((tricks * 0x01010101) >> 24) & 0xFF)
    for offset in range(1, players):
        other = wrap_seat_nb(seat + offset, players)
        if partnership and (other & 1) == (seat & 1):
            continue
        other_counted = contract_seats >> (4 * other)
        other_taken = 0
        for member in range(4):
            other_taken += byte_of_nb(tricks, member) * ((other_counted >> member) & 1)
        need = byte_of_nb(contracts, other) - other_taken
        if need > 0 and left - need <= set_margin:
            return True
    return False


@njit(cache=True, inline="always")
def heuristic_card_nb(rules, play_bits, seat, hand, legal, n_in_trick, leader, winning_card,
                      winning_seat, facts, tricks, played_mask):
    """The heuristic's card (see ``choose_card_nb``); deterministic. ``facts`` is the tuple
    ``hand_facts_nb`` returns; ``play_bits`` the seat's byte of ``play_bits_nb``."""
    nil_bits, contracts, contract_seats = facts
    players = rules.players
    partnership = rules.partnership != 0
    leading = n_in_trick == 0
    winners = 0
    if not leading:
        winners = winning_cards_nb(legal, winning_card)
    losers = legal & ~winners

    live_nils = 0  # seats whose nil is still alive (no trick taken yet)
    if nil_bits:
        for other in range(players):
            if (nil_bits >> other) & 1 and byte_of_nb(tricks, other) == 0:
                live_nils |= 1 << other

    # 1. Our own nil: lose every trick we can.
    if (live_nils >> seat) & 1:
        if leading:
            return lowest_rank_nb(prefer_side_suits_nb(legal))
        if losers:
            return highest_rank_nb(prefer_side_suits_nb(losers))
        return lowest_card(winners)

    # 2. Partner's live nil: cover it.
    if partnership:
        partner = (seat + 2) & 3
        if (live_nils >> partner) & play_bits & PLAY_COVER_NIL:
            if leading:
                return highest_rank_nb(prefer_side_suits_nb(legal))
            partner_played = wrap_seat_nb(partner - leader + players, players) < n_in_trick
            if partner_played:
                if winning_seat == partner and winners:
                    return lowest_card(winners)
            elif winners:
                return highest_card(winners)

    # 3. An opponent's live nil: stay under it.
    bust_nils = live_nils if play_bits & PLAY_BUST_NIL else 0
    for offset in range(1, players if bust_nils else 1):
        other = wrap_seat_nb(seat + offset, players)
        if partnership and (other & 1) == (seat & 1):
            continue
        if (bust_nils >> other) & 1:
            if leading:
                return lowest_rank_nb(prefer_side_suits_nb(legal))
            other_played = wrap_seat_nb(other - leader + players, players) < n_in_trick
            if not other_played:
                return lowest_rank_nb(prefer_side_suits_nb(legal))
            if winning_seat == other:
                if losers:
                    return highest_rank_nb(prefer_side_suits_nb(losers))
                return lowest_card(winners)
            break

    # 4. Our contract.
    contract = byte_of_nb(contracts, seat)
    counted = contract_seats >> (4 * seat)
    taken = 0
    for other in range(4):
        taken += byte_of_nb(tricks, other) * ((counted >> other) & 1)
    # (the switches that keep winning tricks after the contract is made are off by default:
    # one test of their bits skips them)
    if taken < contract or (play_bits & PLAY_AFTER_CONTRACT
                            and keep_winning_nb(rules, play_bits, seat, facts, tricks)):
        if leading:
            unseen = rules.deck_mask & ~played_mask & ~hand
            for suit in range(4):
                cards = legal & suit_mask_nb(suit)
                if cards:
                    top = highest_card(cards)
                    if (unseen & suit_mask_nb(suit) & ~((2 << top) - 1)) == 0:
                        return top
            return lowest_rank_nb(prefer_side_suits_nb(legal))
        if partnership and (winning_seat & 1) == (seat & 1) and losers:
            return lowest_rank_nb(prefer_side_suits_nb(losers))
        if winners:
            return lowest_card(winners)
        return lowest_rank_nb(prefer_side_suits_nb(losers))
    if leading:
        return lowest_rank_nb(prefer_side_suits_nb(legal))
    if losers:
        return highest_rank_nb(prefer_side_suits_nb(losers))
    return lowest_card(winners)
