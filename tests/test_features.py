"""Hand features and conditional deals: the ``seat_*`` columns against counts made here from
the cards; deal filters (declarative and Python) against their predicates, the seeding
contract, the reference twin and ``Hand.deal``; their errors."""

import numpy as np
import pytest
from twin import assert_same_arrays, reference_arrays, seat_strategies

from spades_sim import reference
from spades_sim.core.cards import card_text, cards_of
from spades_sim.core.errors import DealFilterError
from spades_sim.core.features import FEATURE_TYPES, DealFilter
from spades_sim.core.rules import preset
from spades_sim.core.strategies import Strategy
from spades_sim.game import Hand
from spades_sim.reference.strategies import estimate_tricks
from spades_sim.run import hand_features, load_run, make_config, simulate, simulate_hands
from spades_sim.run import play_games as run_games

FILTER = "seat0.spades >= 4 and seat0.aces == 0"
POINTS = {"A": 4, "K": 3, "Q": 2, "J": 1}


def expected_features(rules, mask):
    """A seat's features counted from its card texts (jokers: spades worth 4 points)."""
    texts = [card_text(card) for card in cards_of(int(mask))]
    suit = {"C": 0, "D": 0, "H": 0, "S": 0}
    for text in texts:
        suit["S" if text in ("LJ", "BJ") else text[1]] += 1
    lengths = list(suit.values())
    return {
        "seat_clubs": suit["C"], "seat_diamonds": suit["D"], "seat_hearts": suit["H"],
        "seat_spades": suit["S"],
        "seat_hcp": sum(4 if t in ("LJ", "BJ") else POINTS.get(t[0], 0) for t in texts),
        "seat_aces": sum(t[0] == "A" for t in texts if t not in ("LJ", "BJ")),
        "seat_kings": sum(t[0] == "K" for t in texts),
        "seat_spade_honours": sum(t in ("AS", "KS", "QS", "LJ", "BJ") for t in texts),
        "seat_voids": lengths.count(0), "seat_singletons": lengths.count(1),
        # The twin's estimate: written apart from the engine's, held equal by its tests.
        "seat_trick_estimate": estimate_tricks(rules, Strategy("heuristic").defaults(),
                                               int(mask)),
    }


@pytest.mark.parametrize("name", ["classic", "jokers", "cutthroat", "two-player"])
def test_feature_columns_equal_counts_from_the_cards(name):
    rules = preset(name)
    frame = simulate([make_config(name, rules, ["random"])], n_hands=60, seed=4, cards=True)
    assert list(frame.columns[-len(FEATURE_TYPES) - 1:]) == ["cards", *FEATURE_TYPES]
    for row in frame.itertuples(index=False):
        expected = expected_features(rules, row.cards)
        found = {column: getattr(row, column) for column in FEATURE_TYPES}
        assert found == pytest.approx(expected), (name, hex(row.cards))
    assert frame["seat_spade_honours"].max() >= 2 and frame["seat_voids"].max() >= 1
    # On demand: the same columns from the cards alone.
    on_demand = hand_features(frame[["rules", "cards"]])
    assert on_demand.equals(frame[list(FEATURE_TYPES)])


def test_feature_columns_of_a_run_on_disk(tmp_path):
    from spades_sim.run import RunSpec, execute

    configs = (make_config("classic", preset("classic"), ["random"]),)
    spec = RunSpec(configs, 3, n_hands=40, chunk_size=25, cards=True)
    execute(spec, tmp_path / "run", quiet=True)
    loaded = load_run(tmp_path / "run")
    memory = simulate(configs, n_hands=40, seed=3, chunk_size=25, cards=True)
    for column in FEATURE_TYPES:
        assert np.array_equal(loaded[column].to_numpy(), memory[column].to_numpy()), column
    assert loaded["seat_trick_estimate"].dtype == np.float64


def test_hand_features_needs_cards():
    frame = simulate([make_config("c", preset("classic"), ["random"])], n_hands=2, seed=1)
    with pytest.raises(ValueError, match="no 'cards' column"):
        hand_features(frame)


def test_the_engine_numbers_the_features_as_the_core_does():
    from spades_sim.core.features import FEATURES
    from spades_sim.engine import features as kernel

    codes = {name: getattr(kernel, f"F_{name.upper()}") for name in FEATURES}
    assert codes == {name: code for code, name in enumerate(FEATURES)}
    assert kernel.N_FEATURES == len(FEATURES)


# -- conditional deals ------------------------------------------------------------------------
def _python_filter(deal):
    return deal[0].spades >= 4 and deal[0].aces == 0


def test_accepted_deals_satisfy_the_filter_and_python_gives_the_same_deals():
    rules = preset("classic")
    strategies = seat_strategies(["random"], 4)
    run = simulate_hands(rules, strategies, 80, 11, deal_filter=FILTER)
    for hand in run.hands.hands[:, 0]:
        counts = expected_features(rules, hand)
        assert counts["seat_spades"] >= 4 and counts["seat_aces"] == 0
    python = simulate_hands(rules, strategies, 80, 11, deal_filter=_python_filter)
    assert np.array_equal(run.hands.hands, python.hands.hands)
    assert run.acceptance["deals"] == python.acceptance["deals"] > 80
    assert 0.05 < run.acceptance["acceptance_rate"] < 0.3
    # Without the filter the hands are the usual ones (not these).
    plain = simulate_hands(rules, strategies, 80, 11)
    assert not np.array_equal(plain.hands.hands, run.hands.hands)


def test_the_same_seed_gives_the_same_deals_with_any_chunking():
    configs = [make_config("c", preset("classic"), ["heuristic"])]
    whole = simulate(configs, n_hands=60, seed=5, chunk_size=60, cards=True,
                     deal_filter="seat1.hcp >= 14 or seat2.voids > 0")
    chunked = simulate(configs, n_hands=60, seed=5, chunk_size=7, cards=True,
                       deal_filter="seat1.hcp >= 14 or seat2.voids > 0")
    assert whole.drop(columns="chunk").equals(chunked.drop(columns="chunk"))
    workers = simulate(configs, n_hands=60, seed=5, chunk_size=20, jobs=2, cards=True,
                       deal_filter="seat1.hcp >= 14 or seat2.voids > 0")
    assert whole.drop(columns="chunk").equals(workers.drop(columns="chunk"))
    one = whole.pivot(index="hand_id", columns="seat", values=["seat_hcp", "seat_voids"])
    assert ((one[("seat_hcp", 1)] >= 14) | (one[("seat_voids", 2)] > 0)).all()
    assert whole.attrs["deal_filter"]["acceptance_rate"]["c"] < 1
    # A piece of the run played alone deals the same hands.
    rules = preset("classic")
    part = simulate_hands(rules, seat_strategies(["heuristic"], 4), 10, 5, first_hand_id=33,
                          deal_filter="seat1.hcp >= 14 or seat2.voids > 0")
    cards = whole[whole["hand_id"].between(33, 42)].pivot(index="hand_id", columns="seat",
                                                          values="cards")
    assert np.array_equal(part.hands.hands, cards.to_numpy())


@pytest.mark.parametrize("name, texts", [("classic", ["heuristic", "random"]),
                                         ("jokers", ["random"]), ("cutthroat", ["heuristic"])])
def test_the_twin_reproduces_filtered_runs(name, texts):
    rules = preset(name, target=150)
    strategies = seat_strategies(texts, rules.players)
    deal_filter = DealFilter.parse("seat0.trick_estimate >= 3.5 and seat2.spade_honours <= 1")
    engine = simulate_hands(rules, strategies, 25, 8, record_plays=True,
                            deal_filter=deal_filter).hands
    twin = reference.simulate_hands(rules, strategies, 25, 8, deal_filter=deal_filter)
    assert_same_arrays(engine, reference_arrays(twin, rules), f"{name} filtered hands")
    games = run_games(rules, strategies, 2, 8, record_plays=True, deal_filter=deal_filter)
    twin_hands, _ = reference.play_games(rules, strategies, 2, 8, deal_filter=deal_filter)
    assert_same_arrays(games.hands, reference_arrays(twin_hands, rules), f"{name} games")


def test_hand_deal_and_the_api_deal_as_the_run():
    rules = preset("classic")
    run = simulate_hands(rules, seat_strategies(["random"], 4), 6, 2, deal_filter=FILTER)
    for hand_id in range(6):
        hand = Hand.deal(rules, seed=2, hand_id=hand_id, deal_filter=FILTER)
        assert hand.dealt == run.hands.hands[hand_id].tolist()
        assert Hand.deal(rules, seed=2, hand_id=hand_id,
                         deal_filter=_python_filter).dealt == hand.dealt


@pytest.mark.parametrize("text, message", [
    ("seat0.spadez >= 4", "unknown feature 'spadez' .* at column 7"),
    ("seat0.spades >= four", "expected a number, found 'four' at column 17"),
    ("seat0.spades >= 4 and", "expected a comparison seatN.FEATURE OP NUMBER at column 22"),
    ("seat0.spades >= 4 nor seat1.aces == 0", "expected 'and' or 'or', found 'nor' at column 19"),
    ("seat7.spades > 1", "no seat 7"),
    ("seat0.spades = 4", "unexpected '=' at column 14"),
    ("__import__('os')", "unexpected"),
    ("", "empty"),
])
def test_bad_filters_are_one_line_errors_with_the_column(text, message):
    with pytest.raises(DealFilterError, match=message) as error:
        DealFilter.parse(text)
    assert "\n" not in str(error.value)


def test_a_filter_that_accepts_nothing_fails_within_its_bound():
    rules = preset("classic")
    never = DealFilter.parse("seat0.spades > 13", max_tries=200)
    with pytest.raises(DealFilterError, match="accepted none of 200 deals"):
        simulate_hands(rules, seat_strategies(["random"], 4), 3, 1, deal_filter=never)
    with pytest.raises(DealFilterError, match="accepted none of 200 deals"):
        Hand.deal(rules, seed=1, deal_filter=never)
    with pytest.raises(DealFilterError, match="seats 0..2"):
        simulate_hands(preset("cutthroat"), seat_strategies(["random"], 3), 3, 1,
                       deal_filter="seat3.aces > 0")
    with pytest.raises(DealFilterError, match="raised IndexError"):
        simulate_hands(rules, seat_strategies(["random"], 4), 3, 1,
                       deal_filter=lambda deal: deal[5].spades > 1)
    with pytest.raises(DealFilterError, match="draw deal"):
        simulate_hands(preset("two-player"), seat_strategies(["random"], 2), 3, 1,
                       deal_filter="seat0.aces > 0")


# -- the command line and experiment files ------------------------------------------------------
def test_simulate_with_a_deal_filter_reports_its_acceptance(capsys, tmp_path):
    import json

    from spades_sim.cli import main

    assert main(["simulate", "--hands", "30", "--seed", "2", "--strategy", "random",
                 "--deal-filter", FILTER]) == 0
    out = capsys.readouterr().out
    assert f"deal filter '{FILTER}': accepts " in out and "of deals" in out
    run_dir = tmp_path / "run"
    assert main(["simulate", "--hands", "30", "--seed", "2", "--strategy", "random", "--cards",
                 "--deal-filter", FILTER, "--max-tries", "5000", "--out", str(run_dir),
                 "--quiet", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    meta = json.loads((run_dir / "meta.json").read_text())
    assert meta["deal_filter"] == summary["deal_filter"]
    assert meta["identity"]["deal_filter"] == {"text": FILTER, "max_tries": 5000}
    frame = load_run(run_dir)
    seat0 = frame[frame["seat"] == 0]
    assert (seat0["seat_spades"] >= 4).all() and (seat0["seat_aces"] == 0).all()
    # A hand of the filtered run replays (and its cards are checked against the dataset).
    assert main(["hand", str(run_dir), "--hand", "17"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert sum(card[1] == "S" for card in record["hands"][0]) >= 4


@pytest.mark.parametrize("args, fragment", [
    (["--deal-filter", "seat0.spades >> 4"], "deal filter 'seat0.spades >> 4': expected a "
                                             "number, found '>' at column 15"),
    (["--max-tries", "10"], "--max-tries needs --deal-filter"),
    (["--deal-filter", "seat0.spades > 13", "--max-tries", "30"], "accepted none of 30 deals"),
])
def test_bad_deal_filter_options_are_one_line(capsys, args, fragment):
    from spades_sim.cli import main

    assert main(["simulate", "--hands", "3", *args]) == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and fragment in captured.err, captured.err


def test_the_experiment_key():
    from spades_sim.core.errors import ExperimentError
    from spades_sim.experiment import parse_experiment

    text = ('name = "f"\nseed = 1\nhands = 10\ndeal_filter = "seat0.aces >= 2"\n'
            'deal_filter_max_tries = 500\n[[config]]\nname = "c"\nrules = "classic"\n')
    experiment = parse_experiment(text, "f.toml")
    assert experiment.spec("hands").deal_filter == DealFilter.parse("seat0.aces >= 2", 500)
    with pytest.raises(ExperimentError, match=r"f.toml:4: deal filter .* unknown feature"):
        parse_experiment(text.replace("aces", "ace"), "f.toml")
    three = text.replace("seat0", "seat3").replace('"classic"', '"cutthroat"')
    with pytest.raises(ExperimentError, match=r"f.toml:4: .*seats 0..2"):
        parse_experiment(three, "f.toml")


def test_an_experiment_with_a_deal_filter(tmp_path, capsys):
    import json

    from spades_sim.cli import main

    path = tmp_path / "f.toml"
    path.write_text('name = "f"\nseed = 3\nhands = 40\nchunk_size = 20\ncards = true\n'
                    'analyses = ["bid_accuracy"]\ndeal_filter = "seat1.kings >= 2"\n'
                    '[[config]]\nname = "c"\nrules = "classic"\nstrategy = "random"\n')
    assert main(["run", str(path), "--out", str(tmp_path / "results"), "--reports",
                 str(tmp_path / "reports"), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "deal filter 'seat1.kings >= 2': accepts c " in out
    meta = json.loads((tmp_path / "results" / "hands" / "meta.json").read_text())
    assert meta["deal_filter"]["measured_hands"] == 40
    frame = load_run(tmp_path / "results" / "hands")
    assert (frame.loc[frame["seat"] == 1, "seat_kings"] >= 2).all()
    page = (tmp_path / "reports" / "f" / "index.html").read_text()
    assert "deal filter" in page and "seat1.kings &gt;= 2" in page


def test_hand_features_of_some_names_are_those_of_all():
    """``run.frames.hand_features(masks, names)`` counts only ``names``, each the very array
    the call without names gives (jokers deck bits included)."""
    from spades_sim.run.frames import HAND_FEATURES
    from spades_sim.run.frames import hand_features as features_of

    masks = np.random.default_rng(3).integers(0, 2**54, 5000, dtype=np.int64)
    every = features_of(masks)
    assert tuple(every) == HAND_FEATURES
    for names in [("spades", "high_cards"), ("spades",), ("longest", "spades"), ("hcp",),
                  ("voids", "singletons")]:
        some = features_of(masks, names)
        assert set(some) == set(names)
        for name, values in some.items():
            assert values.dtype == every[name].dtype
            np.testing.assert_array_equal(values, every[name])
