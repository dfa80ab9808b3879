"""Numba strategy plug-ins: the user's helpers, the function pointers, and the engine's calls.

A plug-in is two ``@njit(cache=True)`` functions of the signature :data:`PLUGIN_SIG`,
``bid(view, params, rng)`` and ``play(view, params, rng)``, each returning an ``int64`` (a bid,
or a card index). ``core/view.py`` lays out ``view``; ``params`` is the plug-in's own float64
vector (``N_PARAMS`` slots, zero-padded); ``rng[0]`` is the hand's play-stream state: draw from
it with :func:`bounded` or :func:`random`, which update it, so a plug-in's draws are part of
the run's draw contract (``rng.py``) and a run is reproducible.

The hand loop (``simulate.py``) calls a plug-in through a first-class function pointer
(:func:`function_pointer`): one compiled copy of the loop serves every plug-in, and stays in
numba's cache. It passes the plug-ins as one tuple, ``plugins``, built by ``calls.py``::

    (bid_fns, play_fns, mask, params, view, rng)

``bid_fns`` and ``play_fns`` a function pointer per seat (:func:`never_bid` and
:func:`never_play` at the seats that are not plug-ins), ``mask`` bit ``seat`` set for a plug-in
seat, ``params`` float64[4, N_PARAMS], ``view`` int64[VIEW_SIZE] and ``rng`` uint64[1] the
scratch arrays. The kernels that play no plug-in pass ``None`` instead: every use of the tuple
sits under ``plugins is not None``, which numba removes before typing when it is ``None``
(branch pruning by type), so those kernels compile exactly as before.

The engine writes the view before every call (the rules slots once per kernel call); a plug-in
should treat it as read-only.
"""

import contextlib
import warnings

import numpy as np
from numba import njit, types
from numba.core.dispatcher import Dispatcher
from numba.core.errors import NumbaError, NumbaExperimentalFeatureWarning
from numba.core.types.function_type import CompileResultWAP

from ..core.errors import StrategyError
from ..core.view import (
    PHASE_BID,
    PHASE_PLAY,
    V_BAGS,
    V_BIDS,
    V_BLIND,
    V_DEALER,
    V_FIRST_LEADER,
    V_HAND,
    V_HAND_SIZE,
    V_LEADER,
    V_LED_SUIT,
    V_LEGAL,
    V_PHASE,
    V_PLAYED,
    V_PLAYED_BY,
    V_PLAYERS,
    V_POSITION,
    V_RULES,
    V_SCORES,
    V_SEAT,
    V_SPADES_BROKEN,
    V_TRICK,
    V_TRICK_CARDS,
    V_TRICKS,
    V_VOIDS,
    V_WINNING_CARD,
    V_WINNING_SEAT,
)
from . import bits
from .rng import bounded_nb, next_u64_nb
from .unsafe import borrow_nb

PLUGIN_SIG = types.int64(types.int64[::1], types.float64[::1], types.uint64[::1])
"""The signature of a plug-in's ``bid`` and ``play``: ``int64(view, params, rng)``."""

ILLEGAL_MOVE = "a plug-in strategy made an illegal move"

_U11 = np.uint64(11)
_TWO_TO_MINUS_53 = 2.0 ** -53


# -- helpers for plug-in authors ------------------------------------------------------------------

@njit(cache=True)
def bounded(rng, n):
    """A uniform int in ``0..n-1`` (``1 <= n < 2**32``) drawn from ``rng[0]``, which it updates.

    The draw of ``rng.bounded_nb`` (Lemire's method on one wyrand output), so a plug-in that
    draws through it reproduces the built-in strategies' draws.
    """
    value, rng[0] = bounded_nb(rng[0], n)
    return value


@njit(cache=True)
def random(rng):
    """A float in ``[0, 1)`` from one wyrand output of ``rng[0]`` (its top 53 bits)."""
    output, rng[0] = next_u64_nb(rng[0])
    return np.float64(output >> _U11) * _TWO_TO_MINUS_53


@njit(cache=True)
def popcount(mask):
    """Number of cards (set bits) in a bitboard."""
    return bits.popcount(mask)


@njit(cache=True)
def lowest_card(mask):
    """The lowest card of a non-empty bitboard."""
    return bits.lowest_card(mask)


@njit(cache=True)
def highest_card(mask):
    """The highest card of a non-empty bitboard."""
    return bits.highest_card(mask)


@njit(cache=True)
def nth_card(mask, k):
    """The ``k``-th lowest card (0-based) of a bitboard; ``0 <= k < popcount(mask)``."""
    return bits.nth_card_nb(mask, k)


@njit(cache=True)
def suit_of(card):
    """The suit of a card, 0..3 (clubs, diamonds, hearts, spades); jokers are spades."""
    return bits.suit_of_nb(card)


@njit(cache=True)
def suit_cards(suit):
    """The bitboard of every card of a suit (the spades with both jokers)."""
    return bits.suit_mask_nb(suit)


# -- function pointers ---------------------------------------------------------------------------

@njit(cache=True)
def never_bid(view, params, rng):
    """The bid pointer of a seat that is not a plug-in (never called)."""
    return -1


@njit(cache=True)
def never_play(view, params, rng):
    """The play pointer of a seat that is not a plug-in (never called)."""
    return -1


def function_pointer(dispatcher, what: str = "plug-in function"):
    """Compile an ``@njit`` function for :data:`PLUGIN_SIG`; its first-class function pointer.

    Every pointer has the one numba type ``FunctionType(PLUGIN_SIG)``, so the kernels compile
    once for all plug-ins. Raises :class:`StrategyError` (one line) when ``dispatcher`` is not
    an ``@njit`` function or does not compile for the signature.
    """
    if not isinstance(dispatcher, Dispatcher):
        raise StrategyError(f"{what} {dispatcher!r} is not an @njit function")
    name = getattr(dispatcher, "__name__", repr(dispatcher))
    try:
        dispatcher.compile(PLUGIN_SIG)
        if dispatcher not in (never_bid, never_play):
            check_integer_return(dispatcher, f"{what} {name}")
    except NumbaError as error:
        first = next((line.strip() for line in str(error).splitlines() if line.strip()), "")
        raise StrategyError(f"{what} {name} does not compile as int64(view int64[::1], "
                            f"params float64[::1], rng uint64[::1]): {first}") from None
    overload = dispatcher.overloads.get(PLUGIN_SIG.args)
    if overload is None or overload.signature.return_type != types.int64:
        raise StrategyError(f"{what} {name} does not return an int64 for "
                            f"int64(view, params, rng)")
    return CompileResultWAP(overload)


_RETURNED: dict = {}


def check_integer_return(dispatcher, label: str) -> None:
    """Refuse (one :class:`StrategyError` line naming ``label``) a plug-in function whose
    return type, inferred for the plug-in's arguments, is not an integer.

    Compiled for :data:`PLUGIN_SIG`, a function returning a float or a bool is cast to int64
    (3.7 would be played as card 3), so the inference is made apart, on an uncached copy of the
    function (once per function and process; a small plug-in compiles in well under a
    second)."""
    key = dispatcher.py_func
    if key not in _RETURNED:
        copy = njit(dispatcher.py_func)
        try:
            copy.compile(PLUGIN_SIG.args)
        except NumbaError as error:
            first = next((line.strip() for line in str(error).splitlines() if line.strip()), "")
            raise StrategyError(f"{label} does not compile for (view int64[::1], params "
                                f"float64[::1], rng uint64[::1]): {first}") from None
        _RETURNED[key] = types.unliteral(copy.overloads[PLUGIN_SIG.args].signature.return_type)
    returned = _RETURNED[key]
    if not isinstance(returned, types.Integer):
        raise StrategyError(f"{label} returns {returned}, not an integer (a bid or a card "
                            f"index); a float or a bool is not read as one")


@contextlib.contextmanager
def first_class_quiet():
    """Silence numba's warning that first-class functions are experimental (given when a
    kernel with function-pointer arguments compiles); the plug-ins rest on them by design."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="First-class function type",
                                category=NumbaExperimentalFeatureWarning)
        yield


# -- the engine's side: filling the view, calling ------------------------------------------------

@njit(cache=True)
def fill_rules_nb(view, rules):
    """The rules slots (``V_RULES + i``: field ``i`` of the rules tuple); once per kernel call."""
    for i in range(len(rules)):
        view[V_RULES + i] = rules[i]


@njit(cache=True, inline="always")
def fill_common_nb(view, rules, phase, seat, dealer, position, hand, legal, bids, blind, tricks,
                   scores, bags):
    """The slots of both phases. ``bids`` and ``tricks`` packed a byte per seat (255, not bid
    yet, and absent seats read -1), ``blind`` a bit per seat; ``scores`` and ``bags`` per-side
    4-tuples."""
    view[V_PHASE] = phase
    view[V_SEAT] = seat
    view[V_PLAYERS] = rules.players
    view[V_HAND_SIZE] = rules.hand_size
    view[V_DEALER] = dealer
    view[V_POSITION] = position
    view[V_HAND] = hand
    view[V_LEGAL] = legal
    players = rules.players
    for i in range(4):
        bid = (bids >> (8 * i)) & 0xFF
        view[V_BIDS + i] = -1 if bid == 0xFF or i >= players else bid
        view[V_BLIND + i] = (blind >> i) & 1
        view[V_TRICKS + i] = (tricks >> (8 * i)) & 0xFF
        view[V_SCORES + i] = scores[i]
        view[V_BAGS + i] = bags[i]


@njit(cache=True, inline="always")
def plugin_bid_nb(plugins, rules, seat, position, dealer, hand, legal, bids, blind, scores, bags,
                  state):
    """``(bid, state)``: the plug-in's non-blind bid at ``seat`` (bit ``b`` of ``legal`` set
    when bid ``b`` is allowed); raises ``ValueError`` on an illegal bid."""
    # Borrowed (unsafe.py): the Python caller holds the plug-in tuple for the whole kernel
    # call, and counting the arrays' references would cost more than the plug-in call.
    view = borrow_nb(plugins[4])
    rng = borrow_nb(plugins[5])
    fill_common_nb(view, rules, PHASE_BID, seat, dealer, position, hand, legal, bids, blind, 0,
                   scores, bags)
    for slot in (V_TRICK, V_LEADER, V_LED_SUIT, V_WINNING_CARD, V_WINNING_SEAT, V_FIRST_LEADER):
        view[slot] = -1
    view[V_SPADES_BROKEN] = 0
    view[V_PLAYED] = 0
    view[V_VOIDS] = 0
    for i in range(4):
        view[V_PLAYED_BY + i] = 0
        view[V_TRICK_CARDS + i] = -1
    rng[0] = state
    bid = plugins[0][seat](view, borrow_nb(plugins[3])[seat], rng)
    if bid < 0 or bid > rules.hand_size or ((legal >> bid) & 1) == 0:
        raise ValueError(ILLEGAL_MOVE)
    return bid, rng[0]


@njit(cache=True, inline="always")
def plugin_card_nb(plugins, rules, seat, dealer, position, hand, legal, trick_index, leader,
                   led_suit, winning_card, winning_seat, spades_broken, played, voids,
                   first_leader, bids, blind, tricks, played_by, trick_cards, scores, bags,
                   state):
    """``(card, state)``: the plug-in's card at ``seat`` from ``legal``; raises ``ValueError``
    on an illegal card. ``led_suit``, ``winning_card`` and ``winning_seat`` are -1 for a lead;
    ``played_by`` a 4-tuple; ``trick_cards`` the trick's cards so far packed a byte each in
    play order (``position`` of them)."""
    view = borrow_nb(plugins[4])
    rng = borrow_nb(plugins[5])
    fill_common_nb(view, rules, PHASE_PLAY, seat, dealer, position, hand, legal, bids, blind,
                   tricks, scores, bags)
    view[V_TRICK] = trick_index
    view[V_LEADER] = leader
    view[V_LED_SUIT] = led_suit
    view[V_WINNING_CARD] = winning_card
    view[V_WINNING_SEAT] = winning_seat
    view[V_FIRST_LEADER] = first_leader
    view[V_SPADES_BROKEN] = 1 if spades_broken else 0
    view[V_PLAYED] = played
    view[V_VOIDS] = voids
    for i in range(4):
        view[V_PLAYED_BY + i] = played_by[i]
        view[V_TRICK_CARDS + i] = (trick_cards >> (8 * i)) & 0xFF if i < position else -1
    rng[0] = state
    card = plugins[1][seat](view, borrow_nb(plugins[3])[seat], rng)
    if card < 0 or card > 53 or ((legal >> card) & 1) == 0:
        raise ValueError(ILLEGAL_MOVE)
    return card, rng[0]
