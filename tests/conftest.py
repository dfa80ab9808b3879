"""Shared fixtures. Kernels compile once per session (and load from numba's cache after)."""

import numpy as np
import pytest

from spades_sim.core.rules import preset
from spades_sim.engine.scoring import score_hand_nb


def engine_score(rules, bids, blind, tricks, bags_before):
    """Per-side ``(deltas, bags_after)`` from the engine's scoring kernel."""
    players = rules.players
    pad = [0] * (4 - players)
    delta = np.zeros(4, np.int64)
    bags_after = np.zeros(4, np.int64)
    score_hand_nb(
        rules.kernel_tuple(),
        np.array(list(bids) + pad, np.int64),
        np.array([int(b) for b in blind] + pad, np.int64),
        np.array(list(tricks) + pad, np.int64),
        np.array(list(bags_before) + [0] * (4 - len(bags_before)), np.int64),
        delta,
        bags_after,
    )
    n_sides = rules.n_sides
    return [int(v) for v in delta[:n_sides]], [int(v) for v in bags_after[:n_sides]]


@pytest.fixture(scope="session")
def classic():
    return preset("classic")
