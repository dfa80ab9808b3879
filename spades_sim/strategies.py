"""Strategies as data: kinds, named parameter vectors, and parsing ``"heuristic:aggression=0.3"``.

A strategy reaches the kernels as an integer kind and a float64 vector of ``N_PARAMS`` slots per
seat (``engine.layout``); the kernels dispatch on the kind, so a sweep over parameters never
recompiles. The decisions themselves live in ``engine/strategy_kernels.py`` (and, slow and
readable, in ``reference.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .engine import layout


class StrategyError(ValueError):
    """A bad strategy name, parameter name or value (the message names it)."""


@dataclass(frozen=True)
class Param:
    name: str
    default: float
    doc: str
    low: float = float("-inf")
    high: float = float("inf")
    integer: bool = False


@dataclass(frozen=True)
class StrategyKind:
    name: str
    kind: int
    doc: str
    params: tuple[Param, ...]

    def param(self, name: str) -> Param:
        for param in self.params:
            if param.name == name:
                return param
        allowed = ", ".join(p.name for p in self.params)
        raise StrategyError(f"strategy {self.name}: unknown parameter {name!r}; allowed: {allowed}")


KINDS: dict[str, StrategyKind] = {
    "random": StrategyKind(
        "random",
        layout.STRATEGY_RANDOM,
        "a uniformly random legal card; a uniformly random legal bid in bid_min..bid_max "
        "(0 is nil where nil is on; any legal bid when none there is); every other choice at "
        "random among the legal options",
        (
            Param("bid_min", 1, "lowest bid drawn", 0, 17, True),
            Param("bid_max", 4, "highest bid drawn", 0, 17, True),
            Param("blind_nil_rate", 0.05, "probability of a blind nil, where allowed", 0, 1),
            Param("blind_bid_rate", 0.05,
                  "probability of a blind number bid (uniform over the allowed ones)", 0, 1),
            Param("bump_rate", 0.5, "probability of raising a bid by one, where allowed", 0, 1),
            Param("keep_rate", 0.5,
                  "draw deal: probability of keeping the face-up card", 0, 1),
        ),
    ),
    "heuristic": StrategyKind(
        "heuristic",
        layout.STRATEGY_HEURISTIC,
        "a trick estimator for bidding, a nil threshold, and a play policy that wins cheaply, "
        "ducks once its contract is safe, covers a partner's nil and tries to set an "
        "opponent's nil",
        (
            Param("aggression", 0.0, "added to the trick estimate before rounding the bid"),
            Param("nil_threshold", 1.0, "bid nil when the trick estimate is at most this"),
            Param("nil_max_spades", 3, "never bid nil holding more trumps than this", 0, 17),
            Param("ace", 0.9, "tricks counted for a side-suit ace"),
            Param("king", 0.7, "tricks counted for a side-suit king with a guard"),
            Param("queen", 0.3, "tricks counted for a side-suit queen with two guards"),
            Param("long_spade", 0.8, "tricks counted per trump beyond the third"),
            Param("ruff", 0.6, "tricks counted per spare trump that can ruff a short suit"),
            Param("blind_nil_deficit", 300,
                  "bid blind nil (where allowed) when trailing the leader by at least this"),
            Param("blind_bid_deficit", 200,
                  "bid blind (where allowed) when trailing the leader by at least this"),
            Param("blind_bid", 4, "the blind number bid (the nearest allowed one)", 1, 17, True),
            Param("bump_threshold", 0.35,
                  "bid bump: raise when estimate + aggression - bid is at least this"),
            Param("keep_rank", 8,
                  "draw deal: keep the face-up card when its rank is this or higher "
                  "(0 = 2 .. 12 = A; jokers 13, 14)", 0, 15, True),
            Param("draw_scale", 1.3,
                  "draw deal: the trick estimate's scale (else 4 / players)", 0, 10),
        ),
    ),
}
assert tuple(p.name for p in KINDS["random"].params) == layout.RANDOM_PARAM_NAMES
assert tuple(p.name for p in KINDS["heuristic"].params) == layout.HEURISTIC_PARAM_NAMES


@dataclass(frozen=True)
class Strategy:
    """One strategy: a kind and a full set of named parameter values."""

    name: str
    params: dict = field(default_factory=dict)

    @property
    def kind(self) -> StrategyKind:
        return KINDS[self.name]

    def vector(self) -> np.ndarray:
        """The float64[N_PARAMS] parameter vector the kernels read."""
        vector = np.zeros(layout.N_PARAMS, dtype=np.float64)
        for slot, param in enumerate(self.kind.params):
            vector[slot] = self.params[param.name]
        return vector

    def spec(self) -> str:
        """Canonical text: the name, then the parameters that differ from their defaults."""
        changed = [
            f"{p.name}={_format(self.params[p.name])}"
            for p in self.kind.params
            if self.params[p.name] != p.default
        ]
        return self.name + (":" + ",".join(changed) if changed else "")

    def __str__(self) -> str:
        return self.spec()


def _format(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def make_strategy(name: str, **params) -> Strategy:
    """A strategy by kind name with parameter overrides, validated."""
    if name not in KINDS:
        raise StrategyError(f"unknown strategy {name!r}; allowed: {', '.join(KINDS)}")
    kind = KINDS[name]
    values = {p.name: float(p.default) for p in kind.params}
    for key, value in params.items():
        param = kind.param(key)
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise StrategyError(f"strategy {name}: parameter {key}={value!r} is not a number")
        if not np.isfinite(number) or not param.low <= number <= param.high:
            raise StrategyError(
                f"strategy {name}: parameter {key}={value} is out of range "
                f"{_format(param.low)}..{_format(param.high)}"
            )
        if param.integer and not number.is_integer():
            raise StrategyError(f"strategy {name}: parameter {key}={value} is not an integer")
        values[key] = number
    if name == "random" and values["bid_min"] > values["bid_max"]:
        raise StrategyError("strategy random: bid_min is above bid_max")
    return Strategy(name, values)


def parse_strategy(text) -> Strategy:
    """Parse ``NAME[:param=value,...]``.

    >>> parse_strategy("heuristic:aggression=0.3").params["aggression"]
    0.3
    >>> parse_strategy("random").spec()
    'random'
    """
    if isinstance(text, Strategy):
        return text
    if not isinstance(text, str) or not text.strip():
        raise StrategyError(f"strategy {text!r}: expected NAME[:param=value,...]")
    name, _, rest = text.strip().partition(":")
    params = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, sep, value = item.partition("=")
        if not sep:
            raise StrategyError(f"strategy {name}: {item!r} is not param=value")
        params[key.strip()] = value.strip()
    return make_strategy(name.strip(), **params)


def seat_strategies(specs, players: int) -> list[Strategy]:
    """One strategy per seat from one spec (every seat) or one per seat."""
    strategies = [parse_strategy(spec) for spec in specs]
    if len(strategies) == 1:
        strategies = strategies * players
    if len(strategies) != players:
        raise StrategyError(
            f"--strategy given {len(strategies)} times; give it once (every seat) or "
            f"{players} times (one per seat)"
        )
    return strategies


def kernel_arrays(strategies, rules) -> tuple[np.ndarray, np.ndarray]:
    """``(kinds int64[4], params float64[4, N_PARAMS])`` for the kernels, checked against rules."""
    kinds = np.zeros(layout.MAX_SEATS, dtype=np.int64)
    params = np.zeros((layout.MAX_SEATS, layout.N_PARAMS), dtype=np.float64)
    for seat, strategy in enumerate(strategies):
        if strategy.name == "random" and strategy.params["bid_max"] > rules.hand_size:
            raise StrategyError(
                f"strategy random: bid_max={_format(strategy.params['bid_max'])} is above the "
                f"hand size {rules.hand_size}"
            )
        kinds[seat] = strategy.kind.kind
        params[seat] = strategy.vector()
    return kinds, params
