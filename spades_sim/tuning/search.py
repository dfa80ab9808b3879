"""A tuning: CMA-ES over a strategy family's parameters, resumable from its folder.

Each generation asks CMA-ES for ``popsize`` points of the scaled box (``space.py``), plays
every candidate against every opponent on the generation's boards (``scoring.py``), and tells
CMA-ES the negated objective (it minimises). The folder holds:

- ``settings.json``: what was asked (family, start, parameters and bounds, rules, opponents,
  population, boards, seed, ...): a rerun with other settings is refused; ``--generations`` is
  a budget, not a setting, so a rerun with more continues the search;
- ``state.pkl``: after each completed generation, the CMA-ES object (its random generator
  included), the generation count and every record so far, written atomically; a killed run
  resumes from the last completed generation and ends exactly as an uninterrupted one;
- ``history.jsonl`` and ``history.csv``: one row per candidate (generation, candidate,
  parameters, score, score against each opponent), rewritten from the state;
- at the end ``holdout.json``, ``tuned.txt``, ``result.json`` and ``report.html``
  (``output.py``).

The tuned strategy is the CMA-ES *mean* after the last generation, not the best candidate
seen: each candidate is scored on a few hundred noisy boards, so the best of a generation won
partly by luck, while the mean averages the selection over every generation.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import pickle
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .. import __version__
from ..core.errors import SpadesError
from ..core.files import MAX_TEXT_BYTES, read_regular
from ..core.limits import MAX_UNITS
from ..core.rules import Rules, build_rules
from ..core.seeding import check_seed
from ..core.strategies import parse_strategy
from ..game.plugins import check_plugins, plugin_sources_hash
from ..run.dataset import write_atomic
from ..run.locks import hold_lock
from .plugin_space import is_plugin_family
from .scoring import OBJECTIVES, generation_seed, holdout_seed, objective_score
from .space import SCALE, Space, build_space
from .workers import Workers, uses_search

SETTINGS = "settings.json"
STATE = "state.pkl"
LOCK = ".tune.lock"  # held by the tuning writing the folder
MAX_STATE_BYTES = 1 << 30
HISTORY = "history"
HOLDOUT = "holdout.json"
# CMA-ES's first step: a tenth of every parameter's range. A local search around the start: a
# quarter of the range (tried first) put most early candidates of the heuristic far below its
# defaults, and 8 generations of 8 then ended 66 points a board below the start under simple
# rules, while a tenth ended 37 above it in 20 (docs/tuning.md).
DEFAULT_SIGMA = 0.1 * SCALE


class TuneError(SpadesError):
    """A bad tuning request, or a tuning folder that holds another tuning."""


class Normal:
    """CMA-ES's source of standard normal numbers: a seeded NumPy generator (never the global
    one), pickled with the CMA-ES object so that a resumed search draws what an uninterrupted
    one would."""

    def __init__(self, seed: int):
        self.generator = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(3,)))

    def __call__(self, *shape):
        return self.generator.standard_normal(shape)


@dataclass
class TuneResult:
    """What a tuning found: the tuned spec (the CMA-ES mean), the start, the per-generation
    summaries, the held-out result per opponent and the folder holding the rest."""

    out: str
    family: str
    spec: str
    params: dict
    start: dict
    bounds: dict
    generations: int
    popsize: int
    history: list
    best: dict
    holdout: list
    settings: dict
    stop: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        """The result as JSON-safe data (``None`` for a missing interval)."""
        return _json_safe({"out": self.out, "family": self.family, "spec": self.spec,
                "params": self.params, "start": self.start, "bounds": self.bounds,
                "generations": self.generations, "popsize": self.popsize, "best": self.best,
                "holdout": self.holdout, "history": self.history, "stop": self.stop,
                "settings": self.settings})


def _json_safe(value):
    if isinstance(value, float) and value != value:
        return None
    if isinstance(value, dict):
        return {key: _json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(item) for item in value]
    return value


# -- files ----------------------------------------------------------------------------------
def atomic_write(path: Path, data: bytes | str) -> None:
    """Write ``path`` whole or not at all (``run.dataset.write_atomic``, which the runs' own
    metadata uses)."""
    payload = data.encode() if isinstance(data, str) else data
    write_atomic(Path(path), payload, str(os.getpid()))


def _check_settings(out: Path, settings: dict) -> None:
    """Write the settings into a new folder, or check them against the folder's."""
    path = out / SETTINGS
    if not path.exists():
        if out.exists() and any(not p.name.startswith(".") for p in out.iterdir()):
            raise TuneError(f"{out}: the folder holds other files and no {SETTINGS}; give an "
                            f"empty or new --out")
        out.mkdir(parents=True, exist_ok=True)
        atomic_write(path, json.dumps(settings, indent=2) + "\n")
        return
    try:
        saved = json.loads(read_regular(path, MAX_TEXT_BYTES, TuneError))
    except (OSError, ValueError, RecursionError) as error:
        raise TuneError(f"{path}: cannot be read ({error}); not a tuning folder")
    if saved != settings:
        keys = [key for key in sorted(set(saved) | set(settings))
                if saved.get(key) != settings.get(key)]
        key = keys[0]
        raise TuneError(f"{out} holds a tuning with other settings ({key}: "
                        f"{json.dumps(saved.get(key))} there, {json.dumps(settings.get(key))} "
                        f"here); give another --out or the same settings")


#: What a saved state holds: its keys and their types (``es``: a CMA-ES object).
_STATE_KEYS = {"generation": int, "records": list, "summaries": list, "stop": dict}


def _load_state(out: Path):
    path = out / STATE
    if not os.path.lexists(path):
        return None
    try:
        state = pickle.loads(read_regular(path, MAX_STATE_BYTES, TuneError))
    except TuneError:
        raise
    except Exception as error:  # a state written by a very different version, or damaged
        raise TuneError(f"{path}: cannot be read ({type(error).__name__}: {error}); remove the "
                        f"folder to start again")
    problem = _state_problem(state)
    if problem:
        raise TuneError(f"{path}: not a tuning state ({problem}); remove the folder to start "
                        f"again")
    return state


def _state_problem(state) -> str | None:
    """What is wrong with the shape of an unpickled state (None when nothing)."""
    import cma

    if not isinstance(state, dict):
        return f"a {type(state).__name__}, not a dict"
    for key, kind in _STATE_KEYS.items():
        if key not in state:
            return f"no {key!r}"
        if not isinstance(state[key], kind) or isinstance(state[key], bool):
            return f"{key!r} is a {type(state[key]).__name__}, not a {kind.__name__}"
    if state["generation"] < 0:
        return "a negative generation"
    if not isinstance(state.get("es"), cma.CMAEvolutionStrategy):
        return "no CMA-ES object under 'es'"
    if len(state["summaries"]) < min(state["generation"], 1):
        return "fewer summaries than generations"
    return None


def _write_history(out: Path, records: list, space: Space, opponents: list[str]) -> None:
    lines = "".join(json.dumps(record) + "\n" for record in records)
    atomic_write(out / f"{HISTORY}.jsonl", lines)
    header = ["generation", "candidate", "score", *space.names,
              *[f"vs {opponent}" for opponent in opponents]]
    rows = [",".join(_csv(h) for h in header)]
    for record in records:
        values = [record["generation"], record["candidate"], record["score"],
                  *[record["params"][name] for name in space.names],
                  *[record["against"][opponent] for opponent in opponents]]
        rows.append(",".join(_csv(value) for value in values))
    atomic_write(out / f"{HISTORY}.csv", "\n".join(rows) + "\n")


def _csv(value) -> str:
    text = repr(value) if isinstance(value, float) else str(value)
    return f'"{text}"' if any(c in text for c in ',"\n') and not text.startswith('"') \
        else text.replace('"', '""')


# -- settings -------------------------------------------------------------------------------
def _count(name: str, value, low: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) \
            or not low <= value <= MAX_UNITS:
        raise TuneError(f"{name}: {value!r} is not an integer from {low} to {MAX_UNITS:,}")
    return int(value)


def default_popsize(dimensions: int) -> int:
    """CMA-ES's own default population for ``dimensions`` parameters: 4 + 3 ln N."""
    return 4 + int(3 * math.log(dimensions))


def default_out(settings: dict) -> Path:
    """``results/tune-FAMILY-RULES-sSEED-HASH``, the hash over every setting (a plug-in's
    FAMILY is its class name)."""
    tag = hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:8]
    rules = settings["rules"] if isinstance(settings["rules"], str) \
        else settings["rules"]["preset"]
    family = settings["family"]
    if is_plugin_family(family):
        family = family.split(":")[1].strip()
    return Path("results") / f"tune-{family}-{rules}-s{settings['seed']}-{tag}"


def _rules(rules, overrides) -> Rules:
    if isinstance(rules, Rules):
        if overrides:
            raise TuneError("rule overrides go with a preset name, not with a Rules object")
        return rules
    return build_rules(rules, list(overrides))


def _opponents(against) -> list:
    if isinstance(against, str) or not hasattr(against, "__iter__"):
        against = [against]
    opponents = [parse_strategy(spec) for spec in against]
    if not opponents:
        raise TuneError("give at least one opponent (--against SPEC)")
    specs = [str(opponent) for opponent in opponents]
    twice = sorted({spec for spec in specs if specs.count(spec) > 1})
    if twice:
        raise TuneError(f"--against {twice[0]} is given twice")
    check_plugins(opponents)
    return opponents


# -- the search -----------------------------------------------------------------------------
def tune(family: str, rules: Rules | str = "classic", *, against, rule_overrides=(),
         params=None, start=None, generations: int = 20, popsize: int | None = None,
         boards: int = 200, holdout_boards: int = 20_000, seed: int = 0,
         sigma: float = DEFAULT_SIGMA, objective: str = "mean", jobs: int = 1,
         backend: str = "loky", scheduler: str | None = None, out=None,
         quiet: bool = True) -> TuneResult:
    """Tune the parameters of ``family`` (a built-in kind or preset, or a plug-in's
    ``SOURCE:CLASS``: ``plugin_space.py``) with CMA-ES.

    ``rules``: a preset name (with ``rule_overrides``, ``"field=value"`` texts) or a Rules;
    ``against``: one opponent spec or several (built-in names, presets, plug-ins);
    ``objective``: ``"mean"`` (the mean over the opponents of the mean difference per board)
    or ``"worst"`` (the lowest of them);
    ``params``: ``NAME`` or ``NAME=LOW:HIGH`` texts (default: the kind's default set,
    ``space.DEFAULT_PARAMS``); ``start``: the starting strategy (default the family);
    ``generations``: the budget (a rerun with more continues); ``popsize``: candidates per
    generation (default CMA-ES's, 4 + 3 ln N); ``boards``: boards per candidate and
    opponent; ``holdout_boards``: boards of the held-out evaluation; ``seed``: everything
    derives from it; ``sigma``: CMA-ES's first step on the box where every parameter's
    range is ``[0, 10]`` (default 1: a tenth of the range); ``jobs``/``backend``/
    ``scheduler``: where the games are played (the numbers never depend on it); ``out``: the
    folder (default under ``results/``); ``quiet``: no progress lines on stderr.
    """
    rules_obj = _rules(rules, rule_overrides)
    space = build_space(family, params, start, rules_obj)
    opponents = _opponents(against)
    generations = _count("generations", generations)
    boards = _count("boards", boards)
    holdout_boards = _count("holdout_boards", holdout_boards)
    popsize = default_popsize(len(space.dimensions)) if popsize is None \
        else _count("popsize", popsize, low=2)
    seed = check_seed(seed)
    if not isinstance(sigma, (int, float)) or not 0 < sigma <= SCALE:
        raise TuneError(f"sigma {sigma!r}: expected a number in (0, {SCALE:g}]")
    if objective not in OBJECTIVES:
        raise TuneError(f"objective {objective!r}: expected one of {', '.join(OBJECTIVES)}")
    settings = {
        "family": family, "start": space.start.spec(), "rules": rules_obj.to_spec(),
        "players": rules_obj.players,
        "params": [dimension.to_dict() for dimension in space.dimensions],
        "against": [str(opponent) for opponent in opponents], "popsize": popsize,
        "boards": boards, "holdout_boards": holdout_boards, "seed": seed,
        "sigma": float(sigma), "objective": OBJECTIVES[objective], "tuned": "cma-es mean",
    }
    sources = plugin_sources_hash([space.start, *opponents])
    if sources:  # a plug-in's code is part of what was asked: a rerun after an edit is refused
        settings["sources"] = sources
    out = Path(out) if out is not None else default_out(settings)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise TuneError(f"{out}: cannot create the tuning folder ({error.strerror or error})")
    with hold_lock(out / LOCK, f"{out} (a tuning)"):  # one tuning writes a folder at a time
        return _tune_locked(out, settings, space, opponents, rules_obj, generations, popsize,
                            boards, holdout_boards, seed, sigma, objective, jobs, backend,
                            scheduler, quiet)


def _tune_locked(out, settings, space, opponents, rules_obj, generations, popsize, boards,
                 holdout_boards, seed, sigma, objective, jobs, backend, scheduler,
                 quiet) -> TuneResult:
    import cma

    search = uses_search([space.start, *opponents])
    workers = Workers(jobs, backend, scheduler, search)  # (a scheduler is reached first)
    try:
        _check_settings(out, settings)
        state = _load_state(out)
        if state is not None and state["generation"] > generations:
            raise TuneError(f"{out} holds {state['generation']} generations, more than "
                            f"generations={generations}; ask for {state['generation']} or "
                            f"more")
    except BaseException:
        workers.close()
        raise
    if state is None:
        options = {"popsize": popsize, "bounds": [0.0, SCALE], "seed": float("nan"),
                   "randn": Normal(seed), "verbose": -9, "verb_log": 0, "verb_disp": 0,
                   "verb_filenameprefix": str(out / ".cma-")}
        es = cma.CMAEvolutionStrategy(space.encode(space.start), float(sigma), options)
        state = {"version": __version__, "generation": 0, "es": es, "records": [],
                 "summaries": [], "stop": {}}
    names = settings["against"]
    with workers:
        while state["generation"] < generations and not state["stop"]:
            _generation(state, space, opponents, names, rules_obj, seed, boards, workers,
                        objective)
            atomic_write(out / STATE, pickle.dumps(state))
            _write_history(out, state["records"], space, names)
            if not quiet:
                _progress(state["summaries"][-1], generations)
        _write_history(out, state["records"], space, names)  # (a kill may have left it behind)
        tuned = space.decode(state["es"].mean)
        holdout = _holdout(out, state, tuned, opponents, rules_obj, seed, holdout_boards,
                           workers)
    from .output import write_outputs

    result = _result(out, space, state, tuned, holdout, settings, popsize)
    write_outputs(result, rules_obj)
    return result


def _generation(state, space, opponents, names, rules, seed, boards, workers,
                objective) -> None:
    """Play one generation and tell CMA-ES (the state is changed in place)."""
    started = time.perf_counter()
    generation = state["generation"]
    es = state["es"]
    points = es.ask()
    candidates = [space.decode(point) for point in points]
    board_seed = generation_seed(seed, generation)
    pairs = [(candidate, opponent) for candidate in candidates for opponent in opponents]
    diffs = workers.differences(pairs, rules, board_seed, boards)
    scores = []
    for index, candidate in enumerate(candidates):
        against = {name: float(diffs[index * len(opponents) + j].mean())
                   for j, name in enumerate(names)}
        score = objective_score(against, objective)
        scores.append(score)
        state["records"].append({"generation": generation, "candidate": index,
                                 "score": score, "params": space.values(points[index]),
                                 "spec": candidate.spec(), "against": against,
                                 "seed": str(board_seed)})
    es.tell(points, [-score for score in scores])
    state["generation"] = generation + 1
    best = int(np.argmax(scores))
    state["summaries"].append({
        "generation": generation, "best": scores[best], "mean": float(np.mean(scores)),
        "best_spec": candidates[best].spec(), "sigma": float(es.sigma),
        "seconds": time.perf_counter() - started, "seed": str(board_seed),
    })
    stop = {key: value for key, value in es.stop().items()
            if key not in ("maxiter", "maxfevals")}
    state["stop"] = {key: str(value) for key, value in stop.items()}


def _progress(summary: dict, generations: int) -> None:
    print(f"spades-sim tune: generation {summary['generation'] + 1}/{generations}: best "
          f"{summary['best']:+.2f}, mean {summary['mean']:+.2f}, sigma {summary['sigma']:.3f}, "
          f"{summary['seconds']:.1f} s", file=sys.stderr, flush=True)


def _holdout(out: Path, state, tuned, opponents, rules, seed, n_boards, workers) -> list:
    """The tuned strategy against each opponent on the held-out boards (kept in holdout.json
    for the generation count and spec it was played for, so a rerun does not play it again)."""
    from ..evaluate.match import paired_interval

    path = out / HOLDOUT
    key = {"generation": state["generation"], "spec": tuned.spec(), "boards": n_boards}
    if os.path.lexists(path):
        try:
            saved = json.loads(read_regular(path, MAX_TEXT_BYTES, TuneError))
        except (OSError, ValueError, RecursionError) as error:
            raise TuneError(f"{path}: cannot be read ({error}); remove it to play the held-out "
                            f"boards again")
        if isinstance(saved, dict) and saved.get("key") == key:
            return saved["results"]
    board_seed = holdout_seed(seed)
    diffs = workers.differences([(tuned, opponent) for opponent in opponents], rules,
                                board_seed, n_boards)
    results = []
    for opponent, values in zip(opponents, diffs, strict=True):
        mean, low, high = paired_interval(values)
        results.append({"against": str(opponent), "boards": n_boards, "seed": str(board_seed),
                        "first_board": 0, "mean_diff": mean, "ci95": [low, high],
                        "sd_diff": float(values.std(ddof=1)) if len(values) > 1 else None,
                        "boards_won": int((values > 0).sum()),
                        "boards_lost": int((values < 0).sum())})
    atomic_write(path, json.dumps({"key": key, "results": results}, indent=2) + "\n")
    return results


def _result(out, space, state, tuned, holdout, settings, popsize) -> TuneResult:
    records = state["records"]
    best = max(records, key=lambda record: record["score"]) if records else {}
    return TuneResult(
        out=str(out), family=space.family, spec=tuned.spec(),
        params={name: tuned.params[name] for name in space.names},
        start={name: space.start.params[name] for name in space.names},
        bounds={d.name: [d.low, d.high] for d in space.dimensions},
        generations=state["generation"], popsize=popsize, history=state["summaries"],
        best={key: best[key] for key in ("generation", "candidate", "score", "spec")}
        if best else {},
        holdout=holdout, settings=settings, stop=state["stop"],
    )

