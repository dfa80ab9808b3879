"""Experiment files: one question per TOML file in ``experiments/``, run and reported by
``spades-sim run FILE``.

An experiment names its configurations (``[[config]]`` tables, and ``[[grid]]`` tables that
expand to one configuration per combination of parameter values), the sizes of its runs (a
hands run, a games run, or both; every configuration plays the same deals) and the analyses its
report shows. docs/experiments.md documents the schema; this module parses
and validates it, with one-line errors that name the file, the line and the key::

    experiments/x.toml:12: config "fast": unknown key "stratgy"; allowed: name, rules, ...

(``tomllib`` reports no positions: :class:`Lines` scans the text once and records where every
key, array element and table of the document is written, so an error points at the very line
of the value it refuses, whether the file writes ``[[config]]`` tables, inline tables, dotted
keys or ``[config.sub]`` tables.)
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from ..core.errors import DealFilterError, ExperimentError, StrategyError
from ..core.features import DEFAULT_MAX_TRIES, MAX_TRIES_LIMIT, DealFilter
from ..core.limits import MAX_CHUNK_SIZE, MAX_SEED, MAX_UNITS
from ..core.strategies import PluginStrategy, ShippedStrategy, parse_strategy
from .configs import ConfigParser
from .lines import Lines
from .model import (
    ANALYSES,
    DEFAULT_CHUNK,
    MODES,
    TOP_KEYS,
    TOURNAMENT_DIR,
    TOURNAMENT_KEYS,
    Experiment,
    TournamentSpec,
)

_DIR_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def _bound(value: int) -> str:
    """A largest allowed value for people: ``1,000,000,000,000`` or ``2**128 - 1``."""
    return "2**128 - 1" if value == MAX_SEED else f"{value:,}"


class _Parser(ConfigParser):
    def __init__(self, path: str, text: str):
        self.path, self.text = path, text
        self.lines = Lines("")

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
        except RecursionError:
            self.fail(_deep_line(self.text), f"arrays or tables nested more than "
                                             f"{MAX_NESTING} deep; an experiment needs a few "
                                             f"levels")
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
        try:
            self.lines = Lines(self.text)
        except RecursionError:
            self.fail(_deep_line(self.text), f"arrays or tables nested more than "
                                             f"{MAX_NESTING} deep; an experiment needs a few "
                                             f"levels")
        if _depth(data) > MAX_NESTING:
            self.fail(_deep_line(self.text), f"arrays or tables nested more than "
                                             f"{MAX_NESTING} deep; an experiment needs a few "
                                             f"levels")
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
        tournaments = self.parse_tournament(data)
        tournament = tournaments[0] if tournaments else None
        if hands is None and games is None and tournament is None:
            self.fail(1, "give hands, games or both (the sizes of the runs), or a [tournament]")
        chunk_size = self.get(data, "chunk_size", "count", DEFAULT_CHUNK["hands"],
                              high=MAX_CHUNK_SIZE)
        games_chunk = self.get(data, "games_chunk_size", "count", DEFAULT_CHUNK["games"],
                               high=MAX_CHUNK_SIZE)
        duplicate = self.get(data, "duplicate", "bool", False)
        par = self.get(data, "par", "bool", False)
        if par and hands is None and games is None:
            self.fail(("par",), "par: the par columns go into the hands and games runs: give "
                                "hands or games")
        cards = self.get(data, "cards", "bool", False)
        if cards and hands is None and games is None:
            self.fail(("cards",), "cards: the cards column goes into the hands and games runs: "
                                  "give hands or games")
        nil_lines = self.get(data, "nil_counterfactual", "bool", False)
        if nil_lines and hands is None:
            self.fail(("nil_counterfactual",), "nil_counterfactual: the number lines replay the "
                      "hands run's deals: give hands")
        analyses = self.parse_analyses(data, hands, games, tournament)
        if hands is None and games is None and "config" not in data and "grid" not in data:
            configs, sources = [], []  # a tournament alone
        else:
            configs, sources = self.parse_configs(data)
        deal_filter = self.parse_deal_filter(data, hands, games, configs)
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
            sources=tuple(sources), tournaments=tournaments, par=par, cards=cards,
            nil_counterfactual=nil_lines, deal_filter=deal_filter, path=self.path,
            text=self.text)

    def parse_deal_filter(self, data, hands, games, configs) -> DealFilter | None:
        """The ``deal_filter`` key (and ``deal_filter_max_tries``), parsed and checked against
        every configuration's rules."""
        text = self.get(data, "deal_filter", "str")
        tries = self.get(data, "deal_filter_max_tries", "count", high=MAX_TRIES_LIMIT)
        if text is None:
            if tries is not None:
                self.fail(("deal_filter_max_tries",), "deal_filter_max_tries needs deal_filter")
            return None
        if hands is None and games is None:
            self.fail(("deal_filter",), "deal_filter: it filters the deals of the hands and "
                                        "games runs: give hands or games")
        try:
            deal_filter = DealFilter.parse(text, tries or DEFAULT_MAX_TRIES)
            for config in configs:
                deal_filter.check(config.rules)
        except DealFilterError as error:
            self.fail(("deal_filter",), str(error))
        return deal_filter

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

    def parse_tournament(self, data) -> tuple[TournamentSpec, ...]:
        """The optional ``[tournament]`` table: its round robins, one per mode given."""
        if "tournament" not in data:
            return ()
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
            missing = _missing_plugin_file(strategy)
            if missing:
                self.fail((*where, "strategies", number),
                          f"{label}strategy {strategy}: no file {missing} (a plug-in's path is "
                          f"relative to the directory the command runs in, as on the command "
                          f"line)")
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
        if not given:
            self.fail(where, f"{label}give games or hands (boards per pair), or both (a round "
                             f"robin in each mode)")
        # One mode: chunk_size is its chunk. Both: each its own (games_chunk_size,
        # hands_chunk_size), as a chunk of games and one of hands differ a hundredfold.
        for unit in MODES:
            key = f"{unit}_chunk_size"
            if key in table and unit not in given:
                self.fail((*where, key), f"{label}{key}: there is no round robin of {unit} "
                                         f"(give {unit} = N, boards per pair)")
        if len(given) == 2 and "chunk_size" in table:
            self.fail((*where, "chunk_size"),
                      f"{label}chunk_size: with games and hands both, give games_chunk_size and "
                      f"hands_chunk_size (the chunk of each round robin)")
        specs = []
        for unit in sorted(given, key=("games", "hands").index):  # whole games first
            key = "chunk_size" if len(given) == 1 and "chunk_size" in table else \
                f"{unit}_chunk_size"
            chunk = self.get(table, key, "count", DEFAULT_CHUNK[unit], where=where,
                             label=label, high=MAX_CHUNK_SIZE)
            folder = TOURNAMENT_DIR if len(given) == 1 else f"{TOURNAMENT_DIR}/{unit}"
            specs.append(TournamentSpec(tuple(strategies), rules, unit, sizes[unit], chunk,
                                        folder))
        return tuple(specs)

    # configurations
MAX_NESTING = 32
"""The deepest nesting of arrays and tables an experiment file may use (it needs four)."""


def _depth(value, level: int = 0) -> int:
    """How deep ``value``'s arrays and tables nest (stops counting past MAX_NESTING)."""
    if level > MAX_NESTING or not isinstance(value, (dict, list)):
        return level
    items = value.values() if isinstance(value, dict) else value
    return max((_depth(item, level + 1) for item in items), default=level + 1)


def _deep_line(text: str) -> int:
    """The line where brackets first open more than MAX_NESTING deep (strings and comments
    skipped roughly: a bracket in one may shift the count), else 1."""
    depth = 0
    line = 1
    quote = None
    for char in text:
        if char == "\n":
            line += 1
        if quote:
            quote = None if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char in "[{":
            depth += 1
            if depth > MAX_NESTING:
                return line
        elif char in "]}":
            depth -= 1
    return 1


def _missing_plugin_file(strategy) -> str | None:
    """The file a plug-in's spec names when it is a path to no file (else None): the path is
    the spec's text, relative to the current directory, so that the run's identity (which
    holds the spec) is the same wherever the experiment file or its copy lies."""
    if not isinstance(strategy, PluginStrategy) or isinstance(strategy, ShippedStrategy):
        return None
    source = strategy.source
    if not (source.endswith(".py") or "/" in source or "\\" in source):
        return None  # a dotted module name: imported when played
    return None if Path(source).expanduser().is_file() else source


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
    if text.startswith("\ufeff"):  # a byte-order mark, as some editors write: not content
        text = text[1:]
    return _Parser(path, text).parse()


def load_experiment(path) -> Experiment:
    """Read and parse an experiment file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise ExperimentError(f"{path}:1: not UTF-8 text ({error.reason})")
    return parse_experiment(text, str(path))
