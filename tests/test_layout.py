"""The stored layout of chunk files (one row per hand) gives back exactly the tidy frame the record
arrays make (``run/frames.py``), for every preset, in both modes, with duplicate copies."""

import numpy as np
import pandas as pd
import pytest

from spades_sim.core.rules import PRESETS, preset
from spades_sim.core.seeding import stream_keys
from spades_sim.game import dispatch
from spades_sim.run import layout
from spades_sim.run.frames import tidy_frame
from spades_sim.run.memory import _categorical, _home_seats, rotated_strategies
from spades_sim.run.spec import RunSpec, make_config

CONFIGS = [make_config(name, preset(name), ["heuristic", "random"] * 2
                       if preset(name).players == 4 else ["heuristic"]) for name in PRESETS]


def _both(games_mode: bool, duplicate: bool):
    """The tidy frame of one chunk of every preset, made from the records and from the stored
    table."""
    keys = stream_keys(3)
    seats, sides = layout.shape(CONFIGS)
    frames, blocks = [], []
    for config in CONFIGS:
        if duplicate and config.rules.players != 4:
            continue
        for copy in (False, True) if duplicate else (False,):
            strategies = rotated_strategies(config.strategies, 1 if copy else 0)
            if games_mode:  # (chunk 2 of 6 games, or of 200 hands)
                hands, games = dispatch.play_games(config.rules, strategies, keys, 12, 6, False)
            else:
                hands, games = dispatch.play_hands(config.rules, strategies, keys, 400, 200,
                                                   False), None
            frame = tidy_frame(hands, config.rules, strategies, config=config.name,
                               duplicate=copy, chunk=2, games=games, cards=True)
            frames.append(_home_seats(frame) if copy else frame)
            blocks.append(layout.stored_block(hands, config.rules, strategies,
                                              config=config.name, duplicate=copy, chunk=2,
                                              seats=seats, sides=sides, games=games))
    expected = _categorical(pd.concat(frames, ignore_index=True))
    run = _run(games_mode, duplicate)
    table = layout.stored_table(blocks, run.stored_types)
    return expected, table, run, blocks


def _run(games_mode: bool, duplicate: bool, par: bool = False) -> RunSpec:
    configs = tuple(c for c in CONFIGS if not duplicate or c.rules.players == 4)
    units = {"n_games": 18} if games_mode else {"n_hands": 600}
    return RunSpec(configs, 3, chunk_size=6 if games_mode else 200, duplicate=duplicate,
                   par=par, cards=True, **units)


@pytest.mark.parametrize("games_mode, duplicate", [(False, False), (False, True), (True, True)])
def test_stored_rows_give_the_tidy_frame(games_mode, duplicate):
    expected, table, run, _ = _both(games_mode, duplicate)
    assert table.num_rows * 4 >= len(expected) > table.num_rows  # one row per hand
    assert not {"rules", "chunk", "strategy_0"} & set(table.column_names)
    assert ("duplicate" in table.column_names) == duplicate
    frame = layout.tidy_from_stored(table, run)
    pd.testing.assert_frame_equal(frame, expected)
    some = ["hand_id", "seat", "side_taken", "hcp", "strategy", "score_delta", "chunk"]
    pd.testing.assert_frame_equal(layout.tidy_from_stored(table, run, columns=some),
                                  expected[some])
    without = layout.tidy_from_stored(table, RunSpec(run.configs, 3, chunk_size=run.chunk_size,
                                                     duplicate=duplicate, **_units(run)))
    assert "cards" not in without.columns and len(without) == len(expected)


def _units(run: RunSpec) -> dict:
    return {"n_games": run.n_games} if run.games_mode else {"n_hands": run.n_hands}


def test_a_run_of_hands_stores_no_game_columns():
    types = layout.stored_types(4, 2, games=False)
    assert not {"game_id", "game_over", "game_winner", "score_before_0", "bags_before_1"} & set(
        types)
    assert {"hand_id", "score_delta_0", "bags_after_1"} <= set(types)


def test_stored_schema_is_narrow_and_non_nullable():
    types = layout.stored_types(4, 2, par=True)
    schema = layout.stored_schema(types)
    assert [f.name for f in schema if f.nullable] == [f"par_nil_safe_{s}" for s in range(4)]
    assert "nil_0" not in types and "side_contract_0" not in types and "hcp_0" not in types
    empty = layout.tidy_from_stored(schema.empty_table(), _run(True, True, par=True))
    assert len(empty) == 0 and empty["par_nil_safe"].dtype == "boolean"
    assert empty["hand_id"].dtype == np.int64


def test_rows_of_a_configuration_the_run_lacks_get_one_line():
    from spades_sim.core.errors import RunError

    _, table, run, _ = _both(False, False)
    lacking = RunSpec(run.configs[1:], 3, chunk_size=200, n_hands=600, cards=True)
    with pytest.raises(RunError, match="not one of the run's") as refused:
        layout.tidy_from_stored(table, lacking)
    assert "\n" not in str(refused.value)
