"""What a run plays: configurations (rules and one strategy per seat), the seed, the number of
hands or whole games, the chunk size, duplicate mode; and the shards of its chunks.

A run is split into fixed-size chunks: chunk ``c`` holds hands (or games) ``c * chunk_size ...``,
and every hand is seeded by the run's seed and its own id (``core/seeding.py``), so a chunk's
results do not depend on the other chunks, the number of workers, the backend or the shard.
Every configuration is played from the same stream keys: the configurations see the same deals
wherever their rules deal alike (common random numbers), so their differences are paired.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

import numpy as np

from ..core.errors import RunError, SpadesError
from ..core.features import DEFAULT_MAX_TRIES, DealFilter
from ..core.limits import MAX_CHUNK_SIZE, MAX_CHUNKS, MAX_UNITS
from ..core.par import tidy_columns, tidy_types
from ..core.rules import Rules, build_rules, preset, rules_from_spec
from ..core.seeding import check_seed
from ..core.strategies import Strategy, parse_strategy
from ..core.version import engine_hash, solver_hash
from ..game.plugins import check_plugins, plugin_sources_hash

# 2: chunk files carry their provenance (run hash, index, rows, checksum) and meta.json lists
# the finished chunks; folders of format 1 are refused, not mixed.
# 3: the size (hands or games) is no longer part of the identity: meta.json records it apart
# ("size") and every chunk file records how many units it holds, so a run can grow (or be read
# at a smaller size) in the same folder.
# 4: chunk files hold one row per hand (``run/layout.py``), not one per hand and seat; the tidy
# frame is rebuilt from them when the run is read.
# 5: chunk files leave out the columns that follow from the run (``layout.FROM_RUN``: rules,
# strategies, chunk; duplicate in a run without duplicate copies).
FORMAT_VERSION = 5


def identity_hash(identity: dict) -> str:
    """The SHA-256 (hex) of a run identity's canonical JSON: keys sorted, no spaces, ASCII.

    >>> identity_hash({"b": 1, "a": [1, 2]}) == hashlib.sha256(b'{"a":[1,2],"b":1}').hexdigest()
    True
    """
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


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
        """The configuration a run identity names (``RunError`` or ``SpadesError`` when the
        data is not one)."""
        if not isinstance(data, dict):
            raise RunError(f"configuration {data!r}: expected an object with name, rules and "
                           f"strategies")
        missing = [key for key in ("name", "rules", "strategies") if key not in data]
        if missing:
            raise RunError(f"configuration {data.get('name', '?')!r}: no {missing[0]!r}")
        name, strategies = data["name"], data["strategies"]
        if not isinstance(name, str) or not name:
            raise RunError(f"configuration name {name!r}: expected a non-empty string")
        if not isinstance(strategies, list) or not all(isinstance(s, str) for s in strategies):
            raise RunError(f"configuration {name}: strategies {strategies!r}: expected a list "
                           f"of strategy specs")
        rules = rules_from_spec(data["rules"])
        if len(strategies) != rules.players:
            raise RunError(f"configuration {name}: {len(strategies)} strategies for "
                           f"{rules.players} players")
        return cls(name, rules, tuple(parse_strategy(s) for s in strategies))


def make_config(name: str, rules: Rules | str, strategies) -> Config:
    """A configuration, with one strategy for every seat or one per seat; ``rules`` a
    :class:`Rules` or a preset's name."""
    if isinstance(rules, str):
        rules = preset(rules)
    if isinstance(strategies, str):
        strategies = [strategies]
    strategies = [parse_strategy(s) for s in strategies]
    if len(strategies) == 1:
        strategies = strategies * rules.players
    if len(strategies) != rules.players:
        raise RunError(f"configuration {name}: {len(strategies)} strategies for "
                       f"{rules.players} players")
    check_plugins(strategies)  # a plug-in that does not load fails here, not in a worker
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
    par: bool = False
    cards: bool = False
    #: Only deals this filter accepts (``core.features.DealFilter``; ``None``: every deal).
    deal_filter: DealFilter | None = None
    extra: dict = field(default_factory=dict, compare=False)

    def __post_init__(self):
        # Every bound is checked here, before a folder is made or a byte written: a spec that
        # exists can be played, listed by ``status`` and scanned on resume.
        if isinstance(self.configs, list):
            object.__setattr__(self, "configs", tuple(self.configs))
        if not isinstance(self.configs, tuple) or not all(
                isinstance(c, Config) for c in self.configs):
            raise RunError("configs: expected a tuple of Config (make_config builds one)")
        if not self.configs:
            raise RunError("a run needs at least one configuration")
        names = [c.name for c in self.configs]
        if len(set(names)) != len(names):
            raise RunError(f"configuration names repeat: {', '.join(names)}")
        if (self.n_hands is None) == (self.n_games is None):
            raise RunError("give either a number of hands or a number of games")
        if not _is_int(self.units):
            raise RunError(f"{self.unit_name}: {self.units!r} is not an integer")
        if self.units < 1:
            raise RunError(f"{self.unit_name}: {self.units} is not at least 1")
        if self.units > MAX_UNITS:
            raise RunError(f"{self.unit_name}: {self.units:,} is more than {MAX_UNITS:,}")
        if not _is_int(self.chunk_size):
            raise RunError(f"chunk size: {self.chunk_size!r} is not an integer")
        if self.chunk_size < 1:
            raise RunError(f"chunk size: {self.chunk_size} is not at least 1")
        if self.chunk_size > MAX_CHUNK_SIZE:
            raise RunError(f"chunk size: {self.chunk_size:,} is more than {MAX_CHUNK_SIZE:,} "
                           f"(a chunk is held in memory whole)")
        if self.n_chunks > MAX_CHUNKS:
            raise RunError(f"{self.units:,} {self.unit_name} in chunks of {self.chunk_size:,} "
                           f"make {self.n_chunks:,} chunks, more than {MAX_CHUNKS:,}; use a "
                           f"larger chunk size")
        if not isinstance(self.duplicate, (bool, np.bool_)):
            raise RunError(f"duplicate: {self.duplicate!r} is not true or false")
        if not isinstance(self.par, (bool, np.bool_)):
            raise RunError(f"par: {self.par!r} is not true or false")
        if not isinstance(self.cards, (bool, np.bool_)):
            raise RunError(f"cards: {self.cards!r} is not true or false")
        if self.duplicate and any(c.rules.players != 4 or not c.rules.partnership
                                  for c in self.configs):
            raise RunError("duplicate mode needs four players in partnerships")
        try:
            check_seed(self.seed)
        except SpadesError as error:
            raise RunError(str(error))
        if self.deal_filter is not None:
            if not isinstance(self.deal_filter, DealFilter):
                raise RunError(f"deal_filter: {self.deal_filter!r} is not a DealFilter "
                               f"(core.features.as_deal_filter makes one)")
            for config in self.configs:
                self.deal_filter.check(config.rules)

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

    def size(self) -> dict:
        """The run's size, which is not part of its identity: ``{"units": N, "chunks": K}``.
        Chunk ``c`` holds the same units whatever the size (as long as the chunk size is the
        same), so a run grows by adding chunks, the last partial one replaced by a full one."""
        return {"units": int(self.units), "chunks": int(self.n_chunks)}

    def identity(self) -> dict:
        """Everything the results depend on (a directory holds one identity only), except the
        size (``size``: a folder holds a run at any size); ``par`` only when the run has the
        par columns (a run without keeps the identity it always had)."""
        identity = {
            "format": FORMAT_VERSION,
            "seed": int(self.seed),
            "unit": self.unit_name,
            "chunk_size": int(self.chunk_size),
            "duplicate": bool(self.duplicate),
            "configs": [c.to_dict() for c in self.configs],
            # Results also depend on the engine, and on the source of any plug-in: resuming
            # after a change to either is refused.
            "engine": engine_hash() + plugin_sources_hash(
                [s for c in self.configs for s in c.strategies]),
        }
        if self.par:
            # Par columns also depend on the solver's source (outside the engine hash).
            identity["engine"] += "+solver:" + solver_hash()
            identity["par"] = True
        if self.cards:  # likewise only when set
            identity["cards"] = True
        if self.deal_filter is not None:  # likewise (text filters only: a run on disk)
            identity["deal_filter"] = self.deal_filter.identity()
        return identity

    @property
    def columns(self) -> tuple:
        """The run's columns: ``core.schema.TIDY_COLUMNS``, the par columns with par and the
        cards column with cards."""
        return tidy_columns(self.par, self.cards)

    @property
    def column_types(self) -> dict:
        """The run's columns and their types (``core.par.tidy_types``)."""
        return tidy_types(self.par, self.cards)

    @property
    def stored_types(self) -> dict:
        """The columns of its chunk files and their types (``run/layout.py``: one row per
        hand, a column per seat and per side of its largest table)."""
        from .layout import shape, stored_types

        return stored_types(*shape(self.configs), par=self.par, games=self.games_mode,
                            duplicate=self.duplicate)

    def identity_hash(self) -> str:
        """``identity_hash(self.identity())``: the run hash every chunk file carries."""
        return identity_hash(self.identity())

    @classmethod
    def from_identity(cls, data: dict, units: int | None = None) -> RunSpec:
        """The spec a run directory was made with (whatever engine made it), at the size
        ``units`` (meta.json's ``size``; an identity of format 2 still holds its own); a
        ``SpadesError`` (never another exception) when ``data`` is not a run identity."""
        if not isinstance(data, dict):
            raise RunError(f"identity: expected an object, found {type(data).__name__}")
        if units is not None:
            data = {**data, "units": units}
        for key in ("unit", "units", "configs", "seed", "chunk_size", "duplicate"):
            if key not in data:
                raise RunError(f"identity: no {key!r}")
        if data["unit"] not in ("hands", "games"):
            raise RunError(f"identity: unknown unit {data['unit']!r}; expected hands or games")
        if not isinstance(data["configs"], list) or not data["configs"]:
            raise RunError("identity: configs must be a non-empty list")
        units = {"n_" + data["unit"]: data["units"]}
        deal_filter = data.get("deal_filter")
        if deal_filter is not None:
            if not isinstance(deal_filter, dict) or not isinstance(deal_filter.get("text"), str):
                raise RunError(f"identity: deal_filter {deal_filter!r}: expected an object "
                               f"with its text")
            deal_filter = DealFilter.parse(deal_filter["text"],
                                           deal_filter.get("max_tries", DEFAULT_MAX_TRIES))
        return cls(tuple(Config.from_dict(c) for c in data["configs"]), data["seed"],
                   chunk_size=data["chunk_size"], duplicate=data["duplicate"],
                   par=data.get("par", False), cards=data.get("cards", False),
                   deal_filter=deal_filter, **units)


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
