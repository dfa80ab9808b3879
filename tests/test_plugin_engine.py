"""Numba strategy plug-ins in the engine's hand loop (``engine/plugin.py``).

Every plug-in here is a module-level ``@njit(cache=True)`` function, and every table goes
through the same plug-in kernels (function pointers: one compiled loop for them all), so the
module compiles the loop once.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from spades_sim.core.errors import StrategyError
from spades_sim.core.rules import preset
from spades_sim.core.seeding import stream_keys
from spades_sim.core.strategies import RATE_ONE, make_strategy
from spades_sim.core.tricks import beats, breaks_spades, legal_cards
from spades_sim.core.view import (
    PHASE_BID,
    PHASE_PLAY,
    RULE_FIELDS,
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
    VIEW_SIZE,
    rule_slot,
)
from spades_sim.engine.calls import play_games, play_hands
from spades_sim.engine.plugin import (
    PLUGIN_SIG,
    bounded,
    function_pointer,
    lowest_card,
    nth_card,
    popcount,
    random,
)
from spades_sim.engine.rng import bounded_nb, next_u64_nb

R_PLAYERS = rule_slot("players")
R_PARTNERSHIP = rule_slot("partnership")
R_BLIND_NIL = rule_slot("blind_nil")
R_BLIND_NIL_MIN = rule_slot("blind_nil_min_deficit")
R_BLIND_BIDS = rule_slot("blind_bids")
R_BLIND_BID_MIN = rule_slot("blind_bid_min_deficit")
R_BLIND_BID_MAX = rule_slot("blind_bid_max")
R_N_SIDES = rule_slot("n_sides")
MOD = 9973


# -- plug-ins -----------------------------------------------------------------------------------

@njit(cache=True)
def random_bid(view, params, rng):
    """The built-in ``random``'s bid (params: bid_min, bid_max), after the draw its blind
    choice makes when a blind option exists (this reimplementation never goes blind: compare
    with ``blind_nil_rate=0``)."""
    seat = view[V_SEAT]
    side = seat & 1 if view[R_PARTNERSHIP] else seat
    best_other = -(1 << 62)
    for other in range(view[R_N_SIDES]):
        if other != side and view[V_SCORES + other] > best_other:
            best_other = view[V_SCORES + other]
    deficit = best_other - view[V_SCORES + side]
    blind_nil_ok = view[R_BLIND_NIL] != 0 and (view[R_BLIND_NIL_MIN] == 0
                                                or deficit >= view[R_BLIND_NIL_MIN])
    blind_bid_ok = (view[R_BLIND_BIDS] != 0 and view[R_BLIND_BID_MAX] >= 1
                    and (view[R_BLIND_BID_MIN] == 0 or deficit >= view[R_BLIND_BID_MIN]))
    if blind_nil_ok or blind_bid_ok:
        bounded(rng, RATE_ONE)
    low = int(params[0])
    high = int(params[1])
    legal = view[V_LEGAL]
    candidates = legal & ((2 << high) - (1 << low))
    if candidates == 0:
        candidates = legal
    return nth_card(candidates, bounded(rng, popcount(candidates)))


@njit(cache=True)
def random_play(view, params, rng):
    """The built-in ``random``'s card: the bounded(popcount)-th lowest legal card."""
    legal = view[V_LEGAL]
    return nth_card(legal, bounded(rng, popcount(legal)))


@njit(cache=True)
def bid_three(view, params, rng):
    """Bid 3."""
    return 3


@njit(cache=True)
def play_lowest(view, params, rng):
    """The lowest legal card."""
    return lowest_card(view[V_LEGAL])


@njit(cache=True)
def bid_too_high(view, params, rng):
    """A bid above the hand size."""
    return view[V_HAND_SIZE] + 1


@njit(cache=True)
def play_not_held(view, params, rng):
    """A card the seat does not hold (once it has played one: the first card it played)."""
    played = view[V_PLAYED_BY + view[V_SEAT]]
    if played:
        return lowest_card(played)
    return lowest_card(view[V_LEGAL])


@njit(cache=True)
def play_out_of_range(view, params, rng):
    """A card index out of range."""
    return 60


@njit(cache=True)
def view_key(view, slot):
    """A number from the view: slot ``slot`` (mod MOD), or for ``slot`` -1 a hash of every
    slot."""
    if slot >= 0:
        return view[slot] % MOD
    total = 0
    for i in range(view.shape[0]):
        total += (view[i] % MOD) * (i + 1)
    return total


@njit(cache=True)
def probe(view, params, rng):
    """A legal bid or card picked by the view (params[0]: the slot, or -1 for all)."""
    legal = view[V_LEGAL]
    return nth_card(legal, view_key(view, int(params[0])) % popcount(legal))


def _python_key(view, slot):
    if slot >= 0:
        return view[slot] % MOD
    return sum((value % MOD) * (i + 1) for i, value in enumerate(view))


# -- helpers ------------------------------------------------------------------------------------

HEURISTIC = make_strategy("heuristic")
KEYS = stream_keys(20240601)
CLASSIC = preset("classic")


def _same(a, b):
    for name, x, y in zip(a._fields, a, b):
        np.testing.assert_array_equal(x, y, err_msg=name)


def _bits(mask):
    return [i for i in range(64) if (mask >> i) & 1]


def _replay(rules, out, row, check_bid=None, check_card=None):
    """Walk hand ``row`` of ``out`` (recorded plays), building the view of every non-blind bid
    and every card in pure Python, and call ``check_bid(seat, view, bid)`` and
    ``check_card(seat, view, card)`` on each (every card is checked legal)."""
    players, hand_size = rules.players, rules.hand_size
    rules_tuple = rules.kernel_tuple()
    dealer = int(out.dealer[row])
    dealt = [int(h) for h in out.hands[row]]
    bids = [int(b) for b in out.bids[row]]
    blind = [int(b) for b in out.blind[row]]
    scores = [int(v) for v in out.score_before[row]] + [0] * (4 - rules.n_sides)
    bags = [int(v) for v in out.bags_before[row]] + [0] * (4 - rules.n_sides)

    def base(phase, seat, position, hand, legal):
        view = [0] * VIEW_SIZE
        view[V_PHASE], view[V_SEAT] = phase, seat
        view[V_PLAYERS], view[V_HAND_SIZE], view[V_DEALER] = players, hand_size, dealer
        view[V_POSITION], view[V_HAND], view[V_LEGAL] = position, hand, legal
        for i in range(4):
            view[V_SCORES + i], view[V_BAGS + i] = scores[i], bags[i]
            view[V_TRICK_CARDS + i] = -1
        for i, value in enumerate(rules_tuple):
            view[V_RULES + i] = int(value)
        return view

    if check_bid is not None:
        for position in range(players):
            seat = (dealer + 1 + position) % players
            view = base(PHASE_BID, seat, position, dealt[seat], (2 << hand_size) - 1)
            for slot in (V_TRICK, V_LEADER, V_LED_SUIT, V_WINNING_CARD, V_WINNING_SEAT,
                         V_FIRST_LEADER):
                view[slot] = -1
            for i in range(4):
                view[V_BIDS + i] = -1
            for before in range(position):
                other = (dealer + 1 + before) % players
                view[V_BIDS + other] = bids[other]
                view[V_BLIND + other] = blind[other]
            if not blind[seat]:
                check_bid(seat, view, bids[seat])

    hands = list(dealt)
    for giver, taker, card in out.exchange[row]:
        if giver >= 0:
            hands[giver] ^= 1 << int(card)
            hands[taker] |= 1 << int(card)
    played_by = [0] * 4
    tricks = [0] * 4
    voids = 0
    broken = False
    first_leader = int(out.first_leader[row])
    for trick_index in range(hand_size):
        cards = []
        led_suit = None
        winner = -1
        for k in range(players):
            slot = trick_index * players + k
            seat, card = int(out.play_seats[row, slot]), int(out.plays[row, slot])
            hand = hands[seat]
            legal = legal_cards(rules, hand, led_suit, broken, trick_index)
            view = base(PHASE_PLAY, seat, k, hand, legal)
            view[V_TRICK] = trick_index
            view[V_LEADER] = int(out.play_seats[row, trick_index * players])
            view[V_LED_SUIT] = -1 if led_suit is None else led_suit
            view[V_WINNING_CARD] = -1 if k == 0 else cards[winner]
            view[V_WINNING_SEAT] = -1 if k == 0 else int(
                out.play_seats[row, trick_index * players + winner])
            view[V_SPADES_BROKEN] = int(broken)
            view[V_PLAYED] = played_by[0] | played_by[1] | played_by[2] | played_by[3]
            view[V_VOIDS] = voids
            view[V_FIRST_LEADER] = first_leader
            for i in range(4):
                view[V_BIDS + i] = bids[i] if i < players else -1
                view[V_BLIND + i] = blind[i]
                view[V_TRICKS + i] = tricks[i]
                view[V_PLAYED_BY + i] = played_by[i]
            for i, previous in enumerate(cards):
                view[V_TRICK_CARDS + i] = previous
            assert (legal >> card) & 1, (row, trick_index, k, "illegal card")
            if check_card is not None:
                check_card(seat, view, card)
            broken = broken or breaks_spades(rules, card, k, led_suit, hand)
            if led_suit is None:
                led_suit = min(card // 13, 3)
                winner = 0
            else:
                if not hand & (0x1FFF << (13 * led_suit) if led_suit < 3 else 0x7FFF << 39):
                    voids |= 1 << (4 * seat + led_suit)
                if beats(card, cards[winner]):
                    winner = k
            cards.append(card)
            hands[seat] = hand ^ (1 << card)
            played_by[seat] |= 1 << card
        tricks[int(out.play_seats[row, trick_index * players + winner])] += 1
    assert tricks[:players] == [int(t) for t in out.tricks[row, :players]]


# -- tests ---------------------------------------------------------------------------------------

RANDOM_PLUGIN = (random_bid, random_play, np.array([1.0, 4.0]))


def test_random_plugin_reproduces_the_builtin_random_hands():
    builtin = play_hands(CLASSIC, [make_strategy("random", blind_nil_rate=0)] * 4, KEYS, 5, 300,
                         True)
    plugged = play_hands(CLASSIC, [HEURISTIC] * 4, KEYS, 5, 300, True,
                         plugins=(RANDOM_PLUGIN,) * 4)
    _same(builtin, plugged)


def test_random_plugin_reproduces_the_builtin_random_games():
    # Without blind nil: a plug-in seat's blind choice is the heuristic's, which bids blind nil
    # 300 behind where the built-in random would draw.
    rules = preset("classic", blind_nil=False)
    hands_a, games_a = play_games(rules, [make_strategy("random")] * 4, KEYS, 3, 12, True)
    hands_b, games_b = play_games(rules, [HEURISTIC] * 4, KEYS, 3, 12, True,
                                  plugins=(RANDOM_PLUGIN,) * 4)
    _same(hands_a, hands_b)
    _same(games_a, games_b)


def test_mixed_table_plays_legal_cards():
    strategies = [HEURISTIC, HEURISTIC, HEURISTIC, make_strategy("random")]
    plugins = ((bid_three, play_lowest, np.zeros(0)), None, RANDOM_PLUGIN, None)
    out = play_hands(CLASSIC, strategies, KEYS, 0, 200, True, plugins=plugins)

    def lowest_at_seat_zero(seat, view, card):
        if seat == 0:
            assert card == min(_bits(view[V_LEGAL]))

    for row in range(len(out.hand_id)):
        assert out.bids[row, 0] == 3
        _replay(CLASSIC, out, row, check_card=lowest_at_seat_zero)
    hands, games = play_games(CLASSIC, strategies, KEYS, 0, 6, True, plugins=plugins)
    assert len(games.game_id) == 6
    for row in range(len(hands.hand_id)):
        assert hands.bids[row, 0] == 3 or hands.blind[row, 0] == 1
        _replay(CLASSIC, hands, row, check_card=lowest_at_seat_zero)


@pytest.mark.parametrize("plugin", [(bid_too_high, play_lowest), (bid_three, play_not_held),
                                    (bid_three, play_out_of_range)])
def test_illegal_plugin_move_raises(plugin):
    plugins = (None, (*plugin, np.zeros(0)), None, None)
    with pytest.raises(ValueError, match="a plug-in strategy made an illegal move"):
        play_hands(CLASSIC, [make_strategy("random"), HEURISTIC, HEURISTIC, HEURISTIC], KEYS,
                   0, 20, False, plugins=plugins)


def _probe(rules, out, slot):
    """Check every decision of ``out`` (four probe seats) against the Python view."""
    def expected(view):
        legal = _bits(view[V_LEGAL])
        return legal[_python_key(view, slot) % len(legal)]

    for row in range(len(out.hand_id)):
        def check_bid(seat, view, bid, row=row):
            assert bid == expected(view), (row, "bid", seat, slot)

        def check_card(seat, view, card, row=row):
            assert card == expected(view), (row, "card", seat, slot, view)

        _replay(rules, out, row, check_bid, check_card)


def test_view_agrees_with_a_python_recomputation():
    strategies = [HEURISTIC] * 4
    for slot in [-1, *range(VIEW_SIZE)]:
        plugins = ((probe, probe, np.array([float(slot)])),) * 4
        out = play_hands(CLASSIC, strategies, KEYS, 40, 12, True, plugins=plugins)
        _probe(CLASSIC, out, slot)
    plugins = ((probe, probe, np.array([-1.0])),) * 4
    hands, _ = play_games(CLASSIC, strategies, KEYS, 0, 3, True, plugins=plugins)
    _probe(CLASSIC, hands, -1)


def test_helpers_draw_like_the_engine():
    rng = np.array([12345], dtype=np.uint64)
    state = np.uint64(12345)
    for n in (1, 2, 13, 52, RATE_ONE):
        value, state = bounded_nb(state, n)
        state = np.uint64(int(state) % 2**64)  # (returned to Python as an int64)
        assert bounded(rng, n) == value and rng[0] == state
    output, state = next_u64_nb(state)
    output, state = int(output) % 2**64, np.uint64(int(state) % 2**64)
    assert random(rng) == (output >> 11) * 2.0 ** -53 and rng[0] == state


def test_function_pointer_errors():
    with pytest.raises(StrategyError, match="not an @njit function"):
        function_pointer(lambda view, params, rng: 0)

    @njit
    def wrong(view, params, rng):
        return view + 1  # an array, not an int64

    with pytest.raises(StrategyError, match="wrong"):
        function_pointer(wrong)

    @njit
    def untypable(view, params, rng):
        return view.no_such_attribute

    with pytest.raises(StrategyError, match="does not compile"):
        function_pointer(untypable)
    assert function_pointer(bid_three) is not None
    assert len(RULE_FIELDS) + V_RULES == VIEW_SIZE
    assert PLUGIN_SIG.return_type.bitwidth == 64
