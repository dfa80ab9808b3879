"""Engine vs its pure-Python twin (``spades_sim.reference``), bit for bit.

Every array the engine writes with ``record_plays=True`` (dealt hands, dealer, first leader, blind
flags, bids, bumps, exchanges, each play and its seat, tricks, scores and bag counters) must equal
what the reference computes from the same seed: for every preset, with random and heuristic
strategies at their defaults and tuned so that blind nils, blind bids, bumps and exchanges happen,
with mixed seats, for independent hands and for whole games (where deficits arise). The
reference's scoring must equal the engine's scoring kernel on random inputs under random scoring
rules.
"""

import numpy as np
import pytest
from conftest import engine_score
from twin import assert_same_arrays, reference_arrays, seat_strategies

from spades_sim import reference
from spades_sim import run as runs
from spades_sim.core import bidding, cards, schema, scoring, tricks
from spades_sim.core.rules import PRESETS, preset
from spades_sim.core.strategies import parse_strategy
from spades_sim.reference import deal as ref_deal
from spades_sim.reference import strategies as ref_strategies
from spades_sim.reference.stream import Stream

R = "random"
# Random seats that bid blind (nil or a number) wherever allowed, bump half their bids and bid
# nil (a plain 0) as often as anything else.
RB = "random:blind_nil_rate=0.3,blind_bid_rate=0.3,bump_rate=0.5,bid_min=0"
H = "heuristic"
# Heuristic seats that bid blind nil (or, the partner having bid a nil, a blind number) as soon as
# it is allowed, so that independent hands (deficit 0) see them.
HB = "heuristic:blind_nil_deficit=0,blind_bid_deficit=0"
HBB = "heuristic:blind_bid_deficit=0"  # blind number bids, no blind nil
NIL_MIX = ("random:bid_min=0", "heuristic")  # random nils against the heuristic's nil play

# The four strategy presets at one table (one per seat; fewer players take the first ones).
P = ("cautious", "aggressive", "nil-happy", "bag-averse")
STRATEGY_SETS = {"R": (R,), "RB": (RB,), "H": (H,), "HB": (HB,), "RB+HB": (RB, HB),
                 "H+RB": (H, RB), "P": P}

# What the engine must show in a case (so that no case silently stops testing what it is for).
# Every preset and strategy set: (preset, set) -> features.
PRESET_FEATURES = {
    ("classic", "RB"): {"blind_nil", "exchange", "nil"},
    ("classic", "HB"): {"blind_nil", "exchange"},
    ("jokers", "RB+HB"): {"blind_nil", "exchange", "nil"},
    ("tournament", "R"): {"bump"},
    ("tournament", "H"): {"bump"},
    ("two-player", "RB"): {"nil"},
}

# Rule variants beyond the presets: (preset, overrides, strategy texts, n_hands, seed, features).
CONSTRAINED = {"nil_exchange": 2, "min_team_bid": 5, "bids_total_not_tricks": True,
               "bid_bump": True, "blind_bids": True, "blind_bid_min_deficit": 0}
VARIANT_CASES = [
    ("classic", CONSTRAINED, (RB,), 500, 41,
     {"blind_nil", "blind_bid", "bump", "exchange", "nil"}),
    ("classic", CONSTRAINED, (RB, HB), 500, 42, {"blind_nil", "blind_bid", "bump", "exchange"}),
    ("classic", CONSTRAINED, (H, RB), 500, 43, {"blind_bid", "bump", "exchange", "nil"}),
    ("classic", CONSTRAINED, (HBB,), 300, 44, {"blind_bid"}),
    ("classic", {**CONSTRAINED, "nil": False}, (RB, H), 500, 45,
     {"blind_nil", "blind_bid", "bump", "exchange"}),
    ("classic", {**CONSTRAINED, "blind_nil_exchange": 4, "nil_exchange": 4,
                 "first_leader": "two_of_clubs"}, (RB, HB), 500, 46,
     {"blind_nil", "blind_bid", "bump", "exchange"}),
    ("classic", {"nil_exchange": 3, "blind_nil": False}, NIL_MIX, 500, 47, {"exchange", "nil"}),
    ("tournament", {"blind_nil_min_deficit": 0, "blind_bid_min_deficit": 0}, (RB,), 500, 48,
     {"blind_nil", "blind_bid", "bump", "exchange"}),
    ("tournament", {"blind_nil_min_deficit": 0, "blind_bid_min_deficit": 0}, (H, HB), 500, 49,
     {"blind_nil", "bump", "exchange"}),
    ("cutthroat", {"blind_nil": True, "blind_bids": True, "blind_bid_min_deficit": 0,
                   "bid_bump": True, "bids_total_not_tricks": True}, (RB, H), 500, 50,
     {"blind_nil", "blind_bid", "bump"}),
    ("two-player", {"blind_nil": True, "blind_bids": True, "blind_bid_min_deficit": 0,
                    "bid_bump": True, "bids_total_not_tricks": True}, (RB, HB), 500, 51,
     {"blind_nil", "blind_bid", "bump"}),
    ("two-player", {}, ("random:keep_rate=0.9", "heuristic:keep_rank=11,draw_scale=1"), 500, 52,
     set()),
    ("jokers", {"bid_bump": True, "min_team_bid": 4}, ("heuristic:bump_threshold=0",), 500, 53,
     {"bump"}),
    ("classic", {}, ("heuristic:aggression=0.6,nil_threshold=2.5,nil_max_spades=4",), 500, 54,
     {"nil"}),
    # Every bidding feature and play switch of the heuristic family away from its default.
    ("classic", {}, ("heuristic:long_suit=0.4,trump_honour=0.8,nil_threshold=2,nil_partner_min=3,"
                     "nil_max_high=1", "heuristic:cover_nil=0,bust_nil=0,avoid_bags=0",
                     "heuristic:set_margin=3", "nil-happy"), 500, 55, {"nil"}),
    ("cutthroat", {}, ("heuristic:set_margin=5", "aggressive", "heuristic:avoid_bags=0"), 300, 56,
     set()),
    # The search player (few samples: the twin plays every playout in Python).
    ("classic", {}, ("mc:samples=3", "heuristic"), 30, 57, set()),
    ("classic", {}, ("mc:samples=2,bid_tolerance=0.5", "random:bid_min=0"), 30, 58, {"nil"}),
    ("cutthroat", {}, ("mc:samples=2", "random", "heuristic"), 30, 59, set()),
    ("two-player", {}, ("mc:samples=3", "heuristic"), 30, 60, set()),
    ("jokers", {}, ("mc:samples=2", "nil-happy"), 30, 61, set()),
    ("tournament", {"blind_nil_min_deficit": 0}, ("mc:samples=2,blind_nil_deficit=0", H), 30, 62,
     {"blind_nil", "exchange"}),
    ("simple", {"first_leader": "two_of_clubs"}, ("mc:samples=2,set_margin=2", "heuristic"), 30,
     63, set()),
]

# (preset, overrides, strategy texts, n_games, seed, features)
GAME_CASES = [
    *[(name, {}, (RB, H), 4, 60 + index, set()) for index, name in enumerate(PRESETS)],
    *[(name, {}, (H,), 4, 70 + index, set()) for index, name in enumerate(PRESETS)],
    ("classic", {}, (R,), 4, 80, {"blind_nil", "exchange"}),
    ("classic", {}, (HB,), 6, 81, {"blind_nil", "exchange"}),
    ("jokers", {}, (RB,), 4, 82, {"blind_nil", "exchange"}),
    ("tournament", {}, (RB,), 4, 83, {"blind_nil", "blind_bid", "bump", "exchange"}),
    ("tournament", {"target": 1000}, (H, RB), 6, 84, {"blind_nil", "blind_bid", "bump"}),
    ("tournament", {"target": 1000}, ("heuristic:blind_nil_deficit=100",), 10, 85,
     {"blind_nil", "bump", "exchange"}),
    ("classic", CONSTRAINED, (RB, HB), 4, 86, {"blind_nil", "blind_bid", "bump", "exchange"}),
    ("two-player", {"blind_nil": True, "blind_bids": True, "bid_bump": True}, (RB, H), 4, 87,
     {"blind_nil", "blind_bid", "bump"}),
    ("classic", {"target": 200, "mercy": -150}, (R,), 20, 25, set()),  # mercy and ties
    ("classic", {"max_hands": 1}, NIL_MIX, 30, 26, set()),  # quick game: ties are ties
    ("classic", {"hand_cap": 3}, (R,), 10, 27, set()),  # draws at the hand cap
    # End-of-game awareness and the bag guard (they read the scores and bags).
    ("classic", {"target": 300}, ("heuristic:endgame_points=150,bag_guard=5", "aggressive",
                                  "cautious", "bag-averse"), 8, 88, set()),
    ("cutthroat", {"target": 300}, ("heuristic:endgame_points=200,bag_guard=9",), 6, 89, set()),
    ("classic", {"target": 200}, ("mc:samples=2", "heuristic"), 2, 90, set()),
    # Expected-value bidders whose bid walks differ (the kernel's bid memo must keep them
    # apart; far from the target, where the memo is used).
    ("classic", {"target": 1000}, ("heuristic:bag_weight=0,target_bonus=0", "heuristic",
                                   "heuristic:bag_weight=10", "heuristic:target_bonus=300"), 4,
     91, set()),
]


def features(hands, rules):
    """What happened in the engine's hands: blind nils, blind number bids, plain nils, bumps,
    exchanges."""
    players = rules.players
    blind = hands.blind[:, :players] != 0
    bids = hands.bids[:, :players]
    found = set()
    if (blind & (bids == 0)).any():
        found.add("blind_nil")
    if (blind & (bids > 0)).any():
        found.add("blind_bid")
    if rules.nil and (~blind & (bids == 0)).any():
        found.add("nil")
    if hands.bumped.any():
        found.add("bump")
    if (hands.exchange[:, :, 0] >= 0).any():
        found.add("exchange")
    return found


@pytest.fixture(scope="module")
def compiled():
    """Compile (or load) both entry kernels once for this module."""
    rules = preset("classic")
    strategies = seat_strategies((R,), 4)
    runs.simulate_hands(rules, strategies, 1, 0, record_plays=True)
    runs.play_games(rules, strategies, 1, 0, record_plays=True)
    return True


def check_hands(rules, texts, n_hands, seed, expected=frozenset()):
    strategies = seat_strategies(texts, rules.players)
    engine = runs.simulate_hands(rules, strategies, n_hands, seed, record_plays=True).hands
    twin = reference.simulate_hands(rules, strategies, n_hands, seed)
    assert_same_arrays(engine, reference_arrays(twin, rules), f"{rules.to_spec()} {texts}")
    missing = set(expected) - features(engine, rules)
    assert not missing, f"{rules.to_spec()} {texts}: no {', '.join(sorted(missing))} happened"


PRESET_CASES = [(name, key) for name in PRESETS for key in STRATEGY_SETS]


@pytest.mark.parametrize("name, key", PRESET_CASES, ids=[f"{n}-{k}" for n, k in PRESET_CASES])
def test_preset_hands_bit_for_bit(compiled, name, key):
    seed = 100 + PRESET_CASES.index((name, key))
    check_hands(preset(name), STRATEGY_SETS[key], 300, seed, PRESET_FEATURES.get((name, key), ()))


@pytest.mark.parametrize(
    "name, overrides, texts, n_hands, seed, expected", VARIANT_CASES,
    ids=[f"{case[0]}-{case[4]}-{'+'.join(case[2])}" for case in VARIANT_CASES],
)
def test_variant_hands_bit_for_bit(compiled, name, overrides, texts, n_hands, seed, expected):
    check_hands(preset(name, **overrides), texts, n_hands, seed, expected)


def test_classic_hands_many(compiled):
    """Thousands of classic hands, the mixed table that exercises every heuristic play rule."""
    check_hands(preset("classic"), (RB, HB, H, R), 3000, 3,
                {"blind_nil", "exchange", "nil"})


def test_hand_ids_offset(compiled):
    """``first_hand_id`` picks the key indices and dealers, so any split reproduces a run."""
    rules = preset("classic")
    strategies = seat_strategies((RB, HB), 4)
    engine = runs.simulate_hands(rules, strategies, 300, 31, record_plays=True,
                                first_hand_id=1_000_003).hands
    twin = reference.simulate_hands(rules, strategies, 300, 31, first_hand_id=1_000_003)
    assert_same_arrays(engine, reference_arrays(twin, rules), "offset ids")
    whole = reference.simulate_hands(rules, strategies, 40, 32)
    assert reference.simulate_hands(rules, strategies, 15, 32, first_hand_id=25) == whole[25:]


@pytest.mark.parametrize(
    "name, overrides, texts, n_games, seed, expected", GAME_CASES,
    ids=[f"{case[0]}-{case[4]}-{'+'.join(case[2])}" for case in GAME_CASES],
)
def test_games_bit_for_bit(compiled, name, overrides, texts, n_games, seed, expected):
    rules = preset(name, **overrides)
    strategies = seat_strategies(texts, rules.players)
    run = runs.play_games(rules, strategies, n_games, seed, record_plays=True)
    twin_hands, twin_games = reference.play_games(rules, strategies, n_games, seed)
    assert_same_arrays(run.hands, reference_arrays(twin_hands, rules), f"{name} hands")
    games = schema.allocate_games(len(twin_games))
    for row, game in enumerate(twin_games):
        for field in ("game_id", "first_dealer", "n_hands", "winner"):
            getattr(games, field)[row] = game[field]
        games.final_score[row, :rules.n_sides] = game["final_score"]
        games.final_bags[row, :rules.n_sides] = game["final_bags"]
    assert_same_arrays(run.games, games, f"{name} games")
    missing = set(expected) - features(run.hands, rules)
    assert not missing, f"{name} games: no {', '.join(sorted(missing))} happened"
    # Scores carry over within a game: each hand starts where the last one ended.
    for before, after in zip(twin_hands, twin_hands[1:], strict=False):
        if before["game_id"] == after["game_id"]:
            assert after["score_before"] == [
                score + delta
                for score, delta in zip(before["score_before"], before["score_delta"], strict=True)
            ]
            assert after["bags_before"] == before["bags_after"]


# --- rules the engine must follow, checked on its own output ---------------------------------
def _ahead(hands, rules):
    """Per row and seat: the seat's side leads every other side before the hand."""
    players = rules.players
    sides = [rules.side_of(seat) for seat in range(players)]
    scores = hands.score_before[:, :rules.n_sides]
    ahead = np.zeros((len(scores), players), dtype=bool)
    for seat, side in enumerate(sides):
        others = np.delete(scores, side, axis=1).max(axis=1)
        ahead[:, seat] = scores[:, side] > others
    return ahead


@pytest.mark.parametrize("overrides, texts", [
    ({}, "random:blind_nil_rate=1"),
    ({"blind_nil": False, "blind_bids": True, "blind_bid_min_deficit": 0},
     "random:blind_bid_rate=1"),
])
def test_zero_min_deficit_allows_blind_bids_when_ahead(compiled, overrides, texts):
    """rules.md: "A ``..._min_deficit`` of 0 means always allowed, even when ahead". A random seat
    with a blind rate of 1 bids blind whenever it is allowed to, so in classic games (minimum
    deficit 0) every seat bids blind, those of the leading side included."""
    rules = preset("classic", **overrides)
    strategies = seat_strategies((texts,), 4)
    twin_hands, _ = reference.play_games(rules, strategies, 3, 5)
    assert all(all(hand["blind"]) for hand in twin_hands)
    hands = runs.play_games(rules, strategies, 3, 5, record_plays=True).hands
    ahead = _ahead(hands, rules)
    assert ahead.any()
    not_blind = ahead & (hands.blind[:, :4] == 0)
    assert not not_blind.any(), (
        f"engine: {int(not_blind.sum())} of {int(ahead.sum())} seats whose side leads did not "
        f"bid blind, though the minimum deficit is 0")


def test_draw_deal_pairs():
    """The draw deal: the dealer's left draws first from pairs ``deck[2p]`` (face up),
    ``deck[2p + 1]`` (face down) of the first 26 cards; the other seat from the rest."""
    rules = preset("two-player")
    keep_up = [parse_strategy("heuristic:keep_rank=0")] * 2  # always keeps the face-up card
    take_down = [parse_strategy("random:keep_rate=0")] * 2  # always takes the face-down one
    for dealer in (0, 1):
        deck = ref_deal.shuffled_deck(rules, Stream(11, 7))
        first = 1 - dealer
        hands = ref_deal.draw_deal(rules, keep_up, dealer, Stream(11, 7),
                                    Stream(12, 7))
        assert hands[first] == cards.mask_of(deck[0:26:2])
        assert hands[dealer] == cards.mask_of(deck[26:52:2])
        hands = ref_deal.draw_deal(rules, take_down, dealer, Stream(11, 7),
                                    Stream(12, 7))
        assert hands[first] == cards.mask_of(deck[1:26:2])
        assert hands[dealer] == cards.mask_of(deck[27:52:2])


def test_estimate_uses_the_decks_top_trumps():
    """The heuristic counts BJ, LJ, AS as the top trumps with jokers (AS, KS, QS without) and
    long trumps beyond the rules' trump share, scaled by 4 / players or draw_scale."""
    params = parse_strategy("heuristic").params
    spades = cards.mask_of([51, 50, 49])  # AS KS QS
    jokers_top = cards.mask_of([53, 52, 51])  # BJ LJ AS
    classic, jokers = preset("classic"), preset("jokers")
    # Three honours, no spare trump to ruff with (void in every side suit: 6 ruff chances).
    assert ref_strategies.estimate_tricks(classic, params, spades) == 3.0
    assert ref_strategies.estimate_tricks(jokers, params, jokers_top) == 3.0
    # With jokers, only the AS of AS KS QS is an honour; the other two ruff.
    assert ref_strategies.estimate_tricks(jokers, params, spades) == 1 + 0.6 * 2
    five = cards.mask_of([39, 40, 41, 42, 43])  # 2S..6S: two long trumps in classic
    assert ref_strategies.estimate_tricks(classic, params, five) == 0.8 * 2 + 0.6 * 5
    assert ref_strategies.estimate_tricks(jokers, params, five) == 0.8 * 1 + 0.6 * 5
    assert classic.trump_share == 3 and jokers.trump_share == 4
    assert ref_strategies.estimate_tricks(preset("two-player"), params, spades) == 3.0 * 1.3
    assert ref_strategies.estimate_tricks(preset("cutthroat"), params, spades) == 3.0 * (4.0 / 3)


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
        assert scoring.score_hand(rules, bids, blind, tricks, bags_before) == expected, (
            name, overrides, bids, blind, tricks, bags_before)


def test_trick_helpers():
    """The replay's helpers on hand-picked tricks (rules.md, "The hand, step by step")."""
    rules = preset("classic")
    ace_clubs, two_spades, king_clubs, ace_hearts = 12, 39, 11, 38
    assert tricks.trick_winner([king_clubs, ace_clubs, ace_hearts, 0]) == 1
    assert tricks.trick_winner([king_clubs, ace_clubs, two_spades, 0]) == 2
    assert tricks.trick_winner([ace_hearts, 53, 52, 51]) == 1  # BJ > LJ > AS
    hand = (1 << two_spades) | (1 << ace_hearts)
    assert tricks.legal_cards(rules, hand, None, False, 0) == 1 << ace_hearts
    assert tricks.legal_cards(rules, hand, None, True, 0) == hand
    assert tricks.legal_cards(rules, hand, 0, False, 0) == hand  # void in clubs
    assert tricks.legal_cards(rules, 1 << two_spades, None, False, 0) == 1 << two_spades
    late = preset("classic", spades_lead="after_first_trick")
    assert tricks.legal_cards(late, hand, None, False, 0) == 1 << ace_hearts
    assert tricks.legal_cards(late, hand, None, False, 1) == hand
    assert tricks.breaks_spades(rules, two_spades, 2, 0, hand)
    assert not tricks.breaks_spades(rules, two_spades, 1, 3, hand)
    assert tricks.breaks_spades(rules, two_spades, 0, None, 1 << two_spades)
    assert not tricks.breaks_spades(preset("simple"), two_spades, 0, None, 1 << two_spades)


def test_bid_helpers():
    """legal_bids, exchange_size and the blind rules on hand-picked auctions."""
    rules = preset("classic", bids_total_not_tricks=True, min_team_bid=4)
    no = [False] * 4
    # The dealer (seat 3, bidding last) may not bid 2 (a total of 13); its partner (seat 1) bid
    # 2, so it needs 2 or more, or a nil.
    legal = bidding.bids_of(bidding.legal_bids(rules, 3, 3, [5, 2, 4, -1], no, True))
    assert legal == [0, *range(3, 14)]
    assert bidding.bids_of(bidding.legal_bids(rules, 3, 3, [5, 2, 4, -1], no, False)) == [
        *range(3, 14)]
    # A partner's nil lifts min_team_bid; a blind 0 is a nil even with nil off.
    off = preset("classic", nil=False, min_team_bid=4)
    assert bidding.legal_bids(off, 3, 1, [-1, 0, -1, -1], no, False) == (2 << 13) - 1 - 0b1111
    assert bidding.legal_bids(off, 3, 1, [-1, 0, -1, -1], [False, True, False, False],
                                False) == (2 << 13) - 1
    # Exchanges: a blind nil with a plain-nil partner passes; two blind nils never do.
    classic = preset("classic", nil_exchange=2)
    assert [bidding.exchange_size(classic, s, [0, 3, 0, 4], [True, False, False, False])
            for s in range(4)] == [3, 0, 0, 0]
    assert [bidding.exchange_size(classic, s, [0, 3, 0, 4], [True, False, True, False])
            for s in range(4)] == [0, 0, 0, 0]
    assert [bidding.exchange_size(classic, s, [0, 3, 0, 4], [False] * 4)
            for s in range(4)] == [0, 0, 0, 0]
    assert bidding.deficit(classic, 0, [120, 300]) == 180
    assert bidding.blind_allowed(0, -500) and not bidding.blind_allowed(100, 99)
