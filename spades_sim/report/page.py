"""The report of an experiment: one self-contained HTML page per experiment, read top to bottom.

``build_report(results_dir)`` reads the saved runs of an experiment (``spades-sim run`` writes
them: ``experiment.toml``, ``hands/``, ``games/``) and writes ``reports/<name>/``: ``index.html``
(the question, the setup, key findings with intervals, one section per analysis, the runs'
metadata), one PNG per figure and one CSV per table beside it. Every link is relative, the CSS is
inline: the folder opens from disk and can be copied anywhere. The folder is built under a
temporary name and swapped in whole, so an interrupted build never leaves a half-written report.

Sections are table-driven: ``model.SECTIONS`` maps an analysis name (the ``analyses`` list of an
experiment file) to a title, a short definition and a builder ``build(ctx, section)`` that adds
tables, figures and findings to its :class:`Section` from the analysis functions. A new analysis
is one :func:`~spades_sim.report.model.section` entry in ``sections.py`` (and its name in
``experiment.ANALYSES``).
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from ..core.errors import RunError
from ..experiment import (
    EXPERIMENT_COPY,
    TOURNAMENT_DIR,
    Experiment,
    load_results_experiment,
    rule_text,
)
from ..run import read_meta, run_status
from . import sections  # noqa: F401  (registers the section builders)
from .model import SECTIONS, Context, Section


def setup_rows(experiment: Experiment) -> list[dict]:
    """One row per configuration: name, players, preset, overrides, strategies per seat."""
    rows = []
    for config, source in zip(experiment.configs, experiment.sources):
        specs = [s.spec() for s in config.strategies]
        if len(set(specs)) == 1:
            seats = f"{specs[0]} (every seat)"
        else:
            seats = "; ".join(f"seat {seat}: {spec}" for seat, spec in enumerate(specs))
        overrides = ", ".join(f"{k}={rule_text(v)}" for k, v in source.overrides.items())
        rows.append({"name": config.name, "players": config.rules.players,
                     "rules": source.preset, "overrides": overrides or "–",
                     "strategies": seats})
    return rows


def run_metadata(ctx: Context) -> list[dict]:
    """One entry per run (hands, games): identity, versions, commit, created, completeness."""
    runs = []
    for mode in ctx.experiment.modes:
        meta = read_meta(ctx.results / mode)
        identity = meta["identity"]
        status = run_status(ctx.results / mode)
        runs.append({
            "mode": mode, "dir": f"{mode}/",
            "items": [
                ("units", f"{identity['units']:,} {identity['unit']}"),
                ("seed", str(identity["seed"])),
                ("chunk size", f"{identity['chunk_size']:,}"),
                ("duplicate", "yes" if identity["duplicate"] else "no"),
                ("engine hash", identity["engine"]),
                ("commit", meta.get("commit") or "unknown"),
                ("created", meta.get("created", "")),
                ("versions", ", ".join(f"{k} {v}" for k, v in meta.get("versions", {}).items())),
                ("complete", "yes" if status["complete"] else
                 f"no: {status['units_done']:,} of {status['units']:,} {status['unit']} "
                 f"(re-run spades-sim run to finish)"),
            ],
        })
    spec = ctx.experiment.tournament
    if spec is not None:
        result = ctx.tournament()
        folders = [Path(m.out) for m in result.matches if m.out]
        meta = read_meta(ctx.results / TOURNAMENT_DIR / folders[0].name) if folders else {}
        done = all(run_status(ctx.results / TOURNAMENT_DIR / f.name)["complete"]
                   for f in folders)
        runs.append({
            "mode": "tournament", "dir": f"{TOURNAMENT_DIR}/",
            "items": [
                ("units", f"{spec.n:,} boards x 2 {spec.unit} in each of {len(result.matches)} "
                          f"matches ({len(spec.strategies)} strategies)"),
                ("rules", spec.rules_text),
                ("seed", str(ctx.experiment.seed)),
                ("chunk size", f"{spec.chunk_size:,}"),
                ("engine hash", meta.get("identity", {}).get("engine", "unknown")),
                ("commit", meta.get("commit") or "unknown"),
                ("created", meta.get("created", "")),
                ("complete", "yes" if done else "no (re-run spades-sim run to finish)"),
            ],
        })
    return runs


def _environment():
    from jinja2 import Environment, PackageLoader, select_autoescape

    return Environment(loader=PackageLoader("spades_sim.report", "templates"),
                       autoescape=select_autoescape(["html", "j2"]), trim_blocks=True,
                       lstrip_blocks=True, keep_trailing_newline=True)


def build_report(results_dir, reports_root="reports") -> Path:
    """Build ``<reports_root>/<name>/`` from an experiment's results folder; returns the path of
    its ``index.html``. The folder is written under a temporary name and swapped in whole."""
    results = Path(results_dir)
    experiment = load_results_experiment(results)
    for mode in experiment.modes:
        if not (results / mode / "meta.json").exists():
            raise RunError(f"{results / mode}: no run here; run the experiment first "
                           f"(spades-sim run {experiment.name}.toml)")
    if experiment.tournament is not None and \
            not (results / TOURNAMENT_DIR / "tournament.json").exists():
        raise RunError(f"{results / TOURNAMENT_DIR}: no finished tournament here; run the "
                       f"experiment first (spades-sim run {experiment.name}.toml)")
    final = Path(reports_root) / experiment.name
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = final.parent / f".{experiment.name}.tmp-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        ctx = Context(experiment, results, tmp)
        sections = []
        for name in experiment.analyses:
            spec = SECTIONS[name]
            built = Section(name, spec.title, spec.about)
            spec.build(ctx, built)
            sections.append(built)
        (tmp / EXPERIMENT_COPY).write_text(experiment.text, encoding="utf-8")
        page = _environment().get_template("report.html.j2").render(
            experiment=experiment, sections=sections, setup=setup_rows(experiment),
            runs=run_metadata(ctx), experiment_file=EXPERIMENT_COPY,
            sizes=_sizes(experiment),
            generated=time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()))
        (tmp / "index.html").write_text(page, encoding="utf-8")
        _swap_in(tmp, final)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return final / "index.html"


def _sizes(experiment: Experiment) -> list[tuple[str, str]]:
    sizes = [("seed", str(experiment.seed))]
    if experiment.hands:
        sizes.append(("hands", f"{experiment.hands:,} independent hands per configuration, "
                               f"chunks of {experiment.chunk_size:,}"))
    if experiment.games:
        sizes.append(("games", f"{experiment.games:,} whole games per configuration, chunks "
                               f"of {experiment.games_chunk_size:,}"))
    if experiment.modes:
        sizes.append(("duplicate", "yes: every deal also played with the partnerships' seats "
                                   "swapped" if experiment.duplicate else "no"))
    spec = experiment.tournament
    if spec is not None:
        rules = spec.rules_text
        sizes.append(("tournament", f"round robin of {', '.join(spec.names)} under "
                                    f"{rules}: {spec.n:,} duplicate boards ({2 * spec.n:,} "
                                    f"{spec.unit}) per pair"))
    return sizes


def _swap_in(tmp: Path, final: Path) -> None:
    """Replace ``final`` by the finished folder ``tmp`` (the old folder is renamed away first,
    so ``final`` is only ever absent for an instant, never half-written)."""
    old = final.parent / f".{final.name}.old-{os.getpid()}"
    if final.exists():
        os.replace(final, old)
    os.replace(tmp, final)
    shutil.rmtree(old, ignore_errors=True)
