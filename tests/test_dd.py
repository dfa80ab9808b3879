"""The double-dummy solver (``engine/dd/``) against two oracles and on its edge cases.

- DDS (``endplay``): with ``spades_lead = anytime`` Spades play is bridge play with spades
  trumps, so DDS's trick counts are exact; random full deals, every leader.
- An exhaustive minimax in pure Python on ``core/tricks.py``: small endings (2 to 4 tricks),
  mid-trick positions, the spade-lead rules, the jokers deck, 3 and 2 players, nil safety.
"""

from __future__ import annotations

import random
from functools import cache

import numpy as np
import pytest

from spades_sim.core.cards import TWO_OF_CLUBS, cards_of, suit_of
from spades_sim.core.errors import SpadesError
from spades_sim.core.rules import preset
from spades_sim.core.tricks import breaks_spades, legal_cards, trick_winner
from spades_sim.engine import dd

ANYTIME = preset("classic", spades_lead="anytime")


# -- the exhaustive reference --------------------------------------------------------------------

def reference(rules, hands, leader, trick, trick_index, broken, max_seats, nil_seat=None):
    """Minimax over every legal card. Returns the tricks of ``max_seats`` from here on (the
    current trick included), or, with ``nil_seat``, whether the nil side (``max_seats``) can
    keep ``nil_seat`` from winning a trick."""
    players = rules.players

    @cache
    def go(hands, leader, trick, trick_index, broken):
        if len(trick) == players:
            winner = (leader + trick_winner(trick)) % players
            if nil_seat is not None:
                if winner == nil_seat:
                    return False
                return go(hands, winner, (), trick_index + 1, broken)
            return (winner in max_seats) + go(hands, winner, (), trick_index + 1, broken)
        if trick_index == rules.hand_size:
            return True if nil_seat is not None else 0
        seat = (leader + len(trick)) % players
        led_suit = suit_of(trick[0]) if trick else None
        hand = hands[seat]
        values = []
        for card in cards_of(legal_cards(rules, hand, led_suit, broken, trick_index)):
            now_broken = broken or breaks_spades(rules, card, len(trick), led_suit, hand)
            rest = hands[:seat] + (hand & ~(1 << card),) + hands[seat + 1:]
            values.append(go(rest, leader, trick + (card,), trick_index, now_broken))
        return max(values) if seat in max_seats else min(values)

    return go(tuple(hands), leader, tuple(trick), trick_index, broken)


def random_ending(rng, rules, tricks_left, played):
    """A random position: ``tricks_left`` tricks to go, ``played`` random legal cards of the
    current trick down, a random leader and broken flag. Returns the hands after those cards,
    the leader, the trick, the trick index and the broken flag before the trick."""
    players = rules.players
    cards = rng.sample(cards_of(rules.deck_mask), tricks_left * players)
    hands = [sum(1 << c for c in cards[s * tricks_left:(s + 1) * tricks_left])
             for s in range(players)]
    leader = rng.randrange(players)
    broken = rng.random() < 0.5
    trick_index = rules.hand_size - tricks_left
    trick = []
    led_suit = None
    for position in range(played):
        seat = (leader + position) % players
        card = rng.choice(cards_of(legal_cards(rules, hands[seat], led_suit, broken,
                                               trick_index)))
        trick.append(card)
        hands[seat] &= ~(1 << card)
        if position == 0:
            led_suit = suit_of(card)
    return hands, leader, trick, trick_index, broken


def reference_after(rules, hands, leader, trick, trick_index, broken, max_seats,
                    nil_seat=None):
    """The reference value of a position given as the solver takes it (hands after the trick's
    cards, the broken flag before them)."""
    players = rules.players
    before = list(hands)
    for position, card in enumerate(trick):
        before[(leader + position) % players] |= 1 << card
    led_suit = None
    for position, card in enumerate(trick):
        seat = (leader + position) % players
        broken = broken or breaks_spades(rules, card, position, led_suit, before[seat])
        if position == 0:
            led_suit = suit_of(card)
    return reference(rules, hands, leader, trick, trick_index, broken, max_seats, nil_seat)


def side_seats(rules, seat):
    if rules.partnership:
        return frozenset({seat % 2, seat % 2 + 2})
    return frozenset({seat})


def check_endings(rules, seed, count, tricks=(2, 3), mid_trick=True):
    rng = random.Random(seed)
    for _ in range(count):
        tricks_left = rng.choice(tricks)
        played = rng.randrange(rules.players) if mid_trick else 0
        hands, leader, trick, trick_index, broken = random_ending(rng, rules, tricks_left, played)
        position = dict(trick=trick, trick_index=trick_index, spades_broken=broken)
        got = dd.solve(rules, hands, leader, **position)
        seats = range(2) if rules.partnership else range(rules.players)
        want = [reference_after(rules, hands, leader, trick, trick_index, broken,
                                side_seats(rules, seat)) for seat in seats]
        assert got == want, (hands, leader, trick, trick_index, broken)


def check_nil(rules, seed, count, tricks=(2, 3, 4)):
    rng = random.Random(seed)
    for _ in range(count):
        tricks_left = rng.choice(tricks)
        played = rng.randrange(rules.players)
        hands, leader, trick, trick_index, broken = random_ending(rng, rules, tricks_left, played)
        nil_seat = rng.randrange(rules.players)
        got = dd.nil_safe(rules, hands, leader, nil_seat, trick=trick, trick_index=trick_index,
                          spades_broken=broken)
        want = reference_after(rules, hands, leader, trick, trick_index, broken,
                               side_seats(rules, nil_seat), nil_seat)
        assert got == want, (hands, leader, trick, trick_index, broken, nil_seat)


INDIVIDUAL = {"partnership": False, "blind_nil_exchange": 0}
VARIANTS = {
    "broken": preset("classic"),
    "broken_not_by_forced_lead": preset("classic", broken_by_forced_lead=False),
    "anytime": ANYTIME,
    "after_first_trick": preset("classic", spades_lead="after_first_trick"),
    "jokers": preset("classic", deck="jokers"),
    "jokers_not_forced": preset("classic", deck="jokers", broken_by_forced_lead=False),
    "three_players": preset("classic", players=3, **INDIVIDUAL),
    "two_players": preset("classic", players=2, **INDIVIDUAL),
    "four_individual": preset("classic", **INDIVIDUAL),
}


@pytest.mark.parametrize("seed, name", list(enumerate(sorted(VARIANTS))))
def test_endings_match_the_reference(seed, name):
    rules = VARIANTS[name]
    tricks = (2, 3) if rules.players == 4 else (2, 3, 4)
    check_endings(rules, seed=seed, count=40, tricks=tricks)


def test_four_trick_endings_match_the_reference():
    check_endings(preset("classic"), seed=7, count=6, tricks=(4,))


def guarded_second(rules, hands):
    """Whether the second-best live trump's owner holds another trump and plays right after
    the top trump's owner (the solver's guarded-second bound)."""
    trumps = [c for c in cards_of(rules.deck_mask) if c >= 39]
    live = [c for c in trumps if any((h >> c) & 1 for h in hands)]
    if len(live) < 2:
        return False
    top, second = live[-1], live[-2]
    owner = next(s for s, h in enumerate(hands) if (h >> second) & 1)
    before = (owner - 1) % rules.players
    return bool((hands[before] >> top) & 1) \
        and sum((hands[owner] >> c) & 1 for c in trumps) >= 2


@pytest.mark.parametrize("name", ["anytime", "broken", "jokers", "three_players",
                                  "two_players"])
def test_guarded_second_trump_endings_match_the_reference(name):
    # Endings where a guarded second-best trump sits right after the top one, including the
    # case that bound must leave alone: its owner on lead with nothing but trumps.
    rules = VARIANTS[name]
    rng = random.Random(11)
    found = 0
    while found < 12:
        hands, leader, trick, trick_index, broken = random_ending(rng, rules, 3, 0)
        if not guarded_second(rules, hands):
            continue
        found += 1
        seats = range(2) if rules.partnership else range(rules.players)
        want = [reference(rules, hands, leader, (), trick_index, broken,
                          side_seats(rules, seat)) for seat in seats]
        got = dd.solve(rules, hands, leader, trick_index=trick_index, spades_broken=broken)
        assert got == want, (hands, leader, trick_index, broken)
    # The owner of the second on lead with only trumps (K5 of spades against A6 behind it):
    # it may have to lead the small one, and then loses both tricks.
    hands = [(1 << 2) | (1 << 35), (1 << 8) | (1 << 38), (1 << 43) | (1 << 51),
             (1 << 42) | (1 << 50)]
    if rules.players == 4 and rules.hand_size == 13:
        assert dd.solve(rules, hands, 3, trick_index=11, spades_broken=True) == [2, 0]


def trump_heavy_ending(rng, rules, tricks_left, played):
    """A random ending in which at least a third of the cards are trumps: the positions where
    the trump bounds (a guarded second and third best, a lead to the partner's top card) can
    answer."""
    while True:
        hands, leader, trick, trick_index, broken = random_ending(rng, rules, tricks_left,
                                                                  played)
        held = sum(hands) + sum(1 << card for card in trick)
        trumps = sum(1 for card in cards_of(held) if card >= 39)
        if 3 * trumps >= tricks_left * rules.players:
            return hands, leader, trick, trick_index, broken


@pytest.mark.parametrize("name", ["anytime", "broken", "jokers", "three_players",
                                  "four_individual"])
def test_trump_heavy_endings_match_the_reference(name):
    # Each bound has been seen to fail this test when one of its conditions is dropped.
    rules = VARIANTS[name]
    rng = random.Random(5)
    seats = range(2) if rules.partnership else range(rules.players)
    for _ in range(60):
        played = rng.randrange(rules.players)
        hands, leader, trick, trick_index, broken = trump_heavy_ending(rng, rules, 3, played)
        want = [reference_after(rules, hands, leader, trick, trick_index, broken,
                                side_seats(rules, seat)) for seat in seats]
        got = dd.solve(rules, hands, leader, trick=trick, trick_index=trick_index,
                       spades_broken=broken)
        assert got == want, (hands, leader, trick, trick_index, broken)
    # The pair's rule by hand: K and 5 of spades sit after the ace, the queen with the
    # partner. The ace can take only one of the king and queen.
    if rules.players == 4 and rules.hand_size == 13:
        ace, king, queen, five, four = 51, 50, 49, 42, 41
        hands = [(1 << ace) | (1 << four) | (1 << 12),
                 (1 << king) | (1 << five) | (1 << 11),
                 (1 << 10) | (1 << 9) | (1 << 8),
                 (1 << queen) | (1 << 7) | (1 << 6)]
        assert dd.solve(rules, hands, 0, trick_index=10, spades_broken=True)[1] >= 1


@pytest.mark.parametrize("name", ["broken", "jokers", "three_players", "two_players",
                                  "four_individual"])
def test_nil_safety_matches_the_reference(name):
    check_nil(VARIANTS[name], seed=11, count=40)


# -- DDS -----------------------------------------------------------------------------------------

def _pbn(hands) -> str:
    """Our seats 0..3 as N, E, S, W (both play clockwise); suits S.H.D.C, ranks high first."""
    ranks = "23456789TJQKA"
    return "N:" + " ".join(
        ".".join("".join(ranks[r] for r in range(12, -1, -1) if (int(h) >> (13 * s + r)) & 1)
                 for s in (3, 2, 1, 0))
        for h in hands)


@pytest.mark.parametrize("seed, deals, tricks", [
    (2024, 40, 8),  # endings of 8 tricks
    (13, 3, 13),  # full deals: a smaller sample of benchmarks/dd_speed.py's check
])
def test_dds_agrees_with_the_solver(seed, deals, tricks):
    endplay_types = pytest.importorskip("endplay.types")
    endplay_dds = pytest.importorskip("endplay.dds")
    from endplay.dds.solve import SolveMode

    rng = np.random.default_rng(seed)
    rows, leaders = [], []
    for _ in range(deals):
        cards = rng.permutation(52)[:4 * tricks]
        hands = [sum(1 << int(c) for c in cards[tricks * s:tricks * (s + 1)]) for s in range(4)]
        for leader in range(4):
            rows.append(hands)
            leaders.append(leader)
    ours = dd.solve_deals(ANYTIME, np.array(rows, dtype=np.int64), leaders)
    for hands, leader, tricks_by_side in zip(rows, leaders, ours):
        deal = endplay_types.Deal(_pbn(hands), first=endplay_types.Player(leader),
                                  trump=endplay_types.Denom.spades)
        best = max(score for _, score in endplay_dds.solve_board(deal, SolveMode.OptimalOne))
        assert tricks_by_side[leader % 2] == best, (hands, leader)


def test_batch_matches_single_solves():
    rng = random.Random(5)
    rules = preset("classic")
    rows, leaders = [], []
    for _ in range(10):
        hands, leader, _, _, _ = random_ending(rng, rules, 5, 0)
        rows.append(hands)
        leaders.append(leader)
    batch = dd.solve_deals(rules, np.array(rows, dtype=np.int64), leaders)
    for hands, leader, got in zip(rows, leaders, batch):
        assert got.tolist() == dd.solve(rules, hands, leader, trick_index=8)
    three = VARIANTS["three_players"]
    hands, leader, _, trick_index, _ = random_ending(rng, three, 4, 0)
    batch = dd.solve_deals(three, np.array([hands], dtype=np.int64), [leader])
    assert batch[0].tolist() == dd.solve(three, hands, leader, trick_index=trick_index)


# -- edge cases ----------------------------------------------------------------------------------

def test_no_trick_left():
    rules = preset("classic")
    assert dd.solve(rules, [0, 0, 0, 0], 2, trick_index=13) == [0, 0]
    assert dd.nil_safe(rules, [0, 0, 0, 0], 2, 1, trick_index=13)
    assert dd.solve(VARIANTS["three_players"], [0, 0, 0], 1, trick_index=17) == [0, 0, 0]


def test_a_trick_in_progress_counts():
    rules = preset("classic")
    # Seat 0 led the KH, seat 1 played the AH; seats 2 and 3 hold one heart each.
    hands = [["2C"], ["3C"], ["2H", "4C"], ["3H", "5C"]]
    assert dd.solve(rules, hands, 0, trick=["KH", "AH"], trick_index=11) == [0, 2]
    assert dd.solve(rules, hands, 0, trick=[(0, "KH"), (1, "AH")], trick_index=11) == [0, 2]
    # The last seat to play ruffs nothing: it must follow with its heart.
    assert dd.solve_seat(rules, hands, 0, 3, trick=["KH", "AH"], trick_index=11) == 2


@pytest.mark.parametrize("kwargs, message", [
    ({"hands": [["AS"], ["KS"], ["QS"]]}, "3 hands given"),
    ({"hands": [["AS"], ["KS"], ["QS"], ["JS", "2C"]]}, "holds 2 cards"),
    ({"hands": [["AS"], ["AS"], ["QS"], ["JS"]]}, "in two hands"),
    ({"hands": [["AS"], ["KS"], ["QS"], ["XX"]]}, "unknown card"),
    ({"hands": [["AS"], ["KS"], ["QS"], ["BJ"]]}, "not in this deck"),
    ({"leader": 4}, "leader"),
    ({"trick_index": 14}, "trick_index"),
    ({"trick": ["2H"]}, "is also in a hand"),
    ({"trick": ["2D", "3D", "4D", "5D"]}, "whole trick"),
])
def test_bad_positions_are_refused(kwargs, message):
    position = {"hands": [["AS"], ["KS"], ["QS"], ["2H"]], "leader": 0, "trick_index": 12}
    position.update(kwargs)
    hands = position.pop("hands")
    leader = position.pop("leader")
    with pytest.raises(SpadesError, match=message):
        dd.solve(preset("classic"), hands, leader, **position)


def test_illegal_card_on_the_table_is_refused():
    hands = [["2H"], ["3H"], ["QS", "2C"], ["4H", "3C"]]
    # Seat 1 played a spade while holding a heart; seat 0 led the 5H.
    with pytest.raises(SpadesError, match="not a legal play"):
        dd.solve(preset("classic"), hands, 0, trick=["5H", "KS"], trick_index=11)


def test_two_of_clubs_leader_must_hold_it():
    rules = preset("classic", first_leader="two_of_clubs")
    rng = np.random.default_rng(3)
    cards = rng.permutation(52)
    hands = [sum(1 << int(c) for c in cards[13 * s:13 * (s + 1)]) for s in range(4)]
    holder = next(s for s in range(4) if hands[s] & (1 << TWO_OF_CLUBS))
    with pytest.raises(SpadesError, match="2C"):
        dd.solve(rules, hands, (holder + 1) % 4)
    with pytest.raises(SpadesError, match="2C"):
        dd.solve_deals(rules, np.array([hands], dtype=np.int64), [(holder + 1) % 4])


def test_batch_input_is_checked():
    rules = preset("classic")
    with pytest.raises(SpadesError, match="bitboards"):
        dd.solve_deals(rules, np.zeros((2, 4), dtype=np.int64), [0])
    with pytest.raises(SpadesError, match="not a deal"):
        dd.solve_deals(rules, np.array([[1, 1, 2, 4]], dtype=np.int64), [0])


def test_the_solver_api_refuses_bad_arguments_in_one_line():
    rules = preset("classic")
    ending = [["AS"], ["KS"], ["2H"], ["3H"]]
    for call, fragment in (
        (lambda: dd.solve(rules, None, 0), "hands: None is not a sequence of holdings"),
        (lambda: dd.solve(rules, [None] * 4, 0), "hands[0]: None is not a sequence of cards"),
        (lambda: dd.solve(rules, ending, 0, trick_index=12, trick=None),
         "trick: None is not a sequence of cards"),
        (lambda: dd.solve(rules, ending, 0, trick_index=12, spades_broken="no"),
         "spades_broken: 'no' is not a bool (True or False)"),
        (lambda: dd.solve_seat(rules, ending, 0, 0, trick_index=12, spades_broken=1),
         "spades_broken: 1 is not a bool"),
        (lambda: dd.solve_deals(rules, None, [0]), "hands and leaders must be arrays"),
        (lambda: dd.solve_deals(rules, [[1, 2, 4, 8]], [0], spades_broken="no"),
         "spades_broken: 'no' is not a bool"),
    ):
        with pytest.raises(SpadesError) as error:
            call()
        assert fragment in str(error.value) and "\n" not in str(error.value)
    assert dd.solve(rules, ending, 0, trick_index=12, spades_broken=np.bool_(True)) == [1, 0]
