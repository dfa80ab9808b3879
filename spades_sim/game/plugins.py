"""Strategy plug-ins: import a user's class from a file or a module, check it, and make the seat
that plays it.

A Python plug-in is a class with ``bid(obs)`` and ``play(obs)`` methods (optionally ``blind``,
``bump``, ``pass_cards`` and ``keep``), built with the spec's ``param=value`` arguments. A
numba plug-in is a class whose ``bid`` and ``play`` are ``@njit`` functions of the array view
(``core/view.py``), with its parameters declared in a ``params`` dict of defaults. Every
problem is one :class:`~spades_sim.core.errors.StrategyError` line naming the strategy.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import math
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..core.errors import StrategyError
from ..core.strategies import N_PARAMS, PluginStrategy, ShippedStrategy, Strategy, parse_strategy
from ..core.version import solver_hash
from .agents import BuiltinAgent, NumbaPluginAgent, PluginAgent, plugin_output

PYTHON_METHODS = ("bid", "play")
OPTIONAL_METHODS = ("blind", "bump", "pass_cards", "keep")


@dataclass(frozen=True)
class Plugin:
    """A loaded plug-in: its spec, its class, and whether it is a numba one."""

    strategy: PluginStrategy
    cls: type
    numba: bool

    @property
    def name(self) -> str:
        return self.strategy.spec()

    def agent(self):
        """A fresh seat playing this strategy (one instance per piece of a run)."""
        if self.numba:
            return NumbaPluginAgent(self.cls.bid, self.cls.play, self.params(), self.name)
        try:
            with plugin_output():
                instance = self.cls(**self.strategy.params)
        except KeyboardInterrupt:
            raise
        except BaseException as error:
            raise StrategyError(f"strategy {self.name}: its constructor raised "
                                f"{_error_text(error)}") from error
        return PluginAgent(instance, self.name)

    def params(self) -> np.ndarray:
        """A numba plug-in's parameter vector: its declared defaults, then the spec's values."""
        values = dict(getattr(self.cls, "params", {}) or {})
        values.update(self.strategy.params)
        vector = np.zeros(N_PARAMS, dtype=np.float64)  # zero-padded, as the engine passes it
        vector[:len(values)] = [float(value) for value in values.values()]
        return vector


_MODULES: dict[str, object] = {}


def _import(source: str, label: str):
    """The module of a plug-in's ``source``: a ``.py`` file (by path) or a dotted module."""
    if source in _MODULES:
        return _MODULES[source]
    if source.endswith(".py") or "/" in source or "\\" in source:
        path = Path(source).expanduser()
        if not path.is_file():
            raise StrategyError(f"strategy {label}: no file {source}")
        resolved = path.resolve()
        # A stable module name per file, so numba's cache finds the plug-in's functions again.
        digest = hashlib.sha1(str(resolved).encode()).hexdigest()[:10]
        name = f"spades_sim_plugin_{resolved.stem}_{digest}"
        if name in sys.modules:
            module = sys.modules[name]
        else:
            spec = importlib.util.spec_from_file_location(name, resolved)
            if spec is None or spec.loader is None:
                raise StrategyError(f"strategy {label}: cannot load {source} as Python")
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            try:
                with plugin_output():
                    spec.loader.exec_module(module)
            except KeyboardInterrupt:
                del sys.modules[name]
                raise
            except BaseException as error:
                del sys.modules[name]
                raise StrategyError(f"strategy {label}: importing {source} failed: "
                                    f"{_error_text(error)}") from error
    else:
        try:
            with plugin_output():
                module = importlib.import_module(source)
        except ModuleNotFoundError as error:
            raise StrategyError(f"strategy {label}: no module {source} ({error})") from error
        except KeyboardInterrupt:
            raise
        except BaseException as error:
            raise StrategyError(f"strategy {label}: importing {source} failed: "
                                f"{_error_text(error)}") from error
    _MODULES[source] = module
    return module


def _error_text(error: BaseException) -> str:
    """A plug-in's own failure in words: ``sys.exit`` is named as such (a plug-in must not end
    the program), any other as its type and message."""
    if isinstance(error, SystemExit):
        return f"sys.exit({error.code!r}) (a plug-in must not end the program)"
    return f"{type(error).__name__}: {error}"


def _is_numba_function(value) -> bool:
    return hasattr(value, "py_func") and hasattr(value, "overloads")


def load(strategy) -> Plugin:
    """Import and check a plug-in (a :class:`PluginStrategy` or its spec text)."""
    strategy = parse_strategy(strategy)
    if not isinstance(strategy, PluginStrategy):
        raise StrategyError(f"strategy {strategy} is built in, not a plug-in")
    label = strategy.spec()
    module = _import(strategy.source, label)
    cls = getattr(module, strategy.class_name, None)
    if cls is None:
        found = sorted(name for name, value in vars(module).items()
                       if inspect.isclass(value) and value.__module__ == module.__name__)
        raise StrategyError(f"strategy {label}: {strategy.source} has no {strategy.class_name}"
                            f"{'; it defines ' + ', '.join(found) if found else ''}")
    if not inspect.isclass(cls):
        raise StrategyError(f"strategy {label}: {strategy.class_name} is not a class")
    missing = [name for name in PYTHON_METHODS if not callable(getattr(cls, name, None))]
    if missing:
        raise StrategyError(f"strategy {label}: the class has no {' or '.join(missing)} method "
                            f"(a strategy needs bid(obs) and play(obs))")
    numba = _is_numba_function(cls.__dict__.get("bid")) or _is_numba_function(
        cls.__dict__.get("play"))
    if numba:
        _check_numba(cls, strategy, label)
    else:
        _check_constructor(cls, strategy, label)
    return Plugin(strategy, cls, numba)


def _check_constructor(cls, strategy: PluginStrategy, label: str) -> None:
    try:
        signature = inspect.signature(cls)
    except (TypeError, ValueError):
        return
    try:
        signature.bind(**strategy.params)
    except TypeError as error:
        takes = [name for name, p in signature.parameters.items()
                 if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        raise StrategyError(f"strategy {label}: the constructor refuses these arguments ({error}); "
                            f"it takes {', '.join(takes) if takes else 'none'}") from None


def _check_numba(cls, strategy: PluginStrategy, label: str) -> None:
    for name in PYTHON_METHODS:
        if not _is_numba_function(cls.__dict__.get(name)):
            raise StrategyError(f"strategy {label}: {name} must be an @njit function like the "
                                f"other (a numba plug-in's bid and play are both numba functions)")
        from ..engine.plugin import check_integer_return  # (numba: only for numba plug-ins)

        check_integer_return(cls.__dict__[name], f"strategy {label}: {name}")
    declared = getattr(cls, "params", {}) or {}
    if not isinstance(declared, dict):
        raise StrategyError(f"strategy {label}: params must be a dict of names and defaults")
    for key, value in declared.items():
        if not _is_finite_number(value):
            raise StrategyError(f"strategy {label}: the default of parameter {key} in the "
                                f"class's params is {value!r}; a default must be a finite "
                                f"number")
    for key, value in strategy.params.items():
        if key not in declared:
            raise StrategyError(f"strategy {label}: unknown parameter {key!r}; allowed: "
                                f"{', '.join(declared) or 'none'}")
        if not _is_finite_number(value):
            raise StrategyError(f"strategy {label}: parameter {key}={value} is not a finite "
                                f"number")
    if len(declared) > N_PARAMS:
        raise StrategyError(f"strategy {label}: at most {N_PARAMS} parameters")


def _is_finite_number(value) -> bool:
    """An int or float (a NumPy one too), not a bool, not NaN or infinite."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer,
                                                                     np.floating)):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:  # an int past a float's range
        return False


def agents(strategies) -> list:
    """One seat per strategy: built-in ones, Python plug-ins and numba plug-ins (called from
    Python)."""
    seats = []
    for strategy in strategies:
        strategy = parse_strategy(strategy)
        if isinstance(strategy, PluginStrategy):
            seats.append(load(strategy).agent())
        else:
            seats.append(BuiltinAgent(strategy))
    return seats


def plugin_sources_hash(strategies) -> str:
    """``""`` without plug-ins; else ``"+plugins:"`` and a SHA-256 (16 hex digits) of the
    source files of every plug-in among ``strategies``, so that a run's identity changes when a
    plug-in's code does."""
    digest = hashlib.sha256()
    found = False
    for strategy in strategies:
        if isinstance(strategy, PluginStrategy):
            found = True
            module = _import(strategy.source, strategy.spec())
            path = getattr(module, "__file__", None)
            digest.update(strategy.spec().encode())
            digest.update(Path(path).read_bytes() if path else b"")
            if isinstance(strategy, ShippedStrategy):
                # The shipped players decide with the double-dummy solver.
                digest.update(solver_hash().encode())
    return "+plugins:" + digest.hexdigest()[:16] if found else ""


def check_plugins(strategies) -> None:
    """Load every plug-in among ``strategies`` (a StrategyError if one does not load)."""
    for strategy in strategies:
        if isinstance(strategy, PluginStrategy):
            load(strategy)


def heuristic_default() -> Strategy:
    return Strategy("heuristic", Strategy("heuristic").defaults())
