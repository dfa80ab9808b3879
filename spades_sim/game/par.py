"""Par of played hands: what the cards were worth double dummy (every card seen, every seat
playing perfectly), from the hand's actual first leader and the position after any exchanges.

One definition for the hand logs (``spades-sim par``, ``handlog/par.py``) and for runs played
with par (``run/memory.py``): :func:`hands_par` takes the hands after the exchanges, the first
leaders, the bids and the blind flags of any number of hands and gives, per hand, the
double-dummy tricks of each side (of each seat, against all the others, without partnerships)
and, per seat, whether a nil or blind-nil bid is double-dummy safe. :func:`records_par` gives
the same from the record arrays of hands played with ``record_plays`` (the exchanges are
re-applied to the hands as dealt).

The solver is ``engine/dd/``; a position solved once is not solved again within one call,
nor across the calls that share a ``cache`` (a duplicate run plays every deal twice).
"""

from __future__ import annotations

import numpy as np

from ..core import schema
from ..core.bidding import is_nil
from ..core.rules import Rules, preset
from ..engine import dd

#: ``nil_safe`` value of a seat that did not bid nil (else 1: safe, 0: not safe).
NOT_NIL = -1


def after_exchange(hands: np.ndarray, exchange: np.ndarray) -> np.ndarray:
    """The hands after the exchanges of nil bidders: ``hands`` (int64 bitboards ``[n, seats]``,
    as dealt) with every ``[from, to, card]`` entry of ``exchange`` (``[n, k, 3]``, -1 padded,
    in the order the cards were passed) applied; a new array."""
    hands = np.array(hands, dtype=np.int64)
    exchange = np.asarray(exchange)
    for row, entry in zip(*np.nonzero(exchange[:, :, 0] >= 0)):
        sender, receiver, card = (int(v) for v in exchange[row, entry])
        bit = np.int64(1) << np.int64(card)
        hands[row, sender] &= ~bit
        hands[row, receiver] |= bit
    return hands


def hands_par(rules: Rules, hands, leaders, bids, blind,
              cache: dict | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Par of ``n`` hands.

    Parameters
    ----------
    rules : Rules
        The rules every hand was played under.
    hands : array_like of int, shape (n, players) or (n, 4)
        Bitboards after any exchange (with ``deal = draw``, after the draw).
    leaders : array_like of int, shape (n,)
        The seat that led each hand's first trick.
    bids, blind : array_like, shape (n, players) or (n, 4)
        The final bids and the blind flags (they tell the nil bidders).
    cache : dict, optional
        Answers already known under these same rules (filled here): give one dict to several
        calls and a position solved in one is not solved again (the two copies of a duplicate
        run play the same deals).

    Returns
    -------
    tricks : numpy.ndarray of int8, shape (n, sides)
        Double-dummy tricks of each side (partnerships), else of each seat against all the
        others.
    nil_safe : numpy.ndarray of int8, shape (n, players)
        Per seat: 1 when its nil or blind-nil bid is double-dummy safe (the bidder, helped by
        its partner, can avoid every trick however the opponents play to set it), 0 when it is
        not, :data:`NOT_NIL` when the seat did not bid nil.
    """
    players = rules.players
    cache = {} if cache is None else cache
    hands = np.asarray(hands, dtype=np.int64)[:, :players]
    leaders = np.asarray(leaders, dtype=np.int64).reshape(-1)
    bids = np.asarray(bids)[:, :players]
    blind = np.asarray(blind)[:, :players]
    n = len(hands)
    tricks = np.zeros((n, rules.n_sides), dtype=np.int8)
    nil_safe = np.full((n, players), NOT_NIL, dtype=np.int8)
    keys = [(*row, leader) for row, leader in zip(hands.tolist(), leaders.tolist())]
    # Each position not yet known once, in order of first sight.
    todo = list(dict.fromkeys(key for key in keys if key not in cache))
    if todo:
        deals = np.array([key[:players] for key in todo], dtype=np.int64).reshape(-1, players)
        starts = np.array([key[players] for key in todo], dtype=np.int64)
        for key, row in zip(todo, dd.solve_deals(rules, deals, starts).tolist()):
            cache[key] = row
    for i, key in enumerate(keys):
        tricks[i] = cache[key]
        for seat in range(players):
            if not is_nil(rules, int(bids[i, seat]), bool(blind[i, seat])):
                continue
            nil_key = (*key, "nil", seat)
            if nil_key not in cache:
                # From the trick the card count implies, as solve_deals does (an ending).
                trick_index = rules.hand_size - int(key[0]).bit_count()
                cache[nil_key] = bool(dd.nil_safe(rules, list(key[:players]), key[players],
                                                  seat, trick_index=trick_index))
            nil_safe[i, seat] = int(cache[nil_key])
    return tricks, nil_safe


def records_par(rules: Rules, records: schema.HandArrays,
                cache: dict | None = None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`hands_par` of the hands in record arrays played with ``record_plays=True`` (the
    exchanges are applied to the hands as dealt; the first leader is the record's)."""
    if len(records.hand_id) and not schema.recorded(records):
        raise ValueError("records_par needs hands played with record_plays=True (the "
                         "exchanges)")
    hands = after_exchange(records.hands, records.exchange)
    return hands_par(rules, hands, records.first_leader, records.bids, records.blind, cache)


def warm() -> None:
    """Compile the solver's kernels (or load them from numba's disk cache) with a one-trick
    ending and one nil question."""
    rules = preset("classic")
    spades = [51, 50, 49, 48]  # AS KS QS JS
    hands = [[1 << card for card in spades]]
    hands_par(rules, hands, [0], [[1, 0, 1, 1]], [[0, 0, 0, 0]])


#: The public name of :func:`hands_par` (``spades_sim.par``).
par = hands_par
