"""Pure scoring: one hand per side, and the end of a game (``docs/rules.md``, "Scoring").

Shared by the reference twin (``reference/``) and the hand-log replay (``handlog.py``); the
engine has its own compiled version (``engine/scoring.py``) and the tests hold them equal.
"""

from __future__ import annotations

from .bidding import is_nil
from .rules import Rules


def score_side(rules: Rules, side: int, bids, blind, tricks, bags_before: int) -> tuple[int, int]:
    """Points and bag counter after the hand for one side: ``(delta, bags_after)``."""
    contract = 0
    contract_tricks = 0
    points = 0
    bags = 0
    nil_count = 0
    nils_made = 0
    nil_bonus_sum = 0
    nil_points = 0
    for seat in range(rules.players):
        if rules.side_of(seat) != side:
            continue
        if is_nil(rules, bids[seat], blind[seat]):
            bonus = rules.blind_nil_bonus if blind[seat] else rules.nil_bonus
            nil_count += 1
            nil_bonus_sum += bonus
            if tricks[seat] == 0:
                nils_made += 1
                nil_points += bonus
            else:
                nil_points -= bonus
                if rules.failed_nil_tricks == "count_toward_bid":
                    contract_tricks += tricks[seat]
                else:  # bags_only: each trick of a failed nil is a 1-point bag
                    points += tricks[seat]
                    bags += tricks[seat]
        else:
            contract += bids[seat]
            contract_tricks += tricks[seat]
            if blind[seat] and bids[seat] > 0:  # a blind number bid, made exactly or lost
                blind_bonus = rules.blind_bid_bonus_per_trick * bids[seat]
                points += blind_bonus if tricks[seat] == bids[seat] else -blind_bonus
    if nil_count == 2:  # both partners nil
        if rules.double_nil == "additive":
            points += nil_points
        elif rules.double_nil == "fixed":
            if nils_made == 2:
                points += rules.double_nil_bonus
            elif nils_made == 0:
                points -= rules.double_nil_bonus
        elif nils_made == 2:  # doubled_no_penalty
            points += 2 * nil_bonus_sum
    else:
        points += nil_points
    if contract > 0:
        big = rules.ten_for_two_hundred and contract >= 10
        if contract_tricks >= contract:
            overtricks = contract_tricks - contract
            points += (200 if big else 10 * contract) + overtricks * rules.overtrick_points
            bags += overtricks
        elif big:
            points -= 200
        elif rules.set_penalty == "per_bid":
            points -= 10 * contract
        else:  # per_trick_short
            points -= 10 * (contract - contract_tricks)
    else:
        # A side with no contract takes every contract trick as an overtrick.
        points += contract_tricks * rules.overtrick_points
        bags += contract_tricks
    bags_after = bags_before + bags
    if rules.bag_limit > 0:
        while bags_after >= rules.bag_limit:
            points -= rules.bag_penalty
            bags_after -= rules.bag_limit
    return points, bags_after


def score_hand(rules: Rules, bids, blind, tricks, bags_before) -> tuple[list[int], list[int]]:
    """Score one hand per side (``docs/rules.md``, "Scoring").

    Parameters
    ----------
    rules : Rules
        The rule variant; every scoring field is honoured.
    bids, blind, tricks : sequence of int (or bool for ``blind``), one per seat
        Final bids (after any bump), whether each bid was blind, tricks won.
    bags_before : sequence of int, one per side
        Bag counters before the hand.

    Returns
    -------
    (list of int, list of int)
        Per side (``rules.n_sides``): the points of this hand (bag penalties included) and the
        bag counter after the hand.

    Examples
    --------
    >>> from spades_sim.core.rules import preset
    >>> score_hand(preset("classic"), [4, 3, 0, 3], [0, 0, 0, 0], [5, 3, 0, 5], [0, 0])
    ([141, 62], [1, 2])
    """
    deltas, bags_after = [], []
    for side in range(rules.n_sides):
        delta, bags = score_side(rules, side, bids, blind, tricks, int(bags_before[side]))
        deltas.append(delta)
        bags_after.append(bags)
    return deltas, bags_after


def game_over(rules: Rules, scores, n_hands: int) -> tuple[bool, int]:
    """``(over, winner)`` after ``n_hands`` hands of a game; winner -1 is a tie or a draw.

    A unique highest score at or over the target wins (a tie there plays on); a side at or below
    ``mercy`` ends the game; ``max_hands`` ends it; ``hand_cap`` ends it as a draw.
    """
    top = max(scores)
    n_top = scores.count(top)
    unique_leader = scores.index(top) if n_top == 1 else -1
    if top >= rules.target and n_top == 1:
        return True, unique_leader
    if rules.mercy is not None and min(scores) <= rules.mercy:
        return True, unique_leader
    if rules.max_hands is not None and n_hands >= rules.max_hands:
        return True, unique_leader
    if n_hands >= rules.hand_cap:
        return True, -1
    return False, -1
