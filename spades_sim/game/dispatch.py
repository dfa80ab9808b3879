"""Who plays a piece of a run: the engine's kernels, or the game-state API.

Built-in strategies and numba plug-ins play in the engine (``engine/calls.py``); a table with a
Python plug-in plays through the game-state API (``play.py``), built-in seats included, with
the same streams, so the hands are the ones the engine would play. Both return the same record
arrays. When a numba plug-in fails inside the engine (an illegal move, an exception), the piece
is played again through the API, which names the strategy, the hand, the seat, the action and
the legal ones.
"""

from __future__ import annotations

import contextlib
import sys

from ..core import schema
from ..core.errors import StrategyError
from ..core.rules import Rules
from ..core.strategies import PluginStrategy, parse_strategy
from ..engine import calls
from . import deals, play
from .agents import plugin_output
from .plugins import agents, heuristic_default, load


def _plan(strategies):
    """``(kernel strategies, kernel plug-ins or None, python)``: ``python`` when a seat is a
    Python plug-in (then the API plays the table)."""
    strategies = [parse_strategy(strategy) for strategy in strategies]
    if not any(isinstance(strategy, PluginStrategy) for strategy in strategies):
        return strategies, None, False
    loaded = [load(s) if isinstance(s, PluginStrategy) else None for s in strategies]
    if any(plugin is not None and not plugin.numba for plugin in loaded):
        return strategies, None, True
    kernel_strategies = [heuristic_default() if plugin else strategy
                         for strategy, plugin in zip(strategies, loaded, strict=True)]
    plugins = tuple(None if plugin is None else (plugin.cls.bid, plugin.cls.play,
                                                 plugin.params()) for plugin in loaded)
    return kernel_strategies, plugins, False


def _play(engine, api, unit: str, rules: Rules, strategies, keys, first: int, count: int,
          record_plays: bool, deal_filter=None):
    """Play with the engine's ``engine`` function or the API's ``api`` one (see the module
    docstring); ``unit`` names the pieces in the message of a failure.

    ``deal_filter`` (a :class:`~spades_sim.core.features.DealFilter` or ``None``): a
    declarative one runs in the engine; for a Python one the deals each independent hand
    rejects are found here, in Python, on the same deal streams (``deals.py``), and the engine
    skips them; whole games with a Python filter are played through the API.
    """
    kernel_strategies, plugins, python = _plan(strategies)
    dealt = {}
    if deal_filter is not None:
        deal_filter.check(rules)
        dealt["deal_filter"] = deal_filter
        if deal_filter.is_function:
            if unit == "games":
                python = True
            else:
                dealt["redeals"] = deals.redeals(rules, keys[0], first, count, deal_filter)
    if python:
        return api(rules, agents(strategies), keys, first, count, record_plays,
                   deal_filter=deal_filter)
    if plugins is None:
        return engine(rules, kernel_strategies, keys, first, count, record_plays, **dealt)
    failures: list = []
    try:
        with plugin_output(), _unraisable_kept(failures):
            out = engine(rules, kernel_strategies, keys, first, count, record_plays,
                         plugins=plugins, **dealt)
        if not failures:
            return out
        error = failures[0]
    except Exception as raised:
        error = raised
    api(rules, agents(strategies), keys, first, count, record_plays,
        deal_filter=deal_filter)  # names the culprit
    raise StrategyError(f"a numba plug-in failed in {unit} {first}..{first + count - 1} "
                        f"({error}), but not when played again in Python") from error


@contextlib.contextmanager
def _unraisable_kept(failures: list):
    """An exception raised in a numba plug-in called through a function pointer cannot cross
    the pointer: numba hands it to ``sys.unraisablehook``, which would print "Exception ignored
    in ..." and a traceback before the one-line message. Keep it in ``failures`` instead; the
    piece is then played again through the API, which names the strategy, hand and seat."""
    previous = sys.unraisablehook

    def keep(unraisable) -> None:
        if "numba" not in repr(unraisable.object):  # (another object's __del__, say)
            previous(unraisable)
            return
        failures.append(unraisable.exc_value if unraisable.exc_value is not None
                        else RuntimeError(str(unraisable.err_msg)))

    sys.unraisablehook = keep
    try:
        yield
    finally:
        sys.unraisablehook = previous


def play_hands(rules: Rules, strategies, keys, first: int, count: int,
               record_plays: bool = False, deal_filter=None) -> schema.HandArrays:
    """Independent hands ``first .. first + count - 1`` (``engine/calls.py``), any strategies;
    only deals ``deal_filter`` accepts, when given."""
    return _play(calls.play_hands, play.play_hands, "hands", rules, strategies, keys, first,
                 count, record_plays, deal_filter)


def play_games(rules: Rules, strategies, keys, first: int, count: int,
               record_plays: bool = False,
               deal_filter=None) -> tuple[schema.HandArrays, schema.GameArrays]:
    """Whole games ``first .. first + count - 1`` (``engine/calls.py``), any strategies;
    only deals ``deal_filter`` accepts, when given."""
    return _play(calls.play_games, play.play_games, "games", rules, strategies, keys, first,
                 count, record_plays, deal_filter)
