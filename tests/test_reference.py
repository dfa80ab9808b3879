"""Engine vs its pure-Python twin (``spades_sim.reference``), bit for bit.

Every array the engine writes with ``record_plays=True`` (dealt hands, dealer, first leader, bids,
each play and its seat, tricks, scores and bag counters) must equal what the reference computes
from the same seed, for thousands of independent hands and for whole games; the reference's
scoring must equal the engine's scoring kernel on random inputs under random scoring rules.
"""

import numpy as np
import pytest
from conftest import engine_score

from spades_sim import api, records, reference
from spades_sim.rules import preset
from spades_sim.strategies import parse_strategy

NIL_MIX = ("random:bid_min=0", "heuristic")  # random nils against the heuristic's nil play

# (preset, strategy texts cycled over the seats, n_hands, seed)
HAND_CASES = [
    ("classic", ("random",), 3000, 1),
    ("classic", ("heuristic",), 3000, 2),
    ("classic", ("random", "heuristic"), 2000, 3),
    ("classic", NIL_MIX, 2000, 4),
    ("classic", ("heuristic", "random:bid_min=0,bid_max=13"), 1000, 5),
    ("classic", ("heuristic:aggression=0.6,nil_threshold=2.5,nil_max_spades=4",), 1000, 6),
    ("simple", ("heuristic",), 1500, 7),
    ("simple", NIL_MIX, 1500, 8),
    ("openspiel", ("heuristic",), 1500, 9),
    ("openspiel", NIL_MIX, 1500, 10),
    # The other presets, as the engine plays them today (smaller: a smoke test of the twin).
    ("casual", NIL_MIX, 400, 11),
    ("cutthroat", NIL_MIX, 400, 12),
    ("jokers", NIL_MIX, 400, 13),
]

# (preset, overrides, strategy texts, n_games, seed)
GAME_CASES = [
    ("classic", {}, ("heuristic",), 30, 21),
    ("classic", {}, NIL_MIX, 10, 22),
    ("simple", {}, NIL_MIX, 10, 23),
    ("openspiel", {}, NIL_MIX, 10, 24),
    ("classic", {"target": 200, "mercy": -150}, ("random",), 20, 25),  # mercy and ties
    ("classic", {"max_hands": 1}, NIL_MIX, 30, 26),  # quick game: ties are ties
    ("classic", {"hand_cap": 3}, ("random",), 10, 27),  # draws at the hand cap
    ("casual", {}, NIL_MIX, 4, 28),
    ("cutthroat", {}, NIL_MIX, 4, 29),
    ("jokers", {}, NIL_MIX, 4, 30),
    ("tournament", {"bids_total_not_tricks": False, "bid_bump": False}, NIL_MIX, 4, 31),
]


def seat_strategies(texts, players):
    return [parse_strategy(texts[seat % len(texts)]) for seat in range(players)]


def reference_arrays(hands, rules):
    """The reference's per-hand dicts as engine record arrays (``records.HandArrays``)."""
    out = records.allocate_hands(len(hands), record_plays=True)
    for row, hand in enumerate(hands):
        out.hand_id[row] = hand["hand_id"]
        out.game_id[row] = -1 if hand["game_id"] is None else hand["game_id"]
        out.dealer[row] = hand["dealer"]
        out.first_leader[row] = hand["first_leader"]
        for seat in range(rules.players):
            for name in ("hands", "blind", "bids", "bumped", "tricks"):
                getattr(out, name)[row, seat] = hand[name][seat]
        for side in range(rules.n_sides):
            for name in ("score_before", "bags_before", "score_delta", "bags_after"):
                getattr(out, name)[row, side] = hand[name][side]
        for index, (seat, card) in enumerate(hand["plays"]):
            out.play_seats[row, index] = seat
            out.plays[row, index] = card
        for index, (sender, receiver, card) in enumerate(hand["exchange"]):
            out.exchange[row, index] = (sender, receiver, card)
    return out


def assert_same_arrays(engine, twin, what):
    """Every field equal; on failure name the field and the first row that differs."""
    assert engine._fields == twin._fields
    for name in engine._fields:
        ours, theirs = getattr(twin, name), getattr(engine, name)
        assert ours.shape == theirs.shape, f"{what}: {name} shape {ours.shape} != {theirs.shape}"
        if not np.array_equal(ours, theirs):
            differ = np.nonzero((ours != theirs).reshape(len(ours), -1).any(axis=1))[0]
            row = int(differ[0])
            pytest.fail(f"{what}: {name} differs in {len(differ)} rows; first row {row}: "
                        f"engine {theirs[row].tolist()}, reference {ours[row].tolist()}")


@pytest.fixture(scope="module")
def compiled():
    """Compile (or load) both entry kernels once for this module."""
    rules = preset("classic")
    strategies = seat_strategies(("random",), 4)
    api.simulate_hands(rules, strategies, 1, 0, record_plays=True)
    api.play_games(rules, strategies, 1, 0, record_plays=True)
    return True


@pytest.mark.parametrize(
    "name, texts, n_hands, seed", HAND_CASES,
    ids=[f"{case[0]}-{'+'.join(case[1])}" for case in HAND_CASES],
)
def test_hands_bit_for_bit(compiled, name, texts, n_hands, seed):
    rules = preset(name)
    strategies = seat_strategies(texts, rules.players)
    engine = api.simulate_hands(rules, strategies, n_hands, seed, record_plays=True).hands
    twin = reference.simulate_hands(rules, strategies, n_hands, seed)
    assert_same_arrays(engine, reference_arrays(twin, rules), f"{name} {texts}")
    if texts == NIL_MIX:
        assert (engine.bids[:, :rules.players] == 0).any(), "the nil mix should bid nil"


def test_hand_ids_offset(compiled):
    """``first_hand_id`` picks the key indices and dealers, so any split reproduces a run."""
    rules = preset("classic")
    strategies = seat_strategies(NIL_MIX, 4)
    engine = api.simulate_hands(rules, strategies, 300, 31, record_plays=True,
                                first_hand_id=1_000_003).hands
    twin = reference.simulate_hands(rules, strategies, 300, 31, first_hand_id=1_000_003)
    assert_same_arrays(engine, reference_arrays(twin, rules), "offset ids")
    whole = reference.simulate_hands(rules, strategies, 40, 32)
    assert reference.simulate_hands(rules, strategies, 15, 32, first_hand_id=25) == whole[25:]


@pytest.mark.parametrize(
    "name, overrides, texts, n_games, seed", GAME_CASES,
    ids=[f"{case[0]}-{case[1] or ''}-{'+'.join(case[2])}" for case in GAME_CASES],
)
def test_games_bit_for_bit(compiled, name, overrides, texts, n_games, seed):
    rules = preset(name, **overrides)
    strategies = seat_strategies(texts, rules.players)
    run = api.play_games(rules, strategies, n_games, seed, record_plays=True)
    twin_hands, twin_games = reference.play_games(rules, strategies, n_games, seed)
    assert_same_arrays(run.hands, reference_arrays(twin_hands, rules), f"{name} hands")
    games = records.allocate_games(len(twin_games))
    for row, game in enumerate(twin_games):
        for field in ("game_id", "first_dealer", "n_hands", "winner"):
            getattr(games, field)[row] = game[field]
        games.final_score[row, :rules.n_sides] = game["final_score"]
        games.final_bags[row, :rules.n_sides] = game["final_bags"]
    assert_same_arrays(run.games, games, f"{name} games")
    # Scores carry over within a game: each hand starts where the last one ended.
    for before, after in zip(twin_hands, twin_hands[1:], strict=False):
        if before["game_id"] == after["game_id"]:
            assert after["score_before"] == [
                score + delta
                for score, delta in zip(before["score_before"], before["score_delta"], strict=True)
            ]
            assert after["bags_before"] == before["bags_after"]


SCORING_FIELDS = {
    "nil": (True, False),
    "nil_bonus": (0, 50, 100),
    "blind_nil_bonus": (100, 200),
    "double_nil": ("additive", "fixed", "doubled_no_penalty"),
    "double_nil_bonus": (200, 500),
    "blind_bid_bonus_per_trick": (0, 10),
    "set_penalty": ("per_bid", "per_trick_short"),
    "failed_nil_tricks": ("bags_only", "count_toward_bid"),
    "ten_for_two_hundred": (False, True),
    "overtrick_points": (0, 1, 5),
    "bag_limit": (0, 5, 10),
    "bag_penalty": (0, 50, 100),
}


def test_score_hand_matches_engine_kernel():
    """Random bids, blinds and tricks under random scoring rules: reference == scoring kernel."""
    generator = np.random.default_rng(2024)
    for case in range(3000):
        name = ("classic", "cutthroat", "two-player")[case % 3]
        overrides = {field: values[generator.integers(len(values))]
                     for field, values in SCORING_FIELDS.items()}
        rules = preset(name, **overrides)
        players, size = rules.players, rules.hand_size
        tricks = np.bincount(generator.integers(players, size=size), minlength=players).tolist()
        bids = generator.integers(0, 8, size=players).tolist()
        for seat in range(players):  # nils are common in play, so make them common here
            if generator.random() < 0.3:
                bids[seat] = 0
        blind = (generator.random(players) < 0.2).tolist()
        limit = max(rules.bag_limit, 1)
        bags_before = generator.integers(0, limit, size=rules.n_sides).tolist()
        expected = engine_score(rules, bids, blind, tricks, bags_before)
        assert reference.score_hand(rules, bids, blind, tricks, bags_before) == expected, (
            name, overrides, bids, blind, tricks, bags_before)


def test_trick_helpers():
    """The replay's helpers on hand-picked tricks (rules.md, "The hand, step by step")."""
    rules = preset("classic")
    ace_clubs, two_spades, king_clubs, ace_hearts = 12, 39, 11, 38
    assert reference.trick_winner([king_clubs, ace_clubs, ace_hearts, 0]) == 1
    assert reference.trick_winner([king_clubs, ace_clubs, two_spades, 0]) == 2
    assert reference.trick_winner([ace_hearts, 53, 52, 51]) == 1  # BJ > LJ > AS
    hand = (1 << two_spades) | (1 << ace_hearts)
    assert reference.legal_cards(rules, hand, None, False, 0) == 1 << ace_hearts
    assert reference.legal_cards(rules, hand, None, True, 0) == hand
    assert reference.legal_cards(rules, hand, 0, False, 0) == hand  # void in clubs
    assert reference.legal_cards(rules, 1 << two_spades, None, False, 0) == 1 << two_spades
    late = preset("classic", spades_lead="after_first_trick")
    assert reference.legal_cards(late, hand, None, False, 0) == 1 << ace_hearts
    assert reference.legal_cards(late, hand, None, False, 1) == hand
    assert reference.breaks_spades(rules, two_spades, 2, 0, hand)
    assert not reference.breaks_spades(rules, two_spades, 1, 3, hand)
    assert reference.breaks_spades(rules, two_spades, 0, None, 1 << two_spades)
    assert not reference.breaks_spades(preset("simple"), two_spades, 0, None, 1 << two_spades)
