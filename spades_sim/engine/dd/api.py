"""The solver's Python side: check the position, set up the context, call one kernel.

**The buffers.** The search works in one transposition table and one moves array a process
(:func:`buffers`): made on first use and kept, since the table is large (136 MiB reserved, of
which a full deal touches up to about 50 MiB; the pages never written cost no memory) and
clearing it is a new stamp, not a write. Every call here starts a new stamp (an empty table),
but ``solve_deals`` keeps the table across consecutive rows of one deal and ``solve_cards``
across the cards of one position. The buffers are the process's state: calls from two threads
at once would share them, so the solver is not thread-safe (processes, as the runs use, each
have their own). ``ctx`` is a view of the moves array's context row (``layout.py``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ...core.errors import SpadesError
from ...core.rules import Rules
from ...core.tricks import breaks_spades, legal_cards, trick_winner
from .drivers import guess_nb, nil_search_nb, solve_deals_nb, value_nb
from .layout import (
    CTX_MAX,
    CTX_NIL,
    CTX_NODES,
    CTX_POOL,
    CTX_ROW,
    CTX_STAMP,
    HANDS_ROW,
    HEAD_ROWS,
    MOVE_COLS,
    MOVE_ROWS,
    POOL_BITS,
    SEATS,
    TT_COLS,
)
from .position import card_arg, card_mask_of_suit, flag_arg, kernel_rules, parse_position


class Buffers(NamedTuple):
    """The solver's preallocated arrays (``layout.py`` names their rows and columns)."""

    ctx: np.ndarray  # the context row of ``moves`` (a view)
    tt: np.ndarray  # the transposition table
    moves: np.ndarray  # the ply rows, the context row and the holdings row


_BUFFERS: list = []  # the process's one Buffers, once made


def buffers() -> Buffers:
    """The process's solver buffers, made on the first call."""
    if not _BUFFERS:
        tt = np.zeros((HEAD_ROWS + (1 << POOL_BITS), TT_COLS), dtype=np.int64)
        moves = np.zeros((MOVE_ROWS + 2, MOVE_COLS), dtype=np.int64)
        ctx = moves[CTX_ROW]  # a view: the kernels read it as that row
        ctx[CTX_NIL] = -1
        _BUFFERS.append(Buffers(ctx, tt, moves))
    return _BUFFERS[0]


def _start(max_mask: int, nil_seat: int = -1) -> Buffers:
    """The buffers with a new stamp (an empty table) and the question's side."""
    state = buffers()
    state.ctx[CTX_STAMP] += 1
    state.ctx[CTX_POOL] = 0
    state.ctx[CTX_MAX] = max_mask
    state.ctx[CTX_NIL] = nil_seat
    return state


def _run_value(kernel, hands, state, max_mask):
    _, tt, moves = _start(max_mask)
    pos, leader, broken, tidx, led_mask, win_strength, win_seat, on_table = state
    remaining = kernel.hand_size - tidx
    guess = int(guess_nb(kernel, hands, max_mask, remaining, leader))
    return int(value_nb(kernel, hands, tt, moves, pos, leader, broken, tidx, led_mask,
                        win_strength, win_seat, on_table, guess))


def solve_seat(rules: Rules, hands, leader: int, seat: int, *, trick=(), trick_index: int = 0,
               spades_broken: bool = False) -> int:
    """Tricks ``seat``'s side takes from a position on, all sides playing double dummy.

    Parameters
    ----------
    rules : Rules
        The rule variant.
    hands : sequence
        One holding per seat (``rules.players`` of them): a bitboard int or an iterable of cards
        (indices or texts such as ``"AS"``). The cards still held, after any card on the table.
    leader : int
        The seat that leads the current trick (that led it, when ``trick`` holds cards).
    seat : int
        The seat whose tricks are counted. In partnership play its team's; otherwise the seat
        plays alone against all the others, who play to minimise its tricks.
    trick : sequence, optional
        The cards of the current trick already played, in play order from ``leader``: cards, or
        ``(seat, card)`` pairs.
    trick_index : int, optional
        0-based index of the current trick.
    spades_broken : bool, optional
        Whether spades were broken before the current trick's first card.

    Returns
    -------
    int
        The side's tricks from here on, the current trick included.

    Raises
    ------
    SpadesError
        A bad position (wrong card counts, a card in two places, an illegal card on the table).
    """
    rules, kernel = kernel_rules(rules)
    hands, state = parse_position(rules, hands, leader, trick, trick_index, spades_broken)
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) \
            or not 0 <= seat < rules.players:
        raise SpadesError(f"seat: {seat!r} is not a seat 0..{rules.players - 1}")
    if rules.partnership:
        max_mask = 0b0101 << (seat % 2)
    else:
        max_mask = 1 << int(seat)
    return _run_value(kernel, hands, state, max_mask)


def solve(rules: Rules, hands, leader: int, *, trick=(), trick_index: int = 0,
          spades_broken: bool = False) -> list[int]:
    """Double-dummy tricks from a position on: per team in partnership play, else per seat.

    Parameters
    ----------
    rules, hands, leader, trick, trick_index, spades_broken
        As for :func:`solve_seat`.

    Returns
    -------
    list of int
        Partnership: ``[team 0, team 1]`` (they add up to the tricks left, the current one
        included). Otherwise one value per seat, each the tricks that seat takes when all the
        others play against it (one search per seat; the values need not add up).

    Examples
    --------
    >>> from spades_sim.core.rules import preset
    >>> solve(preset("classic"), [["AS"], ["KS"], ["2H"], ["3H"]], 0, trick_index=12,
    ...       spades_broken=True)
    [1, 0]
    """
    rules, kernel = kernel_rules(rules)
    hands, state = parse_position(rules, hands, leader, trick, trick_index, spades_broken)
    remaining = rules.hand_size - state[3]
    if rules.partnership:
        team0 = _run_value(kernel, hands, state, 0b0101)
        return [team0, remaining - team0]
    return [_run_value(kernel, hands, state, 1 << seat) for seat in range(rules.players)]


def solve_cards(rules: Rules, hands, leader: int, *, trick=(), trick_index: int = 0,
                spades_broken: bool = False) -> dict[int, int]:
    """Double-dummy value of every legal card of the seat to play (the perfect-information
    sampling player's question).

    Parameters
    ----------
    rules, hands, leader, trick, trick_index, spades_broken
        As for :func:`solve_seat`; the seat to play is the one after the cards of ``trick``.

    Returns
    -------
    dict of int to int
        For each legal card (index 0..53), the tricks the playing seat's side takes from this
        position on (the current trick included) when that card is played and every seat then
        plays double dummy. In individual play (two or three players, or four without
        partnerships) the side is the seat alone against all the others. The searches share
        one transposition table.
    """
    rules, kernel = kernel_rules(rules)
    masks, state = parse_position(rules, hands, leader, trick, trick_index, spades_broken)
    pos, leader, broken, tidx, led_mask, win_strength, win_seat, on_table = state
    players = rules.players
    if tidx >= rules.hand_size:
        raise SpadesError("trick_index: the hand is over; no card is left to play")
    seat = (leader + pos) % players
    max_mask = (0b0101 << (seat % 2)) if rules.partnership else 1 << seat
    played = [card_arg(c[1] if isinstance(c, tuple) else c, "trick") for c in trick]
    led_suit = (3 if played[0] >= 39 else played[0] // 13) if played else None
    hand = int(masks[seat])
    legal = legal_cards(rules, hand, led_suit, bool(broken), tidx)
    _, tt, moves = _start(max_mask)
    values = {}
    last = -1  # the previous card's value: the next card's first guess (they differ little)
    for card in range(54):
        if not (legal >> card) & 1:
            continue
        child = masks.copy()
        child[seat] = hand & ~(1 << card)
        now_broken = int(broken or breaks_spades(rules, card, pos, led_suit, hand))
        cards = played + [card]
        if len(cards) == players:
            winner = (leader + trick_winner(cards)) % players
            taken = 1 if (max_mask >> winner) & 1 else 0
            remaining = rules.hand_size - tidx - 1
            if remaining == 0:
                values[card] = taken
                continue
            if last >= 0:
                guess = min(max(last - taken, 0), remaining)
            else:
                guess = int(guess_nb(kernel, child, max_mask, remaining, winner))
            rest = value_nb(kernel, child, tt, moves, 0, winner, now_broken, tidx + 1,
                             0, -1, -1, 0, guess)
            values[card] = last = taken + int(rest)
            continue
        if pos == 0:
            new_led = int(card_mask_of_suit(3 if card >= 39 else card // 13))
        else:
            new_led = led_mask
        strength = card + 128 if card >= 39 else (card + 64 if (new_led >> card) & 1 else 0)
        if pos > 0 and strength <= win_strength:
            strength, new_seat = win_strength, win_seat
        else:
            new_seat = seat
        if last >= 0:
            guess = last
        else:
            guess = int(guess_nb(kernel, child, max_mask, rules.hand_size - tidx,
                                        leader))
        last = int(value_nb(kernel, child, tt, moves, pos + 1, leader, now_broken, tidx,
                             new_led, strength, new_seat, on_table | (1 << card), guess))
        values[card] = last
    return values


def nil_safe(rules: Rules, hands, leader: int, nil_seat: int, *, trick=(), trick_index: int = 0,
             spades_broken: bool = False) -> bool:
    """Whether a nil bidder can take no trick from a position on, double dummy.

    The bidder (with its partner in partnership play, alone otherwise) plays to avoid winning
    any trick; all the other seats play to make it win one. A trick the bidder has already
    won is not in the position: the answer is about the tricks still to play.

    Parameters
    ----------
    rules, hands, leader, trick, trick_index, spades_broken
        As for :func:`solve_seat`.
    nil_seat : int
        The nil bidder's seat.

    Returns
    -------
    bool
        True when the nil is safe against any defence.
    """
    rules, kernel = kernel_rules(rules)
    hands, state = parse_position(rules, hands, leader, trick, trick_index, spades_broken)
    if isinstance(nil_seat, bool) or not isinstance(nil_seat, (int, np.integer)) \
            or not 0 <= nil_seat < rules.players:
        raise SpadesError(f"nil_seat: {nil_seat!r} is not a seat 0..{rules.players - 1}")
    nil_seat = int(nil_seat)
    max_mask = (0b0101 << (nil_seat % 2)) if rules.partnership else 1 << nil_seat
    ctx, tt, moves = _start(max_mask, nil_seat)
    try:
        moves[HANDS_ROW, :SEATS] = hands
        return bool(nil_search_nb(kernel, tt, moves, *state))
    finally:
        ctx[CTX_NIL] = -1


def solve_deals(rules: Rules, hands, leaders, *, spades_broken: bool = False) -> np.ndarray:
    """Double-dummy tricks of many deals, each from a trick boundary (the batch path).

    Parameters
    ----------
    rules : Rules
        The rule variant.
    hands : array_like of int64, shape (n, players) or (n, 4)
        Bitboards; every seat of a row holds as many cards (seats beyond ``players`` hold 0).
        A full deal (``rules.hand_size`` cards a seat) starts at trick 0; a row of ``k`` cards a
        seat is an ending from trick ``hand_size - k``.
    leaders : array_like of int, shape (n,)
        The seat leading each row's next trick. Give a deal several times in a row (with
        other leaders) and the rows after the first reuse its transposition table.
    spades_broken : bool, optional
        Whether spades are broken at the start of every row.

    Returns
    -------
    numpy.ndarray of int64, shape (n, sides)
        Remaining tricks per team (partnership) or per seat (individual play, each seat
        against all the others).

    Raises
    ------
    SpadesError
        Shapes that do not fit, a row that is not a deal of these rules (uneven counts, a card
        outside the deck or in two hands), a leader out of range or, under ``two_of_clubs``, a
        full deal whose leader does not hold 2C.
    """
    rules, kernel = kernel_rules(rules)
    spades_broken = flag_arg(spades_broken, "spades_broken")
    try:
        deals = np.asarray(hands, dtype=np.int64)
        leaders = np.ascontiguousarray(leaders, dtype=np.int64)
    except (TypeError, ValueError, OverflowError) as error:
        raise SpadesError(f"hands and leaders must be arrays of int64 bitboards and seats "
                          f"({error})") from None
    if deals.ndim != 2 or deals.shape[1] not in (rules.players, SEATS) \
            or leaders.shape != (deals.shape[0],):
        raise SpadesError(f"hands must be (n, {rules.players}) bitboards and leaders (n,); got "
                          f"{deals.shape} and {leaders.shape}")
    full = np.zeros((deals.shape[0], SEATS), dtype=np.int64)
    full[:, :deals.shape[1]] = deals
    if full[:, rules.players:].any():
        raise SpadesError("hands: seats beyond the player count must hold no card")
    if deals.shape[0]:
        if leaders.min() < 0 or leaders.max() >= rules.players:
            raise SpadesError(f"leaders: seats must be 0..{rules.players - 1}")
        counts = np.zeros(full.shape, dtype=np.int64)
        union = np.zeros(full.shape[0], dtype=np.int64)
        overlap = np.zeros(full.shape[0], dtype=bool)
        for seat in range(SEATS):
            column = full[:, seat]
            overlap |= (union & column) != 0
            union |= column
            counts[:, seat] = [bin(int(v)).count("1") for v in column]
        players = rules.players
        uneven = (counts[:, :players] != counts[:, :1]).any(axis=1) \
            | (counts[:, 0] > rules.hand_size)
        bad = np.flatnonzero(overlap | ((union & ~np.int64(rules.deck_mask)) != 0) | uneven
                             | (full < 0).any(axis=1))
        if bad.size:
            raise SpadesError(f"hands[{bad[0]}]: not a deal of these rules (as many cards a seat, "
                              f"at most {rules.hand_size}, from the deck, no card twice)")
        if rules.first_leader == "two_of_clubs":
            first = counts[:, 0] == rules.hand_size
            holds = (full[np.arange(full.shape[0]), leaders] & 1) != 0
            if (first & ~holds).any():
                raise SpadesError(f"leaders[{np.flatnonzero(first & ~holds)[0]}]: must hold 2C "
                                  f"to lead the first trick (two_of_clubs)")
    out = np.zeros((deals.shape[0], rules.n_sides), dtype=np.int64)
    _, tt, moves = buffers()
    solve_deals_nb(kernel, full, leaders, int(spades_broken), out, tt, moves)
    return out


def nodes_searched() -> int:
    """Nodes the solver has searched in this process (a counter for benchmarks)."""
    return int(buffers().ctx[CTX_NODES])


__all__ = ["solve", "solve_seat", "solve_cards", "nil_safe", "solve_deals",
           "nodes_searched"]
