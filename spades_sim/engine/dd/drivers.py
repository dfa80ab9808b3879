"""The compiled entry points: questions asked in sequence to pin a count, and the batch loop.

The search answers yes/no questions (``search.py``); ``value_nb`` asks a short sequence of
them, starting from a guess, up or down until the exact count is pinned (MTD-f style), and
``solve_deals_nb`` does so for many deals in one call. The first guess (``guess_nb``) is a
linear fit on solved deals (``benchmarks/dd_guess_fit.py``), rounded up by about a trick, since
a guess one above the answer costs no more questions than the answer itself.

Every entry point has an explicit signature, so one compiled solver serves every rule variant
(rules are the :class:`~spades_sim.core.rules.KernelRules` tuple, as in the rest of the engine).
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from ..bits import TRUMP_MASK, lowest_card, popcount
from ..toolchain import SOLVER_COMPILE, announce_compile
from ..unsafe import address_nb
from .holdings import suit_cards_nb
from .layout import (
    ARRAY,
    ARRAY2,
    BOOL,
    CTX_MAX,
    CTX_NIL,
    CTX_POOL,
    CTX_QUESTIONS,
    CTX_ROW,
    CTX_STAMP,
    CTX_TT_ROWS,
    CTX_ZERO,
    HANDS_ROW,
    I64,
    OUT_TEAM_EVEN,
    OUT_TEAM_ODD,
    RULES_TYPE,
    SEATS,
    SearchRules,
)
from .search import search_nb

announce_compile(*SOLVER_COMPILE)  # (the kernels below have signatures: they compile now)


@njit(cache=True, inline="always")
def search_rules_nb(rules):
    """The :data:`SearchRules` of a rules tuple."""
    return SearchRules(rules.players, rules.hand_size, rules.spades_lead,
                       rules.broken_by_forced_lead, rules.first_leader)


@njit(I64(RULES_TYPE, ARRAY, ARRAY2, ARRAY2, I64, I64, I64, I64, I64, I64, I64, I64, I64),
      cache=True)
def value_nb(rules, hands, tt, moves, pos, leader, broken, tidx, led_mask, win_strength,
             win_seat, on_table, guess):
    """The maximising side's remaining tricks (the current trick included): null-window
    questions from ``guess`` up or down until the answer is pinned."""
    low = 0
    high = rules.hand_size - tidx
    probe = guess
    search_rules = search_rules_nb(rules)
    for seat in range(SEATS):
        moves[HANDS_ROW, seat] = hands[seat]
    # The search passes the table and the moves to itself at every node: as their addresses
    # (unsafe.py), which spares it numba's reference counts and the arrays' fields; the caller
    # owns the arrays.
    moves[CTX_ROW, CTX_TT_ROWS] = tt.shape[0]
    while low < high:
        target = min(max(probe, low + 1), high)
        moves[CTX_ROW, CTX_QUESTIONS] += 1
        if search_nb(search_rules, address_nb(tt), address_nb(moves), pos, leader, broken,
                     tidx, led_mask, win_strength, win_seat, on_table, target):
            low = target
            probe = target + 1
        else:
            high = target - 1
            probe = target - 1
    return low


@njit(BOOL(RULES_TYPE, ARRAY2, ARRAY2, I64, I64, I64, I64, I64, I64, I64, I64),
      cache=True)
def nil_search_nb(rules, tt, moves, pos, leader, broken, tidx, led_mask, win_strength,
                  win_seat, on_table):
    """The nil question (the context's nil seat set): ``search_nb`` on the arrays'
    addresses, as ``value_nb`` calls it."""
    moves[CTX_ROW, CTX_TT_ROWS] = tt.shape[0]
    return search_nb(search_rules_nb(rules), address_nb(tt), address_nb(moves), pos, leader,
                     broken, tidx, led_mask, win_strength, win_seat, on_table, 1)


@njit(I64(RULES_TYPE, ARRAY, I64, I64, I64), cache=True)
def guess_nb(rules, hands, max_mask, remaining, leader):
    """A first guess at the maximising side's tricks, the first null-window question.

    The high-card points (A 4, K 3, Q 2, J 1, jokers 5 and 6, trumps one more each) give
    each side its share. For partnerships a linear fit adds the side's extra trumps, its
    longer trump holding, its short side suits (one card or none) in hands with trumps, and
    the lead; fitted by least squares on 1,000 classic deals solved double dummy (a random
    leader each), it missed by 0.75 tricks on average on 500 others, against 1.31 for the
    share alone. The guess is rounded up by about a trick: a guess one above the answer
    costs no more questions than the answer itself (two), one below costs a third.
    """
    mine = 0
    total = 0
    extra_trumps = 0
    longest_mine = 0
    longest_theirs = 0
    short = 0
    for seat in range(rules.players):
        cards = hands[seat]
        points = 0
        while cards != 0:
            card = lowest_card(cards)
            cards &= cards - 1
            rank = card - 39 if card >= 39 else card % 13
            points += max(rank - 8, 0) + (1 if card >= 39 else 0)
        total += points
        trumps = popcount(hands[seat] & TRUMP_MASK)
        shorts = 0
        if trumps > 0:
            for suit in range(3):
                if popcount(hands[seat] & suit_cards_nb(suit)) <= 1:
                    shorts += 1
        if (max_mask >> seat) & 1:
            mine += points
            extra_trumps += trumps
            longest_mine = max(longest_mine, trumps)
            short += shorts
        else:
            extra_trumps -= trumps
            longest_theirs = max(longest_theirs, trumps)
            short -= shorts
    if total == 0:
        return remaining // 2
    if rules.players != 4 or not rules.partnership:
        return (2 * remaining * mine + total) // (2 * total)
    lead = 1.0 if (max_mask >> leader) & 1 else -1.0
    estimate = remaining * (1.398 * mine / total - 0.2024) + 0.151 * extra_trumps \
        + 0.173 * lead + 0.514 * short + 0.226 * (longest_mine - longest_theirs)
    return min(max(int(np.floor(estimate + 1.0)), 0), remaining)


@njit(types.void(RULES_TYPE, ARRAY2, ARRAY, I64, ARRAY2, ARRAY2, ARRAY2), cache=True)
def solve_deals_nb(rules, deals, leaders, broken, out, tt, moves):
    """Solve deals from a trick boundary: ``out[i]`` gets the remaining tricks of each side
    (partnership) or each seat (individual play, one search per seat).

    ``deals`` is int64[n, 4] (bitboards, every seat of a row holding as many cards; seats beyond
    ``players`` hold 0): a full deal starts at trick 0, a smaller one at the trick its card
    count implies. ``leaders`` is int64[n]; ``broken`` whether spades are broken (all rows).
    Consecutive rows with the same deal (other leaders) keep the transposition table.
    """
    players = rules.players
    hands = np.zeros(SEATS, dtype=np.int64)
    previous = np.zeros(SEATS, dtype=np.int64)
    zero = moves[CTX_ROW, CTX_ZERO]
    none = zero - 1
    for i in range(deals.shape[0]):
        same = i > 0
        for seat in range(SEATS):
            hands[seat] = deals[i, seat]
            if i > 0 and deals[i - 1, seat] != hands[seat]:
                same = False
        if not same:
            moves[CTX_ROW, CTX_STAMP] += 1
            moves[CTX_ROW, CTX_POOL] = 0
        moves[CTX_ROW, CTX_NIL] = -1
        remaining = popcount(hands[0])
        tidx = rules.hand_size - remaining
        if rules.partnership:
            moves[CTX_ROW, CTX_MAX] = 0b0101
            guess = previous[0] if same else guess_nb(rules, hands, 0b0101, remaining,
                                                        leaders[i])
            value = value_nb(rules, hands, tt, moves, zero, leaders[i], broken, tidx, zero,
                             none, none, zero, guess)
            out[i, OUT_TEAM_EVEN] = value
            out[i, OUT_TEAM_ODD] = remaining - value
            previous[0] = value
        else:
            for seat in range(players):
                moves[CTX_ROW, CTX_MAX] = 1 << seat
                guess = previous[seat] if same else guess_nb(rules, hands, 1 << seat,
                                                               remaining, leaders[i])
                value = value_nb(rules, hands, tt, moves, zero, leaders[i], broken, tidx,
                                 zero, none, none, zero, guess)
                out[i, seat] = value
                previous[seat] = value
