"""Helpers shared by the tests that hold the engine and the reference twin equal."""

import numpy as np
import pytest

from spades_sim.core import schema
from spades_sim.core.strategies import parse_strategy


def seat_strategies(texts, players):
    return [parse_strategy(texts[seat % len(texts)]) for seat in range(players)]


def reference_arrays(hands, rules):
    """The reference's per-hand dicts as engine record arrays (``schema.HandArrays``)."""
    out = schema.allocate_hands(len(hands), record_plays=True)
    for row, hand in enumerate(hands):
        out.hand_id[row] = hand["hand_id"]
        out.game_id[row] = -1 if hand["game_id"] is None else hand["game_id"]
        out.dealer[row] = hand["dealer"]
        out.first_leader[row] = hand["first_leader"]
        for seat in range(rules.players):
            for name in ("hands", "blind", "bids", "bumped", "tricks"):
                getattr(out, name)[row, seat] = hand[name][seat]
        for side in range(rules.n_sides):
            for name in ("score_before", "bags_before", "score_delta", "bags_after"):
                getattr(out, name)[row, side] = hand[name][side]
        for index, (seat, card) in enumerate(hand["plays"]):
            out.play_seats[row, index] = seat
            out.plays[row, index] = card
        for index, (sender, receiver, card) in enumerate(hand["exchange"]):
            out.exchange[row, index] = (sender, receiver, card)
    return out


def assert_same_arrays(engine, twin, what):
    """Every field equal; on failure name the field and the first row that differs."""
    assert engine._fields == twin._fields
    for name in engine._fields:
        ours, theirs = getattr(twin, name), getattr(engine, name)
        assert ours.shape == theirs.shape, f"{what}: {name} shape {ours.shape} != {theirs.shape}"
        if not np.array_equal(ours, theirs):
            differ = np.nonzero((ours != theirs).reshape(len(ours), -1).any(axis=1))[0]
            row = int(differ[0])
            pytest.fail(f"{what}: {name} differs in {len(differ)} rows; first row {row}: "
                        f"engine {theirs[row].tolist()}, reference {ours[row].tolist()}")
