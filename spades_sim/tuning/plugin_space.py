"""The search space of a plug-in's parameters: ``spades-sim tune path.py:Class ...``.

A Python plug-in declares what may be tuned in a class attribute ``tunable``, a dict from a
constructor argument's name to its search bounds, ``(low, high)`` for a real number or
``(low, high, "int")`` for a whole number::

    class Careful:
        tunable = {"bias": (-1.5, 1.5), "bag_guard": (0, 8, "int")}

        def __init__(self, bias=0.0, bag_guard=3): ...

A numba plug-in tunes its ``params`` (the names and defaults of its parameter vector); their
bounds come from the same ``tunable`` attribute, or from ``--param NAME=LOW:HIGH``. The start
is the constructor's defaults (the ``params`` defaults for numba), overridden by the spec's
``:name=value`` arguments or ``--start``; every point of the box is built at both corners
before the search starts, so a constructor that refuses a value fails at once, in one line.
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass

from ..core.errors import StrategyError
from ..core.rules import Rules
from ..core.strategies import PluginStrategy, format_number, is_plugin_name, parse_strategy
from ..game.plugins import load
from .space import SCALE, Dimension, Space, parse_param

TUNABLE = "tunable"  # the class attribute a plug-in declares its tunable parameters in


def is_plugin_family(family) -> bool:
    """Whether ``family`` names a plug-in (``SOURCE:CLASS[:args]``) rather than a built-in kind,
    preset or shipped strategy."""
    return isinstance(family, str) and is_plugin_name(family.partition(":")[0].strip())


@dataclass(frozen=True)
class PluginSpace(Space):
    """A plug-in's search space: ``start`` is a :class:`PluginStrategy` whose arguments hold
    every tuned parameter (and any fixed one the spec gave); ``numba`` whether its parameters
    are a numba plug-in's vector."""

    numba: bool = False

    def decode(self, point) -> PluginStrategy:
        """The plug-in at a point of the box: the start's arguments with the tuned values
        (whole numbers as ints, so a constructor gets the type it declared)."""
        values = self.values(point)
        integer = {dimension.name for dimension in self.dimensions if dimension.integer}
        args = tuple((key, (int(values[key]) if key in integer else values[key])
                      if key in values else value) for key, value in self.start.args)
        return PluginStrategy(self.start.source, self.start.class_name, args)

    def to_dict(self) -> dict:
        return {**super().to_dict(), "plugin": "numba" if self.numba else "python"}


def _declared(cls, label: str) -> dict:
    """The class's ``tunable`` attribute, checked: name -> (low, high, integer)."""
    declared = getattr(cls, TUNABLE, None)
    if declared is None:
        return {}
    if not isinstance(declared, dict):
        raise StrategyError(f"strategy {label}: {TUNABLE} must be a dict of names and "
                            f"(low, high) or (low, high, \"int\")")
    checked = {}
    for name, bounds in declared.items():
        if not isinstance(bounds, (tuple, list)) or len(bounds) not in (2, 3) or (
                len(bounds) == 3 and bounds[2] != "int"):
            raise StrategyError(f"strategy {label}: {TUNABLE}[{name!r}] is {bounds!r}; expected "
                                f"(low, high) or (low, high, \"int\")")
        low, high = bounds[0], bounds[1]
        if not all(_finite(value) for value in (low, high)):
            raise StrategyError(f"strategy {label}: {TUNABLE}[{name!r}] has bounds that are not "
                                f"finite numbers: {bounds!r}")
        checked[name] = (float(low), float(high), len(bounds) == 3)
    return checked


def _finite(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) \
        and math.isfinite(float(value))


def _start_values(plugin, label: str) -> dict:
    """The parameters a plug-in takes, with their defaults (None: no default)."""
    if plugin.numba:
        return dict(getattr(plugin.cls, "params", {}) or {})
    try:
        signature = inspect.signature(plugin.cls)
    except (TypeError, ValueError):
        raise StrategyError(f"strategy {label}: cannot read the constructor's parameters")
    return {name: (None if p.default is inspect.Parameter.empty else p.default)
            for name, p in signature.parameters.items()
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


def _dimension(name: str, bounds, declared: dict, label: str) -> Dimension:
    if bounds is None:
        if name not in declared:
            raise StrategyError(f"parameter {name}: strategy {label} declares no search "
                                f"bounds for it (in {TUNABLE}); give them as --param "
                                f"{name}=LOW:HIGH")
        low, high, integer = declared[name]
    else:
        low, high = bounds
        integer = declared.get(name, (0, 0, False))[2]
    if not (math.isfinite(low) and math.isfinite(high)) or not low < high:
        raise StrategyError(f"--param {name}={format_number(low)}:{format_number(high)}: LOW "
                            f"must be below HIGH, both finite")
    if integer:
        low, high = float(math.ceil(low)), float(math.floor(high))
        if not low < high:
            raise StrategyError(f"--param {name}: the integer parameter has no two values in "
                                f"its bounds")
    return Dimension(name, float(low), float(high), bool(integer))


def build_plugin_space(family: str, params=None, start=None,
                       rules: Rules | None = None) -> PluginSpace:
    """The search space of the plug-in ``family`` (``SOURCE:CLASS[:name=value,...]``).

    ``params``: ``NAME`` or ``NAME=LOW:HIGH`` texts (default: every name in the class's
    ``tunable``; for a numba plug-in without one, every name in its ``params``);
    ``start``: a spec of the same plug-in whose arguments are the start values (default:
    ``family``'s own arguments over the defaults); ``rules``: unused by the space itself
    (plug-ins see the rules when they play), accepted like :func:`~.space.build_space`'s.
    """
    del rules  # (a plug-in refuses a variant when it plays, not when it is built)
    strategy = parse_strategy(family)
    plugin = load(strategy)  # one-line StrategyError when it does not load
    label = strategy.name
    start_strategy = parse_strategy(start) if start is not None else strategy
    if not isinstance(start_strategy, PluginStrategy) or start_strategy.name != strategy.name:
        raise StrategyError(f"--start {start}: expected a spec of the plug-in {label} "
                            f"({label}:name=value,...)")
    declared = _declared(plugin.cls, label)
    takes = _start_values(plugin, label)
    if params is None:
        chosen = [(name, None) for name in declared] or (
            [(name, None) for name in takes] if plugin.numba else [])
        if not chosen:
            raise StrategyError(f"strategy {label}: the class declares no {TUNABLE} "
                                f"parameters; name some with --param NAME=LOW:HIGH")
    else:
        chosen = [parse_param(item) if isinstance(item, str) else tuple(item) for item in params]
    names = [name for name, _ in chosen]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise StrategyError(f"--param {twice[0]} is given twice")
    unknown = [name for name in names if name not in takes]
    if unknown:
        raise StrategyError(f"--param {unknown[0]}: strategy {label} has no such parameter; it "
                            f"takes {', '.join(takes) or 'none'}")
    dimensions = tuple(_dimension(name, bounds, declared, label) for name, bounds in chosen)
    given = dict(start_strategy.args)
    args = list(start_strategy.args)
    for dimension in dimensions:
        if dimension.name in given:
            if not _finite(given[dimension.name]):
                raise StrategyError(f"--start: {dimension.name}={given[dimension.name]!r} is "
                                    f"not a number; a tuned parameter starts from a number")
            continue
        default = takes[dimension.name]
        if not _finite(default):
            raise StrategyError(f"--param {dimension.name}: the plug-in has no numeric default "
                                f"for it; give a start value in --start")
        args.append((dimension.name, default))
    space = PluginSpace(strategy.name, PluginStrategy(strategy.source, strategy.class_name,
                                                      tuple(args)), dimensions, plugin.numba)
    for corner in (0.0, SCALE):  # every point of the box must build
        corner_plugin = load(space.decode([corner] * len(dimensions)))
        if not corner_plugin.numba:
            corner_plugin.agent()
    return space
