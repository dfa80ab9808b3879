"""Where a duplicate match's points went (spades_sim.evaluate.split): the split adds up to the
board difference exactly, on hand-built boards with hand-computed parts and on every board of
real matches; each hand's terms agree with the pure scoring function."""

import json

import numpy as np
import pandas as pd
import pytest

from spades_sim.cli import main
from spades_sim.core.errors import EvaluationError
from spades_sim.core.rules import PRESETS, build_rules, preset
from spades_sim.core.scoring import score_side
from spades_sim.evaluate import match, match_boards, points_split, split_summary
from spades_sim.evaluate.split import (
    BIDDING,
    COLUMNS,
    PARTS,
    SCORING,
    format_split,
    side_terms,
)
from spades_sim.run import load_run

A, B = "heuristic", "random"


# -- hand-built boards ---------------------------------------------------------------------------
def _hand_rows(duplicate, game, index, bids, tricks, blind=(0, 0, 0, 0), before=(0, 0),
               bags=(0, 0), delta=(0, 0), bags_after=(0, 0), over=False, winner=-1):
    """Four tidy rows of one hand, by home seat (side 0 is A's, as the runner labels both
    copies); ``bids``/``tricks``/``blind`` by home seat."""
    return [{"config": "match", "duplicate": duplicate, "hand_id": index, "game_id": game,
             "seat": seat, "side": seat % 2, "strategy": A if seat % 2 == 0 else B,
             "bid": bids[seat], "blind": bool(blind[seat]), "nil": bids[seat] == 0,
             "tricks": tricks[seat], "score_before": before[seat % 2],
             "bags_before": bags[seat % 2], "score_delta": delta[seat % 2],
             "bags_after": bags_after[seat % 2], "game_over": over, "game_winner": winner}
            for seat in range(4)]


def test_a_game_board_split_by_hand():
    """Target 100. Play 1 ends after one hand (A reaches 131); play 2 plays two hands. Every
    part below is computed by hand from docs/rules.md."""
    rules = build_rules("classic", ["target=100"])
    rows = []
    # play 1, hand 0: A bids 3 + nil, takes 4 + 0: 30 + 1 overtrick + 100 nil = 131, 1 bag;
    # B bids 4 + 4, takes 4 + 5: 80 + 1 = 81, 1 bag. A wins at 131.
    rows += _hand_rows(False, 0, 0, (3, 4, 0, 4), (4, 4, 0, 5), delta=(131, 81),
                       bags_after=(1, 1), over=True, winner=0)
    # play 2, hand 0: A bids 2 + 4, takes 1 + 5: 60; B bids 3 + 3, takes 3 + 4: 61, 1 bag.
    rows += _hand_rows(True, 0, 0, (2, 3, 4, 3), (1, 3, 5, 4), delta=(60, 61),
                       bags_after=(0, 1))
    # play 2, hand 1: A blind nil (fails with 1 trick: -200, +1 bag point) and 5 made (+50):
    # -149, 1 bag; B bids 4 + 3, takes 4 + 3: +70 -> 131, B wins.
    rows += _hand_rows(True, 0, 1, (0, 4, 5, 3), (1, 4, 5, 3), blind=(1, 0, 0, 0),
                       before=(60, 61), bags=(0, 1), delta=(-149, 70), bags_after=(1, 1),
                       over=True, winner=1)
    frame = pd.DataFrame(rows)
    split = points_split(frame, A, B, rules)
    assert list(split.index) == [0]
    board = split.iloc[0]
    # diff = ((131 - 81) + (-89 - 131)) / 2 = -85
    assert board["diff"] == -85.0 == match_boards(frame, A, B).iloc[0]
    expected = {"made": ((30 + 60) - (80 + 60)) / 2, "overtricks": (1 - (1 + 1)) / 2,
                "nil_won": 100 / 2, "ending_target": (-149 - 70) / 2}
    for part, _ in SCORING:
        assert board[part] == expected.get(part, 0.0), part
    assert (board["a_made"], board["b_made"]) == (45.0, 70.0)
    assert (board["a_ending_target"], board["b_ending_target"]) == (-74.5, 35.0)
    # By bidding: play 2 bid hand 0 otherwise (physical seats 0..3 bid 3, 4, 3, 2, not
    # 3, 4, 0, 4), so the hand both plays reached is "bid apart": ((131-81) + (60-61)) / 2.
    assert (board["bid_alike"], board["bid_apart"]) == (0.0, 24.5)
    assert (board["hands_alike"], board["hands_apart"], board["hands_ending"]) == (0, 2, 1)
    for parts in (SCORING, BIDDING):
        assert sum(board[p] for p, _ in parts) == board["diff"]


def test_a_hand_board_bid_alike():
    """Hands mode; play 2 bids physically alike (a duplicate copy's home seat h played
    physical seat h - 1: home bids 4, 3, 4, 0 are physical 3, 4, 0, 4)."""
    rules = preset("classic")
    rows = _hand_rows(False, 5, 5, (3, 4, 0, 4), (4, 4, 0, 5), delta=(131, 81),
                      bags_after=(1, 1))
    # A 4 + 4 takes 3 + 5: 80; B 3 + nil takes 5 + 0: 30 + 2 + 100 = 132, 2 bags.
    rows += _hand_rows(True, 5, 5, (4, 3, 4, 0), (3, 5, 5, 0), delta=(80, 132),
                       bags_after=(0, 2))
    split = points_split(pd.DataFrame(rows), A, B, rules)
    board = split.loc[5]
    assert board["diff"] == -1.0
    assert (board["made"], board["overtricks"], board["nil_won"]) == (0.0, -1.0, 0.0)
    assert (board["a_nil_won"], board["b_nil_won"]) == (50.0, 50.0)
    assert (board["bid_alike"], board["bid_apart"], board["hands_alike"]) == (-1.0, 0.0, 2)


def test_sets_blind_nil_bags_and_mercy():
    """A set, a made blind nil and a bag penalty; the shorter play ends under the mercy rule."""
    rules = build_rules("classic", ["target=1000", "mercy=-100", "max_hands=2"])
    # play 1, hand 0: A 5 + 5 takes 4 + 4: set, -100 -> A at -100 ends the game (mercy), B
    # 2 + 1 takes 2 + 3 with 9 bags before: 30 + 2 overtricks, counter 11 -> -100, 1 left.
    rows = _hand_rows(False, 3, 0, (5, 2, 5, 1), (4, 2, 4, 3), bags=(0, 9),
                      delta=(-100, -68), bags_after=(0, 1), over=True, winner=1)
    # play 2, hand 0: A blind nil (made, +200) and 4 taking 6: 40 + 2 = 242, 2 bags; B 3 + 3
    # taking 3 + 4: 61, counter 9 + 1 = 10 -> -100, 0 left: -39.
    rows += _hand_rows(True, 3, 0, (0, 3, 4, 3), (0, 3, 6, 4), blind=(1, 0, 0, 0),
                       bags=(0, 9), delta=(242, -39), bags_after=(2, 0))
    # play 2, hand 1: A 4 + 4 takes 4 + 4: 80; B 2 + 3 takes 2 + 3: 50.
    rows += _hand_rows(True, 3, 1, (4, 2, 4, 3), (4, 2, 4, 3), before=(242, -39),
                       bags=(2, 0), delta=(80, 50), bags_after=(2, 0), over=True, winner=0)
    # (play 2 ends at max_hands; the bag counters of these hand-built games start at 9 for B)
    split = points_split(pd.DataFrame(rows), A, B, rules)
    board = split.loc[3]
    assert board["diff"] == ((-100 - -68) + (322 - 11)) / 2
    assert board["set"] == -100 / 2
    assert board["made"] == (0 + 40 - 30 - 60) / 2
    assert board["overtricks"] == (2 - (2 + 1)) / 2
    assert board["blind_nil_won"] == 200 / 2
    assert board["bag_penalties"] == (0 - (-100 - 100)) / 2
    assert board["ending_mercy"] == (80 - 50) / 2 and board["ending_target"] == 0.0
    assert sum(board[p] for p, _ in SCORING) == board["diff"]


# -- each hand's terms against the pure scoring function -----------------------------------------
@pytest.mark.parametrize("name", [name for name in PRESETS if preset(name).partnership])
def testside_terms_sum_to_the_scoring_function(name):
    rules = preset(name)
    variants = [rules] + [build_rules(name, [text]) for text in (
        "double_nil=fixed", "double_nil=doubled_no_penalty", "ten_for_two_hundred=true",
        "set_penalty=per_trick_short", "failed_nil_tricks=count_toward_bid", "overtrick_points=3",
        "bag_limit=0", "blind_bids=true")]
    generator = np.random.default_rng(7)
    for rules in variants:
        n = 400
        bid = generator.integers(0, 8, size=(n, 2))
        blind = generator.random((n, 2)) < 0.2
        bid[blind & (generator.random((n, 2)) < 0.5)] = 0
        nil = (bid == 0) & (rules.nil | blind)
        tricks = generator.integers(0, 7, size=(n, 2))
        bags_before = generator.integers(0, max(rules.bag_limit, 1), size=n)
        terms, bags_after = side_terms(rules, bid, blind, nil, tricks, bags_before)
        for k in range(n):
            bids4 = [int(bid[k, 0]), 0, int(bid[k, 1]), 0]
            blind4 = [bool(blind[k, 0]), False, bool(blind[k, 1]), False]
            tricks4 = [int(tricks[k, 0]), 0, int(tricks[k, 1]), 0]
            delta, bags = score_side(rules, 0, bids4, blind4, tricks4, int(bags_before[k]))
            assert (int(terms[k].sum()), int(bags_after[k])) == (delta, bags), (name, k)


# -- real matches --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def played(tmp_path_factory):
    out = tmp_path_factory.mktemp("split") / "m"
    result = match("heuristic", "heuristic:aggression=1", "classic", n_games=30, seed=3,
                   out=out)
    return result, load_run(out, columns=list(COLUMNS) + ["spades", "hcp"])


def test_the_split_adds_up_on_every_board_of_a_real_match(played):
    result, frame = played
    split = result.split
    boards = match_boards(frame, "heuristic", "heuristic:aggression=1")
    assert len(split) == 30 and list(split.index) == list(boards.index)
    assert (split["diff"].to_numpy() == boards.to_numpy()).all()
    for parts in (SCORING, BIDDING):
        total = sum(split[part] for part, _ in parts)
        assert (total.to_numpy() == split["diff"].to_numpy()).all()  # exactly
    for part in PARTS:
        assert (split[part] == split[f"a_{part}"] - split[f"b_{part}"]).all()
    assert split["hands_ending"].sum() > 0 and split["hands_alike"].sum() > 0
    assert split_summary(split).set_index("part").at["diff", "diff"] == pytest.approx(
        result.mean_diff, abs=1e-9)


def test_the_copies_line_up_by_physical_seat(played):
    """What "bid alike" compares: the duplicate copy's home seat h + 1 held the cards of
    physical seat h (checked on the dealt hands' spade counts and points)."""
    _, frame = played
    frame = frame.sort_values(["duplicate", "game_id", "hand_id", "seat"])
    first = frame[~frame["duplicate"]].set_index(["game_id", "hand_id", "seat"])
    second = frame[frame["duplicate"]].copy()
    second["seat"] = (second["seat"] - 1) % 4
    second = second.set_index(["game_id", "hand_id", "seat"])
    both = first.index.intersection(second.index)
    assert len(both) > 100
    for column in ("spades", "hcp"):
        assert (first.loc[both, column] == second.loc[both, column]).all()


def test_a_strategy_against_itself_bids_every_hand_alike(tmp_path):
    result = match("heuristic", "heuristic", "classic", n_games=10, seed=2, out=tmp_path / "m")
    split = result.split
    assert (split["hands_apart"] == 0).all() and (split["hands_ending"] == 0).all()
    for part in PARTS:
        assert (split[part] == 0).all()


def test_hands_mode_and_the_text(tmp_path):
    result = match("heuristic", "random", "classic", n_hands=200, seed=1, out=tmp_path / "m")
    split = result.split
    assert len(split) == 200 and (split["hands_ending"] == 0).all()
    assert (sum(split[p] for p, _ in SCORING) == split["diff"]).all()
    text = format_split(split)
    assert "contracts made" in text and "hands after a game ended" not in text
    assert "hands bid differently" in text


def test_wrong_rules_or_frames_are_one_line_errors(played):
    _, frame = played
    with pytest.raises(EvaluationError, match="were these hands played under rules"):
        points_split(frame, "heuristic", "heuristic:aggression=1",
                     build_rules("classic", ["nil_bonus=50"]))
    with pytest.raises(EvaluationError, match="partnership"):
        points_split(frame, "heuristic", "heuristic:aggression=1", preset("cutthroat"))
    with pytest.raises(EvaluationError, match="needs the columns bid"):
        points_split(frame.drop(columns=["bid"]), "heuristic", "heuristic:aggression=1",
                     preset("classic"))
    with pytest.raises(EvaluationError, match="every hand of every game"):
        points_split(frame[frame["hand_id"] != 1], "heuristic", "heuristic:aggression=1",
                     preset("classic"))
    with pytest.raises(EvaluationError, match="other strategies"):
        points_split(frame, "heuristic", "random", preset("classic"))


# -- the command line ----------------------------------------------------------------------------
def test_match_and_tournament_show_the_split(tmp_path, capsys):
    args = ["--rules", "classic", "--games", "10", "--seed", "1", "--quiet"]
    assert main(["match", A, B, *args, "--out", str(tmp_path / "m")]) == 0
    text = capsys.readouterr().out
    assert "where the points went" in text and "hands bid alike" in text
    assert main(["match", A, B, *args, "--out", str(tmp_path / "m"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    parts = {row["part"]: row for row in data["split"]["parts"]}
    assert data["split"]["boards"] == 10
    assert parts["diff"]["diff"] == pytest.approx(data["mean_diff"])
    scoring = sum(row["diff"] for row in data["split"]["parts"] if row["view"] == "scoring")
    assert scoring == pytest.approx(data["mean_diff"])
    assert main(["tournament", A, B, "heuristic:aggression=1", *args,
                 "--out", str(tmp_path / "t")]) == 0
    text = capsys.readouterr().out
    assert "where the points went: A - B per board" in text
    assert all(label in text for label in ("1-2", "1-3", "2-3"))


def test_tournament_progress_lines_and_quiet(tmp_path, capsys):
    args = ["tournament", A, B, "--rules", "classic", "--games", "5", "--seed", "1"]
    assert main([*args, "--out", str(tmp_path / "t")]) == 0
    err = capsys.readouterr().err
    assert "spades-sim tournament: match 1/1: heuristic against random, 5 boards of games" in err
    assert "spades-sim tournament: match 1/1: heuristic against random: +" in err
    assert main([*args, "--out", str(tmp_path / "t"), "--quiet"]) == 0
    assert "spades-sim tournament" not in capsys.readouterr().err


def test_a_long_match_reports_its_progress_as_runs_do(tmp_path, capsys, monkeypatch):
    """A match's progress is the run's (run/execute.Progress): off a terminal a plain line
    each LOG_SECONDS (0 here: one a chunk), none with --quiet."""
    import importlib

    monkeypatch.setattr(importlib.import_module("spades_sim.run.execute"), "LOG_SECONDS", 0.0)
    args = ["match", A, B, "--rules", "classic", "--games", "6", "--seed", "1",
            "--chunk-size", "2"]
    assert main([*args, "--out", str(tmp_path / "m")]) == 0
    lines = [line for line in capsys.readouterr().err.splitlines() if "games (" in line]
    assert len(lines) == 3 and lines[-1].startswith("spades-sim: 6/6 games (100%)")
    assert main([*args, "--out", str(tmp_path / "q"), "--quiet"]) == 0
    assert "games (" not in capsys.readouterr().err


def test_tournament_json_holds_every_match_split(tmp_path, capsys):
    args = ["tournament", A, B, "heuristic:aggression=1", "--rules", "classic", "--games", "4",
            "--seed", "2", "--quiet", "--json", "--out", str(tmp_path / "t")]
    assert main(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["splits"]) == len(data["matches"]) == 3
    for split, result in zip(data["splits"], data["matches"]):
        total = {row["part"]: row for row in split["parts"]}["diff"]["diff"]
        assert total == pytest.approx(result["mean_diff"])
    saved = json.loads((tmp_path / "t" / "tournament.json").read_text())
    assert saved["splits"] == data["splits"]
