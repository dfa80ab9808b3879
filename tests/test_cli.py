"""The command line: every command runs, bad arguments get one line and status 2."""

import json
import subprocess
import sys

import pytest

from spades_sim.cli import main


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "spades_sim.cli", *args], capture_output=True,
                          text=True, timeout=300)


def test_simulate_prints_summary(capsys):
    assert main(["simulate", "--hands", "2000", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "exact_rate" in out and "nil_made" in out and "mean_score" in out


def test_games_json(capsys):
    assert main(["games", "--games", "20", "--seed", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert sum(row["wins"] for row in data["games"]) + data["ties"] == 20


def test_bench_json(capsys):
    assert main(["bench", "--strategy", "random", "--hands", "20000", "--json",
                 "--no-history"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["hands_per_second"] > 0 and data["hands"] == 20000


def test_rules_and_strategies(capsys):
    assert main(["rules"]) == 0
    assert "tournament" in capsys.readouterr().out
    assert main(["rules", "classic"]) == 0
    out = capsys.readouterr().out
    assert "bag_limit" in out and "hand_cap" in out
    assert main(["strategies"]) == 0
    out = capsys.readouterr().out
    assert "aggression = 0" in out and "bid_max = 4" in out


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["simulate", "--rules", "nope"], "unknown preset 'nope'"),
        (["simulate", "--hands", "0"], "--hands: 0 must be at least 1"),
        (["simulate", "--strategy", "genius"], "unknown strategy 'genius'"),
        (["simulate", "--strategy", "heuristic:aggression=x"], "is not a number"),
        (["simulate", "--rule", "target=-5"], "rule target"),
        (["games", "--strategy", "random", "--strategy", "random"], "--strategy given 2 times"),
        (["replay", "/nonexistent/file.jsonl"], "No such file"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_bad_arguments_get_one_line(args, fragment):
    result = run_cli(*args)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert fragment in lines[0]
    assert "Traceback" not in result.stderr


def test_named_configurations_on_the_same_deals(tmp_path):
    import spades_sim

    out = tmp_path / "run"
    result = run_cli("simulate", "--hands", "600", "--seed", "3", "--chunk-size", "300",
                     "--out", str(out), "--quiet",
                     "--config", "base=rules=classic;strategy=heuristic",
                     "--config", "bold=rules=classic;rule=target=300;"
                                 "strategy=heuristic:aggression=1;strategy=random;"
                                 "strategy=heuristic:aggression=1;strategy=random",
                     "--config", "same=strategy=heuristic")
    assert result.returncode == 0, result.stderr
    frame = spades_sim.load_run(out)
    assert sorted(frame["config"].cat.categories) == ["base", "bold", "same"]
    parts = {name: part.reset_index(drop=True)
             for name, part in frame.groupby("config", observed=True)}
    for name in ("bold", "same"):  # identical deals for every configuration
        assert (parts[name]["hcp"] == parts["base"]["hcp"]).all()
    assert (parts["same"]["score_delta"] == parts["base"]["score_delta"]).all()
    bold = parts["bold"]
    assert set(bold.loc[bold["seat"] % 2 == 1, "strategy"]) == {"random"}
    bad = run_cli("simulate", "--config", "x=colour=red", "--out", str(tmp_path / "bad"))
    assert bad.returncode == 2 and "is not rules=PRESET" in bad.stderr


def test_every_command_and_option_has_help():
    """`spades-sim COMMAND --help` explains every option and argument of every command."""
    import argparse

    from spades_sim.cli import build_parser

    missing = []

    def walk(parser, path):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                helped = {a.dest for a in action._choices_actions if a.help}
                missing.extend(f"{path} {name}" for name in action.choices if name not in helped)
                for name, sub in action.choices.items():
                    walk(sub, f"{path} {name}")
            elif not action.help or action.help == argparse.SUPPRESS and action.dest != "debug":
                missing.append(f"{path} {'/'.join(action.option_strings) or action.dest}")

    walk(build_parser(), "spades-sim")
    assert not missing, "no help text: " + ", ".join(missing)
