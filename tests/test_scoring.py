"""Hand-computed scoring cases, written from docs/rules.md, for engine and reference."""

import pytest
from conftest import engine_score

from spades_sim.core import scoring
from spades_sim.core.rules import preset

F, T = False, True
N4 = [F, F, F, F]

# (id, preset, overrides, bids, blind, tricks, bags_before, expected deltas, expected bags)
CASES = [
    ("made exactly", "classic", {}, [3, 3, 3, 3], N4, [3, 4, 3, 3], [0, 0], [60, 61], [0, 1]),
    ("overtricks", "classic", {}, [2, 1, 2, 1], N4, [4, 2, 3, 4], [0, 0], [43, 24], [3, 4]),
    ("bags cross 10 from 8", "classic", {}, [2, 3, 2, 3], N4, [3, 3, 4, 3], [8, 0],
     [43 - 100, 60], [1, 0]),
    ("set per bid", "classic", {}, [5, 2, 4, 2], N4, [4, 3, 4, 2], [0, 0], [-90, 41], [0, 1]),
    ("nil made (spec example)", "classic", {}, [4, 3, 0, 3], N4, [5, 3, 0, 5], [0, 0],
     [141, 62], [1, 2]),
    ("nil failed: tricks are 1-point bags", "classic", {}, [0, 3, 4, 3], N4, [2, 3, 4, 4],
     [0, 0], [-100 + 2 + 40, 61], [2, 1]),
    ("both nil, one fails (additive)", "classic", {}, [0, 4, 0, 4], N4, [0, 7, 1, 5], [0, 0],
     [100 - 100 + 1, 84], [1, 4]),
    ("both nil made (additive)", "classic", {}, [0, 5, 0, 5], N4, [0, 6, 0, 7], [0, 0],
     [200, 103], [0, 3]),
    ("both nil failed (additive)", "classic", {}, [0, 5, 0, 5], N4, [1, 6, 2, 4], [0, 0],
     [-200 + 3, 100], [3, 0]),
    ("blind nil made", "classic", {}, [0, 3, 4, 3], [T, F, F, F], [0, 4, 5, 4], [0, 0],
     [200 + 41, 62], [1, 2]),
    ("blind nil failed", "classic", {}, [0, 3, 4, 3], [T, F, F, F], [1, 3, 5, 4], [0, 0],
     [-200 + 1 + 41, 61], [2, 1]),
    ("bag penalty whatever the score", "classic", {}, [3, 3, 3, 3], N4, [2, 3, 5, 3], [9, 0],
     [61 - 100, 60], [0, 0]),
    ("two bag penalties carry", "classic", {}, [1, 1, 1, 1], N4, [6, 0, 6, 0], [9, 0],
     [2 * 10 + 10 - 100, -20], [9, 0]),
    ("set per trick short (simple)", "simple", {}, [5, 2, 4, 2], N4, [4, 3, 4, 2], [0, 0],
     [-10, 41], [0, 1]),
    ("failed nil bags_only", "classic", {}, [0, 3, 5, 3], N4, [2, 3, 3, 5], [0, 0],
     [-100 + 2 - 50, 62], [2, 2]),
    ("failed nil counts toward bid (openspiel)", "openspiel", {}, [0, 3, 5, 3], N4,
     [2, 3, 3, 5], [0, 0], [-100 + 50, 62], [0, 2]),
    ("double nil fixed made (casual)", "casual", {}, [0, 4, 0, 4], N4, [0, 6, 0, 7], [0, 0],
     [500, 85], [0, 5]),
    ("double nil fixed one fails", "casual", {}, [0, 4, 0, 4], N4, [0, 6, 1, 6], [0, 0],
     [1, 84], [1, 4]),
    ("double nil fixed both fail", "casual", {}, [0, 4, 0, 4], N4, [1, 6, 1, 5], [0, 0],
     [-500 + 2, 83], [2, 3]),
    ("doubled no penalty made", "tournament", {}, [0, 4, 0, 4], N4, [0, 6, 0, 7], [0, 0],
     [400, 85], [0, 5]),
    ("doubled no penalty one fails", "tournament", {}, [0, 4, 0, 4], N4, [0, 6, 2, 5], [0, 0],
     [2, 83], [2, 3]),
    ("ten for two hundred made", "classic", {"ten_for_two_hundred": True}, [6, 1, 4, 1], N4,
     [6, 1, 5, 1], [0, 0], [201, 20], [1, 0]),
    ("ten for two hundred set", "classic", {"ten_for_two_hundred": True}, [6, 1, 4, 1], N4,
     [5, 2, 4, 2], [0, 0], [-200, 22], [0, 2]),
    ("blind bid made exactly", "tournament", {}, [4, 3, 3, 3], [T, F, F, F], [4, 3, 3, 3],
     [0, 0], [70 + 40, 60], [0, 0]),
    ("blind bid not exact", "tournament", {}, [4, 3, 3, 3], [T, F, F, F], [5, 3, 2, 3],
     [0, 0], [70 - 40, 60], [0, 0]),
    ("bag_penalty 0: counter still drops", "classic", {"bag_penalty": 0}, [3, 3, 3, 3], N4,
     [2, 3, 6, 2], [9, 0], [62, -60], [1, 0]),
    ("bag_limit 0: no penalty at all", "classic", {"bag_limit": 0}, [3, 3, 3, 3], N4,
     [2, 3, 6, 2], [9, 0], [62, -60], [11, 0]),
    ("zero bid with nil off: every trick a bag", "classic", {"nil": False}, [0, 3, 0, 3], N4,
     [2, 3, 1, 7], [0, 0], [3, 64], [3, 4]),
    ("overtrick points 0", "classic", {"overtrick_points": 0}, [2, 1, 2, 1], N4, [4, 2, 3, 4],
     [0, 0], [40, 20], [3, 4]),
    ("cutthroat individual", "cutthroat", {}, [5, 6, 4], [F, F, F], [6, 6, 5], [0, 0, 0],
     [51, 60, 41], [1, 0, 1]),
    ("two-player nil", "two-player", {}, [0, 6], [F, F], [1, 12], [0, 0], [-100 + 1, 66],
     [1, 6]),
]


@pytest.mark.parametrize("case", CASES, ids=[case[0] for case in CASES])
def test_engine_scoring(case):
    _, name, overrides, bids, blind, tricks, bags_before, deltas, bags = case
    rules = preset(name, **overrides)
    assert engine_score(rules, bids, blind, tricks, bags_before) == (deltas, bags)


@pytest.mark.parametrize("case", CASES, ids=[case[0] for case in CASES])
def test_core_scoring(case):
    _, name, overrides, bids, blind, tricks, bags_before, deltas, bags = case
    rules = preset(name, **overrides)
    result = scoring.score_hand(rules, bids, blind, tricks, bags_before)
    assert (list(result[0]), list(result[1])) == (deltas, bags)
