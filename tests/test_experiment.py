"""Experiment files: parsing, grid expansion, one-line errors with the right line number."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from spades_sim.core.errors import ExperimentError
from spades_sim.core.rules import preset
from spades_sim.core.strategies import seat_strategies
from spades_sim.experiment import load_experiment, parse_experiment
from spades_sim.run import RunSpec, make_config

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
     "the placeholder {aggr} is not a parameter of params; write {NAME} with NAME one of: "
     "aggression"),
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
    (BASE + CONFIG + TOURNEY + 'games = 4\nhands = 10\nchunk_size = 2\n', 10,
     "tournament: chunk_size: with games and hands both, give games_chunk_size and "
     "hands_chunk_size"),
    (BASE + CONFIG + TOURNEY + 'games = 4\nhands_chunk_size = 2\n', 9,
     "tournament: hands_chunk_size: there is no round robin of hands"),
    (BASE + CONFIG + TOURNEY + 'games = 4\nhands = 10\ngames_chunk_size = 0\n', 10,
     "tournament: games_chunk_size: expected an integer >= 1"),
    (BASE + CONFIG + '[tournament]\nstrategies = ["heuristic", "no/such.py:Player"]\n'
     'games = 4\n', 7, "tournament: strategy no/such.py:Player: no file no/such.py (a "
     "plug-in's path is relative to the directory the command runs in"),
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
    assert len(variants.configs) == 16 and variants.baseline == "classic"
    assert sorted({c.rules.players for c in variants.configs}) == [2, 3, 4]
    par = load_experiment(ROOT / "experiments" / "par.toml")
    assert par.par and par.modes == ("hands",) and par.hands == 100_000
    # the same run as `spades-sim simulate --rules classic --hands 100000 --seed 1 --par
    # --chunk-size 1000 --out DIR` (whose config is named after its preset): such a folder,
    # moved to results/par/hands, is the experiment's hands run
    config = make_config("classic", preset("classic"), seat_strategies(["heuristic"], 4))
    simulate = RunSpec((config,), 1, n_hands=100_000, chunk_size=1000, par=True)
    assert par.spec("hands").identity() == simulate.identity()


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


# -- sizes beyond the shared bounds (core/limits.py) ------------------------------------------
@pytest.mark.parametrize("text, line, fragment", [
    ('name = "x"\nseed = 1\nhands = 1000000000000000000\n' + CONFIG, 3,
     "hands: 1000000000000000000 is more than the largest allowed, 1,000,000,000,000"),
    ('name = "x"\nseed = 1\ngames = 1000000000001\n' + CONFIG, 3,
     "games: 1000000000001 is more than the largest allowed"),
    (BASE + "chunk_size = 10000001\n" + CONFIG, 4,
     "chunk_size: 10000001 is more than the largest allowed, 10,000,000"),
    (BASE + "games = 5\ngames_chunk_size = 99999999999\n" + CONFIG, 5,
     "games_chunk_size: 99999999999 is more than the largest allowed"),
    (f'name = "x"\nhands = 5\nseed = {2**128}\n' + CONFIG, 3,
     f"seed: {2**128} is more than the largest allowed, 2**128 - 1"),
    (BASE + CONFIG + TOURNEY + "games = 1000000000000000000\n", 8,
     "tournament: games: 1000000000000000000 is more than the largest allowed"),
    (BASE + CONFIG + TOURNEY + "hands = 1000000000001\n", 8, "tournament: hands: 1000000000001"),
    (BASE + CONFIG + TOURNEY + "hands = 10\nchunk_size = 10000001\n", 9,
     "tournament: chunk_size: 10000001 is more than the largest allowed"),
    (BASE + CONFIG + "\n\nrule = { target = " + "9" * 5000 + " }\n", 8,
     "an integer of thousands of digits"),
])
def test_sizes_beyond_the_bounds_are_refused(text, line, fragment):
    test_errors_name_file_and_line(text, line, fragment)


def test_a_huge_run_is_refused_before_anything_is_written(tmp_path, capsys):
    from spades_sim.cli import main

    path = tmp_path / "huge.toml"
    path.write_text('name = "huge"\nseed = 1\nhands = 1000000000000000000\n' + CONFIG)
    out = tmp_path / "results"
    assert main(["run", str(path), "--out", str(out), "--reports", str(tmp_path / "r")]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == (
        f"spades-sim run: error: {path}:3: hands: 1000000000000000000 is more than the largest "
        f"allowed, 1,000,000,000,000\n")
    assert not out.exists() and not (tmp_path / "r").exists()  # no meta.json, nothing at all


# -- grids too large to expand ----------------------------------------------------------------
def test_a_grid_of_300000_configurations_is_refused_at_once():
    import time

    values = lambda count: "[" + ", ".join(str(v) for v in range(count)) + "]"  # noqa: E731
    text = (BASE + '[[grid]]\nname = "g{aggression}-{nil_threshold}-{target}"\n'
            f"params = {{ aggression = {values(30)}, nil_threshold = {values(100)}, "
            f"target = {values(100)} }}\n")
    started = time.perf_counter()
    with pytest.raises(ExperimentError) as info:
        parse_experiment(text, "experiments/x.toml")
    assert time.perf_counter() - started < 5
    assert str(info.value) == (
        'experiments/x.toml:6: grid "g{aggression}-{nil_threshold}-{target}": params expand to '
        "300,000 configurations (30 x 100 x 100); at most 1,000 are allowed in an experiment")


def test_the_configurations_of_all_tables_together_are_bounded():
    grid = ('[[grid]]\nname = "{name}{{aggression}}-{{nil_threshold}}"\n'
            "params = {{ aggression = [{a}], nil_threshold = [{b}] }}\n")
    numbers = ", ".join(str(v) for v in range(25))
    text = (BASE + CONFIG + grid.format(name="p", a=numbers, b=numbers)  # 1 + 625
            + grid.format(name="q", a=numbers, b=numbers))  # + 625 > 1,000
    with pytest.raises(ExperimentError) as info:
        parse_experiment(text, "x.toml")
    assert str(info.value) == ("x.toml:11: the experiment expands to 1,251 configurations by "
                               "this table; at most 1,000 are allowed")
    exactly = parse_experiment(BASE + grid.format(name="p", a=numbers, b=numbers), "x.toml")
    assert len(exactly.configs) == 625


# -- lines of tables written other ways ------------------------------------------------------
@pytest.mark.parametrize("text, line, fragment", [
    # [config] instead of [[config]]
    (BASE + '\n[config]\nname = "a"\n', 5, "config: a [config] table (or config.KEY = ...) is "
                                           "one table; write it as [[config]] tables"),
    (BASE + '\n[grid]\nname = "a"\n', 5, "write it as [[grid]] tables"),
    # dotted keys
    (BASE + 'title = "t"\nconfig.name = "x"\n', 5, "config: a [config] table"),
    (BASE + CONFIG + '\n[config.x]\ny = 1\n', 7, 'config "a": unknown key "x"'),
    (BASE + CONFIG + 'rule.target = 300\nrule.mercy = 400\n', 7,
     'config "a": rule mercy: 400 is not below the target 300'),
    (BASE + CONFIG + '[config.rule]\ntarget = 300\nnosuch = 1\n', 8,
     'unknown rule field "nosuch"'),
    # inline arrays of tables
    (BASE + 'config = [\n  { name = "a" },\n  { name = "b", rules = "nope" },\n]\n', 6,
     "config \"b\": unknown preset 'nope'"),
    (BASE + 'config = [{ name = "a" }, 3]\n', 4, "config: write it as [[config]] tables; item 2"),
    (BASE + 'config = [{ name = "a" },\n          { name = "a" }]\n', 5,
     'config name "a" repeats (first on line 4)'),
    (BASE + 'config = 3\n', 4, "config: write it as [[config]] tables"),
    # [[tournament]] instead of [tournament]
    (BASE + CONFIG + '\n[[tournament]]\nstrategies = ["heuristic", "random"]\ngames = 2\n', 7,
     "tournament: write it as a [tournament] table, not as [[tournament]] tables"),
    (BASE + 'tournament.games = 2\n' + CONFIG, 4, "tournament: strategies: expected a list"),
    (BASE + CONFIG + '[tournament]\nstrategies = [\n  "heuristic",\n  "genius",\n]\n'
     'games = 4\n', 9, "tournament: unknown strategy 'genius'"),
    (BASE + CONFIG + '[tournament]\nstrategies = [\n  "heuristic",\n  "random",\n'
     '  "heuristic:aggression=0",\n]\ngames = 4\n', 10,
     "tournament: strategies: heuristic repeats"),
])
def test_tables_written_other_ways_point_at_their_line(text, line, fragment):
    test_errors_name_file_and_line(text, line, fragment)


def test_inline_tables_are_configurations_too():
    text = (BASE + 'config = [\n  { name = "a" },\n  { name = "b", rule = { target = 300 } },\n]'
            '\n[[grid]]\nname = "g{aggression}"\nparams = { aggression = [1] }\n')
    exp = parse_experiment(text)
    assert [c.name for c in exp.configs] == ["a", "b", "g1"]
    assert exp.configs[1].rules.target == 300


# -- grid values -----------------------------------------------------------------------------
GRID = BASE + '[[grid]]\nname = "g{aggression}"\n'


@pytest.mark.parametrize("text, line, fragment", [
    (GRID + 'params = { aggression = [\n  1,\n  "x",\n] }\n', 8,
     "params aggression: 'x' is not a number (a strategy parameter)"),
    (GRID + 'params = { aggression = [1, true] }\n', 6, "params aggression: True is not a number"),
    (GRID + 'params = { aggression = [1, [2]] }\n', 6, "[2] is not a number"),
    (GRID + 'params = { aggression = [1, nan] }\n', 6, "nan is not a finite number"),
    (GRID + 'params = { aggression = [] }\n', 6,
     "params aggression: expected a non-empty list of values"),
    (GRID + 'params = { aggression = [1, 2], target = [] }\n', 6,
     "params target: expected a non-empty list of values"),
    (GRID + 'params = { aggression = [\n  1,\n  2,\n  1.0,\n] }\n', 9,
     "params aggression: 1 repeats (value 1 is the same)"),
    (GRID + '[grid.params]\naggression = [1]\ntarget = [\n  300,\n  1.5,\n]\n', 10,
     "params target: 1.5 is not a rule value"),
    (GRID + 'params = { aggression = [1], target = [300, { a = 1 }] }\n', 6,
     "params target: {'a': 1} is not a rule value"),
    (GRID + 'params = { aggression = [1], target = [300, 300] }\n', 6, "300 repeats"),
    (GRID + 'params = { aggression = [1] }\nstrategy = "heuristic:bid_max={aggression}"\n', 7,
     "unknown parameter 'bid_max'"),
    (GRID + 'params = { aggression = [\n  1,\n  1e9,\n] }\nstrategy = "random"\n', 6,
     '"aggression" is neither a rule field nor a parameter'),
    (BASE + '[[grid]]\nname = "s{samples}"\nstrategy = "mc"\n'
     'params = { samples = [\n  4,\n  0,\n] }\n', 9, "parameter samples=0 is out of range"),
    (BASE + '[[grid]]\nname = "s{samples}"\nstrategy = ["mc:samples={samples}", "random"] \n'
     'params = { samples = [\n  4,\n  0,\n] }\n', 6, "2 strategies for 4 players"),
])
def test_bad_grid_values_point_at_their_line(text, line, fragment):
    test_errors_name_file_and_line(text, line, fragment)


def test_a_grid_parameter_goes_to_strategy_presets_too():
    exp = parse_experiment(BASE + '[[grid]]\nname = "c{aggression}"\nstrategy = "cautious"\n'
                           'params = { aggression = [0.5] }\n')
    assert [s.spec() for s in exp.configs[0].strategies] == ["cautious:aggression=0.5"] * 4


# -- rule contradictions: the key that causes them ---------------------------------------------
@pytest.mark.parametrize("text, line, fragment", [
    # the override named by the message
    (BASE + CONFIG + 'rules = "cutthroat"\n\nrule = { nil_exchange = 2 }\n', 8,
     "rule nil_exchange: an exchange needs partnership scoring"),
    # a field the preset sets, refused because of an override: the override
    (BASE + CONFIG + 'rules = "two-player"\nrule = { players = 4 }\n', 7,
     "rule deal: draw is a two-player deal; allowed with 4 players: standard"),
    (BASE + CONFIG + 'rules = "classic"\nrule.deal = "draw"\nrule.players = 2\n', 8,
     "rule partnership: true only with 4 players"),
    (BASE + CONFIG + 'rule = { deck = "jokers" }\nrules = "cutthroat"\n', 6,
     "rule deck: jokers is a four-player deck"),
    # the preset itself
    (BASE + CONFIG + 'rule = { target = 300 }\nrules = "classik"\n', 7, "unknown preset"),
    # a grid value
    (BASE + '[[grid]]\nname = "p{players}"\nrules = "cutthroat"\n'
     'params = { players = [\n  3,\n  2,\n] }\n', 9,
     "rule misdeal_redeal: applies only to 3 or more players"),
    (BASE + '[[grid]]\nname = "t{target}"\nrule = { mercy = 200 }\n'
     'params = { target = [\n  300,\n  100,\n] }\n', 6,
     "rule mercy: 200 is not below the target 100"),
    (BASE + '[[grid]]\nname = "t{target}"\nparams = { target = [\n  300,\n  -300,\n] }\n', 8,
     'grid "t-300": rule target: -300 is out of range'),
    # the tournament's rules
    (BASE + CONFIG + TOURNEY + 'games = 2\nrules = "tournament"\n\nrule = { min_team_bid = 13 }'
     '\n', 11, "tournament: rule min_team_bid: 13 leaves the last bidder no legal bid"),
])
def test_rule_contradictions_point_at_their_cause(text, line, fragment):
    test_errors_name_file_and_line(text, line, fragment)


# -- the line scanner against tomllib ---------------------------------------------------------
TRICKY = '''
# comment [not a header]
a = 1 # c
"b.c" = 'x' # a quoted key with a dot
d.e.f = """multi
line "quoted" \\""" still
""" # after
g = \'\'\'lit
[fake] \'\'\'
h = [1, [2, 3], { i = 4, j.k = [5,
  6] }, "s,]"]
t = 1979-05-27 07:32:00Z
u = [1979-05-27 07:32:00, 1e+5, -inf, nan, true]
[[config]]
name = "a"
rule = { target = 300, "nil" = false }
[config.sub]
x = 1
[[config]]
name = "b"
[config.sub.deep]
y = 2
[[config.items]]
z = 3
[[config.items]]
z = 4
[ spaced . "table" ]
w = """ends with quotes"""""
v = ''
'''


def _paths(value, path=()):
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*path, key))
    elif isinstance(value, list):
        for number, item in enumerate(value):
            yield from _paths(item, (*path, number))


def test_the_line_scanner_finds_every_key_and_value():
    import tomllib

    from spades_sim.experiment.lines import Lines

    texts = [TRICKY, VALID] + [path.read_text() for path in (ROOT / "experiments").glob("*.toml")]
    for text in texts:
        lines = Lines(text)
        missing = [path for path in _paths(tomllib.loads(text)) if path not in lines.where]
        assert missing == [(), ]  # the document itself has no position
    lines = Lines(TRICKY)
    assert [lines.line(*path) for path in (
        ("a",), ("b.c",), ("d", "e", "f"), ("g",), ("h", 2, "j", "k", 1), ("h", 3), ("t",),
        ("u", 4), ("config", 0, "rule", "nil"), ("config", 0, "sub", "x"), ("config", 1),
        ("config", 1, "sub", "deep", "y"), ("config", 1, "items", 1), ("spaced", "table", "v"),
    )] == [3, 4, 5, 8, 11, 11, 12, 13, 16, 18, 19, 22, 25, 29]
    assert lines.line("config", 1, "nosuch") == 19  # the nearest table that holds it


def test_a_folder_holding_another_run_is_refused_before_anything_is_written(tmp_path, capsys):
    from spades_sim.cli import main
    from spades_sim.run import RunSpec, make_config
    from spades_sim.run.dataset import prepare_dir

    out = tmp_path / "results"
    other = RunSpec((make_config("a", preset("classic"), ["random"]),), 9, n_games=3)
    prepare_dir(other, out / "games")  # the games folder holds another run
    path = tmp_path / "x.toml"
    path.write_text(BASE + "games = 3\n" + CONFIG)
    assert main(["run", str(path), "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds another run" in err
    assert sorted(p.name for p in out.iterdir()) == ["games"]  # no hands/, no experiment.toml


def test_nil_counterfactual_adds_number_lines_to_the_hands_run_only():
    exp = parse_experiment('name = "n"\nseed = 1\nhands = 10\ngames = 2\n'
                           'nil_counterfactual = true\n[[config]]\nname = "h"\n'
                           'strategy = "cautious"\n[[config]]\nname = "r"\n'
                           'strategy = "random"\n', "n.toml")
    assert [c.name for c in exp.configs] == ["h", "r"]
    hands = exp.spec("hands").configs
    # One number line per side (random: no nil parameter, no line).
    assert [c.name for c in hands] == ["h", "r", "h~number0", "h~number1"]
    for side, line in enumerate(hands[2:]):
        assert line.rules == hands[0].rules
        for seat, strategy in enumerate(line.strategies):
            off = seat % 2 == side  # only the side's seats lose nil; the opponents keep it
            assert (strategy.params["nil_threshold"] == -1e9) == off
            assert (strategy.params["blind_nil_deficit"] == 1e19) == off
            assert strategy == (strategy if off else hands[0].strategies[seat])
        assert all(s.params["aggression"] == -0.6 for s in line.strategies)  # the rest kept
    assert [c.name for c in exp.spec("games").configs] == ["h", "r"]
    with pytest.raises(ExperimentError, match="nil_counterfactual: .*give hands"):
        parse_experiment('name = "n"\nseed = 1\ngames = 2\nnil_counterfactual = true\n'
                         '[[config]]\nname = "h"\n', "n.toml")


# -- hostile files: nesting, grid names in the user's words, a byte-order mark ------------------
@pytest.mark.parametrize("text, line, fragment", [
    (BASE + "v = " + "[" * 3000 + "1" + "]" * 3000 + "\n", 4, "nested more than 32 deep"),
    (BASE + "v = " + "[" * 40 + "1" + "]" * 40 + "\n", 4, "nested more than 32 deep"),
    (BASE + "v = " + "{ a = " * 900 + "1" + " }" * 900 + "\n", 4, "nested more than 32 deep"),
    (BASE + '[[grid]]\nname = "g{aggression.x}"\nparams = { aggression = [1, 2] }\n', 5,
     "the placeholder {aggression.x} is not a parameter of params; write {NAME} with NAME one "
     "of: aggression"),
    (BASE + '[[grid]]\nname = "g{aggression}{"\nparams = { aggression = [1, 2] }\n', 5,
     "a lone '{' at character 14; write {NAME} for a parameter's value, or {{ for the "
     "character itself"),
    (BASE + '[[grid]]\nname = "g}{aggression}"\nparams = { aggression = [1, 2] }\n', 5,
     "a lone '}' at character 2"),
    (BASE + '[[grid]]\nname = "g{0}"\nparams = { aggression = [1, 2] }\n', 5,
     "the placeholder {0} is not a parameter"),
    (BASE + '[[grid]]\nname = "g{aggression!r}"\nparams = { aggression = [1, 2] }\n', 5,
     "the placeholder {aggression!r} is not a parameter"),
])
def test_hostile_files_get_one_line(text, line, fragment):
    with pytest.raises(ExperimentError) as error:
        parse_experiment(text, "experiments/x.toml")
    message = str(error.value)
    assert "\n" not in message and "Single" not in message
    assert message.startswith(f"experiments/x.toml:{line}: "), message
    assert fragment in message, message


def test_a_doubled_brace_is_a_brace_which_no_name_may_hold():
    with pytest.raises(ExperimentError,
                       match=re.escape("x.toml:5: config name 'g{1}': use letters")):
        parse_experiment(BASE + '[[grid]]\nname = "g{{{aggression}}}"\n'
                                'params = { aggression = [1, 2] }\n', "x.toml")


def test_a_byte_order_mark_is_skipped(tmp_path):
    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf" + (BASE + CONFIG).encode())
    assert load_experiment(path).name == "x"
