"""What a run plays: configurations (rules and one strategy per seat), the seed, the number of
hands or whole games, the chunk size, duplicate mode; and the shards of its chunks.

A run is split into fixed-size chunks: chunk ``c`` holds hands (or games) ``c * chunk_size ...``,
and every hand is seeded by the run's seed and its own id (``core/seeding.py``), so a chunk's
results do not depend on the other chunks, the number of workers, the backend or the shard.
Every configuration is played from the same stream keys: the configurations see the same deals
wherever their rules deal alike (common random numbers), so their differences are paired.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..core.errors import RunError, SpadesError
from ..core.rules import Rules, build_rules, rules_from_spec
from ..core.seeding import check_seed
from ..core.strategies import Strategy, parse_strategy
from ..core.version import engine_hash

FORMAT_VERSION = 1


@dataclass(frozen=True)
class Config:
    """One configuration of a run: a name, the rules and one strategy per seat."""

    name: str
    rules: Rules
    strategies: tuple[Strategy, ...]

    def to_dict(self) -> dict:
        return {"name": self.name, "rules": self.rules.to_spec(),
                "strategies": [s.spec() for s in self.strategies]}

    @classmethod
    def from_dict(cls, data: dict) -> Config:
        rules = rules_from_spec(data["rules"])
        return cls(data["name"], rules, tuple(parse_strategy(s) for s in data["strategies"]))


def make_config(name: str, rules: Rules, strategies) -> Config:
    """A configuration, with one strategy for every seat or one per seat."""
    strategies = [parse_strategy(s) for s in strategies]
    if len(strategies) == 1:
        strategies = strategies * rules.players
    if len(strategies) != rules.players:
        raise RunError(f"configuration {name}: {len(strategies)} strategies for "
                       f"{rules.players} players")
    return Config(name, rules, tuple(strategies))


def parse_config(text: str) -> Config:
    """A configuration from ``NAME=rules=PRESET;rule=FIELD=VALUE;strategy=SPEC;...``.

    ``rules`` defaults to classic and ``strategy`` to heuristic; ``rule`` and ``strategy`` may
    repeat (one strategy for every seat, or one per seat).

    >>> config = parse_config("bold=rules=simple;rule=target=300;strategy=heuristic:aggression=1")
    >>> config.name, config.rules.target, str(config.strategies[0])
    ('bold', 300, 'heuristic:aggression=1')
    """
    name, sep, rest = text.partition("=")
    if not sep or not name.strip():
        raise RunError(f"configuration {text!r}: expected NAME=rules=PRESET;strategy=SPEC;...")
    preset_name, overrides, strategies = "classic", [], []
    for item in filter(None, (part.strip() for part in rest.split(";"))):
        key, sep, value = item.partition("=")
        if not sep or key not in ("rules", "rule", "strategy"):
            raise RunError(f"configuration {name}: {item!r} is not rules=PRESET, "
                           f"rule=FIELD=VALUE or strategy=SPEC")
        if key == "rules":
            preset_name = value
        elif key == "rule":
            overrides.append(value)
        else:
            strategies.append(value)
    rules = build_rules(preset_name, overrides)
    return make_config(name.strip(), rules, strategies or ["heuristic"])


@dataclass(frozen=True)
class RunSpec:
    """What a run plays. Exactly one of ``n_hands`` and ``n_games`` is set."""

    configs: tuple[Config, ...]
    seed: int
    n_hands: int | None = None
    n_games: int | None = None
    chunk_size: int = 100_000
    duplicate: bool = False
    extra: dict = field(default_factory=dict, compare=False)

    def __post_init__(self):
        if not self.configs:
            raise RunError("a run needs at least one configuration")
        names = [c.name for c in self.configs]
        if len(set(names)) != len(names):
            raise RunError(f"configuration names repeat: {', '.join(names)}")
        if (self.n_hands is None) == (self.n_games is None):
            raise RunError("give either a number of hands or a number of games")
        if self.units < 1:
            raise RunError(f"{self.unit_name}: {self.units} is not at least 1")
        if self.chunk_size < 1:
            raise RunError(f"chunk size: {self.chunk_size} is not at least 1")
        if self.duplicate and any(c.rules.players != 4 or not c.rules.partnership
                                  for c in self.configs):
            raise RunError("duplicate mode needs four players in partnerships")
        try:
            check_seed(self.seed)
        except SpadesError as error:
            raise RunError(str(error))

    @property
    def games_mode(self) -> bool:
        return self.n_games is not None

    @property
    def units(self) -> int:
        return self.n_games if self.games_mode else self.n_hands

    @property
    def unit_name(self) -> str:
        return "games" if self.games_mode else "hands"

    @property
    def n_chunks(self) -> int:
        return -(-self.units // self.chunk_size)

    def chunk_range(self, chunk: int) -> tuple[int, int]:
        """``(first unit, count)`` of a chunk."""
        first = chunk * self.chunk_size
        return first, min(self.chunk_size, self.units - first)

    def identity(self) -> dict:
        """Everything the results depend on (a directory holds one identity only)."""
        return {
            "format": FORMAT_VERSION,
            "seed": int(self.seed),
            "unit": self.unit_name,
            "units": int(self.units),
            "chunk_size": int(self.chunk_size),
            "duplicate": bool(self.duplicate),
            "configs": [c.to_dict() for c in self.configs],
            # Results also depend on the engine: resuming after an engine change is refused.
            "engine": engine_hash(),
        }

    @classmethod
    def from_identity(cls, data: dict) -> RunSpec:
        """The spec a run directory was made with (whatever engine made it)."""
        units = {"n_" + data["unit"]: data["units"]}
        return cls(tuple(Config.from_dict(c) for c in data["configs"]), data["seed"],
                   chunk_size=data["chunk_size"], duplicate=data["duplicate"], **units)


def shard_chunks(spec: RunSpec, shard: tuple[int, int] | None) -> list[int]:
    """The chunks of shard ``(i, n)`` (1-based ``i``): every ``n``-th chunk from ``i - 1``."""
    chunks = range(spec.n_chunks)
    if shard is None:
        return list(chunks)
    index, count = shard
    return [c for c in chunks if c % count == index - 1]


def parse_shard(text: str) -> tuple[int, int]:
    """Parse ``I/N``.

    >>> parse_shard("2/3")
    (2, 3)
    """
    try:
        index, count = (int(part) for part in text.split("/"))
    except ValueError:
        raise RunError(f"shard {text!r}: expected I/N, such as 1/4")
    if not 1 <= index <= count:
        raise RunError(f"shard {text!r}: I must be between 1 and N")
    return index, count
