"""Parsing an experiment's configurations: ``[[config]]`` tables and ``[[grid]]`` tables that
expand to one configuration per combination of parameter values (a mixin of the parser in
``parse.py``, which provides ``fail``, ``get``, ``check_keys`` and the line finder)."""

from __future__ import annotations

import itertools
import math
import re

from ..core.errors import RulesError, RunError, StrategyError
from ..core.limits import MAX_GRID
from ..core.rules import FIELD_NAMES, PRESETS, Rules, build_rules
from ..core.strategies import KINDS, SHIPPED, parse_strategy
from ..core.strategies import PRESETS as STRATEGY_PRESETS
from ..run import make_config
from .model import CONFIG_KEYS, GRID_KEYS, ConfigSource

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.=,+-]*$")


class ConfigParser:
    """The configuration part of the experiment parser (mixed into ``parse._Parser``)."""

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
                name = grid_name(name, {k: _text(v) for k, (v, _) in values.items()})
            except ValueError as error:
                self.fail(name_path, f"grid \"{name}\": {error}")
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
    if name in SHIPPED:
        return {param.name for param in SHIPPED[name].kind.params}
    return {param.name for param in KINDS[name].params} if name in KINDS else set()


def rule_text(value) -> str:
    """A rule value as ``--rule FIELD=VALUE`` text (``true``, ``null``, ``300``)."""
    if value is None:
        return "null"
    return str(value).lower() if isinstance(value, bool) else str(value)


_PLACEHOLDER = re.compile(r"\{\{|\}\}|\{([^{}]*)\}|[{}]")


def grid_name(template: str, values: dict) -> str:
    """A grid combination's name: ``{param}`` replaced by the parameter's value, ``{{`` and
    ``}}`` by a brace. ValueError, in a user's words, for anything else.

    >>> grid_name("aggr={aggression}", {"aggression": "0.5"})
    'aggr=0.5'
    >>> grid_name("g{aggression.x}", {"aggression": "0.5"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: the placeholder {aggression.x} is not a parameter of params; write {NAME} ...
    """
    allowed = ", ".join(values) or "none (params is empty)"

    def replace(match: re.Match) -> str:
        text = match.group(0)
        if text in ("{{", "}}"):
            return text[0]
        if text in ("{", "}"):
            raise ValueError(f"a lone '{text}' at character {match.start() + 1}; write "
                             f"{{NAME}} for a parameter's value, or {text}{text} for the "
                             f"character itself")
        key = match.group(1)
        if key not in values:
            raise ValueError(f"the placeholder {text} is not a parameter of params; write "
                             f"{{NAME}} with NAME one of: {allowed}")
        return values[key]

    return _PLACEHOLDER.sub(replace, template)


def _text(value) -> str:
    """A grid value as it appears in names and specs (``true``, ``300``, ``0.5``)."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
