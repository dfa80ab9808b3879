"""spades-sim tune: the duplicate scoring, the search space, resuming, workers, the outputs and
the one-line errors. Budgets are tiny (a few generations of a few candidates on 20 boards): the
tests check the machinery, never what the heuristic's parameters turn out to be."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest

import spades_sim
from spades_sim.cli import main
from spades_sim.core.errors import SpadesError, StrategyError
from spades_sim.core.rules import preset
from spades_sim.core.strategies import parse_strategy
from spades_sim.evaluate import board_differences
from spades_sim.tuning import (
    TuneError,
    build_space,
    generation_seed,
    holdout_seed,
    tune,
)
from spades_sim.tuning import search as search_module

PARAMS = ["aggression", "nil_threshold=0.5:2.5", "set_margin"]
SMALL = dict(against=["heuristic", "cautious"], params=PARAMS, generations=2, popsize=4,
             boards=20, holdout_boards=40, seed=3)


def _rows(out):
    return (out / "history.jsonl").read_text().splitlines()


def _result(out):
    data = json.loads((out / "result.json").read_text())
    for summary in data["history"]:
        del summary["seconds"]  # wall-clock time: the one thing a rerun may change
    del data["out"]
    return data


@pytest.fixture(scope="module")
def tuned(tmp_path_factory):
    out = tmp_path_factory.mktemp("tune") / "run"
    return tune("heuristic", "simple", out=out, **SMALL), out


# -- scoring --------------------------------------------------------------------------------
@pytest.mark.parametrize("rules", ["classic", "cutthroat", "two-player"])
def test_a_strategy_against_itself_differs_by_zero(rules):
    diffs = board_differences(parse_strategy("heuristic"), parse_strategy("heuristic"),
                              preset(rules), seed=5, first_board=0, n_boards=6)
    assert diffs.shape == (6,)
    np.testing.assert_allclose(diffs, 0.0, atol=1e-9)


def test_boards_do_not_depend_on_the_pieces_they_are_played_in():
    rules, a, b = preset("classic"), parse_strategy("heuristic"), parse_strategy("random")
    whole = board_differences(a, b, rules, seed=9, first_board=0, n_boards=6)
    pieces = np.concatenate([board_differences(a, b, rules, seed=9, first_board=0, n_boards=2),
                             board_differences(a, b, rules, seed=9, first_board=2, n_boards=4)])
    np.testing.assert_array_equal(whole, pieces)
    assert np.any(whole != 0)  # random against the heuristic is no tie
    # the duplicate copy swaps the roles: the opponent's view is the negation
    np.testing.assert_allclose(board_differences(b, a, rules, seed=9, first_board=0,
                                                 n_boards=6), -whole)


# -- the space ------------------------------------------------------------------------------
def test_the_default_space_comes_from_the_strategy_table():
    space = build_space("heuristic", rules=preset("classic"))
    assert "aggression" in space.names and "set_margin" in space.names
    for dimension in space.dimensions:
        param = spades_sim.core.strategies.KINDS["heuristic"].param(dimension.name)
        assert param.low <= dimension.low < dimension.high <= param.high
    point = [10.0] * len(space.dimensions)
    values = space.values(point)
    assert values["set_margin"] == float(int(values["set_margin"]))  # integers rounded
    assert space.decode(space.encode(space.start)).spec() == "heuristic"


def test_a_preset_family_starts_from_the_preset():
    space = build_space("aggressive", ["aggression"], rules=preset("classic"))
    assert space.start.params["aggression"] == 0.6
    assert space.decode(space.encode(space.start)).spec() == "aggressive"


@pytest.mark.parametrize("family, params, start, words", [
    ("nosuch", None, None, "unknown family"),
    ("heuristic", ["nosuch"], None, "unknown parameter"),
    ("heuristic", ["ace=2:1"], None, "LOW must be below HIGH"),
    ("heuristic", ["nil_max_spades=-1:3"], None, "outside the parameter's range"),
    ("heuristic", ["aggression=a:b"], None, "two numbers"),
    ("heuristic", ["ace", "ace"], None, "given twice"),
    ("random", ["bid_min=0:5", "bid_max=3:6"], None, "bid_min"),
    ("heuristic", ["ace"], "random", "expected a heuristic strategy"),
])
def test_bad_spaces_are_one_line_errors(family, params, start, words):
    with pytest.raises(StrategyError) as error:
        build_space(family, params, start, rules=preset("classic"))
    assert words in str(error.value) and "\n" not in str(error.value)


def test_an_open_range_needs_bounds(monkeypatch):
    from spades_sim.tuning import space

    monkeypatch.delitem(space.BOUNDS, "ace")
    with pytest.raises(StrategyError, match="is open; give bounds as ace=LOW:HIGH"):
        build_space("heuristic", ["ace"])
    assert build_space("heuristic", ["ace=0.5:1"]).dimensions[0].high == 1.0


# -- the search -----------------------------------------------------------------------------
def test_a_tuning_leaves_its_files_and_a_spec_that_parses(tuned):
    result, out = tuned
    for name in ("settings.json", "state.pkl", "history.jsonl", "history.csv", "tuned.txt",
                 "result.json", "report.html"):
        assert (out / name).is_file(), name
    spec = (out / "tuned.txt").read_text().strip()
    assert spec == result.spec
    strategy = parse_strategy(spec)
    assert strategy.spec() == spec
    for name, value in result.params.items():
        assert strategy.params[name] == value
        low, high = result.bounds[name]
        assert low <= value <= high
    assert float(strategy.params["set_margin"]).is_integer()
    assert len(_rows(out)) == 2 * 4
    assert [row["against"] for row in result.holdout] == ["heuristic", "cautious"]
    for row in result.holdout:
        assert row["ci95"][0] <= row["mean_diff"] <= row["ci95"][1]
        assert row["boards"] == 40
    page = (out / "report.html").read_text()
    assert "<svg" in page and result.spec in page and "simple" in page
    assert len((out / "history.csv").read_text().splitlines()) == 1 + 2 * 4


def test_the_held_out_seed_is_none_of_the_search_seeds(tuned):
    result, out = tuned
    searched = {json.loads(line)["seed"] for line in _rows(out)}
    assert searched == {str(generation_seed(3, g)) for g in range(2)}
    assert all(row["seed"] == str(holdout_seed(3)) for row in result.holdout)
    assert str(holdout_seed(3)) not in searched
    assert str(holdout_seed(3)) not in {str(generation_seed(3, g)) for g in range(1000)}


def test_every_candidate_of_a_generation_plays_the_same_boards(tuned):
    _, out = tuned
    rows = [json.loads(line) for line in _rows(out)]
    for generation in (0, 1):
        assert len({row["seed"] for row in rows if row["generation"] == generation}) == 1


def test_extending_the_budget_equals_an_uninterrupted_run(tuned, tmp_path):
    _, whole = tuned
    out = tmp_path / "run"
    first = tune("heuristic", "simple", out=out, **{**SMALL, "generations": 1})
    assert first.generations == 1
    tune("heuristic", "simple", out=out, **SMALL)
    assert _rows(out) == _rows(whole)
    assert _result(out) == _result(whole)
    assert (out / "tuned.txt").read_text() == (whole / "tuned.txt").read_text()


def test_a_kill_after_the_state_is_written_resumes_to_the_same_end(tuned, tmp_path,
                                                                    monkeypatch):
    _, whole = tuned
    out = tmp_path / "run"
    calls = []
    real = search_module._write_history

    def killed(*args):  # the process dies after writing the second generation's state
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        real(*args)

    monkeypatch.setattr(search_module, "_write_history", killed)
    with pytest.raises(KeyboardInterrupt):
        tune("heuristic", "simple", out=out, **SMALL)
    assert pickle.loads((out / "state.pkl").read_bytes())["generation"] == 2
    assert len(_rows(out)) == 4  # the history lags one generation behind
    monkeypatch.setattr(search_module, "_write_history", real)
    tune("heuristic", "simple", out=out, **SMALL)
    assert _rows(out) == _rows(whole)
    assert _result(out) == _result(whole)


def test_two_jobs_give_what_one_gives(tuned, tmp_path):
    _, whole = tuned
    out = tmp_path / "run"
    tune("heuristic", "simple", out=out, jobs=2, **{**SMALL, "generations": 1})
    assert _rows(out) == _rows(whole)[:4]


def test_a_folder_with_other_settings_is_refused(tuned):
    _, out = tuned
    with pytest.raises(TuneError) as error:
        tune("heuristic", "simple", out=out, **{**SMALL, "boards": 21})
    assert "boards" in str(error.value) and "\n" not in str(error.value)
    with pytest.raises(TuneError, match="more than"):
        tune("heuristic", "simple", out=out, **{**SMALL, "generations": 1})


def test_spades_sim_tune_is_a_plain_function(tuned):
    import types

    from spades_sim.tuning import TuneResult

    assert isinstance(spades_sim.tune, types.FunctionType) and spades_sim.tune is tune
    assert isinstance(tuned[0], TuneResult)


# -- the command line -----------------------------------------------------------------------
def test_cli_json(tuned, capsys):
    _, out = tuned
    argv = ["tune", "heuristic", "--rules", "simple", "--against", "heuristic", "--against",
            "cautious", "--generations", "2", "--popsize", "4", "--boards", "20",
            "--holdout-boards", "40", "--seed", "3", "--out", str(out), "--json", "--quiet"]
    for param in PARAMS:
        argv += ["--param", param]
    assert main(argv) == 0  # the folder is complete: nothing is played again
    data = json.loads(capsys.readouterr().out)
    assert data["spec"] == (out / "tuned.txt").read_text().strip()
    assert parse_strategy(data["spec"]).spec() == data["spec"]
    assert data["holdout"][0]["against"] == "heuristic"


@pytest.mark.parametrize("extra, words", [
    (["nosuch", "--against", "heuristic"], "unknown family"),
    (["heuristic", "--against", "heuristic", "--param", "nosuch"], "unknown parameter"),
    (["heuristic", "--against", "heuristic", "--param", "ace=1:0.5"], "below HIGH"),
    (["heuristic", "--against", "heuristic:nosuch=1"], "unknown parameter"),
    (["heuristic", "--against", "heuristic:aggression=x"], "not a number"),
    (["heuristic", "--against", "heuristic", "--rule", "nosuch=1"], "unknown rule field"),
    (["heuristic", "--against", "heuristic", "--scheduler", "tcp://x:1"], "--backend dask"),
])
def test_cli_errors_are_one_line(extra, words, capsys, tmp_path):
    assert main(["tune", *extra, "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1 and "Traceback" not in err


def test_cli_refuses_a_folder_of_other_settings(tuned, capsys):
    _, out = tuned
    assert main(["tune", "heuristic", "--rules", "simple", "--against", "heuristic",
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "other settings" in err and err.count("\n") == 1


def test_errors_are_spades_errors():
    assert issubclass(TuneError, SpadesError)


def test_one_held_out_board_has_no_interval_and_still_prints_json(tmp_path, capsys):
    assert main(["tune", "heuristic", "--rules", "simple", "--against", "random", "--param",
                 "aggression", "--generations", "1", "--popsize", "2", "--boards", "2",
                 "--holdout-boards", "1", "--out", str(tmp_path / "t"), "--json"]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert data["holdout"][0]["ci95"] == [None, None]
    assert "generation 1/1" in captured.err  # the progress line
    assert "history" in (tmp_path / "t" / "result.json").read_text()


# -- the tuning folder: one writer, and a state of the right shape ------------------------------
def test_a_second_tuning_of_one_folder_is_refused(tuned, tmp_path, capsys):
    import shutil

    from spades_sim.run.locks import hold_lock

    out = tmp_path / "copy"
    shutil.copytree(tuned[1], out)
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    with hold_lock(out / search_module.LOCK, "a tuning"):  # another tuning still running
        assert main(["tune", "heuristic", "--rules", "simple", "--against", "heuristic",
                     "--against", "cautious", "--generations", "3", "--popsize", "4",
                     "--boards", "20", "--holdout-boards", "40", "--seed", "3",
                     *sum((["--param", p] for p in PARAMS), []), "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "is being written by pid" in err
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before


@pytest.mark.parametrize("state", [{"generation": 1}, [1, 2], {"generation": "1", "es": None,
                                   "records": [], "summaries": [], "stop": {}}, 5])
def test_a_state_of_the_wrong_shape_is_one_line(tuned, tmp_path, state):
    import shutil

    out = tmp_path / "copy"
    shutil.copytree(tuned[1], out)
    (out / search_module.STATE).write_bytes(pickle.dumps(state))
    with pytest.raises(search_module.TuneError, match="not a tuning state"):
        tune("heuristic", "simple", out=out, **{**SMALL, "generations": 3})
