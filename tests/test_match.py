"""Duplicate matches, tournaments and Bradley-Terry ratings (spades_sim.evaluate, ratings)."""

import json
import math

import numpy as np
import pandas as pd
import pytest

from spades_sim.analysis.metrics import t_quantile
from spades_sim.cli import main
from spades_sim.core.errors import EvaluationError
from spades_sim.core.rules import preset
from spades_sim.evaluate import (
    match,
    match_result,
    paired_interval,
    tournament_ratings,
)
from spades_sim.evaluate.ratings import bradley_terry
from spades_sim.run import load_run

A, B = "heuristic", "random"
REQUIRED = {"a", "b", "rules", "a_wins", "b_wins", "ties", "mean_diff", "ci95", "seed", "played",
            "deals_a", "deals_b", "deals_tied", "out"}


# -- match_result on hand-built frames -----------------------------------------------------------
def _play_rows(duplicate, unit_id, a_score, b_score, winner=-1, before=(0, 0), game_over=True):
    """Four tidy rows of one play: side 0 is A's home side (as the runner labels both copies)."""
    rows = []
    for seat in range(4):
        side = seat % 2
        rows.append({"config": "match", "duplicate": duplicate, "hand_id": unit_id,
                     "game_id": unit_id, "seat": seat, "side": side,
                     "strategy": A if side == 0 else B, "score_before": before[side],
                     "score_delta": (a_score, b_score)[side] - before[side],
                     "game_over": game_over, "game_winner": winner})
    return rows


def test_match_result_games_computed_by_hand():
    plays = [  # (duplicate, deal, A's final, B's final, winning home side)
        (False, 0, 520, 300, 0), (True, 0, 480, 510, 1),  # diffs 220, -30 -> 95
        (False, 1, 200, 250, -1), (True, 1, 530, 100, 0),  # a draw at the cap; -50, 430 -> 190
        (False, 2, 600, 400, 0), (True, 2, 550, 450, 0),  # 200, 100 -> 150
    ]
    rows = []
    for duplicate, deal, a_final, b_final, winner in plays:
        # an earlier hand of the game (not its last) must be ignored
        rows += _play_rows(duplicate, deal, 9999, -9999, game_over=False)
        rows += _play_rows(duplicate, deal, a_final, b_final, winner, before=(400, 200))
    result = match_result(pd.DataFrame(rows), A, B, rules="classic", seed=7)
    assert result.unit == "games" and result.n == 3 and result.played == 6
    assert (result.a_wins, result.b_wins, result.ties) == (4, 1, 1)
    assert (result.deals_a, result.deals_b, result.deals_tied) == (3, 0, 0)
    assert result.mean_diff == pytest.approx(145.0)
    sd = math.sqrt(((95 - 145) ** 2 + (190 - 145) ** 2 + (150 - 145) ** 2) / 2)
    half = 4.302653 * sd / math.sqrt(3)  # t(0.975, 2 df)
    assert result.ci95 == pytest.approx((145 - half, 145 + half), abs=1e-3)
    data = result.to_dict()
    assert data["games"] == 3 and "hands" not in data and data["seed"] == 7


def test_match_result_hands_computed_by_hand():
    rows = (_play_rows(False, 0, 60, -100, game_over=False)
            + _play_rows(True, 0, -40, 50, game_over=False)  # diffs 160, -90 -> 35
            + _play_rows(False, 1, 30, 30, game_over=False)
            + _play_rows(True, 1, 70, 20, game_over=False)  # 0, 50 -> 25
            + _play_rows(False, 2, 10, 0, game_over=False))  # unpaired: left out
    result = match_result(pd.DataFrame(rows), A, B)
    assert result.unit == "hands" and result.n == 2 and result.played == 4
    assert (result.a_wins, result.b_wins, result.ties) == (2, 1, 1)
    assert (result.deals_a, result.deals_b, result.deals_tied) == (2, 0, 0)
    half = 12.7062 * math.sqrt(50) / math.sqrt(2)
    assert result.mean_diff == 30.0
    assert result.ci95 == pytest.approx((30 - half, 30 + half), abs=1e-3)


def test_match_result_trusts_the_strategy_column():
    frame = pd.DataFrame(_play_rows(False, 0, 60, -100, game_over=False)
                         + _play_rows(True, 0, -40, 50, game_over=False))
    flipped = frame.assign(strategy=np.where(frame["side"] == 0, B, A))
    with pytest.raises(EvaluationError, match="not on side 0"):
        match_result(flipped, A, B, games=False)
    with pytest.raises(EvaluationError, match="other strategies"):
        match_result(frame, A, "heuristic:aggression=1", games=False)


def test_t_quantiles():
    # the match intervals use the analyses' t quantile (exact at 95% for 1 to 9 df)
    assert float(t_quantile(1)) == pytest.approx(12.7062, abs=1e-4)
    assert float(t_quantile(3)) == pytest.approx(3.1824, abs=1e-4)
    assert float(t_quantile(10)) == pytest.approx(2.2281, abs=1e-4)
    assert float(t_quantile(10_000)) == pytest.approx(1.96, abs=1e-3)
    assert paired_interval([5.0, 5.0]) == (5.0, 5.0, 5.0)


# -- matches played --------------------------------------------------------------------------------
def test_a_strategy_against_itself_cancels_exactly(tmp_path):
    # Same strategy at all four seats: the rotated copy is the very same play, with the home
    # sides swapped, so every board's two differences are d and -d.
    result = match(A, A, n_hands=300, seed=2, out=tmp_path / "self")
    assert result.mean_diff == 0.0 and result.ci95 == (0.0, 0.0)
    assert result.deals_tied == 300 and result.a_wins == result.b_wins
    assert result.played == 600


def test_heuristic_beats_random_and_the_labels_hold(tmp_path):
    out = tmp_path / "m"
    result = match(A, B, n_games=20, seed=1, out=out)
    assert result.ci95[0] > 0 and result.mean_diff > 0
    assert result.a_wins + result.b_wins + result.ties == 40 == result.played
    assert result.deals_a + result.deals_b + result.deals_tied == 20
    assert result.a_wins > result.b_wins
    frame = load_run(out)
    # Both copies: A's seats are side 0 (the home side), B's side 1.
    assert ((frame["strategy"].astype(str) == A) == (frame["side"] == 0)).all()
    # The copy plays the same deals with the partnerships' cards swapped: the first hand of
    # every game, home seat s + 1 in the copy holds physical seat s's cards of the original.
    first = frame[frame["hand_id"] == 0]
    original = first[~first["duplicate"]].set_index(["game_id", "seat"])["hcp"]
    copy = first[first["duplicate"]].set_index(["game_id", "seat"])["hcp"]
    moved = copy.rename(index=lambda seat: (seat - 1) % 4, level="seat").sort_index()
    assert (moved == original.sort_index()).all()
    # Every game's recorded winner (relabelled to home sides) has the higher final score.
    last = frame[frame["game_over"]].drop_duplicates(["duplicate", "game_id", "side"])
    final = (last["score_before"] + last["score_delta"]).to_numpy()
    last = last.assign(final=final)
    pivot = last.pivot_table(index=["duplicate", "game_id"], columns="side", values="final")
    winners = last.groupby(["duplicate", "game_id"])["game_winner"].first()
    decided = winners >= 0
    assert ((pivot[0] > pivot[1])[decided] == (winners[decided] == 0)).all()


def test_same_seed_same_result_for_one_and_two_jobs(tmp_path):
    one = match(A, B, n_games=6, seed=4, chunk_size=2, jobs=1, out=tmp_path / "one").to_dict()
    two = match(A, B, n_games=6, seed=4, chunk_size=2, jobs=2, out=tmp_path / "two").to_dict()
    assert one.pop("out") != two.pop("out")
    assert one == two


def test_match_refuses_overrides_beside_a_rules_object(tmp_path):
    # (Tables of two and three players are matched by rotation: tests/test_rotation.py.)
    with pytest.raises(EvaluationError, match="rule overrides go with a preset name"):
        match(A, B, preset("classic"), rule_overrides=["target=300"], n_games=2, seed=0,
              out=tmp_path / "x")


# -- the command line --------------------------------------------------------------------------
def _cli(capsys, *args):
    try:
        code = main(list(args))
    except SystemExit as exit_:  # argparse errors
        code = exit_.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_match_json_has_the_required_keys(tmp_path, capsys):
    code, out, _ = _cli(capsys, "match", A, B, "--rules", "classic", "--games", "4", "--seed",
                        "3", "--json", "--quiet", "--out", str(tmp_path / "m"))
    assert code == 0
    data = json.loads(out)
    assert REQUIRED <= set(data) and data["games"] == 4 and data["played"] == 8
    assert data["out"] == str((tmp_path / "m").resolve())
    assert len(data["ci95"]) == 2 and data["ci95"][0] <= data["mean_diff"] <= data["ci95"][1]
    # A re-run reuses the finished run and prints the same numbers.
    code, again, _ = _cli(capsys, "match", A, B, "--games", "4", "--seed", "3", "--json",
                          "--out", str(tmp_path / "m"))
    assert code == 0 and json.loads(again) == data
    code, table, _ = _cli(capsys, "match", A, B, "--games", "4", "--seed", "3", "--out",
                          str(tmp_path / "m"))
    assert code == 0 and "boards won" in table and "95% CI" in table


def test_tournament_writes_its_summary(tmp_path, capsys):
    out = tmp_path / "t"
    names = [A, B, "heuristic:aggression=1"]
    code, text, _ = _cli(capsys, "tournament", *names, "--hands", "40", "--seed", "5", "--json",
                         "--out", str(out))
    assert code == 0
    data = json.loads(text)
    assert data == json.loads((out / "tournament.json").read_text())
    assert data["hands"] == 40 and data["seed"] == 5 and len(data["matches"]) == 3
    assert sorted(row["strategy"] for row in data["ratings"]) == sorted(names)
    ratings = [row["rating"] for row in data["ratings"]]
    assert ratings == sorted(ratings, reverse=True) and abs(sum(ratings)) < 1e-6
    for row in data["ratings"]:
        assert row["low"] < row["rating"] < row["high"]
        assert row["wins"] + row["losses"] + row["ties"] == 2 * 2 * 40
    assert data["ratings"][-1]["strategy"] == B
    for result in data["matches"]:
        assert REQUIRED <= set(result)
    assert len([p for p in out.iterdir() if p.is_dir()]) == 3
    code, table, _ = _cli(capsys, "tournament", *names, "--hands", "40", "--seed", "5",
                          "--out", str(out))
    assert code == 0 and "rating" in table and "row strategy minus column" in table


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["match", A, "genius", "--games", "2"], "unknown strategy 'genius'"),
        (["match", A, B, "--rules", "cutthroat", "--rule", "partnership=true", "--games", "2"],
         "rule partnership"),
        (["match", A, B], "one of the arguments --games --hands is required"),
        (["match", A, B, "--games", "2", "--hands", "2"], "not allowed with argument"),
        (["tournament", A, "--games", "2"], "at least 2 strategies, got 1"),
        (["tournament", A, B, "heuristic:aggression=0", "--games", "2"], "repeat: heuristic"),
        (["tournament", A, B], "one of the arguments --games --hands is required"),
    ],
)
def test_errors_are_one_line_with_status_2(capsys, args, fragment):
    code, _, err = _cli(capsys, *args)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], err
    assert lines[0].startswith(f"spades-sim {args[0]}: error: ")


# -- Bradley-Terry --------------------------------------------------------------------------------
STRENGTHS = np.array([1.0, 2.0, 4.0])
TRUTH = 400 * np.log10(STRENGTHS) - (400 * np.log10(STRENGTHS)).mean()


def _expected_wins(strengths, games):
    share = strengths[:, None] / (strengths[:, None] + strengths[None, :])
    return np.where(np.eye(len(strengths), dtype=bool), 0.0, games * share)


def test_bradley_terry_recovers_known_strengths():
    # Expected counts are the likelihood's exact maximiser: the fit returns the truth.
    fit = bradley_terry(_expected_wins(STRENGTHS, 3000), prior_ties=0)
    assert fit.rating == pytest.approx(TRUTH, abs=1e-6)
    # Seeded binomial draws: the truth lies inside every 95% interval, which shrink with data.
    rng = np.random.default_rng(11)
    wins = np.zeros((3, 3))
    for i in range(3):
        for j in range(i + 1, 3):
            wins[i, j] = rng.binomial(2000, STRENGTHS[i] / (STRENGTHS[i] + STRENGTHS[j]))
            wins[j, i] = 2000 - wins[i, j]
    fit = bradley_terry(wins)
    assert ((fit.low < TRUTH) & (TRUTH < fit.high)).all()
    assert (fit.high - fit.low < 60).all()
    assert abs(fit.rating.sum()) < 1e-9


def test_bradley_terry_ties_count_half_and_relabelling_permutes():
    wins = np.array([[0, 30, 12], [10, 0, 25], [8, 5, 0]], float)
    ties = np.array([[0, 4, 2], [4, 0, 6], [2, 6, 0]], float)
    fit = bradley_terry(wins, ties)
    for order in ([2, 0, 1], [1, 2, 0], [2, 1, 0]):
        moved = bradley_terry(wins[np.ix_(order, order)], ties[np.ix_(order, order)])
        assert moved.rating == pytest.approx(fit.rating[order], abs=1e-6)
        assert moved.stderr == pytest.approx(fit.stderr[order], abs=1e-6)
    # A tie is half a win to each side: the same fit as splitting it.
    assert bradley_terry(wins + ties / 2).rating == pytest.approx(fit.rating, abs=1e-6)


def test_bradley_terry_keeps_a_clean_sweep_finite():
    wins = np.array([[0, 10, 10], [0, 0, 5], [0, 5, 0]], float)
    fit = bradley_terry(wins)
    assert np.isfinite(fit.rating).all() and fit.rating[0] > 300
    with pytest.raises(ValueError, match="no finite rating"):
        bradley_terry(wins.T, prior_ties=0)


def test_tournament_ratings_from_match_results():
    from spades_sim.evaluate import MatchResult

    def result(a, b, a_wins, b_wins, ties, diff):
        return MatchResult(a, b, "classic", "games", 10, 0, a_wins + b_wins + ties, a_wins,
                           b_wins, ties, 0, 0, 0, diff, (diff - 1, diff + 1), 1.0)

    names = ["x", "y", "z"]
    rows, matrix = tournament_ratings(names, [result("x", "y", 15, 4, 1, 50.0),
                                              result("x", "z", 18, 2, 0, 80.0),
                                              result("y", "z", 12, 8, 0, 10.0)])
    assert [row["strategy"] for row in rows] == names and [r["rank"] for r in rows] == [1, 2, 3]
    assert rows[0]["mean_diff"] == 65.0 and rows[1]["mean_diff"] == -20.0
    assert (rows[1]["wins"], rows[1]["losses"], rows[1]["ties"]) == (16, 23, 1)
    assert matrix[2, 0] == -80.0 and np.isnan(matrix[1, 1])


# -- Bradley-Terry goodness of fit ----------------------------------------------------------------
def test_goodness_of_fit_of_a_cycle_by_hand():
    from scipy import stats

    from spades_sim.evaluate import goodness_of_fit

    # x beats y, y beats z, z beats x, each 30 to 10: the fitted strengths are equal, every
    # pair expects 20 of 40, and each Pearson term is (30 - 20)^2 / (40 * 1/2 * 1/2) = 10.
    wins = np.array([[0, 30, 10], [10, 0, 30], [30, 10, 0]], float)
    fit = goodness_of_fit(wins, rating=np.zeros(3))
    assert fit.chi_square == pytest.approx(30.0) and fit.dof == 3 - 2
    deviance = 3 * 2 * (30 * math.log(30 / 20) + 10 * math.log(10 / 20))
    assert fit.deviance == pytest.approx(deviance)
    assert fit.p_value == pytest.approx(stats.chi2.sf(30.0, 1)) and not fit.fits
    # The maximum-likelihood fit (its virtual ties move nothing here) gives the same test.
    assert goodness_of_fit(wins).chi_square == pytest.approx(30.0, abs=1e-6)
    # Counts the model explains exactly: chi-square 0, the model fits.
    exact = goodness_of_fit(_expected_wins(STRENGTHS, 3000), rating=TRUTH)
    assert exact.chi_square == pytest.approx(0.0, abs=1e-9) and exact.fits
    # Ties count half a win to each side, as in the fit: 20 wins + 20 ties = 30 points of 40.
    ties = np.array([[0, 20, 0], [20, 0, 0], [0, 0, 0]], float)
    wins = np.array([[0, 20, 10], [0, 0, 30], [30, 10, 0]], float)
    assert goodness_of_fit(wins, ties, rating=np.zeros(3)).chi_square == pytest.approx(30.0)
    # Two strategies: one pair, one free strength, nothing to test.
    saturated = goodness_of_fit([[0, 7], [3, 0]])
    assert saturated.dof == 0 and saturated.fits and math.isnan(saturated.p_value)


def test_a_rejected_model_leads_with_the_head_to_head_matrix():
    from spades_sim.evaluate import MatchResult, TournamentResult, format_tournament

    def result(a, b, a_wins, b_wins, diff):
        return MatchResult(a, b, "classic", "hands", 20, 0, 40, a_wins, b_wins, 0, 0, 0, 0,
                           diff, (diff - 2, diff + 2), 1.0)

    names = ["x", "y", "z"]
    matches = [result("x", "y", 30, 10, 5.0), result("x", "z", 10, 30, -5.0),
               result("y", "z", 30, 10, 5.0)]
    rows, matrix = tournament_ratings(names, matches)
    cycle = TournamentResult(names, "classic", "hands", 20, 0, "out", matches, rows, matrix)
    assert not cycle.fit.fits and cycle.lead == "matrix"
    data = cycle.to_dict()
    assert data["fit"]["dof"] == 1 and data["fit"]["fits"] is False and data["lead"] == "matrix"
    assert data["matrix_low"][2][0] == 3.0 and data["matrix_high"][0][2] == -3.0
    text = format_tournament(cycle)
    assert text.index("head to head") < text.index("REJECTED") < text.index("Bradley-Terry rat")
    assert "+5.0+-2.0" in text
    matches[1] = result("x", "z", 35, 5, 9.0)  # now x > y > z, nearly on one line
    rows, matrix = tournament_ratings(names, matches)
    line = TournamentResult(names, "classic", "hands", 20, 0, "out", matches, rows, matrix)
    assert line.fit.fits and line.lead == "ratings"
    text = format_tournament(line)
    assert text.index("Bradley-Terry rat") < text.index("not rejected") < text.index("head to")
