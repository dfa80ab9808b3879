"""Strategy decisions inside the kernel, shared parts: hand helpers, the heuristic's trick
estimate, and the per-table packing of the seats' parameters (done once per kernel call).

A strategy is an integer kind plus a float parameter vector; the kernels dispatch on the kind,
so a new parameter value never recompiles. ``core/strategies.py`` documents the parameters;
``reference/strategies.py`` mirrors every decision of this module, ``strategy_bids.py`` (blind
choices, bids, bumps, the draw deal's keep, exchange passes) and ``strategy_play.py`` (the card
to play) line for line.

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
    popcount,
)
from .layout import (
    DEAL_DRAW,
    DECK_JOKERS,
    P_ACE,
    P_AVOID_BAGS,
    P_BAG_GUARD,
    P_BLIND_BID_DEFICIT,
    P_BLIND_NIL_DEFICIT,
    P_BUST_NIL,
    P_COVER_NIL,
    P_DRAW_SCALE,
    P_ENDGAME_POINTS,
    P_KING,
    P_LONG_SPADE,
    P_LONG_SUIT,
    P_QUEEN,
    P_RANDOM_BID_MAX,
    P_RANDOM_BID_MIN,
    P_RUFF,
    P_RULE_PLAY,
    P_SET_MARGIN,
    P_TRUMP_HONOUR,
    PLAY_BUST_NIL,
    PLAY_COVER_NIL,
    PLAY_KEEP_BAGS,
    PLAY_SET_SHIFT,
    RATE_ONE,
    RULE_BAG_ROOM,
    SET_PER_BID,
    STRATEGY_RANDOM,
)


@njit(cache=True, inline="always")
def is_nil_nb(rules, bids, blind, seat):
    """The seat's bid is a nil (0 with nil on) or a blind nil (a blind 0)."""
    return byte_of_nb(bids, seat) == 0 and (rules.nil != 0 or flag_of_nb(blind, seat) != 0)


# The side-suit aces and kings (clubs, diamonds, hearts): a nil feature.
SIDE_ACES_KINGS = (0b11 << 11) | (0b11 << 24) | (0b11 << 37)
# Bit ``13 * suit`` for each suit: shifted left by a rank, the four cards of that rank.
RANK_COLUMN = 1 | (1 << 13) | (1 << 26) | (1 << 39)


@njit(cache=True)
def ranks_present_nb(mask):
    """Bit ``rank`` set when ``mask`` holds a card of that rank in any suit (jokers: 13, 14)."""
    return (
        (mask & 0x1FFF)
        | ((mask >> 13) & 0x1FFF)
        | ((mask >> 26) & 0x1FFF)
        | ((mask >> 39) & 0x7FFF)
    )


@njit(cache=True)
def card_of_rank_nb(mask, rank):
    """The card of ``rank`` in ``mask`` in the lowest suit that has it (jokers: their own)."""
    if rank >= 13:
        return 39 + rank
    return lowest_card(mask & (RANK_COLUMN << rank))


@njit(cache=True)
def lowest_rank_nb(mask):
    """The card of lowest rank in a non-empty ``mask`` (ties: the lowest suit)."""
    return card_of_rank_nb(mask, lowest_card(ranks_present_nb(mask)))


@njit(cache=True)
def highest_rank_nb(mask):
    """The card of highest rank in a non-empty ``mask`` (ties: the lowest suit)."""
    return card_of_rank_nb(mask, highest_card(ranks_present_nb(mask)))


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
def random_rates_nb(kinds, params, slot):
    """Every random seat's probability in parameter ``slot`` as a threshold out of
    ``RATE_ONE`` (``round(rate * RATE_ONE)``), packed 16 bits per seat; 0 for other kinds."""
    packed = 0
    for seat in range(4):
        if kinds[seat] == STRATEGY_RANDOM:
            threshold = int(params[seat][slot] * RATE_ONE + 0.5)
            packed |= threshold << (16 * seat)
    return packed


@njit(cache=True)
def heuristic_blind_floor_nb(kinds, params):
    """The smallest deficit at which some heuristic (or mc) seat would bid blind
    (``blind_nil_deficit`` or ``blind_bid_deficit``); infinity when no seat is one."""
    floor = np.inf
    for seat in range(4):
        if kinds[seat] != STRATEGY_RANDOM:  # the heuristic, and mc which bids like it
            floor = min(floor, params[seat][P_BLIND_NIL_DEFICIT], params[seat][P_BLIND_BID_DEFICIT])
    return floor


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
def rule_play_mask_nb(kinds, params):
    """Bit ``seat`` set for every non-random seat whose ``rule_play`` is on: those seats' play
    switches are set again each hand by ``rule_play_bits_nb``."""
    mask = 0
    for seat in range(4):
        if kinds[seat] != STRATEGY_RANDOM and params[seat][P_RULE_PLAY] != 0:
            mask |= 1 << seat
    return mask


@njit(cache=True, inline="always")
def rule_play_bits_nb(rules, play_packed, rule_mask, bids, blind, bags):
    """The play switches of this hand (``play_bits_nb``'s bytes) for the ``rule_play`` seats of
    ``rule_mask``, from the rules and each side's bag counter ``bags`` (a 4-tuple per side):

    - once the contract is made, duck when the side is within ``RULE_BAG_ROOM`` bags of a
      non-zero bag limit; else keep winning when an overtrick earns more than a bag's long-run
      price (``overtrick_points * bag_limit > bag_penalty``, or no bag limit); else
      ``avoid_bags`` as set;
    - chase every set (``set_margin`` at its most) under ``per_trick_short`` penalties, where
      each trick short costs the opponents 10, and with ``ten_for_two_hundred`` when an
      opponent side has bid 10 or more (a set of 200); else ``set_margin`` as set.
    """
    packed = play_packed
    players = rules.players
    for seat in range(players):
        if (rule_mask >> seat) & 1 == 0:
            continue
        side = (seat & 1) if rules.partnership else seat
        byte = byte_of_nb(packed, seat)
        keep = (byte & PLAY_KEEP_BAGS) != 0
        if rules.bag_limit > 0 and bags[side] >= rules.bag_limit - RULE_BAG_ROOM:
            keep = False
        elif rules.bag_limit == 0 or rules.overtrick_points * rules.bag_limit > rules.bag_penalty:
            keep = True
        margin = byte >> PLAY_SET_SHIFT
        chase = rules.set_penalty != SET_PER_BID
        if rules.ten_for_two_hundred != 0 and not chase:
            for other_side in range(rules.n_sides):
                if other_side == side:
                    continue
                contract = 0
                for other in range(players):
                    if ((other & 1) if rules.partnership else other) == other_side and not \
                            is_nil_nb(rules, bids, blind, other):
                        contract += byte_of_nb(bids, other)
                chase |= contract >= 10
        if chase:
            margin = 31
        new = (byte & (PLAY_COVER_NIL | PLAY_BUST_NIL)) | (PLAY_KEEP_BAGS * keep) \
            | (margin << PLAY_SET_SHIFT)
        packed = (packed & ~(0xFF << (8 * seat))) | (new << (8 * seat))
    return packed
