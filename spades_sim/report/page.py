"""The report of an experiment: one self-contained HTML page per experiment, read top to bottom.

``build_report(results_dir)`` reads the saved runs of an experiment (``spades-sim run`` writes
them: ``experiment.toml``, ``hands/``, ``games/``) and writes ``reports/<name>/``: ``index.html``
(the question; the summary: the findings that matter most, ranked by practical size, and what
each configuration changes; one section per analysis; all findings ranked and with intervals;
the setup and the runs' metadata), one SVG per figure and one CSV per table beside
it. Every link is relative, the CSS is inline: the folder opens from disk and can be copied
anywhere. The folder is built under a temporary name and swapped in whole, so an interrupted
build never leaves a half-written report. The findings that test a difference are adjusted for
multiple comparisons as one family per report (``headline``).

Sections are table-driven: ``model.SECTIONS`` maps an analysis name (the ``analyses`` list of an
experiment file) to a title, a short definition and a builder ``build(ctx, section)`` that adds
tables, figures and findings to its :class:`Section` from the analysis functions. A new analysis
is one :func:`~spades_sim.report.model.section` entry in ``sections.py`` (and its name in
``experiment.ANALYSES``).
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pandas as pd

from ..analysis.metrics import ADJUSTMENTS
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
from .draw import ready
from .formatting import shared_deals
from .headline import (
    ADJUSTMENT,
    ALPHA,
    HEADERS,
    adjust_findings,
    headline,
    headline_rows_text,
)
from .model import SECTIONS, Context, Section
from .results import Results, read_results
from .summary import (
    GROUPS,
    SUMMARY_ROWS,
    configuration_changes,
    summary_estimates,
    summary_findings,
    summary_rows,
    summary_sentence,
)

HEADLINE_CSV = "headline.csv"
SUMMARY_CSV = "summary.csv"


def setup_rows(experiment: Experiment) -> list[dict]:
    """One row per configuration: name, players, preset, overrides, strategies per seat (from
    the configurations themselves: in a report, the runs' own)."""
    rows = []
    for config in experiment.configs:
        specs = [s.spec() for s in config.strategies]
        if len(set(specs)) == 1:
            seats = f"{specs[0]} (every seat)"
        else:
            seats = "; ".join(f"seat {seat}: {spec}" for seat, spec in enumerate(specs))
        overrides = ", ".join(f"{k}={rule_text(v)}" for k, v in config.rules.overrides().items())
        rows.append({"name": config.name, "players": config.rules.players,
                     "rules": config.rules.preset_name, "overrides": overrides or "–",
                     "strategies": seats})
    return rows


def _deal_filter_item(meta: dict) -> list[tuple]:
    """The run's deal filter and its acceptance rate per configuration (none without one)."""
    accepted = meta.get("deal_filter")
    if not isinstance(accepted, dict) or not isinstance(accepted.get("acceptance_rate"), dict):
        return []
    rates = ", ".join(f"{name} {rate:.2%}" for name, rate in accepted["acceptance_rate"].items())
    return [("deal filter", f"{accepted.get('filter', '')} (accepts {rates} of deals, measured "
                            f"on the first {accepted.get('measured_hands', 0):,} hands)")]


def run_metadata(ctx: Context, statuses: dict | None = None) -> list[dict]:
    """One entry per run (hands, games, the tournament): identity, versions, commit, created,
    completeness (``statuses``: the runs' ``run_status`` when already read)."""
    runs = []
    statuses = statuses or {}
    for mode in ctx.experiment.modes:
        meta = read_meta(ctx.results / mode)
        identity = meta["identity"]
        versions = meta.get("versions") if isinstance(meta.get("versions"), dict) else {}
        status = statuses.get(mode) or run_status(ctx.results / mode)
        runs.append({
            "mode": mode, "dir": f"{mode}/",
            "items": [
                ("units", f"{meta['size']['units']:,} {identity['unit']}"),
                ("seed", str(identity["seed"])),
                ("chunk size", f"{identity['chunk_size']:,}"),
                ("duplicate", "yes" if identity["duplicate"] else "no"),
                ("engine hash", identity.get("engine", "unknown")),
                ("commit", meta.get("commit") or "unknown"),
                ("created", meta.get("created", "")),
                ("versions", ", ".join(f"{k} {v}" for k, v in versions.items())),
                ("complete", "yes" if status["complete"] else
                 f"no: {status['units_done']:,} of {status['units']:,} {status['unit']} "
                 f"(re-run spades-sim run to finish)"),
                *_deal_filter_item(meta),
            ],
        })
    for said in ctx.tournaments_said:
        result = said.result
        folders = [Path(m.out) for m in result.matches if m.out]
        meta = read_meta(ctx.results / said.folder / folders[0].name) if folders else {}
        done = all(run_status(ctx.results / said.folder / f.name)["complete"]
                   for f in folders)
        chunk = f"{said.chunk_size:,}" if said.chunk_size is not None else "unknown"
        runs.append({
            "mode": ("tournament" if said.folder == TOURNAMENT_DIR
                     else f"tournament ({_UNIT_WORDS.get(said.unit, said.unit)})"),
            "dir": f"{said.folder}/",
            "items": [
                ("units", f"{said.n:,} boards x 2 {said.unit} in each of {len(result.matches)} "
                          f"matches ({len(said.strategies)} strategies)"),
                ("rules", said.rules_text),
                ("seed", str(said.seed)),
                ("chunk size", chunk),
                ("engine hash", meta.get("identity", {}).get("engine", "unknown")),
                ("commit", meta.get("commit") or "unknown"),
                ("created", meta.get("created", "")),
                ("complete", "yes" if done else "no (re-run spades-sim run to finish)"),
            ],
        })
    return runs


#: A round robin's mode in words (a [tournament] in both modes has a run of each).
_UNIT_WORDS = {"games": "whole games", "hands": "independent hands"}


def _environment():
    from jinja2 import Environment, PackageLoader, select_autoescape

    return Environment(loader=PackageLoader("spades_sim.report", "templates"),
                       autoescape=select_autoescape(["html", "j2"]), trim_blocks=True,
                       lstrip_blocks=True, keep_trailing_newline=True)


def build_report(results_dir, reports_root="reports", progress: bool = False) -> Path:
    """Build ``<reports_root>/<name>/`` from an experiment's results folder; returns the path of
    its ``index.html``. The folder is written under a temporary name and swapped in whole.
    ``progress``: one line on standard error as each section starts, and one at the end, with
    the seconds since the start (what ``spades-sim report`` prints without ``--quiet``)."""
    started = time.monotonic()

    def say(text: str) -> None:
        if progress:
            print(f"spades-sim: report: {text} ({time.monotonic() - started:.1f} s)",
                  file=sys.stderr, flush=True)

    results = Path(results_dir)
    saved = read_results(results, load_results_experiment(results))
    experiment = saved.experiment  # its configurations as the runs say
    final = Path(reports_root) / experiment.name
    try:
        _build(saved, experiment, results, final, say)
    except OSError as error:  # a full disk, a read-only folder: name what could not be written
        where = f" ({error.filename})" if error.filename else ""
        raise RunError(f"{final}: cannot write the report: {error.strerror or error}{where}")
    return final / "index.html"


def _build(saved: Results, experiment: Experiment, results: Path, final: Path, say) -> None:
    """Write the report into a temporary folder beside ``final`` and swap it in whole;
    ``say(text)``: a progress line."""
    final.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale(final)
    tmp = final.parent / f".{experiment.name}.tmp-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    drawing = _figure_processes() if _units(saved) >= FIGURE_PROCESSES_FROM else None
    try:
        ctx = Context(experiment, results, tmp, tournament=saved.tournament,
                      tournaments=saved.tournaments)
        ctx.drawing = drawing
        sections = []
        names = _analyses(saved)
        for name in names:  # (their per-configuration analyses: one pass for all sections)
            if SECTIONS[name].per_config is not None and ctx.experiment.modes:
                ctx.plan(ctx.any_mode(), SECTIONS[name].per_config(ctx))
        for number, name in enumerate(names, 1):
            say(f"section {number} of {len(names)}: {name}")
            spec = SECTIONS[name]
            built = Section(name, spec.title, spec.about)
            spec.build(ctx, built)
            sections.append(built)
        say("figures")
        ctx.finish_figures()
        findings = [f for built in sections for f in built.findings]
        family = adjust_findings(findings)
        top = headline(findings)
        if top:
            pd.DataFrame(top).drop(columns="digits").to_csv(
                tmp / HEADLINE_CSV, index=False, float_format="%.6g")
        ranked = {"rows": headline_rows_text(top), "headers": HEADERS, "family": family,
                  "method": ADJUSTMENTS[ADJUSTMENT], "csv": HEADLINE_CSV if top else None,
                  "left": max(0, family - len(top)), "alpha": ALPHA}
        chosen = summary_findings(findings, experiment)
        measured = summary_estimates(findings, SUMMARY_ROWS - len(chosen))
        if chosen or measured:
            pd.DataFrame(summary_rows(chosen + measured)).to_csv(
                tmp / SUMMARY_CSV, index=False, float_format="%.6g")
        summary = {"findings": [summary_sentence(f) for f in chosen],
                   "estimates": [summary_sentence(f) for f in measured], "most": SUMMARY_ROWS,
                   "groups": GROUPS, "family": family, "method": ADJUSTMENTS[ADJUSTMENT],
                   "csv": SUMMARY_CSV if chosen or measured else None,
                   "changes": configuration_changes(experiment),
                   # (a tournament alone has no configuration, so no baseline)
                   "baseline": experiment.baseline or (experiment.configs[0].name
                                                       if experiment.configs else None)}
        (tmp / EXPERIMENT_COPY).write_text(experiment.text, encoding="utf-8")
        page = _environment().get_template("report.html.j2").render(
            experiment=experiment, sections=sections, setup=setup_rows(experiment),
            deals=shared_deals(experiment.rules_by_config(), ctx.deal_shares),
            runs=run_metadata(ctx, saved.status), experiment_file=EXPERIMENT_COPY,
            sizes=_sizes(saved), headline=ranked, summary=summary,
            generated=time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()))
        (tmp / "index.html").write_text(page, encoding="utf-8")
        _swap_in(tmp, final)
        say(f"written {final}")
    finally:
        if drawing is not None:
            drawing.shutdown(wait=True, cancel_futures=True)
        shutil.rmtree(tmp, ignore_errors=True)


#: Processes that draw the figures while the analyses go on: matplotlib's SVG output costs
#: about two thirds of what the analyses of a large report cost, and a figure needs only its
#: small table. One keeps up with the analyses on two cores (a second added 300 MB and
#: nothing to the variants report's time).
FIGURE_PROCESSES = 1
#: Runs smaller than this (hands and games over all configurations) draw their figures here:
#: starting a process (about two seconds) would cost more than it saves.
FIGURE_PROCESSES_FROM = 200_000


def _units(saved: Results) -> int:
    """The hands and games of the runs, over all their configurations."""
    return sum(spec.units * len(spec.configs) for spec in saved.runs.values())


def _figure_processes():
    """A pool of fresh processes (spawned: nothing of this one's state but the arguments) that
    draw figures, started now so that they have loaded matplotlib by the first figure; None
    (figures drawn here) where a pool cannot be made or one core is all there is (then a
    worker would only take turns with this process)."""
    workers = FIGURE_PROCESSES
    if (os.cpu_count() or 1) < 2:
        return None
    try:
        pool = ProcessPoolExecutor(max_workers=workers,
                                   mp_context=multiprocessing.get_context("spawn"))
        for _ in range(workers):
            pool.submit(ready)
    except (OSError, NotImplementedError, ImportError):
        return None
    return pool


def _analyses(saved: Results) -> list[str]:
    """The sections of the report: the experiment's analyses, and "par" (bids against par)
    after ``bid_accuracy`` (or ``nil``) when its runs were played with par."""
    names = list(saved.experiment.analyses)
    par = any(spec.par for spec in saved.runs.values())
    after = [name for name in ("bid_accuracy", "nil") if name in names]
    if par and after and "par" not in names:
        names.insert(names.index(after[0]) + 1, "par")
    return names


def _sizes(saved: Results) -> list[tuple[str, str]]:
    """The seed and sizes of the runs, as the runs say."""
    experiment = saved.experiment
    sizes = [("seed", str(experiment.seed))]
    words = {"hands": "independent hands", "games": "whole games"}
    for mode, spec in saved.runs.items():
        sizes.append((mode, f"{spec.units:,} {words[mode]} per configuration, chunks of "
                            f"{spec.chunk_size:,}"))
    if saved.runs:
        duplicate = next(iter(saved.runs.values())).duplicate
        sizes.append(("duplicate", "yes: every deal also played with the partnerships' seats "
                                   "swapped" if duplicate else "no"))
        if any(spec.par for spec in saved.runs.values()):
            sizes.append(("par", "yes: every deal solved double dummy (the par columns)"))
    for said in saved.tournaments:
        sizes.append(("tournament", f"round robin of {', '.join(said.strategies)} under "
                                    f"{said.rules_text}: {said.n:,} duplicate boards "
                                    f"({2 * said.n:,} {said.unit}) per pair"))
    return sizes


def _remove_stale(final: Path) -> None:
    """Remove the temporary folders (``.NAME.tmp-PID``, ``.NAME.old-PID``) that a build killed
    on this machine, or stopped by a full disk, left beside ``final``; a live build's stay."""
    for path in final.parent.glob(f".{final.name}.*-*"):
        kind, _, pid = path.name[len(final.name) + 2:].rpartition("-")
        if kind not in ("tmp", "old") or not pid.isdigit() or _alive(int(pid)):
            continue
        shutil.rmtree(path, ignore_errors=True)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: alive
        return True
    return True


def _swap_in(tmp: Path, final: Path) -> None:
    """Replace ``final`` by the finished folder ``tmp`` (the old folder is renamed away first,
    so ``final`` is only ever absent for an instant, never half-written)."""
    old = final.parent / f".{final.name}.old-{os.getpid()}"
    if final.exists():
        os.replace(final, old)
    os.replace(tmp, final)
    shutil.rmtree(old, ignore_errors=True)
