"""The example players of examples/strategies/ (the population of opponents): every decision is
legal under every preset, they play whole games through the framework, and they load from the
command line. Few hands each: these are smoke and property checks, not strength measurements
(examples/strategies/README.md has those)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from spades_sim.cli import main
from spades_sim.core.cards import cards_of
from spades_sim.core.rules import PRESETS, preset
from spades_sim.evaluate import board_differences
from spades_sim.game import BID, BLIND, BUMP, KEEP, LOOK, PASS, PLAY, Game
from spades_sim.game.plugins import load

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "strategies"
PLAYERS = {
    "trick_counter": f"{EXAMPLES / 'trick_counter.py'}:TrickCounter",
    "nil_specialist": f"{EXAMPLES / 'nil_specialist.py'}:NilSpecialist",
    "bag_averse": f"{EXAMPLES / 'bag_averse.py'}:BagAverse",
    "set_chaser": f"{EXAMPLES / 'set_chaser.py'}:SetChaser",
}


def _drive(game: Game, players: list, max_actions: int) -> dict:
    """Play ``game`` with one instance per seat, asserting that every choice is legal; returns
    how many choices of each phase the players made."""
    made = {BID: 0, PLAY: 0, BLIND: 0, PASS: 0}
    queued: dict[int, list[int]] = {}
    for _ in range(max_actions):
        if game.over:
            break
        seat, hand = game.to_act, game.hand
        obs, legal = game.observation(seat), game.legal_actions()
        player, phase = players[seat], hand.phase
        if phase in (BID, PLAY):
            action = player.bid(obs) if phase == BID else player.play(obs)
        elif phase == BLIND:
            action = player.blind(obs) if hasattr(player, "blind") else LOOK
        elif phase == PASS and hasattr(player, "pass_cards"):
            if not queued.get(seat):
                passed = player.pass_cards(obs)
                assert len(passed) == obs.pass_count == len(set(passed))
                assert set(passed) <= set(cards_of(obs.hand))
                queued[seat] = list(passed)
            action = queued[seat].pop(0)
        elif phase in (BUMP, KEEP):
            action = legal[-1]
        else:
            action = legal[0]
        assert isinstance(action, int) and not isinstance(action, bool)
        assert action in legal, (phase, seat, action, legal)
        made[phase] = made.get(phase, 0) + 1
        game.apply(action)
    return made


@pytest.mark.parametrize("rules_name", list(PRESETS))
@pytest.mark.parametrize("name", list(PLAYERS))
def test_every_choice_is_legal_under_every_preset(name, rules_name):
    plugin = load(PLAYERS[name])
    rules = preset(rules_name)
    made = {BID: 0, PLAY: 0}
    for game_id in range(3):
        # scores that put side 0 behind, so blind nils and end-game choices come up
        game = Game(rules, seed=11, game_id=game_id)
        players = [plugin.cls() for _ in range(rules.players)]
        for phase, count in _drive(game, players, 4 * 60 * rules.players).items():
            made[phase] = made.get(phase, 0) + count
    assert made[BID] >= 3 * rules.players and made[PLAY] >= 3 * rules.players * 10


# Variants beyond the presets, each field away from classic at least once.
VARIANTS = [
    {"nil": False, "blind_nil": False},
    {"nil_exchange": 2, "min_team_bid": 4, "misdeal_redeal": True},
    {"bag_penalty": 0, "spades_lead": "anytime", "first_leader": "two_of_clubs"},
    {"bag_limit": 0, "spades_lead": "after_first_trick", "broken_by_forced_lead": False},
    {"blind_bids": True, "blind_bid_min_deficit": 0, "blind_nil_min_deficit": 50,
     "bid_bump": True, "bids_total_not_tricks": True},
    {"double_nil": "fixed", "failed_nil_tricks": "count_toward_bid",
     "set_penalty": "per_trick_short", "ten_for_two_hundred": True, "overtrick_points": 0},
    {"mercy": -100, "target": 250, "blind_nil_exchange": 0},
    {"max_hands": 1},
]


@pytest.mark.parametrize("overrides", VARIANTS, ids=lambda o: ",".join(o))
@pytest.mark.parametrize("name", list(PLAYERS))
def test_every_choice_is_legal_under_other_variants(name, overrides):
    plugin = load(PLAYERS[name])
    rules = preset("classic", **overrides)
    made = _drive(Game(rules, seed=12, game_id=0), [plugin.cls() for _ in range(4)], 2000)
    assert made[BID] >= 4 and made[PLAY] >= 4 * 13


@pytest.mark.parametrize("name", list(PLAYERS))
def test_tunable_parameters_are_constructor_arguments_within_their_bounds(name):
    plugin = load(PLAYERS[name])
    tunable = plugin.cls.tunable
    assert tunable
    import inspect

    defaults = {key: p.default for key, p in inspect.signature(plugin.cls).parameters.items()}
    for key, bounds in tunable.items():
        low, high = bounds[:2]
        assert low <= defaults[key] <= high, key
        plugin.cls(**{key: low}), plugin.cls(**{key: high})


@pytest.mark.parametrize("rules_name", ["classic", "tournament", "cutthroat", "two-player"])
def test_they_play_whole_games_through_the_framework(rules_name):
    """Against the heuristic in duplicate whole games: the framework's own referee (and its
    fallbacks for bumps, blind bids and keeps) accepts every choice."""
    for spec in PLAYERS.values():
        diffs = board_differences(spec, "heuristic", rules_name, seed=4, n_boards=1)
        assert diffs.shape == (1,) and np.isfinite(diffs).all()


def test_they_load_from_the_command_line(capsys, tmp_path):
    for name, spec in PLAYERS.items():
        assert main(["match", spec, "heuristic", "--rules", "classic", "--hands", "8",
                     "--seed", "1", "--jobs", "1", "--json", "--out",
                     str(tmp_path / name)]) == 0
        assert spec.split(":")[1] in capsys.readouterr().out


@pytest.mark.parametrize("name", list(PLAYERS))
def test_the_top_spade_is_a_sure_winner_in_either_deck(name):
    """Each player's ``is_master``: the ace of spades is the top trump of a standard deck; in
    the jokers deck it is not while a joker is out."""
    import sys

    from spades_sim.game import Hand

    module = sys.modules[load(PLAYERS[name]).cls.__module__]
    for rules_name, expected in (("classic", True), ("jokers", False)):
        rules = preset(rules_name)
        deck = [card for card in range(54 if rules.deck == "jokers" else 52)
                if rules.deck != "jokers" or card not in (0, 13)]  # (2C, 2D out with jokers)
        deck.remove(51)
        hands = [[51] + deck[:12]] + [deck[12 + 13 * k:25 + 13 * k] for k in range(3)]
        obs = Hand.from_cards(rules, hands).observation(0)
        assert module.is_master(51, obs) is expected
        assert module.is_master(12, obs) is True  # the ace of clubs, whoever holds it
