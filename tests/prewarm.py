"""Compile the engine's large kernels in parallel before the tests start.

Each copy of the hand loop takes one to three minutes to compile on a cold cache, one after
another when the tests reach them. ``conftest.py`` runs each group below in its own process at
the start of the session, as many at once as there are cores; the processes fill numba's disk
cache, and the tests then load the kernels from it (on a warm cache each group takes a few
seconds). ``python tests/prewarm.py GROUP`` runs one group.
"""

from __future__ import annotations

import sys
from pathlib import Path

from spades_sim.core.rules import preset
from spades_sim.core.seeding import stream_keys
from spades_sim.core.strategies import make_strategy
from spades_sim.engine import calls

PLUGINS = Path(__file__).resolve().parent / "plugins"
RULES = preset("classic", max_hands=1)
KEYS = stream_keys(0)


def hands():
    """The hand loop of built-in strategies, for independent hands and for games."""
    calls.play_hands(RULES, [make_strategy("random")] * 4, KEYS, 0, 1)
    calls.play_games(RULES, [make_strategy("random")] * 4, KEYS, 0, 1)


def search():
    """The hand loop with the search player's bookkeeping (``mc`` seats)."""
    calls.play_hands(RULES, [make_strategy("mc", samples=1)] * 4, KEYS, 0, 1)
    calls.play_games(RULES, [make_strategy("mc", samples=1)] * 4, KEYS, 0, 1)


def plugins():
    """The hand loop that calls numba plug-ins."""
    from spades_sim.game.dispatch import play_games, play_hands

    play_hands(RULES, [f"{PLUGINS / 'lowest.py'}:LowestNumba"] * 4, KEYS, 0, 1)
    play_games(RULES, [f"{PLUGINS / 'lowest.py'}:LowestNumba"] * 4, KEYS, 0, 1)


def tables():
    """The hand loop stepped for Python seats (``engine/table.py``), as a table with a Python
    plug-in, the batched environment and the AEC environment call it."""
    import numpy as np

    from spades_sim.env import BatchEnv, env
    from spades_sim.game import fast
    from spades_sim.game.agents import BuiltinAgent, PluginAgent

    class Lowest:
        def bid(self, obs):
            return obs.legal[0]

        def play(self, obs):
            return obs.legal[0]

    agents = [PluginAgent(Lowest(), "lowest")] + [BuiltinAgent(make_strategy("heuristic"))] * 3
    fast.play(RULES, agents, KEYS, 0, 1, False, False)
    batch = BatchEnv(1, RULES)
    batch.reset(seed=0)
    batch.step(batch.random_actions(np.array([1], dtype=np.uint64)))
    env(RULES).reset(seed=0)


def solver():
    """The double-dummy solver (its kernels have signatures: importing compiles them)."""
    from spades_sim.engine import dd  # noqa: F401


GROUPS = {"hands": hands, "search": search, "plugins": plugins, "tables": tables,
          "solver": solver}

if __name__ == "__main__":
    GROUPS[sys.argv[1]]()
