"""Playing an experiment: its runs (hands and/or games, on the same deals) and its tournament,
into its results folder, resumable; and reading back which experiment a folder holds.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..core.errors import ExperimentError
from ..evaluate import match_spec, tournament, tournament_pairs
from ..run import execute
from ..run.dataset import META, prepare_dir
from .model import EXPERIMENT_COPY, TOURNAMENT_DIR, Experiment
from .parse import load_experiment


def default_results_dir(experiment: Experiment) -> Path:
    return Path("results") / experiment.name


def run_experiment(experiment: Experiment, out=None, *, jobs: int = 1, backend: str = "loky",
                   scheduler: str | None = None, quiet: bool = False) -> dict:
    """Play the experiment's runs into ``out`` (``results/<name>`` by default): ``out/hands``
    and/or ``out/games``, resumable; a directory holding a different run is refused before
    anything is played. The experiment file is copied to ``out/experiment.toml``. Returns
    ``{mode: runner summary}``."""
    out = Path(out) if out is not None else default_results_dir(experiment)
    specs = {mode: experiment.spec(mode) for mode in experiment.modes}
    folders = {mode: out / mode for mode in specs}
    tournament = experiment.tournament
    if tournament is not None:
        strategies = tournament.strategies
        for i, j, where in tournament_pairs(tournament.names, out / TOURNAMENT_DIR):
            specs[where.name] = match_spec(strategies[i], strategies[j], tournament.rules,
                                           seed=experiment.seed,
                                           **tournament.sizes())
            folders[where.name] = where
    # Refuse any different run before writing or playing anything: the folders that hold a
    # run first (prepare_dir only checks those), then the new ones get their meta.json.
    held = [name for name in specs if (folders[name] / META).exists()]
    for name in held + [name for name in specs if name not in held]:
        prepare_dir(specs[name], folders[name])
    _write_text_atomic(out / EXPERIMENT_COPY, experiment.text)
    summaries = {}
    for mode in experiment.modes:
        summaries[mode] = execute(specs[mode], folders[mode], jobs=jobs, backend=backend,
                                  scheduler=scheduler, quiet=quiet)
    if tournament is not None:
        summaries[f"tournament {tournament.unit}"] = _play_tournament(
            experiment, out / TOURNAMENT_DIR, jobs=jobs, backend=backend, scheduler=scheduler,
            quiet=quiet)
    return summaries


def _play_tournament(experiment: Experiment, out: Path, **options) -> dict:
    """Play (or resume) the experiment's tournament into ``out``; a runner-like summary."""
    spec = experiment.tournament
    result = tournament(spec.strategies, spec.rules, seed=experiment.seed, out=out,
                        **spec.sizes(), **options)
    runs = [m.run for m in result.matches]
    return {"out": str(out), "played_chunks": sum(r["played_chunks"] for r in runs),
            "skipped_chunks": sum(r["skipped_chunks"] for r in runs),
            "units": sum(r["units"] for r in runs), "seconds": sum(r["seconds"] for r in runs)}


def load_results_experiment(results_dir) -> Experiment:
    """The experiment whose results ``results_dir`` holds (from its copy of the file)."""
    path = Path(results_dir) / EXPERIMENT_COPY
    if not path.exists():
        raise ExperimentError(f"{results_dir}: no {EXPERIMENT_COPY}; not the results folder of "
                              f"an experiment (spades-sim run FILE makes one)")
    return load_experiment(path)


def _write_text_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
