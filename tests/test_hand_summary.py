"""The per-hand summary of the paired effects by position (a frame of one configuration's
first plays, every hand's seats in a row) against the group-by it replaces, on random hands of
partnership and cutthroat tables: the same values, bit for bit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from spades_sim.analysis import effects


def _hands(players: int, partnership: bool, hands: int = 300, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = hands * players
    seat = np.tile(np.arange(players), hands)
    side = seat % 2 if partnership else seat
    nil = rng.random(rows) < 0.15
    bid = np.where(nil, 0, rng.integers(1, 6, rows))
    tricks = rng.integers(0, 5, rows)
    frame = pd.DataFrame({"config": pd.Categorical(["c"] * rows), "duplicate": False,
                          "game_id": -1, "hand_id": np.repeat(np.arange(hands) * 3 + 7, players),
                          "seat": seat.astype(np.int8), "side": side.astype(np.int8),
                          "bid": bid, "nil": nil, "tricks": tricks.astype(np.int8)})
    keys = ["hand_id", "side"]
    frame["side_contract"] = frame.groupby(keys)["bid"].transform("sum").astype(np.int8)
    counted = np.where(nil & (tricks > 0) & (rng.random(rows) < 0.5), 0, tricks)
    frame["side_taken"] = pd.Series(counted).groupby(
        [frame["hand_id"], frame["side"]]).transform("sum").to_numpy().astype(np.int8)
    frame["score_delta"] = rng.integers(-200, 200, hands * (2 if partnership else players))[
        np.repeat(np.arange(hands), players) * (2 if partnership else players) + side]
    return frame


@pytest.mark.parametrize("players, partnership", [(4, True), (3, False), (2, False)])
def test_summary_by_position_is_the_group_by(monkeypatch, players, partnership):
    frame = _hands(players, partnership)
    assert effects._seat_grid(frame) is not None
    fast = effects.hand_summary(frame)
    monkeypatch.setattr(effects, "_seat_grid", lambda hands: None)
    slow = effects.hand_summary(frame)
    pd.testing.assert_frame_equal(fast.per_hand, slow.per_hand, check_exact=True)
    assert fast.units.keys() == slow.units.keys()
    for name in fast.units:
        pd.testing.assert_frame_equal(fast.units[name], slow.units[name], check_exact=True)
    pd.testing.assert_series_equal(fast.seats, slow.seats)


def test_frames_out_of_order_take_the_group_by():
    frame = _hands(4, True)
    assert effects._seat_grid(frame.iloc[::-1].reset_index(drop=True)) is None
    assert effects._seat_grid(frame.iloc[1:].reset_index(drop=True)) is None
