"""Matches of two and three players (and four on their own): every deal played once per
rotation of the strategies through the seats (``evaluate/rotation.py``, ``evaluate/match.py``).

Heuristic play changes from time to time, so these tests never pin a heuristic outcome: they
compare two ways of computing the same thing (a match written to disk and read back against
``board_differences`` played in memory, one call against several, a strategy against itself).
"""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from spades_sim.cli import main
from spades_sim.core.errors import EvaluationError
from spades_sim.core.rules import build_rules
from spades_sim.core.strategies import parse_strategy
from spades_sim.evaluate import (
    MatchResult,
    format_match,
    format_tournament,
    match,
    match_result,
    tournament,
)
from spades_sim.evaluate.match import match_boards, match_configs
from spades_sim.evaluate.rotation import board_differences, seatings
from spades_sim.run import load_run, simulate

A, B = "heuristic", "random"
PLUGINS = Path(__file__).resolve().parent / "plugins"
# Every kind of table a match seats: partnerships, and 2, 3 and 4 players on their own.
TABLES = {
    "classic": build_rules("classic"),
    "cutthroat": build_rules("cutthroat"),
    "two-player": build_rules("two-player"),
    "four-alone": build_rules("classic", ["partnership=false", "blind_nil_exchange=0"]),
}


def test_seatings_put_each_strategy_at_each_seat_equally_often():
    assert seatings(4) == [(0, 1, 0, 1), (1, 0, 1, 0)]
    assert seatings(2) == [(0, 1), (1, 0)]
    assert seatings(3) == [(0, 1, 1), (1, 0, 1), (1, 1, 0)]
    for players in (2, 3, 4):
        table = np.array(seatings(players, partnership=False))
        assert table.shape == (players, players)
        assert (table.sum(axis=0) == players - 1).all()  # A once at every seat
        assert (table.sum(axis=1) == players - 1).all()  # one A per seating
    with pytest.raises(EvaluationError, match="partnerships need 4 players"):
        seatings(3, partnership=True)
    with pytest.raises(EvaluationError, match="2, 3 or 4 players"):
        seatings(5)


@pytest.mark.parametrize("name, games", [("cutthroat", True), ("four-alone", False),
                                         ("two-player", False)])
def test_rotations_are_dealt_the_same_cards(name, games):
    rules = TABLES[name]
    if name == "two-player":  # (the draw deal is checked below: its hands depend on the keeps)
        rules = build_rules("two-player", ["deal=standard"])
    configs = match_configs(parse_strategy(A), parse_strategy(B), rules)
    assert [c.name for c in configs] == [f"match-r{r}" for r in range(rules.players)]
    sizes = {"n_games": 3} if games else {"n_hands": 40}
    frame = simulate(configs, seed=11, cards=True, **sizes)
    cards = frame.pivot_table(index=["game_id", "hand_id", "seat"], columns="config",
                              values="cards", aggfunc="first", observed=True).dropna()
    assert len(cards) >= rules.players * (3 if games else 40)
    assert (cards.nunique(axis=1) == 1).all()  # every rotation held the same cards at a seat
    for r, config in enumerate(configs):  # and A sat at seat r of rotation r
        assert [str(s) for s in config.strategies] == [A if s == r else B
                                                       for s in range(rules.players)]


def test_two_player_rotations_draw_from_the_same_stock():
    # With the draw deal a seat's hand depends on its keeps, but both rotations draw from the
    # same stock: a seat takes one card of each of the same 13 pairs of its half of the stock,
    # so what seat 0 held in either rotation never meets what seat 1 held in either.
    configs = match_configs(parse_strategy(A), parse_strategy(B), TABLES["two-player"])
    frame = simulate(configs, seed=5, n_hands=60, cards=True)
    held = frame.groupby(["hand_id", "seat"])["cards"].agg(
        lambda masks: int(np.bitwise_or.reduce(masks.to_numpy())))
    seat0, seat1 = held.xs(0, level="seat"), held.xs(1, level="seat")
    assert ((seat0 & seat1) == 0).all()
    counts = [bin(mask).count("1") for mask in seat0]
    assert max(counts) <= 26 and min(counts) >= 13
    assert (frame.groupby("hand_id")["cards"].nunique() > 2).any()  # the keeps do differ


@pytest.mark.parametrize("name", list(TABLES))
@pytest.mark.parametrize("games", [True, False])
def test_board_differences_are_the_match_boards(tmp_path, name, games):
    rules = TABLES[name]
    sizes = {"n_games": 12} if games else {"n_hands": 120}
    result = match(A, B, rules, seed=9, out=tmp_path / "m", chunk_size=5, **sizes)
    boards = match_boards(load_run(result.out), A, B)
    assert len(boards) == result.n and (boards.index == np.arange(result.n)).all()
    direct = board_differences(A, B, rules, seed=9, n_boards=result.n, games=games)
    assert direct.dtype == np.float64
    assert np.array_equal(direct, boards.to_numpy())
    assert result.mean_diff == pytest.approx(direct.mean(), rel=1e-12)
    assert (result.players, result.rotations) == (
        rules.players, 2 if rules.partnership else rules.players)
    encounters = 1 if rules.partnership else rules.players - 1
    assert result.a_wins + result.b_wins + result.ties == result.played * encounters
    assert result.played == result.n * result.rotations
    # Any slicing into calls gives the same numbers.
    slices = ((0, 5), (5, 1), (6, result.n - 6))
    pieces = [board_differences(A, B, rules, seed=9, first_board=first, n_boards=count,
                                games=games) for first, count in slices]
    assert np.array_equal(np.concatenate(pieces), direct)


def test_a_strategy_against_itself_cancels_exactly_on_its_own(tmp_path):
    # Every rotation plays the very same hands: each seat is A once and B the other times,
    # so the differences sum to zero on every board, and the encounters pair off.
    for name in ("cutthroat", "two-player"):
        result = match(A, A, name, n_hands=50, seed=2, out=tmp_path / name)
        assert result.mean_diff == 0.0 and result.ci95 == (0.0, 0.0)
        assert result.deals_tied == 50 and result.a_wins == result.b_wins
    assert not board_differences(A, A, "cutthroat", seed=2, n_boards=50, games=False).any()


def _rows(rotation, key, finals, winner, players=3):
    """One game's last-hand rows of rotation ``rotation`` (A at that seat)."""
    return [{"config": f"match-r{rotation}", "duplicate": False, "hand_id": 4, "game_id": key,
             "seat": seat, "side": seat, "strategy": A if seat == rotation else B,
             "score_before": finals[seat] - 10, "score_delta": 10, "game_over": True,
             "game_winner": winner} for seat in range(players)]


def test_three_player_match_result_computed_by_hand():
    games = [  # (rotation, board, final scores by seat, winner)
        (0, 0, (500, 300, 100), 0), (1, 0, (200, 520, 250), 1), (2, 0, (510, 90, 400), 0),
        (0, 1, (300, 300, 300), -1), (1, 1, (100, 510, 200), 1), (2, 1, (200, 200, 600), 2),
        (0, 2, (520, 0, 0), 0),  # board 2 lacks two rotations: left out
    ]
    rows = [row for rotation, board, finals, winner in games
            for row in _rows(rotation, board, finals, winner)]
    result = match_result(pd.DataFrame(rows), A, B, rules="cutthroat")
    # board 0: 500-200=300, 520-225=295, 400-300=100 -> 695/3; board 1: 0, 360, 400 -> 760/3
    boards = match_boards(pd.DataFrame(rows), A, B)
    assert boards.to_numpy() == pytest.approx([695 / 3, 760 / 3])
    assert result.n == 2 and result.played == 6 and (result.players, result.rotations) == (3, 3)
    # A against each B seat: board 0: 2 + 2 + (400 < 510: a loss; 400 > 90: a win);
    # board 1: the game without a winner ties twice; 2 + 2.
    assert (result.a_wins, result.b_wins, result.ties) == (9, 1, 2)
    assert (result.deals_a, result.deals_b, result.deals_tied) == (2, 0, 0)
    frame = pd.DataFrame(rows)
    assert match_result(frame, A, B, rules="cutthroat", config="match") == result
    assert match_result(frame, A, B, config="other").n == 0
    data = result.to_dict()
    assert (data["players"], data["rotations"]) == (3, 3)
    assert MatchResult.from_dict(data) == result
    older = {k: v for k, v in data.items() if k not in ("players", "rotations")}
    assert MatchResult.from_dict(older).partnership  # a summary written before rotations
    text = format_match(result)
    assert "3 players on their own" in text and "seats 0, 2" not in text
    assert "B B A" in text and "A - the mean B seat" in text
    flipped = pd.DataFrame(rows).assign(strategy=lambda f: np.where(f["strategy"] == A, B, A))
    with pytest.raises(EvaluationError, match="not at seat r of rotation r"):
        match_result(flipped, A, B)


def test_board_differences_play_python_plugins(tmp_path):
    lowest = f"{PLUGINS / 'lowest.py'}:LowestPython"
    result = match(lowest, B, "cutthroat", n_hands=8, seed=4, out=tmp_path / "p")
    direct = board_differences(lowest, B, "cutthroat", seed=4, n_boards=8, games=False)
    assert np.array_equal(direct, match_boards(load_run(result.out), lowest, B).to_numpy())
    with pytest.raises(EvaluationError, match="n_boards"):
        board_differences(A, B, "cutthroat", seed=4, n_boards=-1)


def test_three_player_tournament_rates_the_encounters(tmp_path):
    names = [A, B, "heuristic:aggression=1"]
    result = tournament(names, "cutthroat", n_hands=30, seed=6, out=tmp_path / "t")
    for row in result.ratings:  # two matches of 30 boards x 3 rotations x 2 B seats each
        assert row["wins"] + row["losses"] + row["ties"] == 2 * 30 * 3 * 2
    for m in result.matches:
        boards = match_boards(load_run(m.out), m.a, m.b)
        assert np.array_equal(boards.to_numpy(), board_differences(
            m.a, m.b, "cutthroat", seed=6, n_boards=30, games=False))
    text = format_tournament(result)
    assert "30 boards x 3 hands per pair" in text and "players on their own" in text


def _cli(capsys, *args):
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_two_and_three_player_match_and_tournament_json(tmp_path, capsys):
    code, out, _ = _cli(capsys, "match", A, B, "--rules", "cutthroat", "--games", "3",
                        "--seed", "1", "--json", "--quiet", "--out", str(tmp_path / "m"))
    assert code == 0
    data = json.loads(out)
    assert data["games"] == 3 and data["played"] == 9 and data["players"] == 3
    assert data["rotations"] == 3 and data["a_wins"] + data["b_wins"] + data["ties"] == 18
    direct = board_differences(A, B, "cutthroat", seed=1, n_boards=3)
    assert data["mean_diff"] == pytest.approx(direct.mean(), rel=1e-12)
    code, table, _ = _cli(capsys, "match", A, B, "--rules", "cutthroat", "--games", "3",
                          "--seed", "1", "--out", str(tmp_path / "m"))
    assert code == 0 and "rotation match" in table and "seats 0, 2" not in table
    code, out, _ = _cli(capsys, "tournament", A, B, "--rules", "two-player", "--hands", "20",
                        "--seed", "2", "--json", "--quiet", "--out", str(tmp_path / "t"))
    assert code == 0
    data = json.loads(out)
    (only,) = data["matches"]
    assert only["players"] == 2 and only["rotations"] == 2 and only["played"] == 40
    assert only["a_wins"] + only["b_wins"] + only["ties"] == 40
    assert data == json.loads((tmp_path / "t" / "tournament.json").read_text())


@pytest.mark.parametrize("args, fragment", [
    (["match", A, B, "heuristic:aggression=1", "--rules", "cutthroat", "--games", "2"],
     "unrecognized arguments: heuristic:aggression=1"),
    (["match", A, B, "--rules", "cutthroat", "--rule", "partnership=true", "--hands", "2"],
     "partnership"),
    (["tournament", A, "--rules", "two-player", "--hands", "2"], "at least 2 strategies"),
])
def test_bad_combinations_are_one_line_errors(capsys, args, fragment):
    code, _, err = _cli(capsys, *args)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], err
