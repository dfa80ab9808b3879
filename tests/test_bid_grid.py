"""Bid accuracy by position (a frame of one configuration's hands, every hand's seats in a
row: ``groups.seat_grid``) against the group-bys it replaces (``side_bags``' side totals, the
first bid of each side-hand and group), on random hands of partnership and cutthroat tables
with mixed strategies: the same table, bit for bit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from spades_sim.analysis import bids, groups, metrics


def _hands(players: int, partnership: bool, hands: int = 400, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = hands * players
    seat = np.tile(np.arange(players), hands)
    side = seat % 2 if partnership else seat
    nil = rng.random(rows) < 0.2
    bid = np.where(nil, 0, rng.integers(1, 6, rows))
    tricks = rng.integers(0, 5, rows)
    # seats 0 and 2 (one side) play different strategies; seat 1 the same as seat 0
    names = ["a", "a", "b", "b"][:players]
    frame = pd.DataFrame({
        "config": pd.Categorical(["c"] * rows), "duplicate": False, "game_id": -1,
        "hand_id": np.repeat(np.arange(hands) * 2 + 3, players),
        "seat": seat.astype(np.int8), "side": side.astype(np.int8),
        "strategy": pd.Categorical(np.tile(names, hands)), "bid": bid.astype(np.int8),
        "nil": nil, "tricks": tricks.astype(np.int8)})
    keys = ["hand_id", "side"]
    frame["side_contract"] = frame.groupby(keys)["bid"].transform("sum").astype(np.int8)
    counted = np.where(nil & (tricks > 0) & (rng.random(rows) < 0.5), 0, tricks)
    frame["side_taken"] = pd.Series(counted).groupby(
        [frame["hand_id"], frame["side"]]).transform("sum").to_numpy().astype(np.int8)
    return frame


def _without_grid(monkeypatch):
    for module in (bids, metrics):
        monkeypatch.setattr(module, "seat_grid", lambda frame: None)


@pytest.mark.parametrize("players, partnership", [(4, True), (3, False), (2, False)])
@pytest.mark.parametrize("by", [("config", "strategy"), ("config", "seat"), ("config",)])
def test_bid_accuracy_by_position_is_the_group_by(monkeypatch, players, partnership, by):
    frame = _hands(players, partnership)
    assert groups.seat_grid(frame) is not None
    fast = bids.bid_accuracy(frame, by=by)
    fast_bags = metrics.side_bags(frame)
    _without_grid(monkeypatch)
    slow = bids.bid_accuracy(frame, by=by)
    pd.testing.assert_frame_equal(fast, slow, check_exact=True)
    for found, expected in zip(fast_bags, metrics.side_bags(frame)):
        np.testing.assert_array_equal(found, expected)


def test_a_side_hand_counts_once_per_group_by_hand():
    """Two hands of four seats, sides 0/1; strategies a a b b: side 0 holds a (seat 0) and b
    (seat 2), side 1 holds a (seat 1) and b (seat 3). Hand 1: seat 0 bids nil, so side 0's
    strategy-a side-hand has no number bidder. Counted by hand: 4 side-hands of a and b in
    hand 0, 3 in hand 1 (a on side 1, b on both sides)."""
    frame = _hands(4, True, hands=2)
    frame["nil"] = [False] * 4 + [True, False, False, False]
    frame["bid"] = np.where(frame["nil"], 0, 2).astype(np.int8)
    table = bids.bid_accuracy(frame)
    assert table.set_index("strategy")["side_hands"].to_dict() == {"a": 3, "b": 4}


def test_frames_not_in_hand_order_are_grouped():
    frame = _hands(4, True)
    assert groups.seat_grid(frame.iloc[::-1].reset_index(drop=True)) is None
    assert groups.seat_grid(frame.iloc[2:].reset_index(drop=True)) is None
    mixed = frame.copy()
    mixed.loc[1, "duplicate"] = True  # (a hand's rows of two copies: not one side-hand)
    assert groups.seat_grid(mixed) is None
