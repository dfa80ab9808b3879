"""The game-state API (``spades_sim/game``): it plays the engine's hands, shows each seat what
it may know, samples hidden cards consistently, and runs Python strategy plug-ins faithfully,
with one-line errors for bad ones."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spades_sim.cli import main
from spades_sim.core.cards import card_text, texts_of
from spades_sim.core.errors import StrategyError
from spades_sim.core.rules import PRESETS, preset
from spades_sim.core.seeding import stream_keys
from spades_sim.core.strategies import PluginStrategy, parse_strategy
from spades_sim.engine import calls
from spades_sim.game import BID, BLIND, LOOK, PLAY, Game, Hand, IllegalActionError
from spades_sim.game import play as game_play
from spades_sim.game.agents import BuiltinAgent
from spades_sim.game.dispatch import play_games, play_hands
from spades_sim.game.plugins import agents as plugin_agents
from spades_sim.game.plugins import load
from spades_sim.handlog.replay import replay_line

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "strategies"
RANDOM_PY = f"{EXAMPLES / 'random_python.py'}:RandomPython"
COUNTER_PY = f"{EXAMPLES / 'counter_python.py'}:Counter"


def _equal(a, b) -> list[str]:
    return [name for name in a._fields if not np.array_equal(getattr(a, name), getattr(b, name))]


def _strategies(rules, texts):
    texts = texts * rules.players if len(texts) == 1 else texts[:rules.players]
    return [parse_strategy(text) for text in texts]


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_the_api_plays_the_engines_hands_and_games(name):
    rules = preset(name)
    keys = stream_keys(5)
    for texts in (["random"], ["heuristic", "random", "nil-happy", "aggressive"]):
        strategies = _strategies(rules, texts)
        agents = [BuiltinAgent(strategy) for strategy in strategies]
        engine = calls.play_hands(rules, strategies, keys, 40, 60, True)
        assert _equal(engine, game_play.play_hands(rules, agents, keys, 40, 60, True)) == []
        hands, games = calls.play_games(rules, strategies, keys, 2, 2, True)
        api_hands, api_games = game_play.play_games(rules, agents, keys, 2, 2, True)
        assert _equal(hands, api_hands) == [] and _equal(games, api_games) == []


def test_the_api_plays_the_search_players_hands():
    rules = preset("classic")
    strategies = _strategies(rules, ["mc:samples=2", "heuristic"] * 2)
    keys = stream_keys(9)
    engine = calls.play_hands(rules, strategies, keys, 0, 4, True)
    api = game_play.play_hands(rules, [BuiltinAgent(s) for s in strategies], keys, 0, 4, True)
    assert _equal(engine, api) == []


def test_a_hand_step_by_step():
    rules = preset("classic", blind_nil=False)
    hand = Hand.deal(rules, seed=3, hand_id=1)
    assert hand.phase == BID and hand.to_act == 2  # hand 1 is dealt by seat 1
    assert hand.legal_actions() == list(range(14))
    with pytest.raises(IllegalActionError, match="the bid 14 is not legal for seat 2 in hand 1"):
        hand.apply(14)
    for bid in (3, 4, 2, 3):
        hand.apply(bid)
    assert hand.phase == PLAY and hand.bids == [2, 3, 3, 4]
    copy = hand.clone()
    while not hand.done:
        hand.apply(hand.legal_actions()[0])
    assert copy.phase == PLAY and not copy.plays  # the clone did not move
    result = hand.result()
    assert sum(result["tricks"]) == 13 and len(result["plays"]) == 52
    observation = copy.observation(0)
    assert observation.bids == [2, 3, 3, 4] and observation.hand == copy.hands[0]
    assert observation.legal == [] or copy.to_act == 0


def test_blind_choices_and_from_cards():
    rules = preset("classic", blind_nil_min_deficit=100)
    cards = [list(range(seat, 52, 4)) for seat in range(4)]
    hand = Hand.from_cards(rules, cards, dealer=3, scores=[0, 150])
    assert hand.phase == BLIND and hand.to_act == 0 and hand.legal_actions() == [LOOK, 0]
    hand.apply(LOOK)
    assert hand.phase == BID and hand.to_act == 0
    hand.apply(3)
    assert hand.phase == BID and hand.to_act == 1  # side 1 leads: no blind option
    with pytest.raises(ValueError, match="a card is dealt to two seats"):
        Hand.from_cards(rules, [cards[0]] * 4)


def test_observations_show_what_a_seat_may_know():
    rules = preset("classic")
    hand = Hand.deal(rules, seed=1)
    while hand.trick_index < 5:
        hand.apply(hand.legal_actions()[-1])
    hand.apply(hand.legal_actions()[0])
    seat = hand.to_act
    observation = hand.observation()
    assert observation.trick == hand.trick and observation.led_suit == hand.led_suit
    assert observation.legal == [c for c in range(52) if hand.legal_card_mask() >> c & 1]
    assert hand.observation((seat + 1) % 4).legal == []
    assert observation.voids  # (this hand shows some)
    for other in range(4):  # the voids shown are real
        for suit in range(4):
            if observation.void(other, suit):
                assert not hand.hands[other] & (0x1FFF << 13 * suit)


def test_a_blind_choice_is_made_without_seeing_the_cards():
    # The rules: a blind bid is made before the bidder sees its cards. Classic offers blind
    # nil at 0-0: the first bidder's observation holds no cards, and its samples deal its own
    # cards anew; once it looks, it sees them.
    hand = Hand.deal(preset("classic"), seed=3)
    assert hand.phase == BLIND
    seat = hand.to_act
    observation = hand.observation()
    assert observation.hand == 0 and observation.cards == []
    assert hand.observation((seat + 1) % 4).hand == hand.hands[(seat + 1) % 4]
    samples = [observation.sample().hands[seat] for _ in range(10)]
    assert all(cards.bit_count() == 13 for cards in samples)
    assert any(cards != hand.hands[seat] for cards in samples)
    hand.apply(LOOK)
    assert hand.observation().hand == hand.hands[seat]


@pytest.mark.parametrize("name", ["classic", "two-player", "tournament"])
def test_samples_agree_with_what_the_seat_has_seen(name):
    rules = preset(name)
    hand = Hand.deal(rules, seed=4, hand_id=3)
    steps = 0
    while not hand.done and steps < 40 + 2 * rules.hand_size:
        hand.apply(hand.legal_actions()[(steps * 7) % len(hand.legal_actions())])
        steps += 1
    seat = hand.to_act if hand.to_act >= 0 else 0
    observation = hand.observation(seat)
    for _ in range(20):
        sample = observation.sample()
        assert sample.hands[seat] == hand.hands[seat]
        assert [h.bit_count() for h in sample.hands] == [h.bit_count() for h in hand.hands]
        union = 0
        for other, cards in enumerate(sample.hands):
            assert not cards & union and not cards & hand.played_mask
            union |= cards
            for suit in range(4):
                if hand.voids >> (4 * other + suit) & 1:
                    suit_mask = (0x1FFF << 13 * suit) | (3 << 52 if suit == 3 else 0)
                    assert not cards & suit_mask
        if rules.deck == "standard" and rules.players == 4:
            assert union | hand.played_mask == rules.deck_mask


def test_whole_games_through_the_api():
    rules = preset("classic", target=150)
    game = Game(rules, seed=2, game_id=1)
    while not game.over:
        game.apply(game.legal_actions()[-1])
    hands, games = calls.play_games(rules, _strategies(rules, ["random"]), stream_keys(2), 1, 1)
    assert games.first_dealer[0] == game.first_dealer
    assert list(games.final_score[0][:2]) != [] and len(game.results) >= 1


# -- Python plug-ins --------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_plugin_reimplementing_random_reproduces_random(name):
    rules = preset(name)
    keys = stream_keys(21)
    builtin = calls.play_hands(rules, _strategies(rules, ["random"]), keys, 0, 150, True)
    plugin = play_hands(rules, [RANDOM_PY] * rules.players, keys, 0, 150, True)
    assert _equal(builtin, plugin) == []
    hands, games = calls.play_games(rules, _strategies(rules, ["random"]), keys, 0, 2, True)
    plugin_hands, plugin_games = play_games(rules, [RANDOM_PY] * rules.players, keys, 0, 2, True)
    assert _equal(hands, plugin_hands) == [] and _equal(games, plugin_games) == []


def test_plugins_mix_with_builtins_and_runs_do_not_depend_on_jobs(tmp_path):
    rules = preset("classic")
    mixed = [COUNTER_PY, "heuristic", RANDOM_PY + ":bid_max=6", "mc:samples=2"]
    keys = stream_keys(8)
    whole = play_hands(rules, mixed, keys, 0, 40)
    halves = [play_hands(rules, mixed, keys, first, 20) for first in (0, 20)]
    for name in whole._fields:
        assert np.array_equal(getattr(whole, name),
                              np.concatenate([getattr(half, name) for half in halves]))
    # The plug-in's seats through the CLI, in memory and on disk alike.
    args = ["simulate", "--hands", "300", "--seed", "4", "--chunk-size", "100", "--quiet"]
    for spec in mixed[:3] + ["random"]:
        args += ["--strategy", spec]
    assert main(args + ["--out", str(tmp_path / "one"), "--jobs", "1"]) == 0
    assert main(args + ["--out", str(tmp_path / "two"), "--jobs", "2"]) == 0
    from spades_sim.run import load_run

    one, two = load_run(tmp_path / "one"), load_run(tmp_path / "two")
    assert one.equals(two) and set(one["strategy"].astype(str)) >= {COUNTER_PY}


def test_hands_played_by_plugins_replay_cleanly(tmp_path, capsys):
    log = tmp_path / "hands.jsonl"
    args = ["games", "--games", "3", "--seed", "6", "--rule", "target=200", "--log", str(log)]
    for spec in (COUNTER_PY, RANDOM_PY, COUNTER_PY + ":bias=1", "heuristic"):
        args += ["--strategy", spec]
    assert main(args) == 0
    lines = log.read_text().splitlines()
    assert len(lines) >= 3
    capsys.readouterr()
    assert main(["replay", str(log)]) == 0
    replies = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(replies) == len(lines) and all(reply.get("ok", True) for reply in replies)


PLUGINS = """
class Good:
    def __init__(self, level=1):
        self.level = level
    def bid(self, obs):
        return obs.legal[-1]
    def play(self, obs):
        return obs.legal[0]

class Raises(Good):
    def play(self, obs):
        raise KeyError("boom")

class Illegal(Good):
    def play(self, obs):
        return 60 if obs.trick_index == 1 else obs.legal[0]

class NoPlay:
    def bid(self, obs):
        return 1

class BadPass(Good):
    def bid(self, obs):
        return 0 if obs.seat < 2 else obs.legal[-1]
    def pass_cards(self, obs):
        return [obs.cards[0]]

NOT_A_CLASS = 3
"""


@pytest.fixture(scope="module")
def plugin_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("plugins") / "mine.py"
    path.write_text(PLUGINS)
    return path


@pytest.mark.parametrize(("spec", "message"), [
    ("{dir}/nothere.py:Good", "no file"),
    ("{file}:Missing", "has no Missing; it defines BadPass, Good, Illegal, NoPlay, Raises"),
    ("{file}:NOT_A_CLASS", "NOT_A_CLASS is not a class"),
    ("{file}:NoPlay", "the class has no play method"),
    ("{file}:Good:speed=3", "the constructor refuses these arguments"),
    ("{file}:Good:level", "'level' is not param=value"),
    ("no_such_package.bots:Good", "no module no_such_package.bots"),
    ("{file}:Raises", "raised KeyError: 'boom' (hand 0, seat 1, play phase)"),
    ("{file}:Illegal", "the play 60 is not legal for seat"),
    ("{file}:BadPass", "must pass 3 different cards it holds"),
])
def test_bad_plugins_get_one_line_errors(plugin_file, spec, message, capsys):
    spec = spec.format(file=plugin_file, dir=plugin_file.parent)
    args = ["simulate", "--hands", "30", "--strategy", spec, "--rule", "nil_exchange=3"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_a_plugin_error_in_a_worker_process_is_one_line(plugin_file, tmp_path, capsys):
    # (the error comes back pickled from a worker: it must not break the process pool)
    args = ["simulate", "--hands", "30", "--chunk-size", "10", "--jobs", "2", "--out",
            str(tmp_path / "run"), "--strategy", f"{plugin_file}:Raises"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "raised KeyError: 'boom'" in err and len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_debug_shows_the_plugins_own_traceback(plugin_file, capsys):
    assert main(["simulate", "--debug", "--hands", "5", "--strategy",
                 f"{plugin_file}:Raises"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" in err and 'raise KeyError("boom")' in err


def test_plugin_specs_parse_and_load():
    strategy = parse_strategy(f"{COUNTER_PY}:bias=1")
    assert isinstance(strategy, PluginStrategy) and strategy.params == {"bias": 1}
    assert str(strategy) == f"{COUNTER_PY}:bias=1"
    assert load(strategy).cls.__name__ == "Counter"
    with pytest.raises(StrategyError, match="given twice"):
        parse_strategy(f"{COUNTER_PY}:bias=1,bias=2")


def test_the_game_api_example_runs():
    import subprocess
    import sys

    script = EXAMPLES.parent / "game_api.py"
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                            timeout=120, check=True)
    assert "game over after" in result.stdout


# -- numba plug-ins, in the engine and through the API ----------------------------------------

PLUGINS_DIR = Path(__file__).resolve().parent / "plugins"
LOWEST_PY = f"{PLUGINS_DIR / 'lowest.py'}:LowestPython"
LOWEST_NB = f"{PLUGINS_DIR / 'lowest.py'}:LowestNumba"
PROBE = f"{PLUGINS_DIR / 'probe.py'}:Probe"
COUNTER_NB = f"{EXAMPLES / 'counter_numba.py'}:CounterNumba"
RANDOM_NB = f"{EXAMPLES / 'random_numba.py'}:RandomNumba"
FOUR_PRESETS = ["classic", "tournament", "cutthroat", "two-player", "jokers", "casual"]


@pytest.mark.parametrize("name", FOUR_PRESETS)
def test_python_and_numba_forms_play_identical_hands(name):
    rules = preset(name)
    keys = stream_keys(12)
    n = rules.players
    for python, numba in ((LOWEST_PY, LOWEST_NB), (COUNTER_PY, COUNTER_NB)):
        assert _equal(play_hands(rules, [python] * n, keys, 0, 120, True),
                      play_hands(rules, [numba] * n, keys, 0, 120, True)) == []
        hands, games = play_games(rules, [python] * n, keys, 0, 2, True)
        numba_hands, numba_games = play_games(rules, [numba] * n, keys, 0, 2, True)
        assert _equal(hands, numba_hands) == [] and _equal(games, numba_games) == []


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_the_engine_and_the_api_fill_the_view_alike(name):
    rules = preset(name)
    keys = stream_keys(13)
    specs = ([PROBE, "heuristic", PROBE + ":salt=3", "random"])[:rules.players]
    engine = play_hands(rules, specs, keys, 7, 100, True)  # (numba plug-ins: in the engine)
    api = game_play.play_hands(rules, plugin_agents(specs), keys, 7, 100, True)
    assert _equal(engine, api) == []
    hands, games = play_games(rules, specs, keys, 0, 1, True)
    api_hands, api_games = game_play.play_games(rules, plugin_agents(specs), keys, 0, 1, True)
    assert _equal(hands, api_hands) == [] and _equal(games, api_games) == []


def test_the_numba_random_reimplementation_reproduces_random():
    rules = preset("classic", blind_nil=False)
    keys = stream_keys(14)
    builtin = calls.play_hands(rules, _strategies(rules, ["random"]), keys, 0, 300, True)
    assert _equal(builtin, play_hands(rules, [RANDOM_NB] * 4, keys, 0, 300, True)) == []


def test_lowest_plugins_replay_cleanly_and_agree(tmp_path, capsys):
    logs = []
    for spec in (LOWEST_PY, LOWEST_NB):
        log = tmp_path / f"{len(logs)}.jsonl"
        args = ["games", "--games", "2", "--seed", "3", "--rule", "target=150", "--log", str(log),
                "--strategy", spec, "--json"]
        assert main(args) == 0
        logs.append(log.read_text())
    assert logs[0].replace(LOWEST_PY, "X") == logs[1].replace(LOWEST_NB, "X")
    capsys.readouterr()
    assert main(["replay", str(tmp_path / "1.jsonl")]) == 0
    assert "error" not in capsys.readouterr().err


def test_a_failing_numba_plugin_is_named(plugin_file, tmp_path, capsys):
    path = tmp_path / "bad_numba.py"
    path.write_text(
        "from numba import njit\n"
        "@njit(cache=True)\n"
        "def bid(view, params, rng):\n    return 3\n"
        "@njit(cache=True)\n"
        "def play(view, params, rng):\n    return 51\n"
        "class Bad:\n    bid = bid\n    play = play\n")
    assert main(["simulate", "--hands", "10", "--strategy", f"{path}:Bad"]) == 2
    err = capsys.readouterr().err
    assert "the play AS is not legal for seat 1 in hand 0; legal:" in err
    assert len(err.strip().splitlines()) == 1


# -- any legal line of play is a valid hand --------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(sorted(PRESETS)), seed=st.integers(0, 2**32),
       hand_id=st.integers(0, 10**6),
       choices=st.lists(st.integers(0, 10**6), min_size=80, max_size=80),
       behind=st.integers(0, 600))
def test_any_legal_line_of_play_replays_to_the_same_result(name, seed, hand_id, choices, behind):
    rules = preset(name)
    scores = [0] * rules.n_sides
    scores[0] = -behind  # (so that blind options come up)
    hand = Hand.deal(rules, seed, hand_id, scores=scores)
    step = 0
    while not hand.done:
        legal = hand.legal_actions()
        hand.apply(legal[choices[step % len(choices)] % len(legal)])
        step += 1
    result = hand.result()
    line = json.dumps({
        "v": 1, "rules": name, "hand_id": hand_id, "game_id": None, "dealer": result["dealer"],
        "hands": [texts_of(mask) for mask in result["hands"]], "blind": result["blind"],
        "bids": result["bids"], "bumped": result["bumped"],
        "exchange": [[a, b, card_text(card)] for a, b, card in result["exchange"]],
        "plays": [[seat, card_text(card)] for seat, card in result["plays"]],
        "score_before": result["score_before"], "bags_before": result["bags_before"]})
    replayed = replay_line(1, line)
    assert isinstance(replayed, dict), replayed
    for field in ("tricks", "score_delta", "bags_after"):
        assert replayed[field] == result[field]


def test_a_changed_plugin_is_not_resumed_and_a_moved_one_is_still_read(tmp_path, capsys):
    source = tmp_path / "bot.py"
    source.write_text(PLUGINS)
    args = ["simulate", "--hands", "40", "--chunk-size", "20", "--quiet", "--strategy",
            f"{source}:Good", "--out", str(tmp_path / "run")]
    assert main(args) == 0
    source.write_text(PLUGINS.replace("obs.legal[-1]", "obs.legal[0]"))
    capsys.readouterr()
    assert main(args) == 2
    assert "holds another run (it differs in engine)" in capsys.readouterr().err
    source.unlink()  # the run's records still read without the plug-in's file
    assert main(["status", str(tmp_path / "run")]) == 0
