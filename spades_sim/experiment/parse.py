"""Experiment files: one question per TOML file in ``experiments/``, run and reported by
``spades-sim run FILE``.

An experiment names its configurations (``[[config]]`` tables, and ``[[grid]]`` tables that
expand to one configuration per combination of parameter values), the sizes of its runs (a
hands run, a games run, or both; every configuration plays the same deals) and the analyses its
report shows. The README ("Experiments and reports") documents the schema; this module parses
and validates it, with one-line errors that name the file, the line and the key::

    experiments/x.toml:12: config "fast": unknown key "stratgy"; allowed: name, rules, ...

(``tomllib`` reports no line numbers for keys: :class:`_Lines` finds a key's line by scanning
the text of the table it belongs to.)
"""

from __future__ import annotations

import itertools
import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from ..core.errors import ExperimentError, RulesError, RunError, StrategyError
from ..core.rules import FIELD_NAMES, Rules, build_rules
from ..core.strategies import KINDS, parse_strategy
from ..run import make_config
from .model import (
    ANALYSES,
    CONFIG_KEYS,
    DEFAULT_CHUNK,
    GRID_KEYS,
    MODES,
    TOP_KEYS,
    TOURNAMENT_KEYS,
    ConfigSource,
    Experiment,
    TournamentSpec,
)

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.=,+-]*$")
_DIR_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


# -- finding a key's line ---------------------------------------------------------------------
_HEADER = re.compile(r"^\s*\[\[?\s*([A-Za-z0-9_.\"' -]+?)\s*\]\]?\s*(#.*)?$")


class _Lines:
    """Line numbers of keys, found by scanning the text (tomllib gives none).

    The file is cut into segments at table headers; ``[[config]]`` number ``i`` (and any
    ``[config.sub]`` header after it) is the segment ``("config", i)``; the top level is
    ``(None, 0)``. A key's line is the first line of its segment matching ``^\\s*key\\s*=``
    (or, for keys of inline tables such as ``rule = { target = 300 }``, containing ``key =``).
    """

    def __init__(self, text: str):
        self.lines = text.splitlines()
        self.segments: dict[tuple, tuple[int, int]] = {}
        counts: dict[str, int] = {}
        current, start = (None, 0), 0
        for number, line in enumerate(self.lines):
            match = _HEADER.match(line)
            if not match or line.lstrip().startswith("#"):
                continue
            table = match.group(1).strip().strip("\"'")
            top = table.split(".")[0]
            if line.lstrip().startswith("[[") and "." not in table:
                self.segments.setdefault(current, (start, number))
                current = (top, counts.get(top, 0))
                counts[top] = counts.get(top, 0) + 1
                start = number
            elif current[0] is None or top != current[0]:
                self.segments.setdefault(current, (start, number))
                current, start = (top, -1), number
        self.segments.setdefault(current, (start, len(self.lines)))

    def of_table(self, table: str | None = None, index: int = 0) -> int:
        """The 1-based line of a table's header (1 for the top level)."""
        start, _ = self.segments.get((table, index), (0, 0))
        return start + 1

    def of_key(self, key: str, table: str | None = None, index: int = 0,
               inline: bool = False) -> int:
        """The 1-based line of ``key`` in a table (its header line when not found)."""
        start, end = self.segments.get((table, index), (0, len(self.lines)))
        quoted = rf"(?:{re.escape(key)}|\"{re.escape(key)}\"|'{re.escape(key)}')"
        exact = re.compile(rf"^\s*{quoted}\s*=")
        anywhere = re.compile(rf"(?:^|[{{,\s]){quoted}\s*=")
        for pattern in (exact, anywhere) if inline else (exact,):
            for number in range(start, end):
                if pattern.search(self.lines[number]):
                    return number + 1
        return start + 1


# -- parsing --------------------------------------------------------------------------------------
class _Parser:
    def __init__(self, path: str, text: str):
        self.path, self.text = path, text
        self.lines = _Lines(text)

    def fail(self, line: int, message: str):
        raise ExperimentError(f"{self.path}:{line}: {message}")

    def key_line(self, key, table=None, index=0, inline=False) -> int:
        return self.lines.of_key(key, table, index, inline)

    def check_keys(self, data: dict, allowed, table=None, index=0, label=""):
        for key in data:
            if key not in allowed:
                self.fail(self.key_line(key, table, index),
                          f"{label}unknown key \"{key}\"; allowed: {', '.join(allowed)}")

    # top-level values
    def get(self, data, key, kind, default=None, required=False, table=None, index=0,
            label=""):
        """A value of the top level (or of ``table``), checked against ``kind``."""
        if key not in data:
            if required:
                self.fail(1, f"missing key \"{key}\"")
            return default
        value = data[key]
        line = self.key_line(key, table, index)
        if kind == "str":
            if not isinstance(value, str) or not value.strip():
                self.fail(line, f"{label}{key}: expected a non-empty string, got {value!r}")
            return value.strip()
        if kind in ("int", "count"):
            low = 0 if kind == "int" else 1
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                self.fail(line, f"{label}{key}: expected an integer >= {low}, got {value!r}")
            return value
        if kind == "bool":
            if not isinstance(value, bool):
                self.fail(line, f"{label}{key}: expected true or false, got {value!r}")
            return value
        raise AssertionError(kind)

    def parse(self) -> Experiment:
        try:
            data = tomllib.loads(self.text)
        except tomllib.TOMLDecodeError as error:
            message = str(error)
            match = re.search(r"\(at line (\d+), column (\d+)\)", message)
            line = int(match.group(1)) if match else 1
            if match:
                message = message[:match.start()].rstrip() + f" (column {match.group(2)})"
            self.fail(line, f"TOML syntax error: {message}")
        self.check_keys(data, TOP_KEYS)
        name = self.get(data, "name", "str", required=True)
        if not _DIR_NAME.match(name):
            self.fail(self.key_line("name"), f"name: {name!r} is not a folder name (letters, "
                                             f"digits, _ . -)")
        seed = self.get(data, "seed", "int", required=True)
        hands = self.get(data, "hands", "count")
        games = self.get(data, "games", "count")
        tournament = self.parse_tournament(data)
        if hands is None and games is None and tournament is None:
            self.fail(1, "give hands, games or both (the sizes of the runs), or a [tournament]")
        chunk_size = self.get(data, "chunk_size", "count", DEFAULT_CHUNK["hands"])
        games_chunk = self.get(data, "games_chunk_size", "count", DEFAULT_CHUNK["games"])
        duplicate = self.get(data, "duplicate", "bool", False)
        analyses = self.parse_analyses(data, hands, games, tournament)
        if hands is None and games is None and not data.get("config") and not data.get("grid"):
            configs, sources = [], []  # a tournament alone
        else:
            configs, sources = self.parse_configs(data)
        if duplicate:
            for config in configs:
                if config.rules.players != 4 or not config.rules.partnership:
                    self.fail(self.key_line("duplicate"),
                              f"duplicate: config \"{config.name}\" is not four players in "
                              f"partnerships; duplicate mode needs every config to be")
        names = [c.name for c in configs]
        baseline = self.get(data, "baseline", "str")
        if baseline is not None and baseline not in names:
            self.fail(self.key_line("baseline"),
                      f"baseline: \"{baseline}\" is not a config; configs: {', '.join(names)}")
        if "variant_effects" in analyses:
            if hands is None:
                self.fail(self.key_line("analyses"),
                          "analyses: variant_effects compares hands: give hands")
            if baseline is None:
                baseline = names[0]
        return Experiment(
            name=name, title=self.get(data, "title", "str", name),
            question=self.get(data, "question", "str", ""),
            notes=self.get(data, "notes", "str", ""), seed=seed, hands=hands, games=games,
            chunk_size=chunk_size, games_chunk_size=games_chunk, duplicate=duplicate,
            analyses=analyses, baseline=baseline, configs=tuple(configs),
            sources=tuple(sources), tournament=tournament, path=self.path, text=self.text)

    def parse_analyses(self, data, hands, games, tournament) -> tuple[str, ...]:
        if "analyses" not in data:
            default = ["bid_accuracy", "nil"] if hands or games else []
            default += (["games"] if games else []) + (["strategies"] if tournament else [])
            return tuple(default)
        value, line = data["analyses"], self.key_line("analyses")
        if not isinstance(value, list) or not value or \
                not all(isinstance(v, str) for v in value):
            self.fail(line, f"analyses: expected a list of names, got {value!r}")
        for item in value:
            if item not in ANALYSES:
                self.fail(line, f"analyses: unknown analysis \"{item}\"; allowed: "
                                f"{', '.join(ANALYSES)}")
        if len(set(value)) != len(value):
            self.fail(line, "analyses: a name repeats")
        if "games" in value and games is None:
            self.fail(line, "analyses: games needs whole games: give games")
        if hands is None and games is None:
            for item in value:
                if item != "strategies":
                    self.fail(line, f"analyses: {item} needs hands or games (a [tournament] "
                                    f"alone shows in strategies)")
        if tournament is not None and "strategies" not in value:
            self.fail(line, "analyses: the [tournament] is shown in the strategies section: "
                            "add \"strategies\"")
        return tuple(value)

    def parse_tournament(self, data) -> TournamentSpec | None:
        """The optional ``[tournament]`` table."""
        if "tournament" not in data:
            return None
        table, where = data["tournament"], ("tournament", -1)
        if not isinstance(table, dict):
            self.fail(self.key_line("tournament"),
                      "tournament: write it as a [tournament] table")
        label = "tournament: "
        self.check_keys(table, TOURNAMENT_KEYS, *where, label)
        header = self.lines.of_table(*where)
        specs, line = table.get("strategies"), self.key_line("strategies", *where)
        if not isinstance(specs, list) or len(specs) < 2 or \
                not all(isinstance(spec, str) for spec in specs):
            self.fail(line if "strategies" in table else header,
                      f"{label}strategies: expected a list of at least two strategy specs, "
                      f"got {specs!r}")
        strategies = []
        for spec in specs:
            try:
                strategies.append(parse_strategy(spec))
            except StrategyError as error:
                self.fail(line, f"{label}{error}")
        names = [str(strategy) for strategy in strategies]
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            self.fail(line, f"{label}strategies: {', '.join(repeated)} repeats")
        preset = self.get(table, "rules", "str", "classic", table=where[0], index=where[1],
                          label=label)
        overrides = table.get("rule", {})
        if not isinstance(overrides, dict):
            self.fail(self.key_line("rule", *where),
                      f"{label}rule: expected a table such as {{ target = 300 }}")
        rules = self.rules(preset, dict(overrides), label, *where)
        if rules.players != 4 or not rules.partnership:
            self.fail(self.key_line("rules", *where),
                      f"{label}rules {preset}: a tournament needs four players in two "
                      f"partnerships")
        sizes = {unit: self.get(table, unit, "count", table=where[0], index=where[1],
                                label=label) for unit in MODES}
        given = [unit for unit in MODES if sizes[unit] is not None]
        if len(given) != 1:
            self.fail(self.key_line("hands", *where) if len(given) == 2 else header,
                      f"{label}give games or hands (boards per pair)"
                      + (", not both" if given else ""))
        unit = given[0]
        chunk = self.get(table, "chunk_size", "count", DEFAULT_CHUNK[unit], table=where[0],
                         index=where[1], label=label)
        return TournamentSpec(tuple(strategies), rules, unit, sizes[unit], chunk)

    def parse_configs(self, data):
        for key in ("config", "grid"):
            value = data.get(key, [])
            if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
                self.fail(self.key_line(key), f"{key}: write it as [[{key}]] tables")
        if not data.get("config") and not data.get("grid"):
            self.fail(1, "no configurations: add [[config]] or [[grid]] tables")
        # Configurations in the order their tables appear in the file.
        tables = [(self.lines.of_table(key, index), key, index, table)
                  for key in ("config", "grid") for index, table in enumerate(data.get(key, []))]
        configs, sources, seen = [], [], {}
        for _, key, index, table in sorted(tables, key=lambda item: item[0]):
            if key == "config":
                made = [self.one_config(table, index)]
            else:
                made = self.grid(table, index)
            for config, source, line in made:
                if config.name in seen:
                    self.fail(line, f"config name \"{config.name}\" repeats (first on line "
                                    f"{seen[config.name]})")
                seen[config.name] = line
                configs.append(config)
                sources.append(source)
        return configs, sources

    def one_config(self, table: dict, index: int, origin="config", values=None,
                   label=None):
        """One configuration from a ``[[config]]`` table, or from a ``[[grid]]`` table with one
        combination of ``values``; returns ``(Config, ConfigSource, line)``."""
        allowed = CONFIG_KEYS if origin == "config" else GRID_KEYS
        self.check_keys(table, allowed, origin, index,
                        label or f"{origin} {self.table_label(table, origin, index)}: ")
        line = self.key_line("name", origin, index)
        name = table.get("name")
        if not isinstance(name, str) or not name.strip():
            self.fail(line if "name" in table else self.lines.of_table(origin, index),
                      f"{origin}: missing or empty name")
        values = values or {}
        if origin == "grid":
            try:
                name = name.format(**{k: _text(v) for k, v in values.items()})
            except (KeyError, IndexError, ValueError) as error:
                self.fail(line, f"grid \"{name}\": the name's placeholder {error} is not a "
                                f"parameter of params")
        name = name.strip()
        if not _NAME.match(name):
            self.fail(line, f"config name {name!r}: use letters, digits and _ . = , + -")
        where = f"{origin} \"{name}\": "
        preset = table.get("rules", "classic")
        if not isinstance(preset, str):
            self.fail(self.key_line("rules", origin, index),
                      f"{where}rules: expected a preset name, got {preset!r}")
        overrides = table.get("rule", {})
        if not isinstance(overrides, dict):
            self.fail(self.key_line("rule", origin, index),
                      f"{where}rule: expected a table such as {{ target = 300 }}")
        overrides = dict(overrides)
        rule_params = {k: v for k, v in values.items() if k in FIELD_NAMES}
        rules = self.rules(preset, {**overrides, **rule_params}, where, origin, index)
        specs = self.strategies(table, rules, values, where, origin, index)
        try:
            config = make_config(name, rules, specs)
        except (RunError, StrategyError) as error:
            self.fail(self.key_line("strategy", origin, index), f"{where}{error}")
        source = ConfigSource(name, preset, rules.overrides(),
                              tuple(s.spec() for s in config.strategies), origin)
        return config, source, line

    def rules(self, preset, overrides, where, origin, index) -> Rules:
        texts = [(key, f"{key}={rule_text(value)}", value) for key, value in overrides.items()]
        for key, _, value in texts:
            if key not in FIELD_NAMES:
                self.fail(self.key_line(key, origin, index, inline=True),
                          f"{where}unknown rule field \"{key}\"; allowed: "
                          f"{', '.join(FIELD_NAMES)}")
            if isinstance(value, (list, dict, float)) and not isinstance(value, bool):
                self.fail(self.key_line(key, origin, index, inline=True),
                          f"{where}rule {key}: {value!r} is not a rule value")
        try:
            return build_rules(preset, [text for _, text, _ in texts])
        except RulesError as error:
            message = str(error)
            line = self.key_line("rules", origin, index)
            for key, _, _ in texts:
                if f"rule {key}:" in message or f"{key!r}" in message:
                    line = self.key_line(key, origin, index, inline=True)
                    break
            self.fail(line, f"{where}{message}")

    def strategies(self, table, rules, values, where, origin, index) -> list[str]:
        if "strategy" in table and "strategies" in table:
            self.fail(self.key_line("strategies", origin, index),
                      f"{where}give strategy or strategies, not both")
        line = self.key_line("strategies" if "strategies" in table else "strategy",
                             origin, index)
        if "strategies" in table:
            sides = table["strategies"]
            if not isinstance(sides, dict):
                self.fail(line, f"{where}strategies: expected a table such as "
                                f"{{ side0 = \"heuristic\", side1 = \"random\" }}")
            wanted = [f"side{s}" for s in range(rules.n_sides)]
            for key in sides:
                if key not in wanted:
                    self.fail(line, f"{where}strategies: unknown side \"{key}\"; allowed: "
                                    f"{', '.join(wanted)}")
            missing = [key for key in wanted if key not in sides]
            if missing:
                self.fail(line, f"{where}strategies: missing {', '.join(missing)}")
            specs = [sides[f"side{rules.side_of(seat)}"] for seat in range(rules.players)]
        else:
            specs = table.get("strategy", "heuristic")
            specs = [specs] if isinstance(specs, str) else specs
        if not isinstance(specs, list) or not specs or \
                not all(isinstance(s, str) for s in specs):
            self.fail(line, f"{where}strategy: expected a spec string or a list of them")
        strategy_values = {k: v for k, v in values.items() if k not in FIELD_NAMES}
        placed = set()
        texts = []
        for spec in specs:
            for key, value in strategy_values.items():
                if "{" + key + "}" in spec:
                    spec = spec.replace("{" + key + "}", _text(value))
                    placed.add(key)
            texts.append(spec)
        for key, value in strategy_values.items():
            if key in placed:
                continue
            # A grid parameter not written into a spec goes to every seat whose strategy kind
            # has it.
            takers = 0
            for number, spec in enumerate(texts):
                kind = spec.split(":", 1)[0].strip()
                if kind in KINDS and any(p.name == key for p in KINDS[kind].params):
                    texts[number] = spec + ("," if ":" in spec else ":") + f"{key}={_text(value)}"
                    takers += 1
            if not takers:
                self.fail(self.key_line("params", origin, index),
                          f"{where}params: \"{key}\" is neither a rule field nor a parameter of "
                          f"the strategies {', '.join(sorted(set(texts)))}")
        for spec in texts:
            try:
                parse_strategy(spec)
            except StrategyError as error:
                self.fail(line, f"{where}{error}")
        return texts

    def grid(self, table: dict, index: int):
        label = self.table_label(table, "grid", index)
        self.check_keys(table, GRID_KEYS, "grid", index, f"grid {label}: ")
        params = table.get("params")
        line = self.key_line("params", "grid", index)
        if not isinstance(params, dict) or not params:
            self.fail(line if "params" in table else self.lines.of_table("grid", index),
                      f"grid {label}: params: expected a table of lists, such as "
                      f"{{ aggression = [-1, 0, 1] }}")
        for key, value in params.items():
            if not isinstance(value, list) or not value:
                self.fail(self.key_line(key, "grid", index, inline=True),
                          f"grid {label}: params {key}: expected a non-empty list of values")
        keys = list(params)
        made = [self.one_config(table, index, "grid", dict(zip(keys, combo)), f"grid {label}: ")
                for combo in itertools.product(*(params[k] for k in keys))]
        if len({config.name for config, _, _ in made}) < len(made):
            example = "-".join("{" + key + "}" for key in keys)
            self.fail(self.key_line("name", "grid", index),
                      f"grid {label}: every combination needs its own name: write the "
                      f"parameters into it, such as \"{table.get('name')}-{example}\"")
        return made

    @staticmethod
    def table_label(table, origin, index) -> str:
        name = table.get("name")
        return f"\"{name}\"" if isinstance(name, str) else f"#{index + 1}"


def rule_text(value) -> str:
    """A rule value as ``--rule FIELD=VALUE`` text (``true``, ``null``, ``300``)."""
    if value is None:
        return "null"
    return str(value).lower() if isinstance(value, bool) else str(value)


def _text(value) -> str:
    """A grid value as it appears in names and specs (``true``, ``300``, ``0.5``)."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def parse_experiment(text: str, path: str = "<experiment>") -> Experiment:
    """Parse and validate the text of an experiment file (errors: :class:`ExperimentError`).

    >>> exp = parse_experiment('''
    ... name = "demo"
    ... seed = 1
    ... hands = 100
    ... [[grid]]
    ... name = "aggr={aggression}"
    ... params = { aggression = [-1, 1] }
    ... ''')
    >>> [c.name for c in exp.configs], exp.configs[0].strategies[0].spec()
    (['aggr=-1', 'aggr=1'], 'heuristic:aggression=-1')
    """
    return _Parser(path, text).parse()


def load_experiment(path) -> Experiment:
    """Read and parse an experiment file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise ExperimentError(f"{path}:1: not UTF-8 text ({error.reason})")
    return parse_experiment(text, str(path))
