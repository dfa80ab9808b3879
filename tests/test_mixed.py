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
    assert not fast.eligible(classic, [PluginAgent(Passes(), "p")] + builtins)
    assert not fast.eligible(classic, builtins * 2)  # (no plug-in: the engine plays it all)
    assert not fast.eligible(preset("two-player"), [PluginAgent(Watcher(), "w")] * 2)


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
