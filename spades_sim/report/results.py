"""What an experiment's results folder holds, as its runs say.

The report describes the runs it reads, not the file that asked for them: each run folder's
``meta.json`` identity (seed, size, chunk size, duplicate mode, every configuration with its
rules and strategies) and the tournament's ``tournament.json`` are what the setup table shows.
The folder's copy of the experiment file (``experiment.toml``) still gives the title, the
question and the analyses; a copy that contradicts the runs (a size, a seed, a configuration's
rules or strategies edited, a configuration renamed) is refused with one line that names what
differs, and so is a run folder with unreadable metadata or no finished chunk at all.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import RunError, SpadesError
from ..evaluate import load_tournament
from ..experiment import EXPERIMENT_COPY, TOURNAMENT_DIR, Experiment, rule_text
from ..experiment.counterfactual import is_number_line
from ..run import RunSpec, read_meta, run_status
from ..run.dataset import META


@dataclass(frozen=True)
class TournamentSaid:
    """The tournament as ``tournament.json`` and its first match's ``meta.json`` say."""

    strategies: tuple[str, ...]
    preset: str
    overrides: dict
    unit: str
    n: int
    seed: int
    chunk_size: int | None
    result: object  # evaluate.TournamentResult
    folder: str = TOURNAMENT_DIR  # its folder in the results dir

    @property
    def rules_text(self) -> str:
        return rules_text(self.preset, self.overrides)


@dataclass(frozen=True)
class Results:
    """An experiment's results folder: the experiment as the runs say (its configurations
    replaced by the runs' own), each run's spec and the tournament."""

    experiment: Experiment
    runs: dict  # mode -> RunSpec, from the run's meta.json
    status: dict  # mode -> run.run_status of the run folder
    tournament: TournamentSaid | None  # the first round robin of the [tournament]
    tournaments: tuple = ()  # every round robin of it (one per mode given), as saved


def rules_text(preset: str, overrides: dict) -> str:
    """``classic, target=300``."""
    return ", ".join([preset] + [f"{k}={rule_text(v)}" for k, v in overrides.items()])


def read_results(results, experiment: Experiment) -> Results:
    """Read the runs of ``experiment`` in the folder ``results`` and check the experiment file
    against them (see the module docstring); :class:`RunError` when they disagree."""
    results = Path(results)
    copy = results / EXPERIMENT_COPY
    runs, statuses = {}, {}
    for mode in experiment.modes:
        folder = results / mode
        if not (folder / META).exists():
            raise RunError(f"{folder}: no run here; run the experiment first "
                           f"(spades-sim run {experiment.name}.toml)")
        spec = run_spec(folder)
        differences = run_differences(experiment, mode, spec)
        if differences:
            raise RunError(f"{folder} holds another run than {copy} describes (it differs in "
                           f"{'; '.join(differences)}); the report reads the runs: restore the "
                           f"file, or run it into another folder")
        status = run_status(folder)  # reads every chunk once (the report shows it)
        if status["done"] == 0:
            corrupt = len(status["corrupt"])
            raise RunError(f"{folder}: no finished chunk (0 of {status['chunks']}"
                           + (f"; {corrupt} corrupt or unfinished" if corrupt else "")
                           + "); run the experiment again to play them")
        runs[mode], statuses[mode] = spec, status
    tournaments = tuple(read_tournament(results, experiment, spec)
                        for spec in experiment.tournaments)
    tournament = tournaments[0] if tournaments else None
    if runs:  # every run holds the same configurations: the file's, as the runs say (the
        # hands run also holds the number lines of nil_counterfactual: not configurations)
        configs = tuple(c for c in next(iter(runs.values())).configs
                        if not is_number_line(c.name))
        experiment = dataclasses.replace(experiment, configs=configs)
    return Results(experiment, runs, statuses, tournament, tournaments)


def run_spec(folder: Path) -> RunSpec:
    """The spec a run folder's ``meta.json`` records; :class:`RunError` when unreadable."""
    meta = read_meta(folder)
    try:
        return RunSpec.from_identity(meta["identity"], meta["size"]["units"])
    except SpadesError as error:
        raise RunError(f"{folder / META}: unreadable run metadata ({error})")
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        what = f"no {error}" if isinstance(error, KeyError) else str(error) or "bad values"
        raise RunError(f"{folder / META}: unreadable run metadata ({what})")


def run_differences(experiment: Experiment, mode: str, run: RunSpec) -> list[str]:
    """What the experiment file says of its ``mode`` run that the run does not: one phrase per
    difference, such as ``hands: 400 in the file, 300 in the run``."""
    said = experiment.spec(mode)
    chunk_key = "chunk_size" if mode == "hands" else "games_chunk_size"
    differences = [
        f"{label}: {mine} in the file, {theirs} in the run"
        for label, mine, theirs in (("seed", said.seed, run.seed),
                                    (mode, said.units, run.units),
                                    (chunk_key, said.chunk_size, run.chunk_size),
                                    ("duplicate", _bool(said.duplicate), _bool(run.duplicate)),
                                    ("par", _bool(said.par), _bool(run.par)))
        if mine != theirs]
    if said.unit_name != run.unit_name:
        differences.insert(0, f"unit: {said.unit_name} in the file, {run.unit_name} in the run")
    mine = {config.name: config for config in said.configs}
    theirs = {config.name: config for config in run.configs}
    only_file = [name for name in mine if name not in theirs]
    only_run = [name for name in theirs if name not in mine]
    if only_file or only_run:
        differences.append(f"configurations: {_names(only_file)} in the file only, "
                           f"{_names(only_run)} in the run only")
        return differences
    if list(mine) != list(theirs):
        differences.append(f"the order of the configurations: {', '.join(mine)} in the file, "
                           f"{', '.join(theirs)} in the run")
    for name, config in mine.items():
        other = theirs[name]
        if config.rules != other.rules:
            differences.append(
                f"config \"{name}\" rules: "
                f"{rules_text(config.rules.preset_name, config.rules.overrides())} in the file, "
                f"{rules_text(other.rules.preset_name, other.rules.overrides())} in the run")
        specs, other_specs = _specs(config), _specs(other)
        if specs != other_specs:
            differences.append(f"config \"{name}\" strategies: {specs} in the file, "
                               f"{other_specs} in the run")
    return differences


def read_tournament(results: Path, experiment: Experiment, spec=None) -> TournamentSaid:
    """The experiment's round robin ``spec`` (by default its first) as its saved summary says,
    checked against the file."""
    spec = experiment.tournament if spec is None else spec
    folder = results / spec.folder
    if not (folder / "tournament.json").exists():
        raise RunError(f"{folder}: no finished tournament here; run the experiment first "
                       f"(spades-sim run {experiment.name}.toml)")
    result = load_tournament(folder)
    try:
        overrides = dict(result.matches[0].rule_overrides) if result.matches else {}
    except (TypeError, ValueError):
        raise RunError(f"{folder / 'tournament.json'}: unreadable tournament summary")
    chunk = None
    if result.matches and result.matches[0].out:
        first = folder / Path(result.matches[0].out).name
        if (first / META).exists():
            chunk = run_spec(first).chunk_size
    said = TournamentSaid(tuple(result.strategies), result.rules, overrides, result.unit,
                          result.n, result.seed, chunk, result, spec.folder)
    differences = [
        f"{label}: {mine} in the file, {theirs} in {where}"
        for label, mine, theirs, where in (
            ("strategies", ", ".join(spec.names), ", ".join(said.strategies), "tournament.json"),
            ("rules", spec.rules_text, said.rules_text, "tournament.json"),
            ("unit", spec.unit, said.unit, "tournament.json"),
            (spec.unit, spec.n, said.n, "tournament.json"),
            ("seed", experiment.seed, said.seed, "tournament.json"),
            ("chunk_size", spec.chunk_size, said.chunk_size, "the matches' meta.json"))
        if mine != theirs and not (label == "chunk_size" and theirs is None)
        and not (label == spec.unit and spec.unit != said.unit)]
    if differences:
        raise RunError(f"{folder}: holds another tournament than {results / EXPERIMENT_COPY} "
                       f"describes (it differs in {'; '.join(differences)}); the report reads "
                       f"the runs: restore the file, or run it into another folder")
    return said


def _specs(config) -> str:
    specs = [strategy.spec() for strategy in config.strategies]
    return specs[0] if len(set(specs)) == 1 else " / ".join(specs)


def _names(names) -> str:
    return ", ".join(f"\"{name}\"" for name in names) or "none"


def _bool(value: bool) -> str:
    return "true" if value else "false"

