"""Strategies as data: kinds, named parameter vectors, and parsing ``"heuristic:aggression=0.3"``.

A strategy reaches the kernels as an integer kind and a float64 vector of ``N_PARAMS`` slots per
seat; the kernels dispatch on the kind, so a sweep over parameters never recompiles. This module
is the one table of the kinds and their parameters: a parameter's slot in the vector is its
place in its kind's list (:func:`slot`). The decisions themselves live in
``engine/strategy_bids.py`` and ``engine/strategy_play.py`` (and, slow and readable, in
``reference/strategies.py``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .errors import StrategyError
from .schema import MAX_SEATS

# Strategy kinds: an integer per seat, dispatched inside the kernels.
STRATEGY_RANDOM = 0
STRATEGY_HEURISTIC = 1
STRATEGY_MC = 2  # bids like the heuristic (the same parameter slots); plays by Monte Carlo search
N_PARAMS = 40  # slots of a seat's parameter vector
# A random strategy's probabilities become integer thresholds out of RATE_ONE: a choice is made
# when bounded(RATE_ONE) < round(rate * RATE_ONE).
RATE_ONE = 1 << 15


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
        STRATEGY_RANDOM,
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
        STRATEGY_HEURISTIC,
        "a trick estimator for bidding (weights for high cards by rank and guard, long suits, "
        "trump honours and length, ruffs), an aggression offset, nil and blind-nil triggers, "
        "score awareness (the bag limit, the end of the game), and a play policy that wins "
        "cheaply while its side needs tricks, covers a partner's nil, busts an opponent's, "
        "ducks or keeps winning once its contract is made, and can chase a set",
        (
            Param("aggression", 0.0, "added to the trick estimate before rounding the bid"),
            Param("nil_threshold", 2.5,
                  "consider nil only when the trick estimate is at most this (with ev_bid=0: "
                  "bid nil then)"),
            Param("nil_max_spades", 4, "never bid nil holding more trumps than this", 0, 17),
            Param("ace", 0.9, "tricks counted for a side-suit ace"),
            Param("king", 0.7, "tricks counted for a side-suit king with a guard"),
            Param("queen", 0.3, "tricks counted for a side-suit queen with two guards"),
            Param("long_spade", 0.8, "tricks counted per trump beyond the third"),
            Param("ruff", 0.6, "tricks counted per spare trump that can ruff a short suit"),
            Param("blind_nil_deficit", 50,
                  "bid blind nil (where allowed) when trailing the leader by at least this "
                  "(with ev_bid: consider it, and bid it when worth more than looking)"),
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
            Param("trump_honour", 1.0,
                  "tricks counted for each of the deck's three top trumps held with enough "
                  "trumps (the second with two, the third with three)"),
            Param("long_suit", 0.0, "tricks counted per side-suit card beyond the fourth"),
            Param("nil_max_high", 13,
                  "never bid nil holding more side-suit aces and kings than this", 0, 13, True),
            Param("nil_partner_min", 0,
                  "bid nil only when the partner, if it has bid, bid at least this", 0, 17, True),
            Param("bag_guard", 0,
                  "within this many bags of the bag limit, add bag_guard_boost to the bid "
                  "(bid up to take fewer overtricks; 0 = off)", 0, 100, True),
            Param("bag_guard_boost", 0.5, "added to the bid near the bag limit (bag_guard)"),
            Param("endgame_points", 0,
                  "end of game: the window, in points below the target, in which endgame_safe "
                  "and endgame_push apply (0 = off)", 0, 10000),
            Param("endgame_safe", -0.5,
                  "added to the bid when the seat's side leads and is within endgame_points "
                  "of the target (bid safe to win)"),
            Param("endgame_push", 0.5,
                  "added to the bid when a side ahead of the seat's is within endgame_points "
                  "of the target (bid to catch up)"),
            Param("cover_nil", 1, "play: cover a partner's live nil (1) or ignore it (0)",
                  0, 1, True),
            Param("bust_nil", 1, "play: try to set an opponent's live nil (1) or not (0)",
                  0, 1, True),
            Param("avoid_bags", 1,
                  "play: once the side's contract is made, duck (1: avoid bags, which dumps "
                  "them on the opponents) or keep winning tricks (0)", 0, 1, True),
            Param("set_margin", -1,
                  "play: once the side's contract is made, keep winning tricks to set an "
                  "opponent that still needs at least (tricks left - set_margin) tricks "
                  "(-1 = never)", -1, 30, True),
            Param("ev_bid", 1,
                  "bid by expected score under the rules in force, from the fitted trick "
                  "model (1), or round the estimate (0: the first heuristic's way)",
                  0, 1, True),
            Param("bag_weight", 0.5,
                  "expected-value bids: the share of a bag's long-run price (bag_penalty / "
                  "bag_limit) charged per expected overtrick", 0, 10),
            Param("target_bonus", 50,
                  "expected-value bids: points added, times the chance of making it, to a "
                  "contract that takes the side to the target", 0, 10000),
            Param("nil_margin", 0,
                  "expected-value bids: points added to a nil's expected score before "
                  "comparing it with the best number bid", -1000, 1000),
            Param("blind_margin", 100,
                  "expected-value blind choices (once blind_nil_deficit or "
                  "blind_bid_deficit is reached): points added to a blind choice's expected "
                  "score before comparing it with looking at the cards", -1000, 1000),
            Param("rule_play", 1,
                  "play: weigh overtricks by the rules (keep winning when a bag costs less "
                  "than its point, duck near the bag limit) and chase sets worth a trick each "
                  "under per_trick_short (1), or play the switches as set (0)", 0, 1, True),
        ),
    ),
}
KINDS["mc"] = StrategyKind(
    "mc",
    STRATEGY_MC,
    "Monte Carlo search for every card: samples the unseen cards consistently with what is "
    "public (cards played, voids shown, bids), plays each distinct card out to the end of the "
    "hand with the heuristic's play at every seat, and plays the card with the best total "
    "score for its side (its points minus the others'); bids, blind bids, bumps, passes and "
    "draw-deal choices are the heuristic's, with the same parameters",
    KINDS["heuristic"].params + (
        Param("samples", 16, "deals sampled per card decision (the search budget)", 1, 10000,
              True),
        Param("bid_tolerance", 3.0,
              "a sampled holding must have a trick estimate within this of its seat's bid "
              "(nil: at most nil_threshold plus this); up to sample_tries tries, then any deal "
              "that respects the voids", 0, 20),
        Param("sample_tries", 16,
              "deals tried per sample to agree with the bids (1 = ignore the bids)", 1, 1000,
              True),
    ),
)
assert all(len(kind.params) <= N_PARAMS for kind in KINDS.values())


def slot(kind: str, name: str) -> int:
    """The slot of parameter ``name`` in the vector of strategy kind ``kind``.

    >>> slot("random", "bid_min"), slot("heuristic", "aggression"), slot("mc", "samples")
    (0, 0, 33)
    """
    return [param.name for param in KINDS[kind].params].index(name)


@dataclass(frozen=True)
class StrategyPreset:
    """A named strategy people can reason about: a kind with some parameters changed."""

    name: str
    kind: str
    params: dict
    doc: str


# The first heuristic: bids by rounding its estimate (no trick model), plays its switches as
# set. The presets below are styles of that heuristic.
HEURISTIC_V1 = {"ev_bid": 0, "rule_play": 0, "nil_threshold": 1.0, "nil_max_spades": 3,
                "blind_nil_deficit": 300}

PRESETS: dict[str, StrategyPreset] = {
    preset.name: preset
    for preset in (
        StrategyPreset(
            "heuristic-v1", "heuristic", dict(HEURISTIC_V1),
            "the first heuristic, kept for comparison: bids its trick estimate rounded "
            "(plus aggression), nil when the estimate is at most 1, whatever the scoring rules",
        ),
        StrategyPreset(
            "cautious", "heuristic",
            {**HEURISTIC_V1, "aggression": -0.6, "nil_threshold": 0.4, "nil_max_spades": 2,
             "nil_max_high": 0, "blind_nil_deficit": 1000, "blind_bid_deficit": 1000,
             "endgame_points": 150, "endgame_safe": -0.5, "endgame_push": 0.0},
            "bids about half a trick under its estimate, bids nil only with a hopeless hand, "
            "goes blind only 1000 points behind; bids safe near the target",
        ),
        StrategyPreset(
            "aggressive", "heuristic",
            {**HEURISTIC_V1, "aggression": 0.6, "bump_threshold": 0.0, "blind_nil_deficit": 150,
             "blind_bid_deficit": 100, "set_margin": 2, "endgame_points": 150,
             "endgame_safe": 0.0, "endgame_push": 1.0},
            "bids about half a trick over its estimate, goes blind sooner, keeps taking tricks "
            "to set the opponents, pushes when an opponent nears the target",
        ),
        StrategyPreset(
            "nil-happy", "heuristic",
            {**HEURISTIC_V1, "nil_threshold": 2.5, "nil_max_spades": 4, "nil_max_high": 2,
             "blind_nil_deficit": 100},
            "bids nil with any weak hand (estimate up to 2.5 tricks, up to four trumps) and "
            "blind nil when 100 behind",
        ),
        StrategyPreset(
            "bag-averse", "heuristic",
            {**HEURISTIC_V1, "aggression": 0.4, "bag_guard": 4, "bag_guard_boost": 1.0,
             "avoid_bags": 1, "set_margin": -1},
            "bids up to leave few overtricks (a trick more near the bag limit) and ducks once "
            "its contract is made",
        ),
    )
}

# Tuned presets: ``tuned-PRESET``, the heuristic tuned by ``spades-sim tune`` for each rules
# preset (data/tuned.json holds each one's parameters, the command that made it and its
# held-out result against the default heuristic).
TUNED_PATH = Path(__file__).resolve().parent / "data" / "tuned.json"


def _tuned_presets() -> dict[str, StrategyPreset]:
    if not TUNED_PATH.exists():
        return {}
    tuned = {}
    for name, entry in json.loads(TUNED_PATH.read_text()).items():
        held = entry.get("holdout", {})
        result = (f"; held out against heuristic: {held['mean']:+.1f} points a board "
                  f"[{held['low']:+.1f}, {held['high']:+.1f}], {held['boards']} boards"
                  if held else "")
        tuned[name] = StrategyPreset(
            name, entry["kind"], dict(entry["params"]),
            f"the heuristic tuned for {entry['rules']} rules by CMA-ES (docs/tuning.md){result}",
        )
    return tuned


PRESETS.update(_tuned_presets())


@dataclass(frozen=True)
class Strategy:
    """One strategy: a kind (or a preset of one) and a full set of named parameter values."""

    name: str
    params: dict = field(default_factory=dict)

    @property
    def kind(self) -> StrategyKind:
        if self.name in PRESETS:
            return KINDS[PRESETS[self.name].kind]
        return KINDS[self.name]

    def defaults(self) -> dict:
        """The parameter values of the bare name (the kind's defaults, or the preset's)."""
        values = {p.name: float(p.default) for p in self.kind.params}
        if self.name in PRESETS:
            values.update({k: float(v) for k, v in PRESETS[self.name].params.items()})
        return values

    def vector(self) -> np.ndarray:
        """The float64[N_PARAMS] parameter vector the kernels read."""
        vector = np.zeros(N_PARAMS, dtype=np.float64)
        for slot, param in enumerate(self.kind.params):
            vector[slot] = self.params[param.name]
        return vector

    def spec(self) -> str:
        """Canonical text: the name, then the parameters that differ from its defaults."""
        defaults = self.defaults()
        changed = [
            f"{p.name}={format_number(self.params[p.name])}"
            for p in self.kind.params
            if self.params[p.name] != defaults[p.name]
        ]
        return self.name + (":" + ",".join(changed) if changed else "")

    def __str__(self) -> str:
        return self.spec()


def format_number(value: float) -> str:
    """A parameter value as text: ``3`` for an integer value, else its repr (``0.35``)."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _checked_value(kind: StrategyKind, name: str, key: str, value) -> float:
    """A parameter's value as a float, checked against its kind's range (StrategyError)."""
    param = kind.param(key)
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise StrategyError(f"strategy {name}: parameter {key}={value!r} is not a number")
    unbounded = np.isinf(param.low) and np.isinf(param.high)
    if np.isnan(number):
        wanted = ("a finite number" if unbounded else
                  f"a value in {format_number(param.low)}..{format_number(param.high)}")
        raise StrategyError(f"strategy {name}: parameter {key}={value} is NaN (not a number); "
                            f"give {wanted}")
    if np.isinf(number) and unbounded:
        raise StrategyError(f"strategy {name}: parameter {key}={value} is infinite; give a "
                            f"finite number")
    if not np.isfinite(number) or not param.low <= number <= param.high:
        raise StrategyError(
            f"strategy {name}: parameter {key}={value} is out of range "
            f"{format_number(param.low)}..{format_number(param.high)}"
        )
    if param.integer and not number.is_integer():
        raise StrategyError(f"strategy {name}: parameter {key}={value} is not an integer")
    return number


def make_strategy(name: str, **params) -> Strategy:
    """A strategy by kind or preset name with parameter overrides, validated."""
    if name not in KINDS and name not in PRESETS:
        raise StrategyError(f"unknown strategy {name!r}; allowed: "
                            f"{', '.join([*KINDS, *PRESETS, *SHIPPED])}")
    values = Strategy(name).defaults()
    kind = Strategy(name).kind
    for key, value in params.items():
        values[key] = _checked_value(kind, name, key, value)
    if kind.name == "random" and values["bid_min"] > values["bid_max"]:
        raise StrategyError("strategy random: bid_min is above bid_max")
    return Strategy(name, values)


PLUGIN_KIND = StrategyKind(
    "plugin", -1,
    "a strategy of your own: SOURCE:CLASS[:param=value,...], SOURCE a Python file (path.py) "
    "or an importable module (package.module); docs/strategies.md",
    (),
)


@dataclass(frozen=True)
class PluginStrategy:
    """A user's strategy, named by where its class lives: ``source`` a file path ending in
    ``.py`` or a dotted module name, ``class_name`` the class, ``args`` its constructor
    arguments (``(name, value)`` pairs, values as Python literals or strings).

    This is only the name; ``game/plugins.py`` imports and checks the class.
    """

    source: str
    class_name: str
    args: tuple = ()

    kind = PLUGIN_KIND

    @property
    def name(self) -> str:
        return f"{self.source}:{self.class_name}"

    @property
    def params(self) -> dict:
        return dict(self.args)

    def spec(self) -> str:
        """Canonical text: ``SOURCE:CLASS`` then ``:name=value,...`` in the order given."""
        args = ",".join(f"{key}={_literal_text(value)}" for key, value in self.args)
        return self.name + (":" + args if args else "")

    def __str__(self) -> str:
        return self.spec()


@dataclass(frozen=True)
class ShippedStrategy(PluginStrategy):
    """A strategy that ships with the package as a Python plug-in but is named like a built-in
    (``pimc:samples=20``): ``alias`` is that name, ``args`` every parameter's value (checked
    against the kind's ranges). It plays through the game-state API like any Python plug-in."""

    alias: str = ""

    @property
    def kind(self) -> StrategyKind:  # (PluginStrategy's is PLUGIN_KIND)
        return SHIPPED[self.alias].kind

    @property
    def name(self) -> str:
        return self.alias

    def spec(self) -> str:
        """Canonical text: the name, then the parameters that differ from their defaults."""
        changed = [f"{p.name}={format_number(self.params[p.name])}" for p in self.kind.params
                   if self.params[p.name] != p.default]
        return self.alias + (":" + ",".join(changed) if changed else "")


@dataclass(frozen=True)
class Shipped:
    """A shipped plug-in: its kind (name, doc, parameters) and where its class lives."""

    kind: StrategyKind
    source: str
    class_name: str

    def strategy(self, **params) -> ShippedStrategy:
        """The strategy with ``params`` over the defaults, checked (StrategyError)."""
        name = self.kind.name
        values = {p.name: float(p.default) for p in self.kind.params}
        for key, value in params.items():
            values[key] = _checked_value(self.kind, name, key, value)
        args = tuple((p.name, int(values[p.name]) if p.integer else values[p.name])
                     for p in self.kind.params)
        return ShippedStrategy(self.source, self.class_name, args, alias=name)


SHIPPED: dict[str, Shipped] = {
    "pimc": Shipped(
        StrategyKind(
            "pimc",
            PLUGIN_KIND.kind,
            "perfect-information sampling (the method of the strongest bridge programs): for "
            "each card, deals the unseen cards anew consistently with what the seat has seen "
            "(its cards, the cards played, voids shown, hand counts, cards it passed), solves "
            "each deal double dummy for every legal card, and plays the card with the best "
            "total: live nils first (kept double-dummy safe, else not taking the trick; covered "
            "by the partner; set by the opponents), then the hand's score of the side's "
            "double-dummy tricks minus the others', or the tricks alone; ties go to the "
            "heuristic's card, then the lowest. Slow (a Python plug-in calling the solver; "
            "docs/strategies.md); bids and every other choice are the heuristic's",
            (
                Param("samples", 20, "deals sampled per card decision (the search budget)", 1,
                      10000, True),
                Param("score", 1,
                      "value a card by the hand's score of its double-dummy tricks (1), or by "
                      "the tricks alone (0)", 0, 1, True),
            ),
        ),
        "spades_sim.game.pimc",
        "Pimc",
    ),
}


def is_plugin_name(name: str) -> bool:
    """Whether a strategy name names a plug-in's source (a ``.py`` file or a dotted module)
    rather than a built-in kind or preset (which never hold ``.`` or ``/``)."""
    return name.endswith(".py") or "/" in name or "\\" in name or "." in name


def _literal_text(value) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return format_number(value)
    return str(value)


def _literal(text: str):
    """A plug-in argument's value: an int, a float, true/false, else the text itself."""
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return text


def parse_plugin(text: str) -> PluginStrategy:
    """Parse ``SOURCE:CLASS[:param=value,...]``.

    >>> parse_plugin("my_bots/low.py:Lowest:target=3").spec()
    'my_bots/low.py:Lowest:target=3'
    """
    source, _, rest = text.strip().partition(":")
    class_name, _, rest = rest.partition(":")
    class_name = class_name.strip()
    if not class_name.isidentifier():
        raise StrategyError(f"strategy {text!r}: expected SOURCE:CLASS[:param=value,...] with "
                            f"CLASS a class name, got {class_name!r}")
    args = []
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise StrategyError(f"strategy {source}:{class_name}: {item!r} is not param=value")
        if key in dict(args):
            raise StrategyError(f"strategy {source}:{class_name}: {key} is given twice")
        args.append((key, _literal(value.strip())))
    return PluginStrategy(source.strip(), class_name, tuple(args))


def parse_strategy(text) -> Strategy | PluginStrategy:
    """Parse ``NAME[:param=value,...]``, or a plug-in's ``SOURCE:CLASS[:param=value,...]``.

    >>> parse_strategy("heuristic:aggression=0.3").params["aggression"]
    0.3
    >>> parse_strategy("random").spec()
    'random'
    >>> parse_strategy("mypackage.bots:Greedy").class_name
    'Greedy'
    >>> parse_strategy("pimc:samples=8").spec()
    'pimc:samples=8'
    """
    if isinstance(text, (Strategy, PluginStrategy)):
        return text
    if not isinstance(text, str) or not text.strip():
        raise StrategyError(f"strategy {text!r}: expected NAME[:param=value,...]")
    name, _, rest = text.strip().partition(":")
    if is_plugin_name(name.strip()):
        return parse_plugin(text)
    params = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, sep, value = item.partition("=")
        if not sep:
            raise StrategyError(f"strategy {name}: {item!r} is not param=value")
        if key.strip() in params:
            raise StrategyError(f"strategy {name}: parameter {key.strip()} is given twice "
                                f"({params[key.strip()]} and {value.strip()}); give it once")
        params[key.strip()] = value.strip()
    if name.strip() in SHIPPED:
        return SHIPPED[name.strip()].strategy(**params)
    return make_strategy(name.strip(), **params)


def seat_strategies(specs, players: int) -> list[Strategy | PluginStrategy]:
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
    kinds = np.zeros(MAX_SEATS, dtype=np.int64)
    params = np.zeros((MAX_SEATS, N_PARAMS), dtype=np.float64)
    for seat, strategy in enumerate(strategies):
        if isinstance(strategy, PluginStrategy):  # numba plug-ins: the heuristic's defaults
            strategy = Strategy("heuristic", Strategy("heuristic").defaults())
        if strategy.kind.name == "random" and strategy.params["bid_max"] > rules.hand_size:
            raise StrategyError(
                f"strategy random: bid_max={format_number(strategy.params['bid_max'])} is above "
                f"the hand size {rules.hand_size}"
            )
        kinds[seat] = strategy.kind.kind
        params[seat] = strategy.vector()
    return kinds, params
