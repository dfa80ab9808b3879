"""Tables with Python plug-ins stepped by the engine (``game/fast.py``, ``engine/table.py``):
the same records as the game-state API played one decision at a time, every preset that deals
by shuffling, hands and whole games; observations read from the engine's array equal the API's;
a failing plug-in is named as before."""

from __future__ import annotations

import numpy as np
import pytest

from spades_sim.core.errors import StrategyError
from spades_sim.core.rules import PRESETS, preset
from spades_sim.core.seeding import stream_keys
from spades_sim.core.strategies import parse_strategy
from spades_sim.core.view import PHASE_PLAY
from spades_sim.game import fast, play
from spades_sim.game.agents import BuiltinAgent, PluginAgent
from spades_sim.game.observation import Observation

SHUFFLED = [name for name in PRESETS if preset(name).deal != "draw"]
ATTRIBUTES = ("rules", "seat", "side", "phase", "hand_id", "dealer", "to_act", "hand", "cards",
              "legal_mask", "legal", "position", "face_up", "pass_count",
              "passing_as_nil_bidder", "blind_options", "exchanged", "bids", "blind", "bumped",
              "tricks", "trick", "trick_index", "leader", "first_leader", "led_suit",
              "winning_card", "winning_seat", "spades_broken", "played", "played_by", "voids",
              "scores", "bags")


class Watcher:
    """Bids 3 where it may (else its lowest legal bid), plays a random legal card drawn from
    ``obs.rng``; on its engine-stepped decisions it checks every attribute of its observation,
    and the view, against the API's :class:`Observation` of the hand rebuilt from the engine's
    record (which the tests of the API hold equal to the hand the API plays)."""

    def __init__(self):
        self.checked = 0

    def _check(self, obs) -> None:
        if isinstance(obs, fast.ViewObservation) and obs.trick_index % 4 == 0:
            expected = Observation(obs._hand, obs.seat)
            for name in ATTRIBUTES:
                assert getattr(obs, name) == getattr(expected, name), name
            assert np.array_equal(obs.view(), expected.view())
            assert obs.void(1, 2) == expected.void(1, 2)
            self.checked += 1

    def bid(self, obs):
        self._check(obs)
        legal = obs.legal_mask
        return 3 if legal >> 3 & 1 else (legal & -legal).bit_length() - 1

    def play(self, obs):
        self._check(obs)
        return obs.rng.choice(obs.legal)


def _table(rules, watcher):
    specs = ["heuristic", "random", "mc:samples=2"]
    return [PluginAgent(watcher, "Watcher")] + [BuiltinAgent(parse_strategy(spec))
                                                for spec in specs[:rules.players - 1]]


def _equal(first, second) -> None:
    for name, array in first._asdict().items():
        assert np.array_equal(array, getattr(second, name)), name


def _one_at_a_time(monkeypatch, function, *args):
    with monkeypatch.context() as patch:
        patch.setattr(fast, "eligible", lambda *_, **__: False)
        return function(*args)


@pytest.mark.parametrize("name", SHUFFLED)
def test_engine_stepped_hands_equal_the_api(name, monkeypatch):
    rules = preset(name)
    watcher = Watcher()
    table = _table(rules, watcher)
    keys = stream_keys(11)
    assert fast.eligible(rules, table)
    stepped = fast.play(rules, table, keys, 5, 12, True, False)
    assert stepped is not None and watcher.checked > 0
    _equal(stepped, _one_at_a_time(monkeypatch, play.play_hands, rules, table, keys, 5, 12,
                                   True))
    _equal(play.play_hands(rules, table, keys, 5, 12),
           _one_at_a_time(monkeypatch, play.play_hands, rules, table, keys, 5, 12))


@pytest.mark.parametrize("name", ["classic", "cutthroat", "tournament"])
def test_engine_stepped_games_equal_the_api(name, monkeypatch):
    rules = preset(name, target=250)
    table = _table(rules, Watcher())
    keys = stream_keys(4)
    stepped = fast.play(rules, table, keys, 2, 2, True, True)
    assert stepped is not None
    expected = _one_at_a_time(monkeypatch, play.play_games, rules, table, keys, 2, 2, True)
    _equal(stepped[0], expected[0])
    _equal(stepped[1], expected[1])


def test_which_tables_the_engine_steps():
    classic = preset("classic")
    builtins = [BuiltinAgent(parse_strategy("heuristic"))] * 3

    class Passes(Watcher):
        def pass_cards(self, obs):
            return obs.cards[:obs.pass_count]

    assert fast.eligible(classic, [PluginAgent(Watcher(), "w")] + builtins)
    assert fast.eligible(classic, [PluginAgent(Passes(), "p")] + builtins)
    assert not fast.eligible(classic, builtins * 2)  # (no plug-in: the engine plays it all)
    assert fast.eligible(preset("two-player"), [PluginAgent(Watcher(), "w")] * 2)
    assert not fast.eligible(classic, [PluginAgent(Watcher(), "w")] + builtins, "spades >= 4")


class Chooser(Watcher):
    """A Watcher that makes every choice itself, at random from ``obs.rng`` (blind nil or a
    blind bid often, so that the exchanges and blind phases come up)."""

    def blind(self, obs):
        nil_ok, blind_bids = obs.blind_options
        draw = obs.rng.bounded(4)
        if draw == 0 and nil_ok:
            return 0
        options = [bid for bid in range(blind_bids.bit_length()) if blind_bids >> bid & 1]
        return options[obs.rng.bounded(len(options))] if draw == 1 and options else -1

    def bump(self, obs):
        return obs.rng.bounded(2) == 1

    def keep(self, obs):
        return bool(obs.rng.bounded(2))

    def pass_cards(self, obs):
        cards = obs.cards
        return [cards.pop(obs.rng.bounded(len(cards))) for _ in range(obs.pass_count)]


class Keeper(Watcher):
    """Makes its bids, plays and draw-deal keeps only (its other choices: the heuristic's)."""

    def keep(self, obs):
        return obs.face_up % 13 >= 6


@pytest.mark.parametrize("plugin", [Chooser, Keeper])
@pytest.mark.parametrize("name", list(PRESETS))
def test_plugins_making_every_choice_equal_the_api(name, plugin, monkeypatch):
    rules = preset(name)
    chooser = plugin()
    table = _table(rules, chooser)
    if rules.partnership:
        table[2] = PluginAgent(plugin(), "Partner")  # (the nil side's pass and the return)
    keys = stream_keys(3)
    assert fast.eligible(rules, table)
    stepped = fast.play(rules, table, keys, 0, 24, True, False)
    assert stepped is not None
    _equal(stepped, _one_at_a_time(monkeypatch, play.play_hands, rules, table, keys, 0, 24,
                                   True))
    games = preset(name, target=200)
    stepped = fast.play(games, table, keys, 1, 2, True, True)
    expected = _one_at_a_time(monkeypatch, play.play_games, games, table, keys, 1, 2, True)
    _equal(stepped[0], expected[0])
    _equal(stepped[1], expected[1])


class Faulty:
    """Fails on its fourth card: ``fault`` says how."""

    def __init__(self, fault):
        self.fault, self.cards = fault, 0

    def bid(self, obs):
        return 3

    def play(self, obs):
        self.cards += 1
        if self.cards == 4:
            if self.fault == "raise":
                raise KeyError("no such card")
            if self.fault == "illegal":
                return next(card for card in range(52) if not obs.legal_mask >> card & 1)
            if self.fault == "edit":
                obs._hand.bids[1] = 13
        return obs.legal[0]


@pytest.mark.parametrize(("fault", "message"), [
    ("raise", "strategy F raised KeyError: 'no such card' (hand 0, seat 0, play phase)"),
    ("illegal", "strategy F: the play"),
    ("edit", "strategy F changed the game's state (bids) while deciding in hand 0, seat 0"),
])
def test_a_failing_plugin_is_named(fault, message):
    rules = preset("classic")
    table = [PluginAgent(Faulty(fault), "F")] + [BuiltinAgent(parse_strategy("heuristic"))] * 3
    with pytest.raises(StrategyError, match=message.replace("(", r"\(").replace(")", r"\)")):
        play.play_hands(rules, table, stream_keys(1), 0, 2)


def test_the_slots_fast_reads_are_the_engines():
    from spades_sim.engine import table_slots as table

    assert (fast._S_BUMPED, fast._S_HAND_ID, fast._S_ROW) == (table.S_BUMPED, table.S_HAND_ID,
                                                             table.S_ROW)
    assert (fast._S_UNIT, fast._S_PHASE, fast._S_PASS_STEP, fast._S_PASSED, fast._S_DRAW) == (
        table.S_UNIT, table.S_PHASE, table.S_PASS_STEP, table.S_PASSED, table.S_DRAW)
    assert (fast._PHASE_BLIND, fast._PHASE_PASS, fast._PHASE_KEEP) == (
        table.PHASE_BLIND, table.PHASE_PASS, table.PHASE_KEEP)
    assert fast._PHASE_PLAY == PHASE_PLAY


def test_the_stepped_loop_runs_without_the_jit():
    """``NUMBA_DISABLE_JIT=1``: the same records from the kernels run as Python."""
    import hashlib
    import os
    import subprocess
    import sys

    script = (
        "import hashlib, sys\n"
        "sys.path.insert(0, 'tests')\n"
        "from test_mixed import Watcher, _table\n"
        "from spades_sim.core.rules import preset\n"
        "from spades_sim.core.seeding import stream_keys\n"
        "from spades_sim.game import fast\n"
        "rules = preset('tournament')\n"
        "out = fast.play(rules, _table(rules, Watcher())[:3] + [_table(rules, Watcher())[1]],"
        " stream_keys(2), 0, 2, True, False)\n"
        "print(hashlib.sha256(b''.join(a.tobytes() for a in out)).hexdigest())\n"
    )
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            cwd=root, env={**os.environ, "NUMBA_DISABLE_JIT": "1"},
                            timeout=600, check=True)
    rules = preset("tournament")
    out = fast.play(rules, _table(rules, Watcher())[:3] + [_table(rules, Watcher())[1]],
                    stream_keys(2), 0, 2, True, False)
    assert result.stdout.strip() == hashlib.sha256(b"".join(a.tobytes() for a in out)).hexdigest()
