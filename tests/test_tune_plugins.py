"""spades-sim tune over several opponents (``--objective mean|worst``) and of plug-ins (a Python
plug-in's ``tunable``, a numba plug-in's ``params``): the scores against an independent
replay of the boards, resuming, the held-out check and the one-line errors. Budgets are tiny
(one or two generations of two or three candidates on two or three boards)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from spades_sim.cli import main
from spades_sim.core.errors import StrategyError
from spades_sim.core.rules import preset
from spades_sim.core.strategies import PluginStrategy, parse_strategy
from spades_sim.evaluate import board_differences
from spades_sim.game.plugins import load
from spades_sim.tuning import TuneError, build_space, generation_seed, tune
from spades_sim.tuning.scoring import OBJECTIVES

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "strategies"
COUNTER = f"{EXAMPLES / 'trick_counter.py'}:TrickCounter"
CHASER = f"{EXAMPLES / 'set_chaser.py'}:SetChaser"
NUMBA = f"{EXAMPLES / 'counter_numba.py'}:CounterNumba"
PLUGIN = dict(against=["heuristic", CHASER], generations=1, popsize=2, boards=2,
              holdout_boards=2, seed=5)


def _records(out):
    return [json.loads(line) for line in (out / "history.jsonl").read_text().splitlines()]


def _result(out):
    data = json.loads((out / "result.json").read_text())
    for summary in data["history"]:
        del summary["seconds"]
    del data["out"]
    return data


@pytest.fixture(scope="module")
def plugin_tuned(tmp_path_factory):
    out = tmp_path_factory.mktemp("tune-plugin") / "run"
    return tune(COUNTER, "classic", out=out, objective="worst",
                **{**PLUGIN, "generations": 2}), out


# -- the objective over several opponents ---------------------------------------------------
@pytest.mark.parametrize("objective", ["mean", "worst"])
def test_the_objective_is_the_mean_or_the_worst_of_independent_replays(objective, tmp_path):
    out = tmp_path / objective
    tune("heuristic", "simple", against=["heuristic", "random", "cautious"],
         params=["aggression"], generations=1, popsize=2, boards=3, holdout_boards=2, seed=8,
         objective=objective, out=out)
    rules = preset("simple")
    for record in _records(out):
        replayed = {opponent: float(board_differences(
            record["spec"], opponent, rules, seed=generation_seed(8, 0), n_boards=3).mean())
            for opponent in ("heuristic", "random", "cautious")}
        assert record["against"] == pytest.approx(replayed, abs=1e-12)
        expected = min(replayed.values()) if objective == "worst" else \
            sum(replayed.values()) / 3
        assert record["score"] == pytest.approx(expected, abs=1e-12)
    settings = json.loads((out / "settings.json").read_text())
    assert settings["objective"] == OBJECTIVES[objective]
    assert "sources" not in settings  # no plug-in: the settings of earlier folders


def test_the_mean_objective_keeps_the_settings_text_of_earlier_folders():
    assert OBJECTIVES["mean"] == "mean final-score difference per duplicate board"


def test_another_objective_is_another_tuning(plugin_tuned):
    _, out = plugin_tuned
    with pytest.raises(TuneError, match="objective") as error:
        tune(COUNTER, "classic", out=out, objective="mean", **{**PLUGIN, "generations": 2})
    assert "\n" not in str(error.value)
    with pytest.raises(TuneError, match="objective 'best'"):
        tune(COUNTER, "classic", out=out, objective="best", **PLUGIN)


# -- a Python plug-in ----------------------------------------------------------------------
def test_a_python_plugin_space_comes_from_its_tunable():
    space = build_space(COUNTER)
    assert space.names == ["bias", "nil_max", "bag_guard"]
    assert [d.integer for d in space.dimensions] == [False, False, True]
    assert space.start.params == {"bias": 0.0, "nil_max": 0.5, "bag_guard": 3}
    assert space.decode(space.encode(space.start)).params == space.start.params
    corner = space.decode([10.0, 10.0, 10.0])
    assert isinstance(corner, PluginStrategy) and corner.params["bag_guard"] == 8
    assert isinstance(corner.params["bag_guard"], int)
    # the spec's own arguments are the start, and the untuned ones stay as given
    space = build_space(f"{COUNTER}:bias=1", ["nil_max"])
    assert space.start.params == {"bias": 1, "nil_max": 0.5}
    assert space.decode([0.0]).params == {"bias": 1, "nil_max": 0.0}


def test_a_plugin_tuning_leaves_a_spec_that_plays(plugin_tuned):
    result, out = plugin_tuned
    spec = (out / "tuned.txt").read_text().strip()
    assert spec == result.spec
    strategy = parse_strategy(spec)
    assert isinstance(strategy, PluginStrategy) and strategy.spec() == spec
    for name, value in result.params.items():
        low, high = result.bounds[name]
        assert low <= value <= high and strategy.params[name] == value
    assert isinstance(strategy.params["bag_guard"], int)
    load(strategy).agent()  # the constructor takes it
    assert [row["against"] for row in result.holdout] == ["heuristic", CHASER]
    settings = json.loads((out / "settings.json").read_text())
    assert settings["sources"].startswith("+plugins:")
    for record in _records(out):
        assert record["score"] == min(record["against"].values())
    page = (out / "report.html").read_text()
    assert "--objective worst" in page and "TrickCounter" in page


def test_the_held_out_result_is_an_independent_replay(plugin_tuned):
    from spades_sim.tuning import holdout_seed

    result, _ = plugin_tuned
    for row in result.holdout:
        diffs = board_differences(result.spec, row["against"], "classic",
                                  seed=holdout_seed(5), n_boards=2)
        assert row["mean_diff"] == pytest.approx(float(diffs.mean()), abs=1e-12)


def test_a_plugin_tuning_resumes_to_an_uninterrupted_end(plugin_tuned, tmp_path):
    _, whole = plugin_tuned
    out = tmp_path / "run"
    assert tune(COUNTER, "classic", out=out, objective="worst", **PLUGIN).generations == 1
    tune(COUNTER, "classic", out=out, objective="worst", **{**PLUGIN, "generations": 2})
    assert _records(out) == _records(whole)
    assert _result(out) == _result(whole)


def test_two_jobs_give_what_one_gives_for_a_plugin(plugin_tuned, tmp_path):
    _, whole = plugin_tuned
    out = tmp_path / "run"
    tune(COUNTER, "classic", out=out, objective="worst", jobs=2, **PLUGIN)
    assert _records(out) == _records(whole)[:2]


def test_an_edited_plugin_is_another_tuning(plugin_tuned, tmp_path):
    source = tmp_path / "mine.py"
    source.write_text((EXAMPLES / "trick_counter.py").read_text())
    out = tmp_path / "run"
    options = {**PLUGIN, "against": ["random"], "holdout_boards": 1}
    tune(f"{source}:TrickCounter", "classic", params=["bias"], out=out, **options)
    source.write_text(source.read_text() + "\n# an edit\n")
    with pytest.raises(TuneError, match="sources"):
        tune(f"{source}:TrickCounter", "classic", params=["bias"], out=out, **options)


# -- a numba plug-in -----------------------------------------------------------------------
def test_a_numba_plugin_tunes_its_params(tmp_path):
    result = tune(NUMBA, "classic", against=["heuristic"], params=["bias=-2:2"],
                  generations=1, popsize=2, boards=2, holdout_boards=2, seed=1,
                  out=tmp_path / "run")
    strategy = parse_strategy(result.spec)
    assert isinstance(strategy, PluginStrategy) and -2 <= strategy.params["bias"] <= 2
    assert isinstance(strategy.params["bias"], int)  # (its tunable says whole numbers)
    assert load(strategy).params()[0] == strategy.params["bias"]  # the engine's vector
    assert json.loads((tmp_path / "run" / "settings.json").read_text())["params"][0][
        "name"] == "bias"
    assert "--param bias=-2:2" in (tmp_path / "run" / "report.html").read_text()


# -- errors --------------------------------------------------------------------------------
@pytest.mark.parametrize("family, params, start, words", [
    (NUMBA, ["nosuch=0:1"], None, "has no such parameter"),
    (COUNTER, ["nosuch"], None, "has no such parameter"),
    (COUNTER, ["bias=1:0"], None, "LOW must be below HIGH"),
    (COUNTER, ["bias", "bias"], None, "given twice"),
    (COUNTER, None, CHASER, "expected a spec of the plug-in"),
    (COUNTER, None, f"{COUNTER}:bias=x", "not a number"),
    (f"{EXAMPLES / 'random_python.py'}:RandomPython", None, None, "declares no tunable"),
    (f"{EXAMPLES / 'nosuch.py'}:Counter", None, None, "no file"),
])
def test_bad_plugin_spaces_are_one_line_errors(family, params, start, words):
    with pytest.raises(StrategyError) as error:
        build_space(family, params, start)
    assert words in str(error.value) and "\n" not in str(error.value)


def test_a_numba_plugin_without_tunable_needs_bounds(monkeypatch):
    cls = load(NUMBA).cls
    monkeypatch.delattr(cls, "tunable")
    with pytest.raises(StrategyError, match="declares no search bounds for it") as error:
        build_space(NUMBA)
    assert "--param bias=LOW:HIGH" in str(error.value) and "\n" not in str(error.value)
    assert build_space(NUMBA, ["bias=-1:1"]).dimensions[0].integer is False


@pytest.mark.parametrize("tunable, words", [
    ("{'bias': 3}", "expected (low, high)"),
    ("{'bias': (0, 1, 'float')}", "expected (low, high)"),
    ("{'bias': (0, float('inf'))}", "not finite numbers"),
    ("[('bias', 0, 1)]", "must be a dict"),
])
def test_a_malformed_tunable_is_one_line(tmp_path, tunable, words):
    source = tmp_path / f"bad{abs(hash(tunable))}.py"
    source.write_text(f"class Bad:\n    tunable = {tunable}\n\n    def __init__(self, bias=0):\n"
                      f"        self.bias = bias\n\n    def bid(self, obs):\n        return "
                      f"obs.legal[0]\n\n    def play(self, obs):\n        return obs.legal[0]\n")
    with pytest.raises(StrategyError) as error:
        build_space(f"{source}:Bad")
    assert words in str(error.value) and "\n" not in str(error.value)


def test_a_constructor_that_refuses_a_corner_fails_before_the_search(tmp_path):
    source = tmp_path / "picky.py"
    source.write_text("class Picky:\n    tunable = {'bias': (-1, 1)}\n\n"
                      "    def __init__(self, bias=0):\n        if bias < 0:\n"
                      "            raise ValueError('bias must be >= 0')\n\n"
                      "    def bid(self, obs):\n        return obs.legal[0]\n\n"
                      "    def play(self, obs):\n        return obs.legal[0]\n")
    with pytest.raises(StrategyError, match="bias must be >= 0"):
        build_space(f"{source}:Picky")


# -- the command line ----------------------------------------------------------------------
def test_cli_tunes_a_plugin_against_several_opponents(tmp_path, capsys):
    out = tmp_path / "cli"
    argv = ["tune", COUNTER, "--rules", "classic", "--against", "heuristic", "--against",
            "cautious", "--against", CHASER, "--objective", "worst", "--param", "bias",
            "--generations", "1", "--popsize", "2", "--boards", "1", "--holdout-boards", "1",
            "--seed", "2", "--out", str(out), "--quiet"]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "objective (worst over the opponents)" in text
    assert text.count("  vs ") == 3
    data = json.loads((out / "result.json").read_text())
    worst = min(row["mean_diff"] for row in data["holdout"])
    assert f"{worst:+.2f}" in text.split("objective (worst over the opponents):")[1]
    assert np.isfinite(worst)


def test_cli_objective_is_checked(capsys, tmp_path):
    assert main(["tune", "heuristic", "--against", "heuristic", "--objective", "best",
                 "--out", str(tmp_path / "x")]) == 2
    assert "invalid choice" in capsys.readouterr().err
