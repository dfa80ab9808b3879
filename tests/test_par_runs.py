"""Par in runs and reports: the par columns of runs played with par (``--par``, ``par =
true``), the analyses against par and the report's "Bids against par" section.

Full deals are slow to solve double dummy, so the plumbing is tested with a stand-in solver (a
deterministic function of the position) and the real solver runs on two hands only, in one
test that also plays them on two workers.
"""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest

from spades_sim.analysis.par import bids_against_par, nil_against_par, tricks_against_par
from spades_sim.cli import main
from spades_sim.core.errors import AnalysisError, ExperimentError, RunError
from spades_sim.core.par import PAR_COLUMNS
from spades_sim.core.rules import preset
from spades_sim.core.schema import TIDY_COLUMNS
from spades_sim.core.version import solver_hash
from spades_sim.engine import dd
from spades_sim.experiment import parse_experiment, run_experiment
from spades_sim.game.par import after_exchange, records_par
from spades_sim.handlog.par import iter_par, par_file
from spades_sim.handlog.write import write_log
from spades_sim.run import (
    RunSpec,
    execute,
    load_run,
    make_config,
    read_meta,
    simulate,
    simulate_hands,
)

EXCHANGE = preset("classic", nil_exchange=2)  # nil bidders pass cards: par is after the passes
SEED_REAL = 15  # two hands the real solver answers in a few seconds, one with a nil


def _stub_solve(rules, hands, leaders, **_):
    """A stand-in for dd.solve_deals: a deterministic function of the position."""
    hands = np.asarray(hands, dtype=np.int64)
    low = (hands[:, 0] ^ (hands[:, 1] >> 3) ^ np.asarray(leaders)) & 0xFFFF
    team0 = np.asarray([bin(int(v)).count("1") for v in low], dtype=np.int64) % 14
    return np.stack([team0, rules.hand_size - team0], axis=1)


def _stub_nil_safe(rules, hands, leader, seat, **_):
    return bool((hands[seat] >> 3) & 1) != bool(leader & 1)


@pytest.fixture
def stub_solver(monkeypatch):
    monkeypatch.setattr(dd, "solve_deals", _stub_solve)
    monkeypatch.setattr(dd, "nil_safe", _stub_nil_safe)


def _par_answers(run) -> list[dict]:
    """``spades-sim par`` of a run's hand log (the ``par`` object of every line)."""
    log = io.StringIO()
    write_log(log, run)
    answers = [result for _, result in iter_par(log.getvalue().encode().splitlines())]
    assert all(isinstance(a, dict) for a in answers), answers
    return [answer["par"] for answer in answers]


def _run_par(frame: pd.DataFrame, players: int = 4) -> list[dict]:
    """The par columns of a tidy frame of one configuration, as ``spades-sim par`` objects."""
    objects = []
    for _, hand in frame.groupby(["game_id", "hand_id"], sort=True):
        hand = hand.sort_values("seat")
        sides = hand.drop_duplicates("side").sort_values("side")
        objects.append({"tricks": sides["par_tricks"].astype(int).tolist(),
                        "nil_safe": [None if pd.isna(v) else bool(v)
                                     for v in hand["par_nil_safe"]]})
    return objects


# -- the columns ----------------------------------------------------------------------------------
def test_par_columns_equal_spades_sim_par_of_the_same_hands(stub_solver):
    config = make_config("x", EXCHANGE, ["nil-happy"])
    frame = simulate([config], n_hands=40, seed=7, par=True)
    assert list(frame.columns) == [*TIDY_COLUMNS, *PAR_COLUMNS]
    assert str(frame["par_tricks"].dtype) == "int8"
    assert str(frame["par_nil_safe"].dtype) == "boolean"
    assert frame["par_nil_safe"].isna().to_numpy().tolist() == (~frame["nil"]).tolist()
    run = simulate_hands(EXCHANGE, config.strategies, 40, 7, record_plays=True)
    assert (run.hands.exchange[:, 0, 0] >= 0).any()  # some hands passed cards
    assert _run_par(frame) == _par_answers(run)
    # The exchanges are applied: par is of the hands after the passes, not as dealt.
    moved = after_exchange(run.hands.hands, run.hands.exchange)
    assert (moved != run.hands.hands).any()
    tricks, _ = records_par(EXCHANGE, run.hands)
    assert tricks.tolist() == _stub_solve(EXCHANGE, moved[:, :4], run.hands.first_leader).tolist()


def test_without_par_nothing_changes(stub_solver, tmp_path):
    config = make_config("x", preset("classic"), ["heuristic"])
    plain = RunSpec((config,), 3, n_hands=20, chunk_size=10)
    assert set(plain.identity()) == {"format", "seed", "unit", "chunk_size",
                                     "duplicate", "configs", "engine"}
    with_par = RunSpec((config,), 3, n_hands=20, chunk_size=10, par=True)
    assert with_par.identity() == {**plain.identity(), "par": True,
                                   "engine": plain.identity()["engine"] + "+solver:"
                                   + solver_hash()}
    execute(plain, tmp_path / "plain", quiet=True)
    execute(with_par, tmp_path / "par", quiet=True)
    assert read_meta(tmp_path / "plain")["columns"] == list(TIDY_COLUMNS)
    assert read_meta(tmp_path / "par")["columns"] == [*TIDY_COLUMNS, *PAR_COLUMNS]
    frame, par_frame = load_run(tmp_path / "plain"), load_run(tmp_path / "par")
    assert list(frame.columns) == list(TIDY_COLUMNS)
    pd.testing.assert_frame_equal(frame, par_frame[list(TIDY_COLUMNS)])
    assert str(par_frame["par_nil_safe"].dtype) == "boolean"
    assert load_run(tmp_path / "par", columns=["par_tricks"]).shape == (80, 1)
    with pytest.raises(RunError, match="no column 'par_tricks'.*played with --par"):
        load_run(tmp_path / "plain", columns=["par_tricks"])


@pytest.mark.parametrize("first, then", [(True, False), (False, True)])
def test_a_run_is_not_resumed_with_another_par(stub_solver, tmp_path, first, then):
    config = make_config("x", preset("classic"), ["heuristic"])
    execute(RunSpec((config,), 3, n_hands=10, chunk_size=5, par=first), tmp_path, quiet=True)
    with pytest.raises(RunError, match=r"holds another run \(it differs in engine, par\)"):
        execute(RunSpec((config,), 3, n_hands=10, chunk_size=5, par=then), tmp_path, quiet=True)


def test_duplicate_copies_keep_their_sides_par(stub_solver):
    # No exchange (no blind nil): both copies play the same positions, so the copy's home
    # side h holds the cards (and the par) of the first play's side 1 - h.
    config = make_config("x", preset("classic", blind_nil=False), ["heuristic", "random"] * 2)
    frame = simulate([config], n_hands=12, seed=4, duplicate=True, par=True)
    first = frame[~frame["duplicate"]].set_index(["hand_id", "side"])["par_tricks"]
    copy = frame[frame["duplicate"]].set_index(["hand_id", "side"])["par_tricks"]
    flipped = copy.rename(index=lambda side: 1 - side, level="side")
    pd.testing.assert_series_equal(first.sort_index(), flipped.sort_index())


def test_par_from_the_command_line(stub_solver, tmp_path, capsys):
    assert main(["simulate", "--hands", "10", "--par"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--par needs --out" in err
    out = tmp_path / "run"
    assert main(["simulate", "--hands", "10", "--seed", "2", "--par", "--quiet", "--out",
                 str(out)]) == 0
    assert read_meta(out)["identity"]["par"] is True
    assert main(["simulate", "--hands", "10", "--seed", "2", "--quiet", "--out", str(out)]) == 2
    assert "differs in engine, par" in capsys.readouterr().err


def test_real_par_on_two_workers_equals_spades_sim_par(tmp_path):
    """The real solver, two hands: played on two workers (one chunk each), against
    ``spades-sim par`` of the same hands in this process (what one worker computes)."""
    config = make_config("x", EXCHANGE, ["nil-happy"])
    spec = RunSpec((config,), SEED_REAL, n_hands=2, chunk_size=1, par=True)
    summary = execute(spec, tmp_path / "run", jobs=2, quiet=True)
    assert summary["played_chunks"] == 2
    frame = load_run(tmp_path / "run")
    run = simulate_hands(EXCHANGE, config.strategies, 2, SEED_REAL, record_plays=True)
    log = tmp_path / "hands.jsonl"
    write_log(log, run)
    out, err = io.StringIO(), io.StringIO()
    assert par_file(log, out, err) == 0, err.getvalue()
    answers = [json.loads(line)["par"] for line in out.getvalue().splitlines()]
    assert _run_par(frame) == answers
    assert any(value is not None for answer in answers for value in answer["nil_safe"])



# -- experiment files -----------------------------------------------------------------------------
EXPERIMENT = """\
name = "par"
seed = 2
hands = 24
chunk_size = 12
par = true
analyses = ["bid_accuracy", "nil"]

[[config]]
name = "heuristic"
strategy = "heuristic"

[[config]]
name = "nil-happy"
strategy = "nil-happy"
"""


def test_experiment_par_key():
    assert parse_experiment(EXPERIMENT).spec("hands").par is True
    assert parse_experiment(EXPERIMENT.replace("par = true\n", "")).spec("hands").par is False
    with pytest.raises(ExperimentError, match=r":5: par: expected true or false"):
        parse_experiment(EXPERIMENT.replace("par = true", "par = 1"))


def test_report_has_a_section_against_par(stub_solver, tmp_path, monkeypatch):
    from spades_sim.report import build_report, formatting

    # A few dozen hands: every row would be "few cases" and left out of the figures.
    monkeypatch.setattr(formatting, "FEW_CASES", 1)

    experiment = parse_experiment(EXPERIMENT)
    results = tmp_path / "results"
    run_experiment(experiment, results, quiet=True)
    index = build_report(results, tmp_path / "reports")
    html = index.read_text()
    assert "Bids against par" in html
    assert html.index("Bid accuracy") < html.index("Bids against par") < html.index("Nil and")
    folder = index.parent
    for name in ("par-bids.csv", "par-bids.svg", "par-tricks.svg", "par-nil.csv",
                 "par-bids-by-seat.csv"):
        assert (folder / name).exists(), name
    bids = pd.read_csv(folder / "par-bids.csv")
    assert bids["config"].tolist() == ["heuristic", "nil-happy"]
    # The summary leads with what par adds: the shares of hands by how the contracts stand
    # against par, one hand per unit (estimates, not tests), checked against a direct count.
    assert html.index('id="summary"') < html.index("hands in which every side bid under")
    summary = pd.read_csv(folder / "summary.csv")
    assert summary["finding"].iloc[0] == "heuristic: hands in which every side bid under its par"
    assert (summary["group"] == "estimate").all()
    frame = load_run(results / "hands")
    frame = frame[frame["config"] == "heuristic"]
    per_side = frame.groupby(["hand_id", "side"]).agg(
        contract=("side_contract", "first"), par=("par_tricks", "first"),
        nil=("nil", "any"))
    hands = per_side.groupby("hand_id").agg(nil=("nil", "any"), under=(
        "contract", lambda c: bool((c < per_side.loc[c.index, "par"]).all())))
    hands = hands[~hands["nil"]]
    assert summary["effect"].iloc[0] == pytest.approx(100 * hands["under"].mean())
    assert summary["n"].iloc[0] == len(hands)


def test_report_sections_without_par_are_unchanged():
    from spades_sim.report.page import _analyses
    from spades_sim.report.results import Results

    experiment = parse_experiment(EXPERIMENT.replace("par = true\n", ""))
    plain = Results(experiment, {"hands": experiment.spec("hands")}, {}, None)
    assert _analyses(plain) == ["bid_accuracy", "nil"]
    experiment = parse_experiment(EXPERIMENT)
    par = Results(experiment, {"hands": experiment.spec("hands")}, {}, None)
    assert _analyses(par) == ["bid_accuracy", "par", "nil"]


# -- analyses -------------------------------------------------------------------------------------
def _frame() -> pd.DataFrame:
    """Three hands of one configuration, strategies a (seats 0, 2) and b (seats 1, 3); hand 2
    has a nil (seat 1), so only hands 0 and 1 count against par."""
    rows = []
    hands = [  # per hand: bids, tricks, par of side 0 (side 1: 13 - it), nil_safe of seat 1
        ([3, 4, 2, 3], [4, 3, 3, 3], 6, None),
        ([5, 2, 3, 2], [5, 2, 2, 4], 7, None),
        ([4, 0, 5, 3], [5, 1, 4, 3], 9, False),
    ]
    for hand_id, (bids, tricks, par0, safe) in enumerate(hands):
        for seat in range(4):
            side = seat % 2
            nil = bids[seat] == 0
            contract = sum(b for s, b in enumerate(bids) if s % 2 == side and b)
            rows.append({"config": "c", "duplicate": False, "game_id": -1, "hand_id": hand_id,
                         "seat": seat, "side": side, "strategy": "ab"[side], "blind": False,
                         "nil": nil, "bid": bids[seat], "tricks": tricks[seat],
                         "side_contract": contract,
                         "par_tricks": par0 if side == 0 else 13 - par0,
                         "par_nil_safe": safe if nil else None})
    frame = pd.DataFrame(rows)
    frame["par_nil_safe"] = frame["par_nil_safe"].astype("boolean")
    return frame


def test_bids_against_par_by_hand():
    table = bids_against_par(_frame())
    # a (side 0): contracts 5 and 8 against par 6 and 7; b (side 1): 7 and 4 against 7 and 6.
    a, b = table.to_dict(orient="records")
    assert (a["strategy"], a["n"], a["mean_bid"], a["mean_par"]) == ("a", 2, 6.5, 6.5)
    assert a["bid_minus_par"] == 0.0 and (a["over"], a["under"]) == (1, 1)
    half = 1.959963984540054 * np.std([-1, 1], ddof=1) / np.sqrt(2)
    assert a["bid_minus_par_low"] == pytest.approx(-half)
    assert (b["mean_bid"], b["mean_par"], b["bid_minus_par"]) == (5.5, 6.5, -1.0)
    assert (b["over"], b["under"], b["under_rate"]) == (0, 1, 0.5)
    by_seat = bids_against_par(_frame(), by=("seat",))
    assert by_seat["n"].tolist() == [2, 2, 2, 2]
    assert by_seat["bid_minus_par"].tolist() == [0.0, -1.0, 0.0, -1.0]


def test_tricks_against_par_by_hand():
    table = tricks_against_par(_frame())
    # a took 7 and 7 against par 6 and 7; b took 6 and 6 against 7 and 6.
    a, b = table.to_dict(orient="records")
    assert (a["mean_tricks"], a["tricks_minus_par"], a["off_par"], a["at_par"]) == (7, .5, .5, 1)
    assert (b["mean_tricks"], b["tricks_minus_par"], b["off_par"], b["at_par"]) == (6, -.5, .5, 1)
    whole = tricks_against_par(_frame(), by=())
    assert whole[["n", "side_hands"]].values.tolist() == [[2, 4]]
    # Zero by construction when the group holds both sides of every hand: no interval.
    assert whole["tricks_minus_par"].tolist() == [0.0]
    assert np.isnan(whole["tricks_minus_par_low"]).all()
    # One hand is one unit: hand 1 is at par (each side takes its par), counted once.
    assert whole[["at_par", "at_par_rate"]].values.tolist() == [[1, 0.5]]


def test_nil_against_par_by_hand():
    frame = _frame()
    extra = frame[frame["hand_id"] == 2].assign(hand_id=3)
    extra.loc[extra["seat"] == 1, ["tricks", "par_nil_safe"]] = [0, True]
    table = nil_against_par(pd.concat([frame, extra], ignore_index=True), by=("strategy",))
    assert table[["strategy", "dd_safe", "n", "made", "rate", "share"]].values.tolist() == [
        ["b", False, 1, 0, 0.0, 0.5], ["b", True, 1, 1, 1.0, 0.5]]
    with pytest.raises(AnalysisError, match="no par columns; play the run with --par"):
        bids_against_par(frame.drop(columns=["par_tricks", "par_nil_safe"]))
