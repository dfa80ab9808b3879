"""Experiment files: one question per TOML file in ``experiments/``, run and reported by
``spades-sim run FILE``.

An experiment names its configurations (``[[config]]`` tables, and ``[[grid]]`` tables that
expand to one configuration per combination of parameter values), the sizes of its runs (a
hands run, a games run, or both; every configuration plays the same deals) and the analyses its
report shows. The README ("Experiments and reports") documents the schema; this module parses
and validates it, with one-line errors that name the file, the line and the key::

    experiments/x.toml:12: config "fast": unknown key "stratgy"; allowed: name, rules, ...

(``tomllib`` reports no positions: :class:`_Lines` scans the text once and records where every
key, array element and table of the document is written, so an error points at the very line
of the value it refuses, whether the file writes ``[[config]]`` tables, inline tables, dotted
keys or ``[config.sub]`` tables.)
"""

from __future__ import annotations

import bisect
import itertools
import math
import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from ..core.errors import ExperimentError, RulesError, RunError, StrategyError
from ..core.limits import MAX_CHUNK_SIZE, MAX_GRID, MAX_SEED, MAX_UNITS
from ..core.rules import FIELD_NAMES, PRESETS, Rules, build_rules
from ..core.strategies import KINDS, parse_strategy
from ..core.strategies import PRESETS as STRATEGY_PRESETS
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
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_LOCAL_DATE = re.compile(r"\d{4}-\d{2}-\d{2}$")
_VALUE_END = set(",]}#\r\n \t")


class _Lines:
    """Where each key and value of a TOML text is defined, found by scanning the text (tomllib
    gives no positions).

    A *path* names a place in the parsed document as tomllib returns it: ``("seed",)``,
    ``("config", 2, "rule", "target")`` (the third ``[[config]]`` table, or the third inline
    table of ``config = [...]``), ``("grid", 0, "params", "aggression", 1)`` (the second value
    of that list). The scanner records the first position of every path: a key where it is
    written (the last part of a dotted key ``rule.target = 300``, the key of a table header
    ``[config.x]``), an element of an array where it starts, an array of tables at its
    ``[[header]]``. It runs only on text tomllib accepted, so it can follow the grammar
    loosely.
    """

    def __init__(self, text: str):
        self.text = text
        self.starts = [0] + [m.end() for m in re.finditer(r"\n", text)]
        self.where: dict[tuple, int] = {}
        self.tables: dict[tuple, int] = {}  # arrays of tables ([[a.b]]) and their counts
        self.pos = 0
        try:
            self._document()
        except (IndexError, ValueError, tomllib.TOMLDecodeError):  # pragma: no cover
            pass  # text the scanner does not follow: keys found so far, the rest on line 1

    # reading
    def _peek(self, count: int = 1) -> str:
        return self.text[self.pos:self.pos + count]

    def _blank(self, newlines: bool = False) -> None:
        """Skip spaces and tabs (and, with ``newlines``, line ends and comments)."""
        text = self.text
        while self.pos < len(text):
            char = text[self.pos]
            if char in " \t":
                self.pos += 1
            elif newlines and char in "\r\n":
                self.pos += 1
            elif newlines and char == "#":
                end = text.find("\n", self.pos)
                self.pos = len(text) if end < 0 else end
            else:
                return

    def _record(self, path: tuple, pos: int) -> None:
        self.where.setdefault(path, pos)

    def _key(self) -> list[tuple[str, int]]:
        """A dotted key: its parts with their positions."""
        parts = []
        while True:
            self._blank()
            start, char = self.pos, self._peek()
            if char in "\"'":
                end = self._string_end(self.pos)
                part = tomllib.loads("k = " + self.text[start:end])["k"]
                self.pos = end
            else:
                match = _BARE_KEY.match(self.text, self.pos)
                if not match:
                    raise ValueError(f"no key at {self.pos}")
                part, self.pos = match.group(), match.end()
            parts.append((part, start))
            self._blank()
            if self._peek() != ".":
                return parts
            self.pos += 1

    def _string_end(self, pos: int) -> int:
        """The end of the string that starts at ``pos``."""
        text = self.text
        quote = text[pos]
        if text.startswith(quote * 3, pos):
            i = pos + 3
            while True:
                if quote == '"' and text[i] == "\\":
                    i += 2
                elif text.startswith(quote * 3, i):
                    end = i + 3
                    while end < len(text) and text[end] == quote and end < i + 5:
                        end += 1  # up to two quotes of the content may precede the closing
                    return end
                else:
                    i += 1
        i = pos + 1
        while text[i] != quote:
            i += 2 if quote == '"' and text[i] == "\\" else 1
        return i + 1

    def _value(self, path: tuple) -> None:
        self._record(path, self.pos)
        char = self._peek()
        if char in "\"'":
            self.pos = self._string_end(self.pos)
        elif char == "[":
            self.pos += 1
            index = 0
            while True:
                self._blank(newlines=True)
                if self._peek() == "]":
                    self.pos += 1
                    return
                self._value(path + (index,))
                index += 1
                self._blank(newlines=True)
                if self._peek() == ",":
                    self.pos += 1
        elif char == "{":
            self.pos += 1
            while True:
                self._blank(newlines=True)
                if self._peek() == "}":
                    self.pos += 1
                    return
                self._key_value(path)
                self._blank(newlines=True)
                if self._peek() == ",":
                    self.pos += 1
        else:  # a number, a boolean or a date and time
            start = self.pos
            while self.pos < len(self.text) and self.text[self.pos] not in _VALUE_END:
                self.pos += 1
            if _LOCAL_DATE.match(self.text, start, self.pos) and \
                    self.text[self.pos:self.pos + 2] in {f" {digit}" for digit in "0123456789"}:
                self.pos += 1  # 1979-05-27 07:32:00: a date and time with a space
                while self.pos < len(self.text) and self.text[self.pos] not in _VALUE_END:
                    self.pos += 1
            if self.pos == start:
                raise ValueError(f"no value at {start}")

    def _key_value(self, table: tuple) -> None:
        path = table
        for part, pos in self._key():
            path += (part,)
            self._record(path, pos)
        if self._peek() != "=":
            raise ValueError(f"no = at {self.pos}")
        self.pos += 1
        self._blank()
        self._value(path)

    def _resolve(self, parts) -> tuple:
        """A header's path: each array of tables it passes through means its last table."""
        path = ()
        for part, pos in parts:
            path += (part,)
            self._record(path, pos)
            if path in self.tables:
                path += (self.tables[path] - 1,)
        return path

    def _header(self) -> tuple:
        start = self.pos
        array = self.text.startswith("[[", self.pos)
        self.pos += 2 if array else 1
        parts = self._key()
        self.pos += 2 if array else 1
        if not array:
            path = self._resolve(parts)
            self._record(path, start)
            return path
        path = self._resolve(parts[:-1]) + (parts[-1][0],)
        self._record(path, start)
        index = self.tables.get(path, 0)
        self.tables[path] = index + 1
        self._record(path + (index,), start)
        return path + (index,)

    def _document(self) -> None:
        table: tuple = ()
        while True:
            self._blank(newlines=True)
            if self.pos >= len(self.text):
                return
            if self._peek() == "[":
                table = self._header()
            else:
                self._key_value(table)

    # answering
    def position(self, *path) -> int:
        """The offset of ``path``, or of its longest prefix the text shows (0 for none)."""
        while path and path not in self.where:
            path = path[:-1]
        return self.where.get(path, 0)

    def line(self, *path) -> int:
        """The 1-based line of ``path`` (or of its longest prefix the text shows; 1 for none)."""
        return bisect.bisect_right(self.starts, self.position(*path))


# -- parsing --------------------------------------------------------------------------------------
def _bound(value: int) -> str:
    """A largest allowed value for people: ``1,000,000,000,000`` or ``2**128 - 1``."""
    return "2**128 - 1" if value == MAX_SEED else f"{value:,}"


class _Parser:
    def __init__(self, path: str, text: str):
        self.path, self.text = path, text
        self.lines = _Lines("")

    def fail(self, where, message: str):
        """Refuse the file at ``where``: a line number, or a path of the document (the line of
        that key or value, or of the nearest table around it)."""
        line = where if isinstance(where, int) else self.lines.line(*where)
        raise ExperimentError(f"{self.path}:{line}: {message}")

    def check_keys(self, data: dict, allowed, where=(), label=""):
        for key in data:
            if key not in allowed:
                self.fail((*where, key),
                          f"{label}unknown key \"{key}\"; allowed: {', '.join(allowed)}")

    def get(self, data, key, kind, default=None, required=False, where=(), label="",
            high=None):
        """A value of the top level (or of the table at path ``where``), checked against
        ``kind`` (and, for integers, at most ``high``)."""
        if key not in data:
            if required:
                self.fail(where or 1, f"{label}missing key \"{key}\"")
            return default
        value, path = data[key], (*where, key)
        if kind == "str":
            if not isinstance(value, str) or not value.strip():
                self.fail(path, f"{label}{key}: expected a non-empty string, got {value!r}")
            return value.strip()
        if kind in ("int", "count"):
            low = 0 if kind == "int" else 1
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                self.fail(path, f"{label}{key}: expected an integer >= {low}, got {value!r}")
            if high is not None and value > high:
                self.fail(path, f"{label}{key}: {value} is more than the largest allowed, "
                                f"{_bound(high)}")
            return value
        if kind == "bool":
            if not isinstance(value, bool):
                self.fail(path, f"{label}{key}: expected true or false, got {value!r}")
            return value
        raise AssertionError(kind)

    def load(self) -> dict:
        try:
            data = tomllib.loads(self.text)
        except tomllib.TOMLDecodeError as error:
            message = str(error)
            match = re.search(r"\(at line (\d+), column (\d+)\)", message)
            line = int(match.group(1)) if match else 1
            if match:
                message = message[:match.start()].rstrip() + f" (column {match.group(2)})"
            self.fail(line, f"TOML syntax error: {message}")
        except ValueError:  # an integer of more digits than Python converts
            long = re.search(r"\d[\d_]{999,}", self.text)
            line = self.text.count("\n", 0, long.start()) + 1 if long else 1
            self.fail(line, "an integer of thousands of digits; far too large")
        self.lines = _Lines(self.text)
        return data

    def parse(self) -> Experiment:
        data = self.load()
        self.check_keys(data, TOP_KEYS)
        name = self.get(data, "name", "str", required=True)
        if not _DIR_NAME.match(name):
            self.fail(("name",), f"name: {name!r} is not a folder name (letters, digits, _ . -)")
        seed = self.get(data, "seed", "int", required=True, high=MAX_SEED)
        hands = self.get(data, "hands", "count", high=MAX_UNITS)
        games = self.get(data, "games", "count", high=MAX_UNITS)
        tournament = self.parse_tournament(data)
        if hands is None and games is None and tournament is None:
            self.fail(1, "give hands, games or both (the sizes of the runs), or a [tournament]")
        chunk_size = self.get(data, "chunk_size", "count", DEFAULT_CHUNK["hands"],
                              high=MAX_CHUNK_SIZE)
        games_chunk = self.get(data, "games_chunk_size", "count", DEFAULT_CHUNK["games"],
                               high=MAX_CHUNK_SIZE)
        duplicate = self.get(data, "duplicate", "bool", False)
        analyses = self.parse_analyses(data, hands, games, tournament)
        if hands is None and games is None and "config" not in data and "grid" not in data:
            configs, sources = [], []  # a tournament alone
        else:
            configs, sources = self.parse_configs(data)
        if duplicate:
            for config in configs:
                if config.rules.players != 4 or not config.rules.partnership:
                    self.fail(("duplicate",),
                              f"duplicate: config \"{config.name}\" is not four players in "
                              f"partnerships; duplicate mode needs every config to be")
        names = [c.name for c in configs]
        baseline = self.get(data, "baseline", "str")
        if baseline is not None and baseline not in names:
            self.fail(("baseline",),
                      f"baseline: \"{baseline}\" is not a config; configs: {', '.join(names)}")
        if "variant_effects" in analyses:
            if hands is None:
                self.fail(("analyses",), "analyses: variant_effects compares hands: give hands")
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
        value, where = data["analyses"], ("analyses",)
        if not isinstance(value, list) or not value or \
                not all(isinstance(v, str) for v in value):
            self.fail(where, f"analyses: expected a list of names, got {value!r}")
        for number, item in enumerate(value):
            if item not in ANALYSES:
                self.fail((*where, number), f"analyses: unknown analysis \"{item}\"; allowed: "
                                            f"{', '.join(ANALYSES)}")
            if item in value[:number]:
                self.fail((*where, number), f"analyses: {item} repeats")
        if "games" in value and games is None:
            self.fail(where, "analyses: games needs whole games: give games")
        if hands is None and games is None:
            for item in value:
                if item != "strategies":
                    self.fail(where, f"analyses: {item} needs hands or games (a [tournament] "
                                     f"alone shows in strategies)")
        if tournament is not None and "strategies" not in value:
            self.fail(where, "analyses: the [tournament] is shown in the strategies section: "
                             "add \"strategies\"")
        return tuple(value)

    def parse_tournament(self, data) -> TournamentSpec | None:
        """The optional ``[tournament]`` table."""
        if "tournament" not in data:
            return None
        table, where = data["tournament"], ("tournament",)
        if not isinstance(table, dict):
            shape = "[[tournament]] tables" if isinstance(table, list) else "a value"
            self.fail(where, f"tournament: write it as a [tournament] table, not as {shape}")
        label = "tournament: "
        self.check_keys(table, TOURNAMENT_KEYS, where, label)
        specs = table.get("strategies")
        if not isinstance(specs, list) or len(specs) < 2 or \
                not all(isinstance(spec, str) for spec in specs):
            self.fail((*where, "strategies"),
                      f"{label}strategies: expected a list of at least two strategy specs, "
                      f"got {specs!r}")
        strategies, names = [], []
        for number, spec in enumerate(specs):
            try:
                strategy = parse_strategy(spec)
            except StrategyError as error:
                self.fail((*where, "strategies", number), f"{label}{error}")
            if str(strategy) in names:
                self.fail((*where, "strategies", number),
                          f"{label}strategies: {strategy} repeats")
            strategies.append(strategy)
            names.append(str(strategy))
        preset = self.get(table, "rules", "str", "classic", where=where, label=label)
        overrides = table.get("rule", {})
        if not isinstance(overrides, dict):
            self.fail((*where, "rule"),
                      f"{label}rule: expected a table such as {{ target = 300 }}")
        rules = self.rules(preset, [(key, value, (*where, "rule", key))
                                    for key, value in overrides.items()], label, where)
        if rules.players != 4 or not rules.partnership:
            self.fail((*where, "rules"),
                      f"{label}rules {preset}: a tournament needs four players in two "
                      f"partnerships")
        sizes = {unit: self.get(table, unit, "count", where=where, label=label, high=MAX_UNITS)
                 for unit in MODES}
        given = [unit for unit in MODES if sizes[unit] is not None]
        if len(given) != 1:
            self.fail((*where, "hands") if len(given) == 2 else where,
                      f"{label}give games or hands (boards per pair)"
                      + (", not both" if given else ""))
        unit = given[0]
        chunk = self.get(table, "chunk_size", "count", DEFAULT_CHUNK[unit], where=where,
                         label=label, high=MAX_CHUNK_SIZE)
        return TournamentSpec(tuple(strategies), rules, unit, sizes[unit], chunk)

    # configurations
    def parse_configs(self, data):
        for key in ("config", "grid"):
            value = data.get(key, [])
            if isinstance(value, dict):
                self.fail((key,), f"{key}: a [{key}] table (or {key}.KEY = ...) is one table; "
                                  f"write it as [[{key}]] tables, one per configuration")
            if not isinstance(value, list):
                self.fail((key,), f"{key}: write it as [[{key}]] tables")
            for number, item in enumerate(value):
                if not isinstance(item, dict):
                    self.fail((key, number), f"{key}: write it as [[{key}]] tables; item "
                                             f"{number + 1} is {item!r}")
        if not data.get("config") and not data.get("grid"):
            self.fail(1, "no configurations: add [[config]] or [[grid]] tables")
        # Configurations in the order their tables appear in the file.
        tables = sorted(((self.lines.position(key, index), key, index, table)
                         for key in ("config", "grid")
                         for index, table in enumerate(data.get(key, []))),
                        key=lambda item: item[0])
        # Count the configurations before making any: a grid multiplies its value counts.
        total, params = 0, {}
        for _, key, index, table in tables:
            if key == "config":
                total += 1
            else:
                params[index] = self.grid_params(table, index)
                total += math.prod(len(values) for values in params[index].values())
            if total > MAX_GRID:
                where = ("grid", index, "params") if key == "grid" else (key, index)
                self.fail(where, f"the experiment expands to {total:,} configurations by this "
                                 f"table; at most {MAX_GRID:,} are allowed")
        configs, sources, seen = [], [], {}
        for _, key, index, table in tables:
            if key == "config":
                made = [self.one_config(table, ("config", index))]
            else:
                made = self.grid(table, index, params[index])
            for config, source, line in made:
                if config.name in seen:
                    self.fail(line, f"config name \"{config.name}\" repeats (first on line "
                                    f"{seen[config.name]})")
                seen[config.name] = line
                configs.append(config)
                sources.append(source)
        return configs, sources

    def grid_params(self, table: dict, index: int) -> dict:
        """A ``[[grid]]`` table's params, checked: ``{param: [(value, path), ...]}``."""
        where = ("grid", index)
        label = f"grid {self.table_label(table, index)}: "
        self.check_keys(table, GRID_KEYS, where, label)
        params = table.get("params")
        if not isinstance(params, dict) or not params:
            self.fail((*where, "params"),
                      f"{label}params: expected a table of lists, such as "
                      f"{{ aggression = [-1, 0, 1] }}")
        specs = table.get("strategy", "")
        specs = [specs] if isinstance(specs, str) else specs if isinstance(specs, list) else []
        if isinstance(table.get("strategies"), dict):
            specs = list(table["strategies"].values())
        texts = " ".join(spec for spec in specs if isinstance(spec, str))
        for key, values in params.items():
            if not isinstance(values, list) or not values:
                self.fail((*where, "params", key),
                          f"{label}params {key}: expected a non-empty list of values")
        count = math.prod(len(values) for values in params.values())
        if count > MAX_GRID:
            self.fail((*where, "params"),
                      f"{label}params expand to {count:,} configurations "
                      f"({' x '.join(str(len(values)) for values in params.values())}); at most "
                      f"{MAX_GRID:,} are allowed in an experiment")
        checked = {}
        for key, values in params.items():
            path = (*where, "params", key)
            seen = {}
            for number, value in enumerate(values):
                value_path = (*path, number)
                numeric = not isinstance(value, bool) and isinstance(value, (int, float))
                if key in FIELD_NAMES:
                    if isinstance(value, float) or not isinstance(value, (bool, int, str)):
                        self.fail(value_path, f"{label}params {key}: {value!r} is not a rule "
                                              f"value (true, false, an integer or a text)")
                elif "{" + key + "}" in texts:
                    if not isinstance(value, (bool, int, float, str)):
                        self.fail(value_path, f"{label}params {key}: {value!r} is not a "
                                              f"number, true, false or a text")
                elif not numeric:
                    self.fail(value_path, f"{label}params {key}: {value!r} is not a number "
                                          f"(a strategy parameter)")
                if isinstance(value, float) and not math.isfinite(value):
                    self.fail(value_path, f"{label}params {key}: {value!r} is not a finite "
                                          f"number")
                text = _text(value)
                if text in seen:
                    self.fail(value_path, f"{label}params {key}: {text} repeats (value "
                                          f"{seen[text] + 1} is the same)")
                seen[text] = number
            checked[key] = [(value, (*path, number)) for number, value in enumerate(values)]
        return checked

    def grid(self, table: dict, index: int, params: dict):
        """The configurations of a ``[[grid]]`` table, one per combination of ``params``."""
        label = f"grid {self.table_label(table, index)}: "
        keys = list(params)
        made = [self.one_config(table, ("grid", index), dict(zip(keys, combo)), label)
                for combo in itertools.product(*(params[k] for k in keys))]
        if len({config.name for config, _, _ in made}) < len(made):
            example = "-".join("{" + key + "}" for key in keys)
            self.fail(("grid", index, "name"),
                      f"{label}every combination needs its own name: write the "
                      f"parameters into it, such as \"{table.get('name')}-{example}\"")
        return made

    def one_config(self, table: dict, where: tuple, values=None, label=None):
        """One configuration from a ``[[config]]`` table (at path ``where``), or from a
        ``[[grid]]`` table with one combination ``values`` (``{param: (value, path)}``);
        returns ``(Config, ConfigSource, line)``."""
        origin = where[0]
        if origin == "config":
            self.check_keys(table, CONFIG_KEYS, where,
                            label or f"config {self.table_label(table, where[1])}: ")
        name_path = (*where, "name")
        name = table.get("name")
        if not isinstance(name, str) or not name.strip():
            self.fail(name_path, f"{origin}: missing or empty name")
        values = values or {}
        if origin == "grid":
            try:
                name = name.format(**{k: _text(v) for k, (v, _) in values.items()})
            except (KeyError, IndexError, ValueError) as error:
                self.fail(name_path, f"grid \"{name}\": the name's placeholder {error} is not a "
                                     f"parameter of params")
        name = name.strip()
        if not _NAME.match(name):
            self.fail(name_path, f"config name {name!r}: use letters, digits and _ . = , + -")
        label = f"{origin} \"{name}\": "
        preset = table.get("rules", "classic")
        if not isinstance(preset, str):
            self.fail((*where, "rules"), f"{label}rules: expected a preset name, got {preset!r}")
        overrides = table.get("rule", {})
        if not isinstance(overrides, dict):
            self.fail((*where, "rule"),
                      f"{label}rule: expected a table such as {{ target = 300 }}")
        merged = {key: (value, (*where, "rule", key)) for key, value in overrides.items()}
        merged.update((key, pair) for key, pair in values.items() if key in FIELD_NAMES)
        rules = self.rules(preset, [(key, value, path) for key, (value, path) in merged.items()],
                           label, where)
        specs, paths = self.strategies(table, rules, values, label, where)
        try:
            config = make_config(name, rules, specs)
        except (RunError, StrategyError) as error:
            self.fail((*where, "strategies" if "strategies" in table else "strategy"),
                      f"{label}{error}")
        source = ConfigSource(name, preset, rules.overrides(),
                              tuple(s.spec() for s in config.strategies), origin)
        return config, source, self.lines.line(*name_path)

    def rules(self, preset, overrides, label, where) -> Rules:
        """Rules from a preset name and ``[(field, value, path)]`` overrides; a refusal points
        at the override (or the ``rules`` key) that causes it."""
        for key, value, path in overrides:
            if key not in FIELD_NAMES:
                self.fail(path, f"{label}unknown rule field \"{key}\"; allowed: "
                                f"{', '.join(FIELD_NAMES)}")
            if isinstance(value, float) or not isinstance(value, (bool, int, str)):
                self.fail(path, f"{label}rule {key}: {value!r} is not a rule value")
        try:
            return _build(preset, overrides)
        except RulesError as error:
            self.fail(self.rules_culprit(preset, overrides, str(error), where),
                      f"{label}{error}")

    @staticmethod
    def rules_culprit(preset, overrides, message, where) -> tuple:
        """The path of what makes ``preset`` with ``overrides`` fail with ``message``: the
        override the message names; else, for a field the preset sets, the last override
        without which that field is no longer refused; else the ``rules`` key."""
        rules_path = (*where, "rules")
        if preset not in PRESETS:
            return rules_path
        match = re.match(r"rule (\w+):", message)
        if not match:
            return rules_path
        field = match.group(1)
        for key, _, path in overrides:
            if key == field:
                return path
        for key, _, path in reversed(overrides):
            try:
                _build(preset, [item for item in overrides if item[0] != key])
            except RulesError as error:
                if str(error).startswith(f"rule {field}:"):
                    continue
            return path
        return rules_path

    def strategies(self, table, rules, values, label, where):
        """The strategy spec of each seat with the grid's ``values`` in, and the path each
        came from: ``(specs, paths)``."""
        if "strategy" in table and "strategies" in table:
            self.fail((*where, "strategies"), f"{label}give strategy or strategies, not both")
        if "strategies" in table:
            path = (*where, "strategies")
            sides = table["strategies"]
            if not isinstance(sides, dict):
                self.fail(path, f"{label}strategies: expected a table such as "
                                f"{{ side0 = \"heuristic\", side1 = \"random\" }}")
            wanted = [f"side{s}" for s in range(rules.n_sides)]
            for key in sides:
                if key not in wanted:
                    self.fail((*path, key), f"{label}strategies: unknown side \"{key}\"; "
                                            f"allowed: {', '.join(wanted)}")
            missing = [key for key in wanted if key not in sides]
            if missing:
                self.fail(path, f"{label}strategies: missing {', '.join(missing)}")
            keys = [f"side{rules.side_of(seat)}" for seat in range(rules.players)]
            specs, paths = [sides[key] for key in keys], [(*path, key) for key in keys]
        else:
            path = (*where, "strategy")
            specs = table.get("strategy", "heuristic")
            if isinstance(specs, str):
                specs, paths = [specs], [path]
            else:
                paths = [(*path, number) for number in range(len(specs))] \
                    if isinstance(specs, list) else [path]
        if not isinstance(specs, list) or not specs:
            self.fail(path, f"{label}strategy: expected a spec string or a list of them")
        for spec, spec_path in zip(specs, paths):
            if not isinstance(spec, str):
                self.fail(spec_path, f"{label}strategy: expected a spec string, got {spec!r}")
        strategy_values = {k: pair for k, pair in values.items() if k not in FIELD_NAMES}
        placed: dict[str, set] = {}  # param -> the seats whose spec it went into
        texts = []
        for seat, spec in enumerate(specs):
            for key, (value, _) in strategy_values.items():
                if "{" + key + "}" in spec:
                    spec = spec.replace("{" + key + "}", _text(value))
                    placed.setdefault(key, set()).add(seat)
            texts.append(spec)
        for key, (value, _) in strategy_values.items():
            if key in placed:
                continue
            # A grid parameter not written into a spec goes to every seat whose strategy kind
            # has it.
            for seat, spec in enumerate(texts):
                if key in _param_names(spec):
                    texts[seat] = spec + ("," if ":" in spec else ":") + f"{key}={_text(value)}"
                    placed.setdefault(key, set()).add(seat)
            if key not in placed:
                self.fail((*where, "params", key),
                          f"{label}params: \"{key}\" is neither a rule field nor a parameter of "
                          f"the strategies {', '.join(sorted(set(texts)))}")
        for seat, spec in enumerate(texts):
            try:
                parse_strategy(spec)
            except StrategyError as error:
                culprit = paths[seat]
                for key, (_, value_path) in strategy_values.items():
                    if seat in placed.get(key, ()) and f"parameter {key}=" in str(error):
                        culprit = value_path
                self.fail(culprit, f"{label}{error}")
        return texts, paths

    @staticmethod
    def table_label(table, index) -> str:
        name = table.get("name")
        return f"\"{name}\"" if isinstance(name, str) else f"#{index + 1}"


def _build(preset: str, overrides) -> Rules:
    """``build_rules`` of ``[(field, value, path)]`` overrides."""
    return build_rules(preset, [f"{key}={rule_text(value)}" for key, value, _ in overrides])


def _param_names(spec: str) -> set[str]:
    """The parameter names of a spec's strategy kind (or preset); none for an unknown one."""
    name = spec.split(":", 1)[0].strip()
    if name in STRATEGY_PRESETS:
        name = STRATEGY_PRESETS[name].kind
    return {param.name for param in KINDS[name].params} if name in KINDS else set()


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
