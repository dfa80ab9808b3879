"""Experiment files: parsing, grid expansion, one-line errors with the right line number."""

import subprocess
import sys
from pathlib import Path

import pytest

from spades_sim.core.errors import ExperimentError
from spades_sim.core.rules import preset
from spades_sim.experiment import load_experiment, parse_experiment

ROOT = Path(__file__).resolve().parent.parent

VALID = """\
name = "demo"
title = "A demo"
question = "Does it parse?"
seed = 7
hands = 1000
games = 20
chunk_size = 500
analyses = ["variant_effects", "bid_accuracy", "games"]
baseline = "plain"

[[config]]
name = "plain"
rules = "classic"

[[config]]
name = "short"
rules = "classic"
rule = { target = 300, nil = false }
strategies = { side0 = "heuristic:aggression=1", side1 = "random" }

[[grid]]
name = "aggr={aggression},t={target}"
rules = "simple"
strategy = ["heuristic:aggression={aggression}", "random",
            "heuristic:aggression={aggression}", "random"]
params = { aggression = [-1, 0.5], target = [200, 400] }

[[config]]
name = "three"
rules = "cutthroat"
strategy = "heuristic"
"""


def test_valid_file():
    exp = parse_experiment(VALID, "demo.toml")
    assert (exp.name, exp.title, exp.seed, exp.hands, exp.games) == ("demo", "A demo", 7, 1000, 20)
    assert exp.modes == ("hands", "games")
    assert exp.chunk_size == 500 and exp.games_chunk_size == 1000
    names = [c.name for c in exp.configs]
    # file order: config, config, the grid's combinations, config
    assert names == ["plain", "short", "aggr=-1,t=200", "aggr=-1,t=400", "aggr=0.5,t=200",
                     "aggr=0.5,t=400", "three"]
    short = exp.configs[1]
    assert short.rules.target == 300 and short.rules.nil is False
    assert [s.spec() for s in short.strategies] == ["heuristic:aggression=1", "random"] * 2
    assert exp.sources[1].overrides == {"nil": False, "target": 300}
    assert exp.configs[-1].rules.players == 3
    hands, games = exp.spec("hands"), exp.spec("games")
    assert hands.n_hands == 1000 and hands.chunk_size == 500
    assert games.n_games == 20 and games.chunk_size == 1000
    assert hands.configs == games.configs == exp.configs


def test_grid_expansion():
    exp = parse_experiment(VALID, "demo.toml")
    grid = {c.name: c for c in exp.configs if c.name.startswith("aggr")}
    config = grid["aggr=0.5,t=400"]
    # {aggression} goes into the spec where it is written; target is a rule field
    assert [s.spec() for s in config.strategies] == ["heuristic:aggression=0.5", "random"] * 2
    assert config.rules.target == 400 and config.rules.preset_name == "simple"
    # a parameter not written into any spec goes to every seat whose strategy has it
    exp = parse_experiment('name = "g"\nseed = 1\nhands = 10\n[[grid]]\nname = "n{nil_threshold}"'
                           '\nstrategy = ["heuristic", "random", "heuristic", "random"]\n'
                           'params = { nil_threshold = [0.5, 2] }\n')
    assert [c.name for c in exp.configs] == ["n0.5", "n2"]
    assert [s.spec() for s in exp.configs[1].strategies] == ["heuristic:nil_threshold=2",
                                                             "random"] * 2


def test_defaults():
    exp = parse_experiment('name = "d"\nseed = 0\ngames = 5\n[[config]]\nname = "c"\n')
    assert exp.modes == ("games",) and exp.analyses == ("bid_accuracy", "nil", "games")
    assert [s.spec() for s in exp.configs[0].strategies] == ["heuristic"] * 4
    assert exp.baseline is None and exp.title == "d"


BASE = 'name = "x"\nseed = 1\nhands = 100\n'
CONFIG = '[[config]]\nname = "a"\n'
TOURNEY = '[tournament]\nstrategies = ["heuristic", "cautious"]\n'


@pytest.mark.parametrize("text, line, fragment", [
    (BASE + CONFIG + 'rules = "classic\n', 6, "TOML syntax error"),
    (BASE + "sed = 2\n" + CONFIG, 4, 'unknown key "sed"; allowed: name, title'),
    (BASE + CONFIG + '\n[[config]]\nname = "fast"\nstratgy = "random"\n', 9,
     'config "fast": unknown key "stratgy"; allowed: name, rules, rule, strategy'),
    (BASE + CONFIG + 'rules = "nope"\n', 6, "unknown preset 'nope'"),
    (BASE + CONFIG + 'rules = "classic"\nrule = { target = -5 }\n', 7, "rule target"),
    (BASE + CONFIG + 'rule = { nosuch = 1 }\n', 6, 'unknown rule field "nosuch"'),
    (BASE + CONFIG + 'strategy = "genius"\n', 6, "unknown strategy 'genius'"),
    (BASE + CONFIG + 'strategy = "heuristic:aggression=x"\n', 6, "is not a number"),
    (BASE + CONFIG + 'strategy = ["random", "random"]\n', 6, "2 strategies for 4 players"),
    (BASE + 'analyses = ["bids"]\n' + CONFIG, 4, 'unknown analysis "bids"'),
    (BASE + 'baseline = "zz"\n' + CONFIG, 4, 'baseline: "zz" is not a config'),
    (BASE + 'seed = 1\n' + CONFIG, 4, "TOML syntax error"),
    ('name = "x"\nseed = -1\nhands = 100\n' + CONFIG, 2, "seed: expected an integer >= 0"),
    ('name = "x"\nseed = 1\nhands = "many"\n' + CONFIG, 3, "hands: expected an integer"),
    ('name = "x"\nseed = 1\n' + CONFIG, 1, "give hands, games or both"),
    ('seed = 1\nhands = 5\n' + CONFIG, 1, 'missing key "name"'),
    (BASE, 1, "no configurations"),
    (BASE + CONFIG + "\n" + CONFIG, 8, 'config name "a" repeats (first on line 5)'),
    (BASE + 'duplicate = true\n' + CONFIG + '\n[[config]]\nname = "b"\nrules = "cutthroat"\n',
     4, 'config "b" is not four players'),
    (BASE + '[[grid]]\nname = "g{x}"\nparams = { x = [1, 2] }\n', 6,
     '"x" is neither a rule field nor a parameter'),
    (BASE + '[[grid]]\nname = "g"\nparams = { aggression = 1 }\n', 6,
     "params aggression: expected a non-empty list"),
    (BASE + '[[grid]]\nname = "g"\nparams = { aggression = [1, 2] }\n', 5,
     'every combination needs its own name'),
    (BASE + '[[grid]]\nname = "g{aggr}"\nparams = { aggression = [1, 2] }\n', 5,
     "placeholder 'aggr' is not a parameter"),
    (BASE + CONFIG + 'strategies = { side0 = "random" }\n', 6, "strategies: missing side1"),
    (BASE + CONFIG + TOURNEY + 'games = 4\nstrategy = "x"\n', 9,
     'tournament: unknown key "strategy"; allowed: strategies, rules'),
    (BASE + CONFIG + '[tournament]\nstrategies = ["heuristic"]\ngames = 4\n', 7,
     "tournament: strategies: expected a list of at least two"),
    (BASE + CONFIG + '[tournament]\nstrategies = ["heuristic", "genius"]\ngames = 4\n', 7,
     "tournament: unknown strategy 'genius'"),
    (BASE + CONFIG + '[tournament]\nstrategies = ["random", "random"]\ngames = 4\n', 7,
     "tournament: strategies: random repeats"),
    (BASE + CONFIG + TOURNEY, 6, "tournament: give games or hands (boards per pair)"),
    (BASE + CONFIG + TOURNEY + 'games = 4\nhands = 10\n', 9, "not both"),
    (BASE + CONFIG + TOURNEY + 'games = 0\n', 8, "tournament: games: expected an integer >= 1"),
    (BASE + CONFIG + TOURNEY + 'hands = 9\nrules = "cutthroat"\n', 9,
     "tournament: rules cutthroat: a tournament needs four players in two partnerships"),
    (BASE + CONFIG + TOURNEY + 'hands = 9\nrules = "nope"\n', 9, "unknown preset 'nope'"),
    (BASE + CONFIG + TOURNEY + 'hands = 9\nrule = { target = -1 }\n', 9,
     "tournament: rule target"),
    (BASE + CONFIG + TOURNEY + 'hands = 9\nchunk_size = "big"\n', 9,
     "tournament: chunk_size: expected an integer >= 1"),
    (BASE + 'analyses = ["nil"]\n' + CONFIG + TOURNEY + 'hands = 9\n', 4,
     'the [tournament] is shown in the strategies section: add "strategies"'),
    ('name = "x"\nseed = 1\nanalyses = ["nil"]\n' + TOURNEY + 'hands = 9\n', 3,
     "analyses: nil needs hands or games"),
    ('name = "x"\nseed = 1\ntournament = 3\n', 3, "write it as a [tournament] table"),
])
def test_errors_name_file_and_line(text, line, fragment):
    with pytest.raises(ExperimentError) as info:
        parse_experiment(text, "experiments/x.toml")
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"experiments/x.toml:{line}: "), message
    assert fragment in message, message


def test_tournament_table():
    text = (BASE + CONFIG + '\n[tournament]\nstrategies = ["heuristic", "cautious:aggression=1"]'
            '\nrules = "tournament"\nrule = { target = 300 }\ngames = 50\nchunk_size = 25\n')
    exp = parse_experiment(text, "x.toml")
    spec = exp.tournament
    assert spec.names == ("heuristic", "cautious:aggression=1")  # parsed once, here
    assert spec.strategies[1].params["aggression"] == 1
    assert spec.rules == preset("tournament", target=300)
    assert (spec.rules_text, spec.unit, spec.n, spec.chunk_size) == \
        ("tournament, target=300", "games", 50, 25)
    assert spec.sizes() == {"n_games": 50, "chunk_size": 25}
    assert exp.analyses == ("bid_accuracy", "nil", "strategies")  # the default gains strategies
    # a tournament alone: no runs, no configurations; hands default to 100,000-hand chunks
    alone = parse_experiment('name = "t"\nseed = 2\n' + TOURNEY + "hands = 10\n")
    assert alone.modes == () and alone.configs == () and alone.analyses == ("strategies",)
    assert alone.tournament.chunk_size == 100_000 and alone.tournament.rules_text == "classic"
    assert parse_experiment(BASE + CONFIG).tournament is None


def test_shipped_experiments_parse():
    for name in ("variants", "nil", "bidding"):
        exp = load_experiment(ROOT / "experiments" / f"{name}.toml")
        assert exp.name == name and exp.modes == ("hands", "games")
    bidding = load_experiment(ROOT / "experiments" / "bidding.toml")
    assert bidding.tournament is not None and "strategies" in bidding.analyses
    assert not any(name.startswith("mc") for name in bidding.tournament.names)  # too slow
    variants = load_experiment(ROOT / "experiments" / "variants.toml")
    assert len(variants.configs) == 8 and variants.baseline == "classic"
    assert sorted({c.rules.players for c in variants.configs}) == [2, 3, 4]


def test_cli_error_is_one_line_with_status_2(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(BASE + CONFIG + 'stratgy = "random"\n')
    result = subprocess.run([sys.executable, "-m", "spades_sim.cli", "run", str(path)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr
    assert lines[0] == (f"spades-sim run: error: {path}:6: config \"a\": unknown key "
                        f"\"stratgy\"; allowed: name, rules, rule, strategy, strategies")
