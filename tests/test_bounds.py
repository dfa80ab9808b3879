"""Rule values at their bounds: no score, bag counter or bid can overflow anywhere.

Every integer rule field has a range (``core.rules.BOUNDS``, ``docs/rules.md`` "Bounds"); a value
outside it is one ``RulesError`` line naming the field and the range, from Python, the command
line, experiment files and hand logs alike. Within the ranges the engine, its record arrays and
tidy frames (int64 scores, int32 bag counters), the reference twin and the hand-log replay all
agree: hands and whole games are played with every scoring field at its bound (and at extreme
combinations), logged, replayed line by line and compared with the twin. Replay refuses lines
whose values no game of their rules can reach, in one line each.
"""

import dataclasses
import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from twin import assert_same_arrays, reference_arrays, seat_strategies

from spades_sim import reference
from spades_sim import run as runs
from spades_sim.core import schema
from spades_sim.core.errors import RulesError
from spades_sim.core.rules import (
    BOUNDS,
    FIELD_NAMES,
    MAX_BAG_LIMIT,
    MAX_HAND_CAP,
    MAX_HAND_SIZE,
    MAX_POINTS,
    MAX_SCORE,
    Rules,
    build_rules,
    hand_points_bound,
    preset,
    rules_from_spec,
)
from spades_sim.experiment import parse_experiment
from spades_sim.handlog import replay, replay_line, write_log

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).parent / "golden"
INT64_MAX = 2**63 - 1
INT32_MAX = 2**31 - 1

# The fields counted in points (a score, a bonus, a penalty, a deficit).
POINT_FIELDS = ("nil_bonus", "blind_nil_bonus", "double_nil_bonus", "blind_bid_bonus_per_trick",
                "overtrick_points", "bag_penalty")
ALL_MAX = {name: MAX_POINTS for name in POINT_FIELDS}


# --- the bounds ---------------------------------------------------------------------------------
def test_every_integer_field_has_a_bound():
    ints = {f.name for f in dataclasses.fields(Rules) if f.type in ("int", "int | None")}
    assert ints == set(BOUNDS)
    assert set(BOUNDS) <= set(FIELD_NAMES)


def test_the_bounds_leave_a_margin():
    """A game of MAX_HAND_CAP hands with every points field at its bound stays 8 times (3 bits)
    below int64, and so do a deficit (a difference of two scores) and a target minus a score;
    bag counters stay inside int32; the engine's "below any score" start of a maximum search
    (``-(1 << 62)``) is below every score."""
    worst_hand = hand_points_bound(MAX_HAND_SIZE, *[MAX_POINTS] * 6)
    assert MAX_SCORE == MAX_HAND_CAP * worst_hand
    assert 8 * MAX_SCORE < INT64_MAX
    assert 4 * (2 * MAX_SCORE + MAX_POINTS) < INT64_MAX
    assert MAX_SCORE < 1 << 62
    # The search player sums (n_sides - 1) * 2 hand deltas over up to 10,000 samples a card.
    assert 10_000 * 2 * 3 * worst_hand < INT64_MAX
    assert MAX_HAND_SIZE * MAX_HAND_CAP < INT32_MAX // 8
    assert MAX_BAG_LIMIT < INT32_MAX // 8


def test_record_arrays_and_frames_are_wide_enough():
    for name in ("score_before", "score_delta"):
        assert schema.HAND_DTYPES[name][0] == np.int64
    for name in ("bags_before", "bags_after"):
        assert schema.HAND_DTYPES[name][0] == np.int32
    assert schema.GAME_DTYPES["final_score"][0] == np.int64
    assert schema.GAME_DTYPES["final_bags"][0] == np.int32


def _static_cases():
    """(field, value, extra fields) at each end of each static range, within classic."""
    cases = []
    for name, (low, high) in BOUNDS.items():
        if name in ("players", "blind_bid_max", "min_team_bid"):
            continue  # players is a choice; the other two are capped by the hand size below
        extra = {"target": MAX_POINTS} if name == "mercy" else {}
        cases.append((name, low, high, extra))
    return cases


STATIC = _static_cases()


@pytest.mark.parametrize("name, low, high, extra", STATIC, ids=[c[0] for c in STATIC])
def test_values_at_the_bounds_are_accepted(name, low, high, extra):
    for value in (low, high):
        rules = preset("classic", **extra, **{name: value})
        assert getattr(rules, name) == value
        assert build_rules("classic", [f"{k}={v}" for k, v in {**extra, name: value}.items()]) \
            == rules
        assert rules_from_spec(rules.to_spec()) == rules
        assert all(-INT64_MAX - 1 <= v <= INT64_MAX for v in rules.kernel_tuple())


@pytest.mark.parametrize("name, low, high, extra", STATIC, ids=[c[0] for c in STATIC])
def test_values_beyond_the_bounds_are_one_line_errors(name, low, high, extra):
    optional = "null or " if name in ("mercy", "max_hands") else ""
    for value in (low - 1, high + 1, -(10**30), 10**30):
        expected = f"rule {name}: {value} is out of range; allowed: {optional}{low}..{high}"
        builds = ((preset, "classic", {**extra, name: value}),
                  (build_rules, "classic", [f"{k}={v}" for k, v in {**extra, name: value}.items()]),
                  (rules_from_spec, {"preset": "classic", **extra, name: value}, None))
        for build, first, second in builds:
            with pytest.raises(RulesError) as error:
                if build is preset:
                    build(first, **second)
                elif second is None:
                    build(first)
                else:
                    build(first, second)
            assert str(error.value) == expected


def test_hand_size_caps():
    assert preset("cutthroat", blind_bid_max=17).blind_bid_max == 17
    with pytest.raises(RulesError, match=r"^rule blind_bid_max: 14 is out of range; "
                                         r"allowed: 1\.\.13$"):
        preset("classic", blind_bid_max=14)
    with pytest.raises(RulesError, match=r"^rule blind_bid_max: 18 is out of range; "
                                         r"allowed: 1\.\.17$"):
        preset("cutthroat", blind_bid_max=18)
    assert preset("classic", min_team_bid=13).min_team_bid == 13
    with pytest.raises(RulesError, match=r"^rule min_team_bid: 14 is out of range; "
                                         r"allowed: 0\.\.13$"):
        preset("classic", min_team_bid=14)
    with pytest.raises(RulesError, match=r"^rule mercy: 500 is not below the target 500; "
                                         r"allowed: null or -10000000000\.\.499$"):
        preset("classic", mercy=500)


@pytest.mark.parametrize("text, message", [
    ("target=9223372036854775808",
     "rule target: 9223372036854775808 is out of range; allowed: 1..10000000000"),
    ("target=99999999999999999999999",
     "rule target: 99999999999999999999999 is out of range; allowed: 1..10000000000"),
    ("target=-9223372036854775809",
     "rule target: -9223372036854775809 is out of range; allowed: 1..10000000000"),
    ("target=" + "9" * 5000,
     "rule target: an integer of 5000 digits is out of range; allowed: 1..10000000000"),
    ("mercy=-" + "9" * 5000,
     "rule mercy: an integer of 5000 digits is out of range; allowed: null or "
     "-10000000000..9999999999"),
    ("hand_cap=1048575", "rule hand_cap: 1048575 is out of range; allowed: 1..1048574"),
    ("bag_limit=100000001", "rule bag_limit: 100000001 is out of range; allowed: 0..100000000"),
    ("target=1e3", "rule target: '1e3' is not an integer"),
])
def test_override_texts(text, message):
    with pytest.raises(RulesError) as error:
        build_rules("classic", [text])
    assert str(error.value) == message


def test_huge_python_ints_are_one_line_errors():
    """``str`` refuses ints of more than 4300 digits; the message gives the size instead."""
    with pytest.raises(RulesError) as error:
        Rules(target=10**5000)
    assert str(error.value) == ("rule target: an integer of 16610 bits is out of range; "
                                "allowed: 1..10000000000")
    with pytest.raises(RulesError) as error:
        Rules(nil_bonus=-(10**60))
    assert str(error.value) == ("rule nil_bonus: a negative integer of 200 bits is out of range; "
                                "allowed: 0..10000000000")


@pytest.mark.parametrize("value", ["9223372036854775808", "99999999999999999999999"])
def test_command_line_refuses_in_one_line(value):
    """The issue's two commands: exit status 2 and one line, before any kernel is compiled."""
    done = subprocess.run(
        [sys.executable, "-m", "spades_sim.cli", "simulate", "--rule", f"target={value}",
         "--hands", "10"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr
    assert lines[0].endswith(f"rule target: {value} is out of range; allowed: 1..10000000000")


def test_experiment_files_refuse_with_the_line():
    text = ('name = "d"\nseed = 7\nhands = 1000\n\n[[config]]\nname = "plain"\n'
            'rules = "classic"\nrule = { target = 9223372036854775808 }\n')
    with pytest.raises(Exception) as error:
        parse_experiment(text)
    assert str(error.value) == ('<experiment>:8: config "plain": rule target: '
                                '9223372036854775808 is out of range; allowed: 1..10000000000')


# --- the engine, the twin and the replay at the bounds -----------------------------------------
R = "random"
# Random seats that bid blind (nil or a number) wherever allowed, bump half their bids and bid
# nil as often as anything else.
RB = "random:blind_nil_rate=0.3,blind_bid_rate=0.3,bump_rate=0.5,bid_min=0"
HB = "heuristic:blind_nil_deficit=0,blind_bid_deficit=0"
H = "heuristic"

# Every blind and nil feature on, so that each bonus and penalty can happen.
OPEN = {"blind_bids": True, "blind_bid_min_deficit": 0, "blind_bid_max": 13}
# (name, preset, overrides, strategy texts)
CASES = [
    ("classic-all-max", "classic",
     {**ALL_MAX, **OPEN, "bag_limit": 1, "target": MAX_POINTS, "mercy": -MAX_POINTS}, (RB, HB)),
    ("tournament-doubled", "tournament",
     {**ALL_MAX, "blind_nil_min_deficit": 0, "blind_bid_min_deficit": 0, "blind_bid_max": 13,
      "bag_limit": 2, "target": MAX_POINTS}, (RB, H)),
    ("fixed-double-nil", "casual",
     {**ALL_MAX, **OPEN, "blind_nil": True, "bag_limit": 1, "failed_nil_tricks":
      "count_toward_bid", "set_penalty": "per_trick_short", "ten_for_two_hundred": True,
      "nil_exchange": 4, "blind_nil_exchange": 4}, (RB,)),
    ("no-bag-limit", "jokers", {**ALL_MAX, **OPEN, "bag_limit": 0}, (RB, H)),
    ("bag-limit-max", "classic", {**ALL_MAX, **OPEN, "bag_limit": MAX_BAG_LIMIT}, (RB,)),
    ("cutthroat-all-max", "cutthroat",
     {**ALL_MAX, "blind_nil": True, "blind_bids": True, "blind_bid_min_deficit": 0,
      "blind_bid_max": 17, "bag_limit": 1, "bid_bump": True}, (RB, H, RB)),
    ("two-player-all-max", "two-player",
     {**ALL_MAX, "blind_nil": True, "blind_bids": True, "blind_bid_min_deficit": 0,
      "blind_bid_max": 13, "bag_limit": 1}, (RB, R)),
    ("nil-happy-3e9", "classic", {"nil_bonus": 3_000_000_000}, ("nil-happy",)),
]
# Whole games: (name, preset, overrides, strategy texts, n_games). Bag penalties of ten billion a
# bag with no points for overtricks keep every score falling, so that games run to their hand
# cap and sides trail each other by billions: blind bids then wait for the maximum deficits.
FALLING = {"bag_penalty": MAX_POINTS, "bag_limit": 1, "overtrick_points": 0, "target": MAX_POINTS}
GAME_CASES = [
    ("falling-to-the-cap", "classic",
     {"nil_bonus": MAX_POINTS, "blind_nil_bonus": MAX_POINTS, **FALLING, "hand_cap": 120},
     (RB,), 2),
    ("max-deficits", "tournament",
     {**ALL_MAX, **FALLING, "blind_nil_min_deficit": MAX_POINTS,
      "blind_bid_min_deficit": MAX_POINTS, "hand_cap": 150}, (RB, H), 3),
    ("all-max-to-target", "classic", {**ALL_MAX, **OPEN, "bag_limit": 1}, (RB, HB), 6),
    ("all-max-mercy", "classic", {**ALL_MAX, **OPEN, "bag_limit": 1, "mercy": -MAX_POINTS,
                                  "target": MAX_POINTS}, (RB,), 6),
    ("cutthroat-games", "cutthroat",
     {**ALL_MAX, **FALLING, "blind_nil": True, "blind_bids": True,
      "blind_bid_min_deficit": MAX_POINTS, "blind_bid_max": 17, "hand_cap": 100}, (RB,), 2),
]
# What each game case must show, so that none silently stops testing what it is for.
GAME_FEATURES = {"falling-to-the-cap": {"blind_nil", "cap"},
                 "max-deficits": {"blind_nil", "blind_bid", "cap"},
                 "all-max-to-target": {"blind_nil", "blind_bid"},
                 "all-max-mercy": {"blind_nil", "blind_bid"},
                 "cutthroat-games": {"blind_nil", "blind_bid", "cap"}}


def assert_replays(run, rules):
    """The hand log of ``run`` replays line by line, every result equal to the engine's."""
    stream = io.StringIO()
    assert write_log(stream, run) == len(run.hands.hand_id)
    lines = stream.getvalue().splitlines()
    results = replay(lines)
    errors = [result for result in results if isinstance(result, str)]
    assert not errors, errors[:3]
    n_sides = rules.n_sides
    for name in ("score_before", "score_delta", "bags_before", "bags_after"):
        assert [r[name] for r in results] == getattr(run.hands, name)[:, :n_sides].tolist(), name


def assert_in_bounds(hands, rules, n_hands):
    deltas = hands.score_delta[:, :rules.n_sides]
    assert np.abs(deltas).max() <= rules.max_hand_points
    scores = hands.score_before[:, :rules.n_sides]
    assert np.abs(scores).max() <= rules.max_score(n_hands)
    assert hands.bags_after[:, :rules.n_sides].max() <= rules.max_bags(n_hands)


@pytest.mark.parametrize("name, preset_name, overrides, texts", CASES, ids=[c[0] for c in CASES])
def test_hands_at_the_bounds(name, preset_name, overrides, texts):
    rules = preset(preset_name, **overrides)
    strategies = seat_strategies(texts, rules.players)
    run = runs.simulate_hands(rules, strategies, 150, 11, record_plays=True)
    hands = run.hands
    # 32-bit scores would have wrapped here: the int64 arrays are what keeps them right.
    assert np.abs(hands.score_delta).max() > INT32_MAX
    assert_in_bounds(hands, rules, 1)
    assert_replays(run, rules)
    twin = reference.simulate_hands(rules, strategies, 150, 11)
    assert_same_arrays(hands, reference_arrays(twin, rules), name)
    frame = run.frame()
    assert frame["score_delta"].dtype == np.int64 and frame["score_before"].dtype == np.int64
    assert frame["bags_before"].dtype == np.int32 and frame["bags_after"].dtype == np.int32
    rows = np.repeat(np.arange(len(hands.hand_id)), rules.players)
    sides = frame["side"].to_numpy()
    assert (frame["score_delta"].to_numpy() == hands.score_delta[rows, sides]).all()


@pytest.mark.parametrize("name, preset_name, overrides, texts, n_games", GAME_CASES,
                         ids=[c[0] for c in GAME_CASES])
def test_games_at_the_bounds(name, preset_name, overrides, texts, n_games):
    rules = preset(preset_name, **overrides)
    strategies = seat_strategies(texts, rules.players)
    run = runs.play_games(rules, strategies, n_games, 5, record_plays=True)
    hands, games = run.hands, run.games
    assert np.abs(games.final_score).max() > INT32_MAX
    assert_in_bounds(hands, rules, rules.hand_cap - 1)
    assert np.abs(games.final_score).max() <= rules.max_score(rules.hand_cap)
    blind = hands.blind[:, :rules.players] != 0
    bids = hands.bids[:, :rules.players]
    found = {"blind_nil"} if (blind & (bids == 0)).any() else set()
    found |= {"blind_bid"} if (blind & (bids > 0)).any() else set()
    found |= {"cap"} if (games.n_hands == rules.hand_cap).all() else set()
    assert GAME_FEATURES[name] <= found
    assert_replays(run, rules)
    twin_hands, twin_games = reference.play_games(rules, strategies, n_games, 5)
    assert_same_arrays(hands, reference_arrays(twin_hands, rules), name)
    for row, game in enumerate(twin_games):
        assert games.final_score[row, :rules.n_sides].tolist() == game["final_score"]
        assert games.final_bags[row, :rules.n_sides].tolist() == game["final_bags"]
        assert (int(games.n_hands[row]), int(games.winner[row])) == (game["n_hands"],
                                                                    game["winner"])


# --- replay refuses what no game can reach, in one line -----------------------------------------
def golden_first():
    return json.loads((GOLDEN / "classic_game.jsonl").read_text().splitlines()[0])


DELETE = object()


def replayed(**changes):
    obj = golden_first()
    obj.update(changes)
    obj = {name: value for name, value in obj.items() if value is not DELETE}
    result = replay_line(1, json.dumps(obj))
    if isinstance(result, str):
        assert "\n" not in result and "Traceback" not in result
    return result


P = "line 1 (hand 0): "
CLASSIC_MOST = 199 * preset("classic").max_hand_points  # hand_cap 200: 199 hands before the last


@pytest.mark.parametrize("changes, message", [
    ({"rules": {"preset": "classic", "target": 9223372036854775808}},
     P + "rule target: 9223372036854775808 is out of range; allowed: 1..10000000000"),
    ({"rules": {"preset": "classic", "nil_bonus": 10**30}},
     P + f"rule nil_bonus: {10**30} is out of range; allowed: 0..10000000000"),
    ({"rules": {"preset": "classic", "mercy": -(10**10) - 1}},
     P + "rule mercy: -10000000001 is out of range; allowed: null or -10000000000..499"),
    ({"rules": {"preset": "classic", "hand_cap": 2**20}},
     P + "rule hand_cap: 1048576 is out of range; allowed: 1..1048574"),
    ({"score_before": [10**29, 0]},
     P + f"score_before: side 0: {10**29} could not arise; allowed under these rules: "
         f"-{CLASSIC_MOST}..{CLASSIC_MOST} (at most 2646 points a hand in the 199 hands before "
         f"a game's last, hand_cap 200)"),
    ({"score_before": [0, -CLASSIC_MOST - 1]},
     P + f"score_before: side 1: {-CLASSIC_MOST - 1} could not arise; allowed under these "
         f"rules: -{CLASSIC_MOST}..{CLASSIC_MOST} (at most 2646 points a hand in the 199 hands "
         f"before a game's last, hand_cap 200)"),
    ({"rules": {"preset": "classic", "hand_cap": 1}, "score_before": [1, 0]},
     P + "score_before: side 0: 1 could not arise; allowed under these rules: 0..0 (at most "
         "2646 points a hand in the 0 hands before a game's last, hand_cap 1)"),
    ({"rules": {"preset": "classic", "bag_limit": 0}, "bags_before": [0, 2588]},
     P + "bags_before: side 1: 2588 could not arise; allowed under these rules: 0..2587 (at "
         "most 13 bags a hand in the 199 hands before a game's last, hand_cap 200)"),
    ({"bags_before": [10**30, 0]},
     P + f"bags_before: side 0 has {10**30} bags, at or above the bag limit 10"),
    ({"score_delta": [10**30, 80]},
     P + f"inconsistent results: score_delta is [{10**30}, 80] but the rules give [191, -40]"),
    ({"hand_id": 2**63}, "line 1: hand_id: 9223372036854775808 is out of range; allowed: "
                         "0..9223372036854775807"),
    ({"hand_id": -1}, "line 1: hand_id: -1 is out of range; allowed: 0..9223372036854775807"),
    ({"game_id": 2**64}, P + "game_id: 18446744073709551616 is out of range; allowed: null or "
                             "0..9223372036854775807"),
])
def test_replay_refuses_values_beyond_the_bounds(changes, message):
    assert replayed(**changes) == message


def test_replay_accepts_values_at_the_bounds():
    assert isinstance(replayed(score_before=[CLASSIC_MOST, -CLASSIC_MOST]), dict)
    result = replayed(rules={"preset": "classic", "bag_limit": 0}, bags_before=[2587, 0],
                      bags_after=DELETE)
    assert result["bags_after"] == [2588, 0]
    at_max = {"preset": "classic", **ALL_MAX, "target": MAX_POINTS, "mercy": -MAX_POINTS,
              "hand_cap": MAX_HAND_CAP}
    most = (MAX_HAND_CAP - 1) * preset("classic", **ALL_MAX).max_hand_points
    result = replayed(rules=at_max, score_before=[most, -most], score_delta=DELETE,
                      bags_after=DELETE)
    assert isinstance(result, dict), result
    # Team 0: the nil made (+1e10), 9 bid and 10 taken (+90, one overtrick at 1e10); team 1:
    # 4 bid, 3 taken (-40).
    assert result["score_delta"] == [2 * 10**10 + 90, -40]


def test_replay_of_huge_numbers_is_one_line():
    """Ints of any size, up to what JSON parsing itself refuses (4300 digits), are one line."""
    huge = "9" * 4000
    obj = golden_first()
    text = json.dumps(obj).replace('"score_before": [0, 0]', f'"score_before": [{huge}, 0]')
    assert huge in text
    result = replay_line(1, text)
    bits = int(huge).bit_length()
    assert result.startswith(P + f"score_before: side 0: an integer of {bits} bits could not "
                                 f"arise")
    assert "\n" not in result
    too_long = text.replace(huge, "9" * 5000)
    result = replay_line(1, too_long)
    assert isinstance(result, str) and result.startswith("line 1: not valid JSON")


@pytest.mark.slow
def test_a_game_of_the_largest_hand_cap():
    """One game of MAX_HAND_CAP hands (about a million; a few seconds) with no bag limit and nils
    worth five billion that random seats mostly fail: bag counters pass int16, scores pass
    int32 by far, and both stay within the bounds and consistent from hand to hand."""
    rules = preset("classic", bag_limit=0, target=MAX_POINTS, hand_cap=MAX_HAND_CAP,
                   nil_bonus=MAX_POINTS // 2)
    run = runs.play_games(rules, seat_strategies(("random:bid_min=0",), 4), 1, 0)
    hands, games = run.hands, run.games
    assert int(games.n_hands[0]) == MAX_HAND_CAP and int(games.winner[0]) == -1
    before, delta = hands.score_before[:, :2], hands.score_delta[:, :2]
    assert (before[1:] == before[:-1] + delta[:-1]).all()
    assert (games.final_score[0, :2] == before[-1] + delta[-1]).all()
    assert (hands.bags_before[1:, :2] == hands.bags_after[:-1, :2]).all()
    assert (games.final_bags[0, :2] == hands.bags_after[-1, :2]).all()
    assert games.final_score[0, :2].min() < -(10**15)
    assert games.final_bags[0, :2].min() > 2**16
    assert_in_bounds(hands, rules, MAX_HAND_CAP - 1)
    assert np.abs(games.final_score).max() <= rules.max_score(MAX_HAND_CAP)
