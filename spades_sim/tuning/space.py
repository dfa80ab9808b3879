"""The search space of a tuning: which parameters of a strategy family move, within which bounds.

Everything is derived from the strategy table (``core/strategies.py``): a family is a kind or a
preset, its parameters are its kind's, and every bound is checked against the parameter's own
range there. :data:`BOUNDS` gives a sensible search range for parameters whose own range is
open or too wide to search (one line each: add a line when a kind gains a parameter), and
:data:`DEFAULT_PARAMS` the parameters tuned when ``--param`` is not given. A name in either
table that the kind no longer has is skipped, so the tables may run ahead of or behind the
strategy table.

CMA-ES searches a box scaled to ``[0, SCALE]`` in every coordinate (one sigma means the same
share of every parameter's range); :meth:`Space.decode` maps a point back to parameter values,
rounds integer parameters to the nearest integer and others to :data:`DIGITS` decimals, so the
values played are exactly those the tuned spec writes out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..core.errors import StrategyError
from ..core.rules import Rules
from ..core.strategies import (
    KINDS,
    PRESETS,
    Strategy,
    format_number,
    kernel_arrays,
    make_strategy,
    parse_strategy,
)

SCALE = 10.0  # CMA-ES sees every parameter on [0, SCALE]
DIGITS = 4  # decimals kept of a non-integer parameter (the tuned spec stays readable)

# Search ranges (low, high) by parameter name, for every kind that has the parameter (mc shares
# the heuristic's); each must lie inside the parameter's own range. Parameters not listed are
# searched over their own range when it is finite; otherwise ``--param NAME=LOW:HIGH`` is needed.
BOUNDS: dict[str, tuple[float, float]] = {
    # random
    "bid_min": (0, 3), "bid_max": (3, 7),
    # heuristic (and mc): bidding
    "aggression": (-1.5, 1.5), "nil_threshold": (0.0, 3.0), "nil_max_spades": (0, 5),
    "ace": (0.4, 1.2), "king": (0.2, 1.0), "queen": (0.0, 0.8), "long_spade": (0.2, 1.2),
    "ruff": (0.0, 1.2), "trump_honour": (0.4, 1.3), "long_suit": (0.0, 0.8),
    "bump_threshold": (-0.5, 1.0), "blind_nil_deficit": (50, 1000),
    "blind_bid_deficit": (50, 1000), "blind_bid": (1, 8), "keep_rank": (0, 12),
    "draw_scale": (0.5, 2.5), "nil_max_high": (0, 4), "nil_partner_min": (0, 6),
    "bag_guard": (0, 9), "bag_guard_boost": (0.0, 2.0),
    "endgame_points": (0, 300), "endgame_safe": (-1.5, 1.0), "endgame_push": (-0.5, 2.0),
    "bag_weight": (0.0, 2.0), "target_bonus": (0, 300), "nil_margin": (-100, 100),
    "blind_margin": (-100, 300),
    # heuristic (and mc): play
    "set_margin": (-1, 6),
    # mc's search
    "samples": (4, 64), "bid_tolerance": (0.5, 4.0), "sample_tries": (1, 64),
}

# Parameters searched as integers although the strategy table takes any number: a count or a
# points threshold compared with whole numbers, where a fraction acts like a whole number.
WHOLE: frozenset[str] = frozenset({"nil_max_spades", "blind_nil_deficit", "blind_bid_deficit",
                                   "endgame_points"})

# The parameters tuned by default, per kind (names the kind lacks are skipped).
DEFAULT_PARAMS: dict[str, tuple[str, ...]] = {
    "random": ("bid_min", "bid_max", "blind_nil_rate", "blind_bid_rate", "bump_rate"),
    "heuristic": ("aggression", "nil_threshold", "nil_max_spades", "bag_weight",
                  "target_bonus", "nil_margin", "blind_margin", "ace", "king", "queen",
                  "long_spade", "ruff", "trump_honour", "blind_nil_deficit",
                  "blind_bid_deficit", "endgame_points", "endgame_safe", "endgame_push",
                  "set_margin"),
}
DEFAULT_PARAMS["mc"] = DEFAULT_PARAMS["heuristic"]


@dataclass(frozen=True)
class Dimension:
    """One tuned parameter: its name, search bounds and whether it is an integer."""

    name: str
    low: float
    high: float
    integer: bool

    def to_dict(self) -> dict:
        return {"name": self.name, "low": self.low, "high": self.high, "integer": self.integer}


@dataclass(frozen=True)
class Space:
    """The search space: the family, the start strategy (which also holds the values of the
    parameters that do not move) and the dimensions."""

    family: str
    start: Strategy
    dimensions: tuple[Dimension, ...]

    @property
    def names(self) -> list[str]:
        return [dimension.name for dimension in self.dimensions]

    def encode(self, strategy: Strategy) -> list[float]:
        """The point of ``strategy`` in the scaled box (values outside the bounds are clipped
        to them)."""
        point = []
        for dimension in self.dimensions:
            share = (strategy.params[dimension.name] - dimension.low) / (dimension.high
                                                                        - dimension.low)
            point.append(SCALE * min(1.0, max(0.0, share)))
        return point

    def values(self, point) -> dict:
        """The parameter values of a point of the box: clipped to the bounds, integers rounded,
        other values rounded to DIGITS decimals."""
        values = {}
        for dimension, coordinate in zip(self.dimensions, point, strict=True):
            share = min(1.0, max(0.0, float(coordinate) / SCALE))
            value = dimension.low + share * (dimension.high - dimension.low)
            value = float(round(value)) if dimension.integer else round(value, DIGITS)
            values[dimension.name] = min(dimension.high, max(dimension.low, value))
        return values

    def decode(self, point) -> Strategy:
        """The strategy at a point of the box: the start strategy with the tuned values."""
        return make_strategy(self.family, **{**self.start.params, **self.values(point)})

    def to_dict(self) -> dict:
        return {"family": self.family, "start": self.start.spec(),
                "params": [dimension.to_dict() for dimension in self.dimensions]}


def family_kind(family: str) -> str:
    """The kind of a family (a kind or a preset name), or a one-line StrategyError."""
    if family in KINDS:
        return family
    if family in PRESETS:
        return PRESETS[family].kind
    raise StrategyError(f"unknown family {family!r}: tune a built-in kind or preset, or a "
                        f"plug-in SOURCE:CLASS; allowed: {', '.join([*KINDS, *PRESETS])}")


def parse_param(text: str) -> tuple[str, tuple[float, float] | None]:
    """A ``--param`` value: ``NAME`` or ``NAME=LOW:HIGH``.

    >>> parse_param("aggression"), parse_param("ace=0.5:1.1")
    (('aggression', None), ('ace', (0.5, 1.1)))
    """
    name, sep, rest = str(text).partition("=")
    name = name.strip()
    if not name:
        raise StrategyError(f"--param {text!r}: expected NAME or NAME=LOW:HIGH")
    if not sep:
        return name, None
    low, colon, high = rest.partition(":")
    try:
        if not colon:
            raise ValueError
        bounds = float(low), float(high)
    except ValueError:
        raise StrategyError(f"--param {text!r}: expected NAME=LOW:HIGH with two numbers")
    return name, bounds


def _dimension(family: str, name: str, bounds) -> Dimension:
    param = KINDS[family_kind(family)].param(name)  # unknown name: one-line StrategyError
    low, high = bounds if bounds is not None else BOUNDS.get(name, (param.low, param.high))
    if not (math.isfinite(low) and math.isfinite(high)):
        raise StrategyError(f"--param {name}: its range {format_number(param.low)}.."
                            f"{format_number(param.high)} is open; give bounds as "
                            f"{name}=LOW:HIGH")
    if not low < high:
        raise StrategyError(f"--param {name}={format_number(low)}:{format_number(high)}: LOW "
                            f"must be below HIGH")
    if not (param.low <= low and high <= param.high):
        raise StrategyError(f"--param {name}={format_number(low)}:{format_number(high)}: "
                            f"outside the parameter's range {format_number(param.low)}.."
                            f"{format_number(param.high)}")
    integer = param.integer or name in WHOLE
    if integer:
        low, high = float(math.ceil(low)), float(math.floor(high))
        if not low < high:
            raise StrategyError(f"--param {name}: the integer parameter has no two values in "
                                f"{format_number(bounds[0])}..{format_number(bounds[1])}")
    return Dimension(name, float(low), float(high), integer)


def build_space(family: str, params=None, start=None, rules: Rules | None = None) -> Space:
    """The search space of ``family`` (a kind or preset name, or a plug-in's
    ``SOURCE:CLASS``: ``plugin_space.build_plugin_space``).

    ``params``: ``--param`` texts (``NAME`` or ``NAME=LOW:HIGH``) or ``(name, bounds)`` pairs;
    none: the kind's :data:`DEFAULT_PARAMS`. ``start``: a strategy spec of the family's kind
    (default: the family itself). ``rules``: checked to be playable at both corners of the box.
    """
    from .plugin_space import build_plugin_space, is_plugin_family  # (it builds on this module)

    if is_plugin_family(family):
        return build_plugin_space(family, params, start, rules)
    kind = family_kind(family)
    start_strategy = parse_strategy(start if start is not None else family)
    if not isinstance(start_strategy, Strategy) or start_strategy.kind.name != kind:
        raise StrategyError(f"--start {start}: expected a {kind} strategy (the family "
                            f"{family}'s kind)")
    start_strategy = make_strategy(family, **start_strategy.params)
    if params is None:
        have = {param.name for param in KINDS[kind].params}
        chosen = [(name, None) for name in DEFAULT_PARAMS.get(kind, ()) if name in have]
    else:
        chosen = [parse_param(item) if isinstance(item, str) else tuple(item) for item in params]
    if not chosen:
        raise StrategyError(f"family {family}: no parameter to tune; name some with --param")
    names = [name for name, _ in chosen]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise StrategyError(f"--param {twice[0]} is given twice")
    dimensions = tuple(_dimension(family, name, bounds) for name, bounds in chosen)
    space = Space(family, start_strategy, dimensions)
    _check_corners(space, rules)
    return space


def _check_corners(space: Space, rules: Rules | None) -> None:
    """Every point of the box must be a valid strategy under ``rules`` (one-line errors)."""
    by_name = {dimension.name: dimension for dimension in space.dimensions}
    if "bid_min" in by_name or "bid_max" in by_name:  # random: bid_min <= bid_max everywhere
        top = by_name["bid_min"].high if "bid_min" in by_name else space.start.params["bid_min"]
        bottom = by_name["bid_max"].low if "bid_max" in by_name else space.start.params["bid_max"]
        if top > bottom:
            raise StrategyError(f"--param: bid_min may reach {format_number(top)}, above the "
                                f"lowest bid_max {format_number(bottom)}; keep bid_min's range "
                                f"below bid_max's")
    for corner in (0.0, SCALE):
        strategy = space.decode([corner] * len(space.dimensions))
        if rules is not None:
            kernel_arrays([strategy], rules)
