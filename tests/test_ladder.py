"""The strength ladder: a [tournament] in both modes (whole games and hands), example plug-ins
as tournament strategies, and the report's split of the main pairings' points."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from spades_sim.core.strategies import PluginStrategy
from spades_sim.evaluate import load_tournament
from spades_sim.experiment import load_experiment, parse_experiment
from spades_sim.experiment.execute import experiment_runs, run_experiment
from spades_sim.report.ladder import board_win_shares, main_pairing_splits, main_pairing_wins
from spades_sim.run import load_run

ROOT = Path(__file__).resolve().parent.parent
SET_CHASER = "examples/strategies/set_chaser.py:SetChaser"

BOTH = """\
name = "ladder"
seed = 4
analyses = ["strategies"]

[tournament]
strategies = ["heuristic", "cautious", "{plugin}"]
games = 3
hands = 40
games_chunk_size = 2
hands_chunk_size = 20
"""


def test_a_tournament_in_both_modes_is_two_round_robins():
    exp = parse_experiment(BOTH.format(plugin=str(ROOT / SET_CHASER)), "x.toml")
    games, hands = exp.tournaments
    assert (games.unit, games.n, games.chunk_size, games.folder) == \
        ("games", 3, 2, "tournament/games")
    assert (hands.unit, hands.n, hands.chunk_size, hands.folder) == \
        ("hands", 40, 20, "tournament/hands")
    assert exp.tournament is games and games.names == hands.names
    assert isinstance(games.strategies[2], PluginStrategy)
    # each round robin's matches in a folder of its own
    folders = [str(folder.relative_to("out")) for _, _, folder in experiment_runs(exp, "out")]
    assert len(folders) == 6 and sum(f.startswith("tournament/games/") for f in folders) == 3
    # one mode keeps its folder and its chunk_size
    one = parse_experiment('name = "t"\nseed = 1\n[tournament]\nstrategies = ["heuristic", '
                           '"cautious"]\nhands = 10\nchunk_size = 5\n')
    assert [(t.folder, t.chunk_size) for t in one.tournaments] == [("tournament", 5)]
    # unit chunk sizes default as the top level's do
    default = parse_experiment('name = "t"\nseed = 1\n[tournament]\nstrategies = ["heuristic", '
                               '"cautious"]\nhands = 10\ngames = 2\n')
    assert [t.chunk_size for t in default.tournaments] == [1000, 100_000]


def test_the_strength_ladder_parses():
    exp = load_experiment(ROOT / "experiments" / "strength.toml")
    assert exp.name == "strength" and exp.modes == () and exp.analyses == ("strategies",)
    assert [t.unit for t in exp.tournaments] == ["games", "hands"]
    names = exp.tournament.names
    assert names[0] == "heuristic"  # the reference whose pairings the split shows
    for wanted in ("heuristic-v1", "mc", "cautious", "aggressive", "nil-happy", "bag-averse",
                   "tuned-classic"):
        assert wanted in names, wanted
    plugins = [s for s in exp.tournament.strategies if isinstance(s, PluginStrategy)]
    assert {Path(s.source).name for s in plugins} >= {
        "trick_counter.py", "nil_specialist.py", "bag_averse.py", "set_chaser.py",
        "counter_python.py"}
    assert all((ROOT / s.source).is_file() and not Path(s.source).is_absolute()
               for s in plugins)
    assert not any(n.startswith(("pimc", "random")) for n in names)
    assert all(t.rules.preset_name == "classic" and not t.rules.overrides()
               for t in exp.tournaments)


def _direct_board_diffs(folder: Path, a: str) -> np.ndarray:
    """Each board's A-minus-B points from the match's hand rows, computed here: per deal
    (``hand_id``), the mean over its two plays of A's side's score change minus B's (seats 0
    and 1 hold one seat of each side; a side's change is on both its seats)."""
    frame = load_run(folder, columns=["hand_id", "duplicate", "seat", "strategy",
                                      "score_delta"])
    frame = frame[frame["seat"] < 2]
    sign = np.where(frame["strategy"].astype(str) == a, 1.0, -1.0)
    signed = pd.Series(sign * frame["score_delta"].to_numpy() / 2, index=frame["hand_id"])
    return signed.groupby(level=0).sum().to_numpy()


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    root = tmp_path_factory.mktemp("ladder")
    path = root / "ladder.toml"
    path.write_text(BOTH.format(plugin=str(ROOT / SET_CHASER)))
    results, reports = root / "results", root / "reports"
    out = subprocess.run([sys.executable, "-m", "spades_sim.cli", "run", str(path), "--out",
                          str(results), "--reports", str(reports), "--quiet"],
                         capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr
    return {"path": path, "results": results,
            "index": Path(out.stdout.strip().splitlines()[-1])}


def test_both_round_robins_are_played_and_resume(played):
    results = played["results"]
    for unit in ("games", "hands"):
        assert (results / "tournament" / unit / "tournament.json").is_file()
    again = run_experiment(played["path"], results, quiet=True)
    assert {key: value["played_chunks"] for key, value in again.items()} == \
        {"tournament games": 0, "tournament hands": 0}


def test_the_split_of_the_main_pairings_checks_against_the_runs(played):
    result = load_tournament(played["results"] / "tournament" / "hands")
    table = main_pairing_splits(result)
    assert list(dict.fromkeys(table["opponent"])) == list(result.strategies[1:])
    for match in result.matches:
        if "heuristic" not in (match.a, match.b):
            continue
        opponent = match.b if match.a == "heuristic" else match.a
        rows = table[table["opponent"] == opponent]
        total = rows[rows["view"] == "total"].iloc[0]
        # the board differences computed directly from the run's hand rows
        direct = _direct_board_diffs(Path(match.out), "heuristic")
        assert len(direct) == total["boards"] == 40
        assert total["diff"] == pytest.approx(direct.mean(), abs=1e-9)
        half = 1.96 * direct.std(ddof=1) / np.sqrt(len(direct))  # (t: a little wider)
        assert total["diff_high"] - total["diff_low"] > 2 * half
        assert total["diff"] == pytest.approx(
            match.mean_diff if match.a == "heuristic" else -match.mean_diff)
        # each view's parts add up to the total
        for view in ("by scoring", "by bidding"):
            assert rows[rows["view"] == view]["diff"].sum() == pytest.approx(total["diff"])
        assert (total["main_points"] - total["opponent_points"]) == pytest.approx(total["diff"])


def test_the_report_shows_both_modes_and_the_split(played):
    folder = played["index"].parent
    for unit in ("games", "hands"):
        for name in ("ratings", "pairwise", "split"):
            assert (folder / f"strategies-{name}-{unit}.csv").is_file(), (name, unit)
    text = played["index"].read_text()
    assert "Where the points went: heuristic against each other strategy (whole games" in text
    assert "The tournament (independent hands) run" in text
    assert "In whole games: Bradley-Terry" in text and "In independent hands: Bradley" in text
    headline = (folder / "headline.csv").read_text()
    assert "(round robin, games)" in headline and "(round robin, hands)" in headline


def test_a_summary_sentence_says_the_mode_once():
    from markupsafe import Markup

    from spades_sim.report.headline import Finding
    from spades_sim.report.summary import summary_sentence

    finding = Finding(Markup("x"), "mc vs heuristic head to head (round robin, games)", 150.0,
                      120.0, 180.0, unit=" points per board", n=500, n_unit="boards",
                      mode="head to head, round robin whole games")
    assert str(summary_sentence(finding)) == (
        "mc vs heuristic head to head +150.0 points per board (95% CI +120.0 to +180.0); head "
        "to head, round robin whole games, 500 boards.")


def test_shards_play_both_round_robins_and_the_report_scores_them(played, tmp_path):
    from spades_sim.experiment.execute import finish_results

    out = tmp_path / "sharded"
    for shard in ((1, 2), (2, 2)):
        summaries = run_experiment(played["path"], out, quiet=True, shard=shard)
        assert set(summaries) == {"tournament games", "tournament hands"}
    assert not (out / "tournament" / "games" / "tournament.json").exists()
    finish_results(out)  # scores each round robin from its matches, playing nothing
    for unit in ("games", "hands"):
        sharded = load_tournament(out / "tournament" / unit)
        whole = load_tournament(played["results"] / "tournament" / unit)
        assert [m.mean_diff for m in sharded.matches] == [m.mean_diff for m in whole.matches]


def test_the_games_won_of_the_main_pairings_count_as_the_matches_do(played):
    result = load_tournament(played["results"] / "tournament" / "games")
    table = main_pairing_wins(result).set_index("opponent")
    assert list(table.index) == list(result.strategies[1:])
    for match in result.matches:
        if match.a != "heuristic":
            continue
        row = table.loc[match.b]
        shares = board_win_shares(match.out, "heuristic")
        assert len(shares) == row["boards"] == 3
        # +1 a game won, -1 a game lost, halved per board: the match's own counts (match.py)
        assert 2 * shares.sum() == match.a_wins - match.b_wins
        assert (row["main_wins"], row["opponent_wins"], row["draws"]) == \
            (match.a_wins, match.b_wins, match.ties)
        assert row["win_share"] == pytest.approx((match.a_wins - match.b_wins) / 6)
        assert row["win_share_low"] <= row["win_share"] <= row["win_share_high"]
        assert board_win_shares(match.out, match.b).to_numpy() == pytest.approx(
            -shares.to_numpy())
    assert main_pairing_wins(load_tournament(played["results"] / "tournament" / "hands")).empty
    assert (played["index"].parent / "strategies-wins-games.csv").is_file()
    assert not (played["index"].parent / "strategies-wins-hands.csv").exists()
    text = played["index"].read_text()  # (every finding is listed by section)
    assert text.count("percentage points of the games won (95% CI") >= 2
