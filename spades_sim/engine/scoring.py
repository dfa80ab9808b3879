"""Scoring one hand per side, with an explicit bag counter (never derived from the score).

``bids`` and ``tricks`` are packed 8 bits per seat and ``blind`` is a bit per seat (see
``strategy_kernels.py``); ``pack_seats_nb`` builds them from per-seat values.
"""

from numba import njit

from .bits import byte_of_nb, flag_of_nb
from .layout import (
    DOUBLE_NIL_ADDITIVE,
    DOUBLE_NIL_FIXED,
    FAILED_NIL_COUNT_TOWARD_BID,
    SET_PER_BID,
)


@njit(cache=True, inline="always")
def score_side_nb(rules, side, bids, blind, tricks, bags_before):
    """Points and bags after the hand for one side; returns ``(delta, bags_after)``.

    Follows ``docs/rules.md``, "Scoring a hand": contract from the non-nil
    bids; made (+10 per trick bid, or 200 with ``ten_for_two_hundred`` at 10+, plus
    ``overtrick_points`` per overtrick) or set (``per_bid`` / ``per_trick_short``, or -200);
    nil and blind nil bonuses with the three double-nil scorings; failed-nil tricks as 1-point
    bags under ``bags_only``; blind number bids made exactly; then the bag counter and its
    penalty each time it reaches ``bag_limit``.
    """
    players = rules.players
    partnership = rules.partnership != 0
    contract = 0
    contract_tricks = 0
    points = 0
    bags = 0
    n_nil = 0
    n_nil_made = 0
    nil_bonus_sum = 0
    nil_points = 0
    count_toward = rules.failed_nil_tricks == FAILED_NIL_COUNT_TOWARD_BID
    for seat in range(players):
        if ((seat & 1) if partnership else seat) != side:
            continue
        bid = byte_of_nb(bids, seat)
        taken = byte_of_nb(tricks, seat)
        is_blind = flag_of_nb(blind, seat) != 0
        if bid == 0 and (rules.nil != 0 or is_blind):
            bonus = rules.blind_nil_bonus if is_blind else rules.nil_bonus
            n_nil += 1
            nil_bonus_sum += bonus
            if taken == 0:
                n_nil_made += 1
                nil_points += bonus
            else:
                nil_points -= bonus
                if count_toward:
                    contract_tricks += taken
                else:
                    # A failed nil's tricks are 1-point bags under bags_only.
                    points += taken
                    bags += taken
        else:
            contract += bid
            contract_tricks += taken
            if is_blind and bid > 0:
                blind_bonus = rules.blind_bid_bonus_per_trick * bid
                points += blind_bonus if taken == bid else -blind_bonus
    if n_nil == 2:
        mode = rules.double_nil
        if mode == DOUBLE_NIL_ADDITIVE:
            points += nil_points
        elif mode == DOUBLE_NIL_FIXED:
            if n_nil_made == 2:
                points += rules.double_nil_bonus
            elif n_nil_made == 0:
                points -= rules.double_nil_bonus
        elif n_nil_made == 2:  # doubled_no_penalty
            points += 2 * nil_bonus_sum
    else:
        points += nil_points
    if contract > 0:
        big = rules.ten_for_two_hundred != 0 and contract >= 10
        if contract_tricks >= contract:
            overtricks = contract_tricks - contract
            points += (200 if big else 10 * contract) + overtricks * rules.overtrick_points
            bags += overtricks
        elif big:
            points -= 200
        elif rules.set_penalty == SET_PER_BID:
            points -= 10 * contract
        else:
            points -= 10 * (contract - contract_tricks)
    else:
        # A side with no contract takes every contract trick as an overtrick.
        points += contract_tricks * rules.overtrick_points
        bags += contract_tricks
    bags_after = bags_before + bags
    limit = rules.bag_limit
    if limit > 0:
        while bags_after >= limit:
            points -= rules.bag_penalty
            bags_after -= limit
    return points, bags_after


@njit(cache=True, inline="always")
def pack_seats_nb(values, players):
    """Pack per-seat small non-negative ints (array or tuple) 8 bits per seat."""
    packed = 0
    for seat in range(players):
        packed |= values[seat] << (8 * seat)
    return packed


@njit(cache=True)
def score_hand_nb(rules, bids, blind, tricks, bags_before, delta_out, bags_after_out):
    """Score every side from per-seat arrays; write ``delta_out[side]``, ``bags_after_out[side]``.

    The array front door to ``score_side_nb`` for tests and tools (not used in the hot loop).
    """
    players = rules.players
    blind_bits = 0
    for seat in range(players):
        if blind[seat]:
            blind_bits |= 1 << seat
    packed_bids = pack_seats_nb(bids, players)
    packed_tricks = pack_seats_nb(tricks, players)
    for side in range(rules.n_sides):
        delta, bags_after = score_side_nb(rules, side, packed_bids, blind_bits, packed_tricks,
                                          bags_before[side])
        delta_out[side] = delta
        bags_after_out[side] = bags_after
