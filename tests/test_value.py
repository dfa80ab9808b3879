"""The expected-value heuristic plays the rules: each scoring field that changes incentives moves
its decisions the right way, on the same deals (paired), and the shipped trick model is
calibrated.

Rule values are runtime data to the kernels, so every table here shares one compiled kernel.
"""

import numpy as np

from spades_sim.analysis.bidmodel import check_model
from spades_sim.core import cards
from spades_sim.core.bidmodel import tables
from spades_sim.core.rules import preset
from spades_sim.core.strategies import parse_strategy, seat_strategies
from spades_sim.reference import strategies as ref
from spades_sim.reference import value
from spades_sim.run import simulate_hands

N_HANDS = 20_000


def frame_of(rules, spec="heuristic", n_hands=N_HANDS, seed=5):
    return simulate_hands(rules, seat_strategies([spec], rules.players), n_hands, seed).frame()


def bid_rate(frame, condition) -> float:
    return float(condition(frame).mean())


def test_ten_for_two_hundred_raises_big_side_bids_on_hands_that_can_take_them():
    plain = frame_of(preset("classic"))
    big = frame_of(preset("classic", ten_for_two_hundred=True))

    def share(frame):
        sides = frame[frame.seat < 2]  # one row per hand and side
        able = sides[sides.side_taken >= 10]
        return (able.side_contract >= 10).mean()

    assert share(big) > share(plain) + 0.05


def test_per_trick_set_penalty_raises_the_mean_bid():
    per_bid = frame_of(preset("classic"))
    per_trick = frame_of(preset("classic", set_penalty="per_trick_short"))
    assert per_trick[~per_trick.nil].bid.mean() > per_bid[~per_bid.nil].bid.mean() + 0.1


def test_a_larger_nil_bonus_raises_the_nil_rate():
    lower = frame_of(preset("classic", nil_bonus=50)).nil.mean()
    higher = frame_of(preset("classic", nil_bonus=200)).nil.mean()
    assert higher > lower + 0.01


def test_a_costly_bag_raises_bids_and_a_free_one_lowers_them():
    classic = frame_of(preset("classic"))
    free = frame_of(preset("classic", bag_limit=0))
    costly = frame_of(preset("classic", bag_penalty=300))
    bid = lambda frame: frame[~frame.nil].bid.mean()  # noqa: E731
    assert bid(free) < bid(classic) < bid(costly)


def test_double_nil_scoring_changes_double_nils():
    def double_nils(rules):
        frame = frame_of(rules)
        sides = frame.groupby(["hand_id", frame.seat % 2]).nil.sum()
        return (sides == 2).mean()

    additive = double_nils(preset("classic"))
    fixed_big = double_nils(preset("classic", double_nil="fixed", double_nil_bonus=600))
    assert fixed_big > additive + 0.002


# -- pure decisions of the reference twin (the engine agrees bit for bit: test_reference) ------

CLASSIC = preset("classic")
MARGINAL = cards.mask_of([5, 6, 11, 14, 21, 26, 29, 31, 32, 35, 36, 41, 45])  # a 60% nil
MIDDLE = cards.mask_of([12, 11, 3, 25, 20, 2, 38, 30, 31, 45, 44, 40, 5])


def bid(rules, hand, scores=(0, 0), bags=(0, 0), spec="heuristic", bids=(-1, -1, -1, -1)):
    strategy = parse_strategy(spec)
    legal = (2 << rules.hand_size) - 1 if rules.nil else (2 << rules.hand_size) - 2
    return ref.choose_bid(rules, strategy, 0, hand, list(bids), legal, list(scores),
                          list(bags), None, [False] * 4)


def test_bags_near_the_limit_raise_the_bid():
    assert bid(CLASSIC, MIDDLE, bags=(8, 0)) >= bid(CLASSIC, MIDDLE, bags=(0, 0))
    values = [value.bid_value(CLASSIC, parse_strategy("heuristic").params, 0, 8, True, 2, 2.6,
                              bags, 0) for bags in (0, 9)]
    assert values[1] < values[0]  # the same low bid is worth less beside a full bag counter


def test_the_target_changes_what_a_contract_is_worth():
    params = parse_strategy("heuristic").params
    far = value.bid_value(CLASSIC, params, 0, 8, True, 4, 3.0, 0, 0)
    near = value.bid_value(CLASSIC, params, 0, 8, True, 4, 3.0, 0, 450)
    assert near > far


def test_blind_choices_follow_their_bonuses():
    params = dict(parse_strategy("heuristic").params, blind_margin=0)

    def blind(rules, blind_bids=0):
        return value.value_blind(rules, params, 0, [-1] * 4, rules.blind_nil, blind_bids,
                                 [0, 400], [0, 0])

    assert blind(preset("tournament", blind_nil_bonus=1000)) == 0
    assert blind(preset("tournament", blind_nil_bonus=1)) == -1
    # A blind bid's bonus is won only when it is made exactly: worth its price only when exact
    # is likelier than not, so without a margin the model never bids blind for it.
    assert blind(preset("tournament", blind_nil=False, blind_bid_bonus_per_trick=0),
                 0b11111110) == -1


def test_a_bigger_nil_bonus_makes_a_marginal_nil():
    assert bid(preset("classic", nil_bonus=50), MARGINAL) > 0
    assert bid(preset("classic", nil_bonus=200), MARGINAL) == 0


# -- play that reacts to the rules --------------------------------------------------------------


def test_per_trick_penalties_make_rule_play_chase_sets():
    rules = preset("simple")
    chasing = frame_of(rules, "heuristic")
    ducking = frame_of(rules, "heuristic:rule_play=0")
    short = lambda frame: np.maximum(  # noqa: E731
        frame.side_contract - frame.side_taken, 0)[frame.seat < 2].mean()
    assert short(chasing) > short(ducking)


# -- the shipped model --------------------------------------------------------------------------


def test_shipped_model_tables_are_distributions():
    t = tables()
    assert np.allclose(t.own_pmf.sum(-1), 1)
    assert np.all(np.diff(t.own_surv, axis=-1) <= 1e-12)
    assert np.all((t.nil_prob > 0) & (t.nil_prob < 1))


def test_shipped_model_is_calibrated_on_fresh_hands():
    report = check_model(n_hands=20_000, shapes=["four"])["four"]
    assert report["tricks"]["max_gap"] < 0.35
    assert report["made"]["max_gap"] < 0.08
    assert report["nil"]["max_gap"] < 0.08


def test_bid_model_check_from_the_command_line(capsys):
    import json

    from spades_sim.cli import main

    assert main(["bid-model", "check", "--hands", "2000", "--shape", "two", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report) == {"two"} and report["two"]["made"]["rows"]
    assert main(["bid-model", "fit", "--shape", "two"]) == 2  # (a fit writes every shape)


def test_tuned_presets_are_named_strategies():
    from spades_sim.core.strategies import PRESETS

    for name in ("classic", "casual", "simple", "tournament", "jokers", "openspiel",
                 "cutthroat", "two-player"):
        strategy = parse_strategy(f"tuned-{name}")
        assert strategy.kind.name == "heuristic" and strategy.spec() == f"tuned-{name}"
        assert "held out against heuristic" in PRESETS[f"tuned-{name}"].doc
    assert parse_strategy("tuned-simple:aggression=0").spec() == "tuned-simple:aggression=0"
