"""The perfect-information sampling player ``pimc`` (``game/pimc.py``): its name and
parameters, DD-optimal play where nothing is hidden, its sums against the solver's, nil play,
determinism, legality in every preset, and a whole hand through the run entry points.

Every position is late in a hand (the solver's cost on full deals is for the benchmark,
``benchmarks/pimc_strength.py``), except the whole hand of the two-player preset.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from spades_sim.cli import main
from spades_sim.core.cards import SUIT_MASKS, cards_of
from spades_sim.core.errors import SpadesError, StrategyError
from spades_sim.core.rules import PRESETS, preset
from spades_sim.core.scoring import score_side
from spades_sim.core.seeding import stream_keys
from spades_sim.core.strategies import PluginStrategy, parse_strategy
from spades_sim.core.tricks import beats
from spades_sim.engine.dd import solve_cards
from spades_sim.game import Hand
from spades_sim.game.agents import BuiltinAgent
from spades_sim.game.dispatch import play_hands
from spades_sim.game.observation import Generator
from spades_sim.game.pimc import Pimc, best_card, card_values
from spades_sim.game.sampling import sample_hidden
from spades_sim.game.state import BID, PLAY

# Positions are reached with the first heuristic (the scenarios were chosen with it).
HEURISTIC_SEAT = BuiltinAgent(parse_strategy("heuristic-v1"))


def _forward(rules, seed: int, stop) -> Hand:
    """Hand ``0`` of ``seed`` played by the heuristic until ``stop(hand)`` holds (in play)."""
    hand = Hand.deal(rules, seed=seed)
    while not hand.done:
        if hand.phase == PLAY and stop(hand):
            return hand
        mask = (hand.legal_card_mask() if hand.phase == PLAY
                else hand.legal_bid_mask() if hand.phase == BID else 0)
        hand.apply(HEURISTIC_SEAT.act(hand, mask))
    raise AssertionError(f"seed {seed}: the hand ended before the position")


def _trick(hand: Hand) -> list[int]:
    return [card for _, card in hand.trick]


def test_name_parameters_and_errors():
    strategy = parse_strategy("pimc:samples=8")
    assert isinstance(strategy, PluginStrategy) and strategy.spec() == "pimc:samples=8"
    assert parse_strategy("pimc").spec() == "pimc"
    assert parse_strategy("pimc:samples=20,score=0").spec() == "pimc:score=0"
    assert strategy.params == {"samples": 8, "score": 1}
    for text, fragment in [("pimc:samples=0", "samples=0 is out of range 1..10000"),
                           ("pimc:samples=1.5", "is not an integer"),
                           ("pimc:score=2", "score=2 is out of range 0..1"),
                           ("pimc:depth=3", "unknown parameter 'depth'; allowed: samples, "
                                            "score")]:
        with pytest.raises(StrategyError, match=fragment):
            parse_strategy(text)
    with pytest.raises(StrategyError, match="samples=0"):
        Pimc(samples=0)
    with pytest.raises(SpadesError, match="unknown strategy 'pimcx'.*pimc"):
        parse_strategy("pimcx")


def test_listed_by_strategies(capsys):
    assert main(["strategies"]) == 0
    assert "pimc: perfect-information sampling" in capsys.readouterr().out


# Cutthroat positions (seed, trick index) where the voids shown pin every hidden card to its
# holder: each sample is the true deal, so pimc must play a double-dummy optimal card.
PINNED = [(22, 14), (162, 15), (175, 14)]


@pytest.mark.parametrize("seed, trick", PINNED)
def test_dd_optimal_when_nothing_is_hidden(seed, trick):
    rules = preset("cutthroat")
    hand = _forward(rules, seed, lambda h: h.trick_index == trick and len(h.trick) == 2)
    seat = hand.to_act
    assert sample_hidden(hand, seat, Generator(hand.clone().play_stream)).hands == hand.hands
    values = solve_cards(rules, hand.hands, hand.leader, trick=_trick(hand),
                         trick_index=hand.trick_index, spades_broken=hand.spades_broken)
    assert len(set(values.values())) > 1  # (a position where the choice matters)
    card = Pimc(samples=3, score=0).play(hand.clone().observation())
    assert values[card] == max(values.values())
    # score=1: the best score of the seat's final tricks
    def points(c):
        tricks = list(hand.tricks)
        tricks[seat] += values[c]
        return score_side(rules, seat, hand.bids, hand.blind, tricks, hand.bags[seat])[0]
    card = Pimc(samples=3).play(hand.clone().observation())
    assert points(card) == max(points(c) for c in values)


def test_totals_are_the_solver_sums_and_deterministic():
    rules = preset("classic")
    hand = _forward(rules, 4, lambda h: h.trick_index == 9 and len(h.trick) == 1)
    seat = hand.to_act
    expected: dict[int, int] = {}
    rng = Generator(hand.clone().play_stream)
    for _ in range(5):
        deal = sample_hidden(hand, seat, rng).hands
        for card, value in solve_cards(rules, deal, hand.leader, trick=_trick(hand),
                                       trick_index=9, spades_broken=hand.spades_broken).items():
            expected[card] = expected.get(card, 0) + value
    copy = hand.clone()
    live_nil = any(b == 0 and t == 0 for b, t in zip(hand.bids, hand.tricks, strict=True))
    assert not live_nil
    assert card_values(copy, seat, 5, Generator(copy.play_stream), score=False) == {
        card: (0, total) for card, total in expected.items()}
    assert copy.play_stream.state == rng._stream.state  # it drew from the given stream only
    first, second = hand.clone(), hand.clone()
    player = Pimc(samples=4)
    assert player.play(first.observation()) == player.play(second.observation())
    assert first.play_stream.state == second.play_stream.state
    assert best_card({3: 5, 7: 5, 9: 2}) == 3 and best_card({3: 5, 7: 5}, preferred=7) == 7
    assert best_card({3: (1, 0), 7: (0, 9)}, preferred=7) == 3


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_samples_keep_the_voids_when_random_tries_fail(seed, monkeypatch):
    # With no random tries left, every sample comes from the augmenting-path deal: it must
    # keep every void shown, the card counts and the cards on the table legal for the solver.
    from spades_sim.game import sampling

    rules = preset("classic")
    hand = _forward(rules, seed, lambda h: h.voids != 0 and len(h.trick) == 2)
    seat = hand.to_act
    rng = Generator(hand.clone().play_stream)
    monkeypatch.setattr(sampling, "MAX_TRIES", 0)
    for _ in range(4):
        deal = sample_hidden(hand, seat, rng).hands
        assert deal[seat] == hand.hands[seat]
        for other in range(4):
            assert deal[other].bit_count() == hand.hands[other].bit_count()
            for suit in range(4):
                if hand.voids >> (4 * other + suit) & 1:
                    assert deal[other] & SUIT_MASKS[suit] == 0
        solve_cards(rules, deal, hand.leader, trick=_trick(hand),
                    trick_index=hand.trick_index, spades_broken=hand.spades_broken)


# Classic positions (seed, trick index) where a live nil bidder plays last to a trick and
# holds cards that would win it and cards that would not.
NIL_LAST = [(3, 8), (14, 8), (15, 8)]


@pytest.mark.parametrize("seed, trick", NIL_LAST)
def test_nil_bidder_ducks(seed, trick):
    rules = preset("classic")
    hand = _forward(rules, seed, lambda h: h.trick_index == trick and len(h.trick) == 3)
    seat = hand.to_act
    assert hand.bids[seat] == 0 and hand.tricks[seat] == 0
    legal = cards_of(hand.legal_card_mask())
    winners = [card for card in legal if beats(card, hand.winning_card)]
    assert winners and len(winners) < len(legal)
    for score in (0, 1):
        card = Pimc(samples=3, score=score).play(hand.clone().observation())
        assert card in legal and card not in winners


@pytest.mark.parametrize("name", list(PRESETS))
def test_legal_in_every_preset(name):
    rules = preset(name)
    hand = _forward(rules, 1, lambda h: h.trick_index == rules.hand_size - 3)
    player = Pimc(samples=2)
    while not hand.done:
        observation = hand.observation()
        card = player.play(observation)
        assert card in observation.legal
        hand.apply(card)


def test_whole_hand_through_the_run_entry_points(capsys):
    """One two-player hand (cheap for the solver even from the first trick), through the
    dispatcher and the command line, the same twice."""
    rules = preset("two-player")
    strategies = [parse_strategy("pimc:samples=2"), "heuristic"]
    first = play_hands(rules, strategies, stream_keys(5), 0, 1)
    again = play_hands(rules, strategies, stream_keys(5), 0, 1)
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert first.tricks.sum() == rules.hand_size
    assert main(["simulate", "--rules", "two-player", "--hands", "1", "--seed", "5",
                 "--strategy", "pimc:samples=2", "--strategy", "heuristic", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["strategies"] == "pimc:samples=2" and rows[0]["hands"] == 1


def test_in_experiment_files():
    from spades_sim.experiment import parse_experiment

    text = ('name = "p"\ntitle = "t"\nquestion = "q"\nseed = 1\nhands = 2\n'
            'analyses = ["bid_accuracy"]\n\n[[grid]]\nname = "s={samples}"\nrules = "classic"\n'
            'strategy = ["pimc", "heuristic", "pimc", "heuristic"]\n'
            'params = { samples = [2, 4] }\n')
    specs = [[s.spec() for s in config.strategies] for config in parse_experiment(text).configs]
    assert specs == [["pimc:samples=2", "heuristic"] * 2, ["pimc:samples=4", "heuristic"] * 2]
