"""The first heuristic (``heuristic-v1``, bidding by rounding its estimate) and its presets do
what their names say: the direction of each effect. (The expected-value heuristic's responses
to the rules: ``test_value.py``.)

Each comparison plays both tables on the same deals (same seed), so the differences are paired
and large next to the noise at these sizes; the sizes and margins were chosen so that every
effect shows many standard errors wide (docs/players.md has the full numbers).
"""

import numpy as np
import pytest

from spades_sim.core import cards
from spades_sim.core.rules import preset
from spades_sim.core.strategies import StrategyError, parse_strategy, seat_strategies
from spades_sim.reference import strategies as ref_strategies
from spades_sim.run import simulate_hands

CLASSIC = preset("classic")
N_HANDS = 20_000


def stats(specs, n_hands=N_HANDS, seed=11):
    """Rates of a table (one spec for every seat, or one per seat) over independent hands:
    per seat ``nil`` (nil bid rate), ``nil_made``, ``bid`` (mean non-nil bid); per side of
    seats 0/2 (``side0``) and 1/3 (``side1``): ``set`` rate and ``bags`` (overtricks) per hand."""
    specs = list(specs) if isinstance(specs, (list, tuple)) else [specs]
    frame = simulate_hands(CLASSIC, seat_strategies(specs * (4 // len(specs)), 4), n_hands,
                           seed).frame()
    result = {
        "nil": frame.nil.mean(),
        "nil_made": (frame[frame.nil].tricks == 0).mean(),
        "bid": frame[~frame.nil].bid.mean(),
    }
    for side in (0, 1):
        part = frame[frame.seat == side]  # one row per hand and side
        contract = part.side_contract
        result[f"set{side}"] = ((part.side_taken < contract) & (contract > 0)).mean()
        result[f"bags{side}"] = np.maximum(part.side_taken - contract, 0).mean()
    result["set"] = (result["set0"] + result["set1"]) / 2
    result["bags"] = (result["bags0"] + result["bags1"]) / 2
    return result


def test_nil_threshold_raises_the_nil_rate():
    rates = [stats(f"heuristic-v1:nil_threshold={t}")["nil"] for t in (0.5, 1, 2.5)]
    assert rates[0] < rates[1] < rates[2]
    assert rates[2] > 2 * rates[1]


@pytest.mark.parametrize("feature, strict, loose", [
    ("nil_max_spades", 1, 3),
    ("nil_max_high", 0, 13),
    ("nil_partner_min", 5, 0),  # a nil only beside a partner who bid 5 or more
])
def test_nil_features_restrict_nil(feature, strict, loose):
    assert (stats(f"heuristic-v1:{feature}={strict}")["nil"]
            < stats(f"heuristic-v1:{feature}={loose}")["nil"])


def test_aggression_raises_bids_and_sets():
    low, mid, high = (stats(f"heuristic-v1:aggression={a}") for a in (-0.5, 0, 0.5))
    assert low["bid"] < mid["bid"] < high["bid"]
    assert low["set"] < mid["set"] < high["set"]
    assert low["bags"] > mid["bags"] > high["bags"]


@pytest.mark.parametrize("weight", ["ace", "king", "trump_honour", "long_spade", "ruff",
                                    "long_suit"])
def test_estimator_weights_raise_bids(weight):
    base = parse_strategy("heuristic-v1").params[weight]
    assert (stats(f"heuristic-v1:{weight}={base + 0.5}")["bid"] > stats("heuristic-v1")["bid"])


def test_avoiding_bags_lowers_bags():
    """Seats 0 and 2 keep winning tricks once their contract is made: they take more bags than
    when they duck, and their opponents fewer (at a full table the tricks are shared, so the
    comparison is one side against the same side)."""
    keeping = stats(["heuristic-v1:avoid_bags=0", "heuristic-v1"])
    ducking = stats("heuristic-v1")
    assert keeping["bags0"] > ducking["bags0"] + 0.15
    assert keeping["bags1"] < ducking["bags1"] - 0.15


def test_set_margin_sets_the_opponents_more_often():
    """Seats 0 and 2 chase sets; the opponents (seats 1 and 3) are set more often than against
    the same seats that duck once their own contract is made."""
    chasing = stats(["heuristic-v1:set_margin=3", "heuristic-v1"])
    ducking = stats(["heuristic-v1", "heuristic-v1"])
    assert chasing["set1"] > ducking["set1"] + 0.01


def test_covering_and_busting_nils():
    """A partner's cover makes nils succeed more often; opponents who bust them, less."""
    covered = stats("nil-happy")["nil_made"]
    assert stats("nil-happy:cover_nil=0")["nil_made"] < covered - 0.05
    assert stats("nil-happy:bust_nil=0")["nil_made"] > covered + 0.02


def test_presets_behave_as_named():
    table = {name: stats(name) for name in ("heuristic-v1", "cautious", "aggressive", "nil-happy",
                                            "bag-averse")}
    assert min(table, key=lambda name: table[name]["set"]) == "cautious"
    assert max(table, key=lambda name: table[name]["set"]) == "aggressive"
    assert max(table, key=lambda name: table[name]["bid"]) == "aggressive"
    assert max(table, key=lambda name: table[name]["nil"]) == "nil-happy"
    assert min(table, key=lambda name: table[name]["nil"]) == "cautious"
    assert table["bag-averse"]["bags"] < table["heuristic-v1"]["bags"] - 0.2


# -- score awareness: the bid's adjustments, on the reference's pure functions ----------------


def bid_of(spec, scores, bags):
    strategy = parse_strategy(spec)
    hand = cards.mask_of([12, 11, 10, 25, 24, 38, 37, 51, 50, 49, 48, 3, 4])
    return ref_strategies.choose_bid(CLASSIC, strategy, 0, hand, [-1] * 4, (2 << 13) - 1, scores,
                                bags, None)


def test_bag_guard_bids_up_near_the_bag_limit():
    base = bid_of("heuristic-v1:bag_guard=3,bag_guard_boost=1", [0, 0], [0, 0])
    assert bid_of("heuristic-v1:bag_guard=3,bag_guard_boost=1", [0, 0], [7, 0]) == base + 1
    assert bid_of("heuristic-v1:bag_guard=3,bag_guard_boost=1", [0, 0], [6, 9]) == base
    assert bid_of("heuristic-v1", [0, 0], [9, 0]) == base  # off by default


def test_endgame_bids_safe_when_ahead_and_pushes_when_behind():
    spec = "heuristic-v1:endgame_points=100,endgame_safe=-1,endgame_push=1"
    base = bid_of(spec, [0, 0], [0, 0])
    assert bid_of(spec, [420, 300], [0, 0]) == base - 1  # ahead, 80 from the target
    assert bid_of(spec, [300, 420], [0, 0]) == base + 1  # behind a side 80 from it
    assert bid_of(spec, [300, 390], [0, 0]) == base  # the leader is outside the window
    assert bid_of("heuristic-v1", [420, 300], [0, 0]) == base  # off by default


def test_preset_specs_round_trip_and_refuse_bad_values():
    assert parse_strategy("cautious").spec() == "cautious"
    assert parse_strategy("cautious:aggression=0").spec() == "cautious:aggression=0"
    assert parse_strategy("nil-happy").params["nil_threshold"] == 2.5
    assert parse_strategy("mc:samples=4").kind.name == "mc"
    with pytest.raises(StrategyError, match="set_margin=40 is out of range"):
        parse_strategy("heuristic:set_margin=40")
    with pytest.raises(StrategyError, match="unknown strategy 'timid'"):
        parse_strategy("timid")
