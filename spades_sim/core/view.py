"""The array view of the game state that numba strategy plug-ins read.

A numba plug-in is two ``@njit`` functions, ``bid(view, params, rng)`` and
``play(view, params, rng)``, each returning an ``int64`` (a bid, or a card index). ``view`` is an
``int64`` array laid out by the slots below; ``params`` the plug-in's own ``float64`` parameters
(in the order its class declares them); ``rng`` a ``uint64`` array whose element 0 is the
state of the hand's play stream (draw from it with ``spades_sim.engine.plugin.bounded``). The
engine fills the view before every call; the Python game-state API fills it the same way, so a
plug-in decides alike in the engine's loop and in Python (``docs/strategies.md``).

Cards are indices: ``13 * suit + rank`` (suits clubs, diamonds, hearts, spades; ranks 2 .. A as
0 .. 12), 52 and 53 the jokers; a set of cards is a bitboard, bit ``card``. Unknown or not yet
made values are -1.
"""

from __future__ import annotations

from .rules import KernelRules

PHASE_BID = 0
PHASE_PLAY = 1

V_PHASE = 0  # PHASE_BID or PHASE_PLAY
V_SEAT = 1  # the seat to act
V_PLAYERS = 2
V_HAND_SIZE = 3
V_DEALER = 4
V_POSITION = 5  # bidding: place in the bidding order (0 = first); play: place in the trick
V_HAND = 6  # bitboard of the seat's cards (after any exchange in play)
V_LEGAL = 7  # play: bitboard of the legal cards; bidding: bit b set when bid b is legal
V_TRICK = 8  # index of the current trick (0 .. hand_size - 1); -1 in bidding
V_LEADER = 9  # the seat that led the current trick; -1 in bidding
V_LED_SUIT = 10  # suit led (0 .. 3, jokers count as spades); -1 when the seat leads
V_WINNING_CARD = 11  # the card winning the trick so far; -1 when the seat leads
V_WINNING_SEAT = 12  # its seat; -1 when the seat leads
V_SPADES_BROKEN = 13  # 1 once spades are broken
V_PLAYED = 14  # bitboard of every card played this hand (the current trick included)
V_VOIDS = 15  # bit 4 * seat + suit: that seat showed it holds none of that suit
V_FIRST_LEADER = 16  # the seat that led the first trick; -1 in bidding
V_BIDS = 17  # + seat: the bid (after any bump), -1 not yet made; a nil is 0
V_BLIND = 21  # + seat: 1 when the bid was blind
V_TRICKS = 25  # + seat: tricks taken so far
V_PLAYED_BY = 29  # + seat: bitboard of the cards that seat has played
V_TRICK_CARDS = 33  # + k: the k-th card of the current trick (k = 0 the lead), -1 not yet
V_SCORES = 37  # + side: the side's score before the hand (sides are seats without partners)
V_BAGS = 41  # + side: the side's bags before the hand
V_RULES = 45  # + i: the i-th field of RULE_FIELDS, as the kernels read it
RULE_FIELDS = KernelRules._fields
VIEW_SIZE = V_RULES + len(RULE_FIELDS)


def rule_slot(name: str) -> int:
    """The view slot of a rule field.

    >>> rule_slot("players") == V_RULES
    True
    """
    return V_RULES + RULE_FIELDS.index(name)
