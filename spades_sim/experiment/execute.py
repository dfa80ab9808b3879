"""Playing an experiment: its runs (hands and/or games, on the same deals) and its tournament,
into its results folder, resumable, whole or as one shard of an array job; how far its runs
are (``results_status``); and reading back which experiment a folder holds.
"""

from __future__ import annotations

import json
import os
import uuid
from contextlib import ExitStack
from pathlib import Path

from ..core.errors import ExperimentError, RunError
from ..core.files import MAX_TEXT_BYTES, read_regular
from ..evaluate import match_spec, tournament, tournament_pairs
from ..evaluate.tournament import SUMMARY
from ..run import RunSpec, execute, run_status
from ..run.dataset import META, check_dir, open_run, prepare_dir
from ..run.locks import claim_share
from ..run.memory import spec_acceptance
from .model import EXPERIMENT_COPY, Experiment
from .parse import load_experiment


def default_results_dir(experiment: Experiment) -> Path:
    return Path("results") / experiment.name


def experiment_runs(experiment: Experiment, out) -> list[tuple[str, RunSpec, Path]]:
    """``(name, spec, folder)`` of every run of the experiment in its results folder ``out``:
    ``hands``, ``games``, and ``tournament/<match>`` for each match of its tournament."""
    out = Path(out)
    runs = [(mode, experiment.spec(mode), out / mode) for mode in experiment.modes]
    for round_robin in experiment.tournaments:
        strategies = round_robin.strategies
        for i, j, where in tournament_pairs(round_robin.names, out / round_robin.folder):
            runs.append((f"{round_robin.folder}/{where.name}",
                         match_spec(strategies[i], strategies[j], round_robin.rules,
                                    seed=experiment.seed, **round_robin.sizes()), where))
    return runs


def run_experiment(experiment: Experiment | str | Path, out=None, *, jobs: int = 1,
                   backend: str = "loky", scheduler: str | None = None, quiet: bool = False,
                   shard: tuple[int, int] | None = None) -> dict:
    """Play the experiment's runs (an :class:`Experiment`, or the path of an experiment file)
    into ``out`` (``results/<name>`` by default): ``out/hands``
    and/or ``out/games``, resumable; a directory holding a different run is refused before
    anything is played (a run of another size is the same run: it grows, or is read at the
    smaller size). The experiment file is copied to ``out/experiment.toml``. Returns
    ``{mode: runner summary}``.

    With ``shard`` ``(I, N)``: only the I-th of N shares of the chunks of every run (the
    tournament's matches included), for array jobs; the tournament is then not scored
    (``finish_results`` does it once every shard is in)."""
    if not isinstance(experiment, Experiment):
        experiment = load_experiment(experiment)
    out = Path(out) if out is not None else default_results_dir(experiment)
    runs = experiment_runs(experiment, out)
    for _, spec, _ in runs:  # (a deal filter's acceptance goes into meta.json, written below)
        if spec.deal_filter is not None:
            spec.extra.setdefault("deal_filter", spec_acceptance(spec))
    # Refuse any different run before writing or playing anything (check_dir writes nothing),
    # then hold every run's writer lock before writing its meta.json or the experiment's
    # copy: a second `run` refused because the first holds them has changed nothing.
    for _, spec, folder in runs:
        check_dir(spec, folder)
    with ExitStack() as held:
        for _, spec, folder in runs:
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise RunError(f"{folder}: cannot create the run folder ({error.strerror})")
            held.enter_context(claim_share(folder, spec, shard, share=True))
        for _, spec, folder in runs:
            prepare_dir(spec, folder, shard)
        _write_text_atomic(out / EXPERIMENT_COPY, experiment.text)
        return _play_experiment(experiment, out, runs, jobs=jobs, backend=backend,
                                scheduler=scheduler, quiet=quiet, shard=shard)


def _play_experiment(experiment, out, runs, *, jobs, backend, scheduler, quiet, shard) -> dict:
    summaries = {}
    for name, spec, folder in runs:
        if name in experiment.modes:
            summaries[name] = execute(spec, folder, jobs=jobs, backend=backend,
                                      scheduler=scheduler, quiet=quiet, shard=shard)
    for round_robin in experiment.tournaments:
        if shard is not None:
            matches = [execute(spec, folder, jobs=jobs, backend=backend, scheduler=scheduler,
                               quiet=quiet, shard=shard)
                       for name, spec, folder in runs
                       if name not in experiment.modes
                       and folder.parent == out / round_robin.folder]
            summaries[f"tournament {round_robin.unit}"] = {
                "out": str(out / round_robin.folder), **{
                    key: sum(m[key] for m in matches) for key in (
                        "played_chunks", "skipped_chunks", "units", "seconds")}}
        else:
            summaries[f"tournament {round_robin.unit}"] = _play_tournament(
                experiment, round_robin, out / round_robin.folder, jobs=jobs, backend=backend,
                scheduler=scheduler, quiet=quiet)
    return summaries


def _play_tournament(experiment: Experiment, spec, out: Path, **options) -> dict:
    """Play (or resume) one of the experiment's round robins (``spec``) into ``out``; a
    runner-like summary."""
    result = tournament(spec.strategies, spec.rules, seed=experiment.seed, out=out,
                        **spec.sizes(), **options)
    runs = [m.run for m in result.matches]
    return {"out": str(out), "played_chunks": sum(r["played_chunks"] for r in runs),
            "skipped_chunks": sum(r["skipped_chunks"] for r in runs),
            "units": sum(r["units"] for r in runs), "seconds": sum(r["seconds"] for r in runs)}


def results_status(out) -> dict:
    """How far the runs of the experiment in the results folder ``out`` are: ``runs``, one
    ``run.run_status`` per run (hands, games, each tournament match; with ``run``, its name),
    a run not started yet counted as every chunk missing; ``complete`` when all are."""
    out = Path(out)
    experiment = load_results_experiment(out)
    runs = []
    for name, spec, folder in experiment_runs(experiment, out):
        if (folder / META).exists():
            # same_run: whether the folder holds the run the file describes (at any size); a
            # folder of another run is the report's to refuse, naming what differs
            status = {**run_status(folder),
                      "same_run": open_run(folder)[1].identity() == spec.identity()}
        else:
            status = {"out": str(folder), "seed": spec.seed, "unit": spec.unit_name,
                      "units": spec.units, "units_done": 0, "chunk_size": spec.chunk_size,
                      "chunks": spec.n_chunks, "done": 0, "missing": list(range(spec.n_chunks)),
                      "corrupt": [], "problems": {}, "configs": [c.name for c in spec.configs],
                      "complete": False, "shards": None, "beyond": [], "same_run": True}
        runs.append({"run": name, **status})
    return {"out": str(out), "experiment": experiment.name, "runs": runs,
            "complete": all(run["complete"] for run in runs)}


def missing_text(status: dict) -> str:
    """What a run lacks, in one phrase: ``results/x/hands: 3 of 8 chunks missing (shards 2/4,
    4/4 not finished)``."""
    lacking = sorted(status["missing"] + status["corrupt"])
    text = f"{status['out']}: {len(lacking)} of {status['chunks']} chunks missing"
    if status["corrupt"]:
        text += f", {len(status['corrupt'])} of them corrupt or unfinished files"
    shards = status.get("shards")
    if shards is None:
        return text + " (not started)"
    if shards > 1:
        unfinished = sorted({chunk % shards + 1 for chunk in lacking})
        return text + f" (shards {', '.join(f'{i}/{shards}' for i in unfinished)} not finished)"
    return text + " (not finished: run the command again to resume)"


def finish_results(out) -> Experiment:
    """Check that every run of the experiment in ``out`` is complete (a one-line ``RunError``
    naming each incomplete run and its unfinished shards otherwise), and score its tournament
    into ``tournament/tournament.json`` when its shards were played apart (nothing is played
    again). Returns the experiment. A folder holding another run than the file describes is
    left to the report to refuse (``report.results``: it names what differs)."""
    out = Path(out)
    status = results_status(out)
    experiment = load_results_experiment(out)
    if not all(run["same_run"] for run in status["runs"]):
        return experiment  # the report refuses it, naming what differs
    if not status["complete"]:
        incomplete = [missing_text(run) for run in status["runs"] if not run["complete"]]
        raise RunError(f"{out}: not every run is complete, so no report yet: "
                       f"{'; '.join(incomplete)}; play the missing shards (or spades-sim run "
                       f"FILE --out {out}) and build the report again")
    for said in experiment.tournaments:
        if not _scored(out / said.folder, experiment, said):
            _play_tournament(experiment, said, out / said.folder, quiet=True)
    return experiment


def _scored(folder: Path, experiment: Experiment, said) -> bool:
    """Whether the tournament summary in ``folder`` is that of the experiment's round robin
    ``said`` at its size (a run that grew or was sharded has none yet, or an old one)."""
    try:
        data = json.loads(read_regular(folder / SUMMARY, MAX_TEXT_BYTES, RunError))
        return (data.get(said.unit) == said.n and data.get("seed") == experiment.seed
                and list(data.get("strategies", ())) == list(said.names))
    except (OSError, ValueError, TypeError, AttributeError, RecursionError, RunError):
        return False  # (then played again: the matches are read, not played, when done)


def load_results_experiment(results_dir) -> Experiment:
    """The experiment whose results ``results_dir`` holds (from its copy of the file)."""
    path = Path(results_dir) / EXPERIMENT_COPY
    if not path.exists():
        raise ExperimentError(f"{results_dir}: no {EXPERIMENT_COPY}; not the results folder of "
                              f"an experiment (spades-sim run FILE makes one)")
    try:  # (a FIFO or a device there would block the parser, or never end)
        read_regular(path, MAX_TEXT_BYTES, ExperimentError)
    except OSError as error:
        raise ExperimentError(f"{path}: unreadable ({error.strerror or error})")
    return load_experiment(path)


def _write_text_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        if read_regular(path, MAX_TEXT_BYTES, ExperimentError).decode("utf-8") == text:
            return  # the shards of an array job all copy the same file
    except (OSError, UnicodeDecodeError, ExperimentError):
        pass  # (replaced: a FIFO, a device or a directory there makes the rename fail)
    # a name of its own: shards on several machines may copy it at once (their pids may match)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
