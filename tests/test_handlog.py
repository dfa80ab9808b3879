"""Hand logs: engine -> write_log -> replay round trips, golden logs, and every kind of bad line.

The golden logs in ``tests/golden/`` were written by hand (``classic_game.jsonl``: a classic hand
with a made nil, then the next hand of the game with a blind nil and its 3-card exchange; scores
worked out by hand below) and are replayed by their actions, so they survive any RNG change.
"""

import copy
import io
import json
from pathlib import Path

import numpy as np
import pytest

from spades_sim import handlog
from spades_sim import run as runs
from spades_sim.core.cards import card_text
from spades_sim.core.rules import FIELD_NAMES, PRESETS, preset
from spades_sim.core.strategies import parse_strategy
from spades_sim.handlog import replay, replay_file, replay_line, write_log

GOLDEN = Path(__file__).parent / "golden"
NIL_MIX = ("random:bid_min=0", "heuristic")


def golden_lines(name):
    return (GOLDEN / name).read_text().splitlines()


def seat_strategies(texts, players):
    return [parse_strategy(texts[seat % len(texts)]) for seat in range(players)]


@pytest.fixture(scope="module")
def compiled():
    """Compile (or load) both entry kernels once for this module."""
    rules = preset("classic")
    strategies = seat_strategies(("random",), 4)
    runs.simulate_hands(rules, strategies, 1, 0, record_plays=True)
    runs.play_games(rules, strategies, 1, 0, record_plays=True)
    return True


# --- round trips ------------------------------------------------------------------------------
def assert_round_trip(run, path):
    """write_log -> replay accepts every line; results recomputed without them = the engine's."""
    count = write_log(path, run)
    lines = path.read_text().splitlines()
    assert count == len(lines) == len(run.hands.hand_id)
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]
    results = replay(lines)
    errors = [result for result in results if isinstance(result, str)]
    assert not errors, errors[:3]
    assert results == [json.loads(line) for line in lines]  # nothing changed, nothing lost
    stripped = []
    for line in lines:
        obj = json.loads(line)
        for name in handlog.RESULT_FIELDS:
            del obj[name]
        stripped.append(json.dumps(obj))
    scored = replay(stripped)
    n_seats, n_sides = run.rules.players, run.rules.n_sides
    hands = run.hands
    assert np.array_equal([s["tricks"] for s in scored], hands.tricks[:, :n_seats])
    assert np.array_equal([s["score_delta"] for s in scored], hands.score_delta[:, :n_sides])
    assert np.array_equal([s["bags_after"] for s in scored], hands.bags_after[:, :n_sides])
    return scored


RB = "random:blind_nil_rate=0.3,blind_bid_rate=0.3,bump_rate=0.5,bid_min=0"
HB = "heuristic:blind_nil_deficit=0,blind_bid_deficit=0"
CONSTRAINED = {"nil_exchange": 2, "min_team_bid": 5, "bids_total_not_tricks": True,
               "bid_bump": True, "blind_bids": True, "blind_bid_min_deficit": 0}


def logged_features(scored):
    """What the logged hands show: blind nils, blind number bids, bumps, exchanges."""
    found = set()
    for obj in scored:
        for blind, bid in zip(obj["blind"], obj["bids"], strict=True):
            if blind:
                found.add("blind_nil" if bid == 0 else "blind_bid")
        if any(obj.get("bumped", ())):
            found.add("bump")
        if obj.get("exchange"):
            found.add("exchange")
    return found


def assert_written_as_recorded(run, scored):
    """blind, bids, bumped and exchange of each line are the engine's schema."""
    hands, players = run.hands, run.rules.players
    for row, obj in enumerate(scored):
        assert obj["blind"] == [bool(flag) for flag in hands.blind[row, :players]]
        assert obj["bids"] == hands.bids[row, :players].tolist()
        assert obj.get("bumped", [False] * players) == [
            bool(flag) for flag in hands.bumped[row, :players]]
        recorded = [[int(a), int(b), card_text(int(c))] for a, b, c in hands.exchange[row]
                    if a >= 0]
        assert obj.get("exchange", []) == recorded


# (preset, overrides, strategy texts, features the log must show)
HAND_RULES = [
    ("classic", {}, (RB, HB), {"blind_nil", "exchange"}),
    ("casual", {}, NIL_MIX, set()),
    ("cutthroat", {}, (RB,), set()),
    ("two-player", {}, (RB, "heuristic"), set()),
    ("simple", {}, NIL_MIX, set()),
    ("tournament", {}, (RB, "heuristic"), {"bump"}),
    ("jokers", {}, (RB, HB), {"blind_nil", "exchange"}),
    ("openspiel", {}, NIL_MIX, set()),
    ("tournament", {"blind_nil_min_deficit": 0, "blind_bid_min_deficit": 0}, (RB, HB),
     {"blind_nil", "blind_bid", "bump", "exchange"}),
    ("classic", CONSTRAINED, (RB, "heuristic"), {"blind_nil", "blind_bid", "bump", "exchange"}),
    ("classic", {**CONSTRAINED, "nil": False, "blind_nil_exchange": 4}, (RB, HB),
     {"blind_nil", "blind_bid", "bump", "exchange"}),
    ("classic", {"first_leader": "two_of_clubs", "nil_exchange": 3}, (RB, HB),
     {"blind_nil", "exchange"}),
    ("classic", {"spades_lead": "after_first_trick"}, NIL_MIX, set()),
    ("classic", {"spades_lead": "anytime", "nil": False}, (RB,), {"blind_nil", "exchange"}),
    ("cutthroat", {"blind_nil": True, "blind_bids": True, "blind_bid_min_deficit": 0,
                   "bid_bump": True, "bids_total_not_tricks": True}, (RB, "heuristic"),
     {"blind_nil", "blind_bid", "bump"}),
    ("two-player", {"blind_nil": True, "blind_bids": True, "blind_bid_min_deficit": 0,
                    "bid_bump": True}, (RB,),
     {"blind_nil", "blind_bid", "bump"}),
    ("two-player", {"deal": "standard"}, NIL_MIX, set()),
]


@pytest.mark.parametrize("name, overrides, texts, expected", HAND_RULES,
                         ids=[f"{case[0]}-{case[1]}" for case in HAND_RULES])
def test_round_trip_hands(compiled, tmp_path, name, overrides, texts, expected):
    rules = preset(name, **overrides)
    run = runs.simulate_hands(rules, seat_strategies(texts, rules.players), 300, 3,
                             record_plays=True)
    scored = assert_round_trip(run, tmp_path / "hands.jsonl")
    assert all(obj["game_id"] is None for obj in scored)
    assert scored[0]["rules"] == rules.to_spec()
    assert_written_as_recorded(run, scored)
    missing = set(expected) - logged_features(scored)
    assert not missing, f"no {', '.join(sorted(missing))} in the log"


# (preset, overrides, strategy texts, n_games, features the log must show)
GAME_RULES = [
    *[(name, {}, (RB, "heuristic"), 3, set()) for name in PRESETS],
    ("tournament", {"target": 1000}, ("heuristic", RB), 4, {"blind_nil", "blind_bid", "bump",
                                                            "exchange"}),
    ("tournament", {}, ("heuristic:blind_nil_deficit=100",), 6, {"blind_nil", "exchange"}),
    ("classic", CONSTRAINED, (RB, HB), 3, {"blind_nil", "blind_bid", "bump", "exchange"}),
    ("classic", {}, ("random",), 3, {"blind_nil", "exchange"}),
]


@pytest.mark.parametrize("name, overrides, texts, n_games, expected", GAME_RULES,
                         ids=[f"{case[0]}-{case[1]}-{'+'.join(case[2])}" for case in GAME_RULES])
def test_round_trip_games(compiled, tmp_path, name, overrides, texts, n_games, expected):
    rules = preset(name, **overrides)
    run = runs.play_games(rules, seat_strategies(texts, rules.players), n_games, 4,
                         record_plays=True)
    scored = assert_round_trip(run, tmp_path / "games.jsonl")
    for before, after in zip(scored, scored[1:], strict=False):
        if before["game_id"] == after["game_id"]:
            assert after["score_before"] == [
                a + b for a, b in zip(before["score_before"], before["score_delta"], strict=True)]
            assert after["bags_before"] == before["bags_after"]
    assert len({obj["game_id"] for obj in scored}) == n_games
    assert_written_as_recorded(run, scored)
    missing = set(expected) - logged_features(scored)
    assert not missing, f"no {', '.join(sorted(missing))} in the log"


def test_two_player_draw_deal_is_accepted(compiled):
    """Under ``deal = draw`` each player holds 13 of the 52 cards and 26 stay undealt."""
    rules = preset("two-player")
    run = runs.simulate_hands(rules, seat_strategies(NIL_MIX, 2), 20, 8, record_plays=True)
    buffer = io.StringIO()
    write_log(buffer, run)
    lines = buffer.getvalue().splitlines()
    for line in lines:
        obj = json.loads(line)
        assert obj["rules"] == "two-player"
        assert [len(cards) for cards in obj["hands"]] == [13, 13]
        assert len(obj["plays"]) == 26 and len(obj["score_delta"]) == 2
    assert all(isinstance(result, dict) for result in replay(lines))


def test_write_log_to_open_file_and_refusals(compiled, tmp_path):
    rules = preset("classic")
    strategies = seat_strategies(("heuristic",), 4)
    run = runs.simulate_hands(rules, strategies, 5, 1, record_plays=True)
    buffer = io.StringIO()
    assert write_log(buffer, run) == 5
    assert buffer.getvalue() == "".join(line + "\n" for line in _lines_of(run, tmp_path))
    first = json.loads(buffer.getvalue().splitlines()[0])
    assert list(first) == [f for f in handlog.FIELDS if f not in ("bumped", "exchange")]
    assert sum(len(cards) for cards in first["hands"]) == 52 and len(first["plays"]) == 52
    unrecorded = runs.simulate_hands(rules, strategies, 5, 1)
    target = tmp_path / "never.jsonl"
    with pytest.raises(ValueError, match="record_plays"):
        write_log(target, unrecorded)
    assert list(tmp_path.iterdir()) == [tmp_path / "log.jsonl"]  # no file, no temp file left


def test_write_log_writes_regular_files_only(compiled, tmp_path):
    """A path that is not a regular file is refused, never replaced by one (the CLI checks
    the same before playing: tests/test_cli_errors.py)."""
    import os

    from spades_sim.core.errors import HandLogError
    from spades_sim.handlog.write import check_log_path

    run = runs.simulate_hands(preset("classic"), seat_strategies(("random",), 4), 3, 1,
                              record_plays=True)
    target = tmp_path / "target.jsonl"
    target.write_text("keep\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path, kind in ((link, "a symbolic link"), (fifo, "a named pipe (FIFO)"),
                       (tmp_path, "a directory"), (os.devnull, "a character device")):
        with pytest.raises(HandLogError, match=f"is {kind.replace('(', '.').replace(')', '.')}; "
                                               f"a hand log is written to a regular file only"):
            write_log(path, run)
    assert link.is_symlink() and target.read_text() == "keep\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo", "link.jsonl", "target.jsonl"]
    assert write_log(target, run) == 3  # a regular file is replaced whole
    assert len(target.read_text().splitlines()) == 3 and link.is_symlink()
    assert check_log_path(tmp_path / "new.jsonl") == tmp_path / "new.jsonl"
    with pytest.raises(HandLogError, match="does not exist"):
        check_log_path(tmp_path / "missing" / "log.jsonl")


def _lines_of(run, tmp_path):
    write_log(tmp_path / "log.jsonl", run)
    return (tmp_path / "log.jsonl").read_text().splitlines()


# --- golden logs --------------------------------------------------------------------------------
@pytest.mark.parametrize("name, status", [("classic_game", 0), ("bad_lines", 1)])
@pytest.mark.parametrize("line_end", ["\n", "\r\n"])
def test_golden_logs(tmp_path, name, status, line_end):
    log = tmp_path / "log.jsonl"
    log.write_bytes((GOLDEN / f"{name}.jsonl").read_bytes().replace(b"\n", line_end.encode()))
    out, err = io.StringIO(), io.StringIO()
    assert replay_file(log, out, err) == status
    assert out.getvalue() == (GOLDEN / f"{name}.expected.jsonl").read_text()
    assert err.getvalue() == (GOLDEN / f"{name}.expected.err").read_text()


def test_golden_classic_game_by_hand():
    """The scores of the golden game, worked out by hand from rules.md.

    Hand 0: seat 0 bids 9 and takes 10, seat 2's nil holds: team 0 scores 90 + 1 bag + 100 nil =
    191; team 1 bids 3 + 1 = 4 and takes 3: set, -40. Hand 1 (the seats turned one to the left):
    seat 3 bids blind nil and holds (+200) while seat 1 bids 9 and takes 10 (91): team 1 scores
    291 and has 1 bag; team 0 is set for -40 and keeps its bag from hand 0.
    """
    first, second = replay(golden_lines("classic_game.jsonl"))
    assert first["tricks"] == [10, 3, 0, 0]
    assert (first["score_delta"], first["bags_after"]) == ([191, -40], [1, 0])
    assert second["tricks"] == [0, 10, 3, 0]
    assert second["score_before"] == [191, -40] and second["bags_before"] == [1, 0]
    assert (second["score_delta"], second["bags_after"]) == ([-40, 291], [1, 1])


# --- bad input, one kind at a time ---------------------------------------------------------------
def base():
    """Hand 0 of the golden game (a valid classic line), as a fresh dict."""
    return json.loads(golden_lines("classic_game.jsonl")[0])


def blind_nil_hand():
    """Hand 1 of the golden game: seat 3 bids blind nil and exchanges 3 cards with seat 1."""
    return json.loads(golden_lines("classic_game.jsonl")[1])


def error(obj, line_number=1):
    result = replay_line(line_number, obj if isinstance(obj, (str, bytes)) else json.dumps(obj))
    assert isinstance(result, str), "expected an error line"
    return result


def edit(obj=None, **fields):
    obj = copy.deepcopy(base() if obj is None else obj)
    for name, value in fields.items():
        if value is DELETE:
            del obj[name]
        else:
            obj[name] = value
    return obj


DELETE = object()


def plays_with(changes, obj=None):
    plays = copy.deepcopy((obj or base())["plays"])
    for index, entry in changes.items():
        plays[index] = entry
    return plays


def hands_with(seat, index, card):
    hands = copy.deepcopy(base()["hands"])
    hands[seat][index] = card
    return hands


def test_the_spec_example_message_shape():
    lines = golden_lines("classic_game.jsonl")
    bad = edit(hand_id=17, plays=plays_with({18: [2, "TD"], 26: [2, "7H"]}))
    results = replay([lines[0], "", json.dumps(bad)])
    assert results[1] is None  # a blank line is skipped but still counted
    assert results[2] == ("line 3 (hand 17): trick 5: seat 2 played TD but holds hearts and "
                          "must follow KH")


P = "line 1 (hand 0): "
BAD_CASES = [
    # not JSON / not an object / not UTF-8
    ("not JSON", "{nope", "line 1: not valid JSON: Expecting property name enclosed in double "
                          "quotes at column 2"),
    ("JSON array", "[1, 2]", "line 1: expected a JSON object, got array [1, 2]"),
    ("JSON null", "null", "line 1: expected a JSON object, got null"),
    ("field twice", '{"hand_id": 1, "v": 1, "v": 1}',
     'line 1: not valid JSON: field "v" is given twice'),
    ("bad UTF-8", b'{"v": 1, "x": "\xff"}', "line 1: not valid UTF-8 (invalid start byte at "
                                            "byte 15)"),
    # missing and unknown fields, version, ids
    ("missing hand_id", edit(hand_id=DELETE), 'line 1: missing field "hand_id"'),
    ("hand_id not int", edit(hand_id="7"), 'line 1: hand_id: "7" is not an integer'),
    ("missing bids", edit(bids=DELETE), P + 'missing field "bids"'),
    ("missing plays", edit(plays=DELETE), P + 'missing field "plays"'),
    ("missing v", edit(v=DELETE), P + 'missing field "v"'),
    ("unknown field", edit(score_befor=[0, 0]), P + 'unknown field "score_befor"; the fields '
     'are v, rules, hand_id, game_id, dealer, hands, blind, bids, bumped, exchange, plays, '
     'tricks, score_before, bags_before, score_delta, bags_after'),
    ("wrong v", edit(v=2), P + "v: 2 is not a supported version; expected 1"),
    ("v as bool", edit(v=True), P + "v: true is not a supported version; expected 1"),
    ("game_id text", edit(game_id="g"), P + 'game_id: "g" is neither an integer nor null'),
    ("dealer out of range", edit(dealer=4), P + "dealer: 4 is not a seat (0..3)"),
    # rules
    ("unknown preset", edit(rules="bridge"), P + "rules: unknown preset 'bridge'; allowed: "
     "classic, casual, cutthroat, two-player, simple, tournament, jokers, openspiel"),
    ("unknown rule field", edit(rules={"preset": "classic", "colour": 1}),
     P + "rules: unknown rule field 'colour'; allowed: " + ", ".join(FIELD_NAMES)),
    ("bad rule value", edit(rules={"target": 0}),
     P + "rule target: 0 is out of range; allowed: 1..10000000000"),
    ("rules not text", edit(rules=5), P + "rules: 5 is neither a preset name nor an object"),
    # scores and bags before the hand
    ("score_before text", edit(score_before=["x", 0]),
     P + 'score_before: side 0: "x" is not an integer'),
    ("score_before length", edit(score_before=[0, 0, 0]),
     P + "score_before: expected a list of 2 integers (one per side), got 3 entries"),
    ("bags at the limit", edit(bags_before=[10, 0]),
     P + "bags_before: side 0 has 10 bags, at or above the bag limit 10"),
    ("negative bags", edit(bags_before=[0, -1]), P + "bags_before: side 1: -1 is below 0"),
    # the deal
    ("hands length", edit(hands=base()["hands"][:3]),
     P + "hands: expected 4 lists of cards (one per seat), got 3 entries"),
    ("unknown card", edit(hands=hands_with(2, 4, "ZZ")), P + 'hands: seat 2: unknown card "ZZ"'),
    ("card dealt twice", edit(hands=hands_with(3, 12, "AS")),
     P + "hands: AS is dealt twice (to seats 0 and 3)"),
    ("card twice to a seat", edit(hands=hands_with(0, 1, "AS")),
     P + "hands: AS is dealt twice (twice to seat 0)"),
    ("wrong count", edit(hands=[base()["hands"][0], base()["hands"][1],
                                base()["hands"][2] + ["2C"], base()["hands"][3][:12]]),
     P + "hands: seat 2 holds 14 cards; expected 13"),
    ("card not in the deck", edit(hands=hands_with(3, 12, "BJ")),
     P + "hands: seat 3 holds BJ, not in the deck of these rules"),
    ("misdeal", edit(rules="casual"),
     P + "hands: seat 2 holds no spade: a misdeal, which must be redealt (misdeal_redeal)"),
    # bids
    ("bids length", edit(bids=[9, 3, 0]),
     P + "bids: expected a list of 4 integers (one per seat), got 3 entries"),
    ("bid as text", edit(bids=["9", 3, 0, 1]), P + 'bids: seat 0: "9" is not an integer'),
    ("bid too high", edit(bids=[14, 3, 0, 1]), P + "bids: seat 0 bid 14; allowed 0..13"),
    ("bid negative", edit(bids=[9, -1, 0, 1]), P + "bids: seat 1 bid -1; allowed 0..13"),
    ("blind length", edit(blind=[False] * 5),
     P + "blind: expected a list of 4 booleans (one per seat), got 5 entries"),
    ("blind not bool", edit(blind=[0, 0, 0, 0]), P + "blind: seat 0: 0 is not true or false"),
    ("blind nil off", edit(rules="simple", blind=[False, False, True, False]),
     P + "bids: seat 2 bid blind nil, which these rules do not allow (blind_nil is off)"),
    ("blind nil deficit", edit(rules="tournament", blind=[False, False, True, False]),
     P + "bids: seat 2 bid blind nil but its side trails by 0; it must trail by at least 100 "
         "(blind_nil_min_deficit)"),
    ("blind bid off", edit(blind=[False, False, False, True]),
     P + "bids: seat 3 bid the blind bid 1, which these rules do not allow (blind_bids is off)"),
    ("blind bid too high", edit(rules="tournament", blind=[True, False, False, False],
                                score_before=[-300, 0]),
     P + "bids: seat 0 bid the blind bid 9; allowed blind bids 1..7"),
    ("bids total the tricks", edit(rules={"preset": "classic", "bids_total_not_tricks": True}),
     P + "bids: the bids (before any bump) total 13, the number of tricks; the dealer (seat 3) "
         "bids last and may not make that total (bids_total_not_tricks)"),
    ("min team bid", edit(rules={"preset": "classic", "min_team_bid": 5}),
     P + "bids: team 1 bid 4 in all, below min_team_bid 5 (and neither partner bid nil)"),
    ("bump off", edit(bumped=[True, False, False, False]),
     P + "bumped: seat 0 raised its bid, which these rules do not allow (bid_bump is off)"),
    ("bumped nil", edit(rules={"preset": "classic", "bid_bump": True},
                        bumped=[False, False, True, False]),
     P + "bumped: seat 2 raised a nil or blind bid; only a non-nil, non-blind bid may be bumped"),
    ("bumped from a nil", edit(rules={"preset": "classic", "bid_bump": True}, bids=[9, 3, 1, 1],
                               bumped=[False, False, True, False]),
     P + "bumped: seat 2 raised a nil or blind bid; only a non-nil, non-blind bid may be bumped"),
    ("bumped blind bid", edit(rules={"preset": "classic", "bid_bump": True, "blind_bids": True},
                              blind=[False, False, False, True], bumped=[False, False, False, True],
                              score_before=[100, 0]),
     P + "bumped: seat 3 raised a nil or blind bid; only a non-nil, non-blind bid may be bumped"),
    ("bumped not bools", edit(rules={"preset": "classic", "bid_bump": True}, bumped=[1, 0, 0, 0]),
     P + "bumped: seat 0: 1 is not true or false"),
    ("bumped length", edit(rules={"preset": "classic", "bid_bump": True}, bumped=[False]),
     P + "bumped: expected a list of 4 booleans (one per seat), got 1 entries"),
    ("blind bid deficit", edit(rules="tournament", blind=[False, False, False, True],
                               score_before=[150, 100]),
     P + "bids: seat 3 bid the blind bid 1 but its side trails by 50; it must trail by at least "
         "100 (blind_bid_min_deficit)"),
    ("blind bid when ahead", edit(
        rules={"preset": "classic", "blind_bids": True}, blind=[False, True, False, False],
        score_before=[0, 10]),
     P + "bids: seat 1 bid the blind bid 3 but its side leads by 10; it must trail by at least "
         "100 (blind_bid_min_deficit)"),
    ("blind nil deficit, individual", edit(
        rules={"preset": "cutthroat", "blind_nil": True, "blind_nil_min_deficit": 50,
               "misdeal_redeal": False},
        hands=[[*base()["hands"][0], *base()["hands"][3][:4]],
               [*base()["hands"][1], *base()["hands"][3][4:8]],
               [*base()["hands"][2], *base()["hands"][3][8:12]]],
        dealer=2, bids=[9, 3, 0], blind=[False, False, True], score_before=[100, 20, 60],
        bags_before=[0, 0, 0]),
     P + "bids: seat 2 bid blind nil but its side trails by 40; it must trail by at least 50 "
         "(blind_nil_min_deficit)"),
    ("bids total the tricks before a bump", edit(
        rules={"preset": "classic", "bids_total_not_tricks": True, "bid_bump": True},
        bids=[10, 3, 0, 1], bumped=[True, False, False, False]),
     P + "bids: the bids (before any bump) total 13, the number of tricks; the dealer (seat 3) "
         "bids last and may not make that total (bids_total_not_tricks)"),
    ("min team bid before a bump", edit(
        rules={"preset": "classic", "min_team_bid": 5, "bid_bump": True}, bids=[9, 4, 0, 1],
        bumped=[False, True, False, False]),
     P + "bids: team 1 bid 4 in all, below min_team_bid 5 (and neither partner bid nil)"),
    ("nil exchange missing", edit(rules={"preset": "classic", "nil_exchange": 2}),
     P + "exchange: seat 2 bid nil, so it passes 2 cards to seat 0 and gets 2 back; the log has "
         "0 passed and 0 back"),
    ("exchange not a list", edit(exchange={"from": 2}),
     P + 'exchange: expected a list of [from_seat, to_seat, card], got {"from": 2}'),
    # plays: shape
    ("too few plays", edit(plays=base()["plays"][:51]),
     P + "plays: expected 52 plays (13 tricks of 4), got 51"),
    ("play not a pair", edit(plays=plays_with({5: [1]})),
     P + "trick 2: play 6: expected [seat, card], got [1]"),
    ("play seat out of range", edit(plays=plays_with({5: [9, "QD"]})),
     P + "trick 2: play 6: 9 is not a seat (0..3)"),
    ("unknown card played", edit(plays=plays_with({5: [1, "XX"]})),
     P + 'trick 2: seat 1 played an unknown card "XX"'),
    # plays: turn order
    ("first lead out of turn", edit(plays=plays_with({0: [1, "JD"], 1: [0, "AD"]})),
     P + "trick 1: seat 1 led out of turn; seat 0, left of the dealer (seat 3), leads"),
    ("follower out of turn", edit(plays=plays_with({9: [2, "9C"], 10: [1, "KC"]})),
     P + "trick 3: seat 2 played out of turn; seat 1 is to play"),
    ("later lead out of turn", edit(plays=plays_with({28: [2, "5H"], 29: [1, "KS"]})),
     P + "trick 8: seat 2 led out of turn; seat 1 won trick 7 and leads"),
    ("dealer moved", edit(dealer=0),
     P + "trick 1: seat 0 led out of turn; seat 1, left of the dealer (seat 0), leads"),
    # plays: cards held, suit followed, spades led
    ("card not held", edit(plays=plays_with({1: [1, "AH"]})),
     P + "trick 1: seat 1 played AH but does not hold it"),
    ("card played twice", edit(plays=plays_with({5: [1, "JD"]})),
     P + "trick 2: seat 1 played JD but does not hold it (it was played in trick 1)"),
    ("fails to follow", edit(plays=plays_with({18: [2, "TD"], 26: [2, "7H"]})),
     P + "trick 5: seat 2 played TD but holds hearts and must follow KH"),
    ("spade led before broken", edit(plays=plays_with({0: [0, "AS"], 31: [0, "AD"]})),
     P + "trick 1: seat 0 led AS before spades are broken while holding other suits"),
    ("forced lead does not break (simple)", edit(rules="simple"),
     P + "trick 8: seat 1 led KS before spades are broken while holding other suits"),
    ("spade led in trick 1 (after_first_trick)",
     edit(rules={"preset": "classic", "spades_lead": "after_first_trick"},
          plays=plays_with({0: [0, "AS"], 31: [0, "AD"]})),
     P + "trick 1: seat 0 led AS in the first trick while holding other suits "
         "(spades_lead after_first_trick)"),
    ("two_of_clubs: wrong leader", edit(rules={"preset": "classic",
                                               "first_leader": "two_of_clubs"}),
     P + "trick 1: seat 0 led, but seat 3 holds 2C and must lead it (first_leader two_of_clubs)"),
    ("two_of_clubs: wrong card", edit(rules={"preset": "classic", "first_leader": "two_of_clubs"},
                                      plays=plays_with({0: [3, "7D"]})),
     P + "trick 1: seat 3 led 7D but must lead 2C (first_leader two_of_clubs)"),
    # results that differ
    ("tricks differ", edit(tricks=[9, 4, 0, 0]),
     P + "inconsistent results: tricks is [9, 4, 0, 0] but the plays give [10, 3, 0, 0]"),
    ("score_delta differs", edit(score_delta=[191, -30]),
     P + "inconsistent results: score_delta is [191, -30] but the rules give [191, -40]"),
    ("bags_after differ", edit(bags_after=[0, 0]),
     P + "inconsistent results: bags_after is [0, 0] but the rules give [1, 0]"),
    ("tricks length", edit(tricks=[10, 3, 0]),
     P + "tricks: expected a list of 4 integers (one per seat), got 3 entries"),
    ("score_delta for individual sides", edit(score_delta=[191, -40, 0]),
     P + "score_delta: expected a list of 2 integers (one per side), got 3 entries"),
]


@pytest.mark.parametrize("case, line, expected", BAD_CASES, ids=[c[0] for c in BAD_CASES])
def test_bad_line(case, line, expected):
    assert error(line) == expected


def test_exchange_faults():
    hand = blind_nil_hand()
    Q = "line 1 (hand 1): "
    assert replay_line(1, json.dumps(hand))["score_delta"] == [-40, 291]
    assert error(edit(hand, exchange=DELETE)) == (
        Q + "exchange: seat 3 bid blind nil, so it passes 3 cards to seat 1 and gets 3 back; the "
            "log has 0 passed and 0 back")
    assert error(edit(hand, exchange=hand["exchange"][:5])) == (
        Q + "exchange: seat 3 bid blind nil, so it passes 3 cards to seat 1 and gets 3 back; the "
            "log has 3 passed and 2 back")
    assert error(edit(hand, exchange=[[1, 3, "AS"]] + hand["exchange"])) == (
        Q + "exchange: entry 1: seat 1 passes to seat 3; seat 3 is to pass to seat 1")
    assert error(edit(hand, exchange=[[3, 1, "AS"]] + hand["exchange"][1:])) == (
        Q + "exchange: entry 1: seat 3 passes AS but does not hold it")
    assert error(edit(hand, exchange=hand["exchange"] + [[3, 1, "2H"]])) == (
        Q + "exchange: entry 7: seat 3 passes a card after the 3-card exchange of its side is "
            "complete")
    assert error(edit(hand, exchange=[[0, 2, "7D"]] + hand["exchange"])) == (
        Q + "exchange: entry 1: seat 0 passes a card, but no exchange is due for its side")
    assert error(edit(hand, exchange=[[3, 1, "4H", 1]] + hand["exchange"][1:])) == (
        Q + 'exchange: entry 1: expected [from_seat, to_seat, card], got [3, 1, "4H", 1]')
    assert error(edit(exchange=[[0, 2, "AS"]])) == (
        P + "exchange: entry 1: seat 0 passes a card, but no exchange is due for its side")
    # The exchange is applied before play: seat 1 keeps 4H and passes AH back instead, so its
    # later AH lead is a card it no longer holds.
    kept = hand["exchange"][:3] + [[1, 3, "2H"], [1, 3, "3H"], [1, 3, "AH"]]
    assert error(edit(hand, exchange=kept)) == (
        Q + "trick 4: seat 1 played AH but does not hold it")
    # Two blind nils on a side never exchange; with the exchange rule off there is none either.
    no_exchange = edit(hand, rules={"preset": "classic", "blind_nil_exchange": 0}, exchange=[])
    assert replay_line(1, json.dumps(no_exchange))["score_delta"] == [-40, 291]


def test_bids_accepted():
    """What the bid rules allow: deficits read from score_before (a minimum of 0 allows a blind
    bid even when ahead), a bump that makes the total equal the tricks, a bump to the minimum."""
    no_results = {"tricks": DELETE, "score_delta": DELETE, "bags_after": DELETE}
    # Seat 3 (team 1) trails by 200: its blind 1 is allowed; bid blind and missed, it loses 10.
    blind_bid = edit(rules={"preset": "classic", "blind_bids": True},
                     blind=[False, False, False, True], score_before=[300, 100], **no_results)
    assert replay_line(1, json.dumps(blind_bid))["score_delta"] == [191, -50]
    # blind_nil_min_deficit 0: seat 2's blind nil is allowed with its side 300 ahead.
    ahead = edit(rules={"preset": "classic", "blind_nil_exchange": 0},
                 blind=[False, False, True, False], score_before=[300, 0], **no_results)
    assert replay_line(1, json.dumps(ahead))["score_delta"] == [291, -40]
    # The bids total 13 only after seat 0's bump: allowed (the constraint is on the bids
    # before any bump).
    bumped = edit(rules={"preset": "tournament", "double_nil": "additive"},
                  bumped=[True, False, False, False])
    assert replay_line(1, json.dumps(bumped))["score_delta"] == [191, -40]
    # Team 1 reaches min_team_bid 5 only with seat 1's bump: refused above; with 4 it is fine.
    bumped_team = edit(rules={"preset": "classic", "min_team_bid": 4, "bid_bump": True},
                       bids=[9, 4, 0, 1], bumped=[False, True, False, False], **no_results)
    assert replay_line(1, json.dumps(bumped_team))["tricks"] == [10, 3, 0, 0]


def test_exchange_order_between_teams(compiled):
    """Two teams exchanging in one hand: each team's passes in order (the nil bidder's k cards,
    then k back), whichever team goes first; out of order within a team is refused."""
    rules = preset("classic")
    heuristic_blind = "heuristic:blind_nil_deficit=0"  # each team's first bidder bids blind nil
    run = runs.simulate_hands(rules, seat_strategies((heuristic_blind,), 4), 5, 9,
                             record_plays=True)
    obj = next(handlog.hand_objects(run))
    entries = obj["exchange"]
    assert len(entries) == 12 and sum(obj["blind"]) == 2
    team_of = [rules.side_of(entry[0]) for entry in entries]
    first = [entry for entry, team in zip(entries, team_of, strict=True) if team == team_of[0]]
    second = [entry for entry, team in zip(entries, team_of, strict=True) if team != team_of[0]]
    assert isinstance(replay_line(1, json.dumps(obj)), dict)
    for reordered in (second + first, [e for pair in zip(first, second, strict=True)
                                       for e in pair]):
        assert isinstance(replay_line(1, json.dumps({**obj, "exchange": reordered})), dict)
    # The partner passes back before the nil bidder has passed all its cards.
    wrong = first[:2] + [first[3], first[2]] + first[4:] + second
    passer, partner = first[0][0], first[0][1]
    assert error({**obj, "exchange": wrong}) == (
        f"line 1 (hand {obj['hand_id']}): exchange: entry 3: seat {partner} passes to seat "
        f"{passer}; seat {passer} is to pass to seat {partner}")


def test_blind_nil_with_plain_nil_partner_exchanges():
    """A blind nil whose partner bid a plain nil still exchanges, the blind nil passing; two
    blind nils never exchange."""
    hand = blind_nil_hand()  # seat 3 bids blind nil and makes it; seat 1 takes 10 tricks
    with_nil = replay_line(1, json.dumps(edit(hand, bids=[1, 0, 3, 0])))
    # Team 1: blind nil made +200, nil failed -100, its 10 tricks 10 bags (+10), which reach
    # the bag limit (-100).
    assert (with_nil["score_delta"][1], with_nil["bags_after"][1]) == (200 - 100 + 10 - 100, 0)
    assert error(edit(hand, bids=[1, 0, 3, 0], exchange=DELETE)) == (
        "line 1 (hand 1): exchange: seat 3 bid blind nil, so it passes 3 cards to seat 1 and gets "
        "3 back; the log has 0 passed and 0 back")
    both_blind = edit(hand, bids=[1, 0, 3, 0], blind=[False, True, False, True])
    assert error(both_blind) == (
        "line 1 (hand 1): exchange: entry 1: seat 3 passes a card, but no exchange is due for its "
        "side")
    assert isinstance(replay_line(1, json.dumps(edit(both_blind, exchange=[]))), dict)


def test_first_leader_random_is_read_from_the_plays():
    moved = edit(rules={"preset": "classic", "first_leader": "random"}, dealer=0,
                 tricks=DELETE, score_delta=DELETE, bags_after=DELETE)
    assert replay_line(1, json.dumps(moved))["score_delta"] == [191, -40]


def test_bag_limit_zero_allows_any_bags():
    line = edit(rules={"preset": "classic", "bag_limit": 0}, bags_before=[25, 3],
                score_delta=DELETE, bags_after=DELETE)
    assert replay_line(1, json.dumps(line))["bags_after"] == [26, 3]


def test_replay_file_unreadable(tmp_path):
    out, err = io.StringIO(), io.StringIO()
    assert replay_file(tmp_path / "missing.jsonl", out, err) == 1
    assert out.getvalue() == "" and "missing.jsonl: cannot read" in err.getvalue()


def test_replay_never_raises_on_mangled_lines():
    """Thousands of random corruptions of a valid line: each gives an error line or a result."""
    generator = np.random.default_rng(7)
    text = golden_lines("classic_game.jsonl")[1]
    junk = [None, True, -1, 0, 3, 99, 2.5, "", "AS", "??", [], [0], [[0, "AS"]], {}, {"a": 1},
            [None, None, None, None], ["x"] * 4]
    for attempt in range(1500):
        obj = json.loads(text)
        for _ in range(1 + attempt % 3):
            key = list(obj)[generator.integers(len(obj))]
            value = obj[key]
            roll = generator.random()
            if roll < 0.15:
                del obj[key]
            elif isinstance(value, list) and value and roll < 0.7:
                index = int(generator.integers(len(value)))
                if isinstance(value[index], list) and value[index] and roll < 0.45:
                    inner = int(generator.integers(len(value[index])))
                    value[index][inner] = copy.deepcopy(junk[generator.integers(len(junk))])
                else:
                    value[index] = copy.deepcopy(junk[generator.integers(len(junk))])
            else:
                obj[key] = copy.deepcopy(junk[generator.integers(len(junk))])
        encoded = json.dumps(obj)
        if attempt % 5 == 0:
            encoded = encoded[: int(generator.integers(len(encoded)))]
        result = replay_line(4, encoded)
        assert isinstance(result, dict) or (
            isinstance(result, str) and result.startswith("line 4")
            and "internal error" not in result and "\n" not in result), result
