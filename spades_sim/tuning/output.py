"""A tuning's outputs: ``tuned.txt`` (the tuned spec), ``result.json`` and ``report.html`` (a
convergence figure, the parameter table, the held-out result and what it rests on), and the
text the command line prints.

The page is one self-contained file (the figure inline as SVG, drawn with matplotlib outside
pyplot, in the analysis plots' palette), so it can be mailed or archived alone.
"""

from __future__ import annotations

import html
import io
import json
from pathlib import Path

from ..analysis.plots import PALETTE
from ..core.errors import StrategyError
from ..core.strategies import format_number
from .scoring import OBJECTIVES, objective_score
from .search import TuneResult, atomic_write
from .space import build_space

TUNED = "tuned.txt"
RESULT = "result.json"
REPORT = "report.html"
# The same data give the same SVG: fixed ids, no date or software version, text as paths.
_SVG_STYLE = {"svg.hashsalt": "spades-sim-tune", "svg.fonttype": "path"}
_SVG_METADATA = {"Date": None, "Creator": None}


def write_outputs(result: TuneResult, rules) -> None:
    out = Path(result.out)
    atomic_write(out / TUNED, result.spec + "\n")
    atomic_write(out / RESULT, json.dumps(result.to_dict(), indent=2) + "\n")
    atomic_write(out / REPORT, report_html(result, rules))


def convergence_svg(history: list) -> str:
    """The best and mean objective of each generation (and CMA-ES's step size, on a second
    axis) as an SVG document."""
    import matplotlib
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7, 3.6), layout="constrained")
    ax = figure.add_subplot()
    generations = [summary["generation"] + 1 for summary in history]
    ax.plot(generations, [s["best"] for s in history], "-o", color=PALETTE[0], markersize=3,
            label="best candidate")
    ax.plot(generations, [s["mean"] for s in history], "-s", color=PALETTE[4], markersize=3,
            label="mean of the generation")
    ax.axhline(0.0, color="#888888", linewidth=0.8)
    ax.set_xlabel("generation")
    ax.set_ylabel("mean score difference per board")
    ax.xaxis.get_major_locator().set_params(integer=True)
    sigma_ax = ax.twinx()
    sigma_ax.plot(generations, [s["sigma"] for s in history], ":", color=PALETTE[7],
                  label="step size sigma (right)")
    sigma_ax.set_ylabel("sigma (tenths of the range)")
    lines = ax.get_legend_handles_labels()
    more = sigma_ax.get_legend_handles_labels()
    figure.legend(lines[0] + more[0], lines[1] + more[1], loc="outside lower center", ncol=3,
                  fontsize="small", frameon=False)  # (below the axes: never over a line)
    ax.set_title("objective per generation (each on its own boards)")
    buffer = io.StringIO()
    with matplotlib.rc_context(_SVG_STYLE):
        figure.savefig(buffer, format="svg", metadata=_SVG_METADATA)
    text = buffer.getvalue()
    return text[text.index("<svg"):]


def _table(headers, rows) -> str:
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(cell))}</td>" for cell in row)
                   + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _interval(row: dict) -> str:
    low, high = row["ci95"]
    return f"{row['mean_diff']:+.2f} [{low:+.2f}, {high:+.2f}]"


def report_html(result: TuneResult, rules) -> str:
    """The page of a tuning (see the module docstring)."""
    settings = result.settings
    params = [(name, format_number(result.start[name]), format_number(result.params[name]),
               f"{format_number(low)} .. {format_number(high)}")
              for name, (low, high) in result.bounds.items()]
    holdout = [(row["against"], f"{row['boards']:,}", _interval(row),
                f"{row['boards_won']:,} / {row['boards_lost']:,}", row["seed"])
               for row in result.holdout]
    overrides = rules.overrides()
    rules_text = rules.preset_name + (
        " with " + ", ".join(f"{key}={value}" for key, value in overrides.items())
        if overrides else "")
    seats = {2: "(C, O) and (O, C)", 3: "(C, O, O), (O, C, O) and (O, O, C)",
             4: "C at seats 0 and 2, then at 1 and 3"}[rules.players]
    first_seed = result.history[0]["seed"] if result.history else "-"
    last_seed = result.history[-1]["seed"] if result.history else "-"
    stop = "; ".join(f"{k}: {v}" for k, v in result.stop.items())
    facts = [
        ("family", result.family),
        ("start", settings["start"]),
        ("tuned spec", result.spec),
        ("rules", rules_text),
        ("opponents", ", ".join(settings["against"])),
        ("objective", settings["objective"]),
        ("seatings per board", seats),
        ("generations", f"{result.generations} x {result.popsize} candidates, "
                        f"{settings['boards']:,} boards per candidate and opponent"
                        + (f" (CMA-ES stopped itself: {stop})" if stop else "")),
        ("search seeds", f"generation g plays boards 0..{settings['boards'] - 1} of "
                         f"generation_seed({settings['seed']}, g): first {first_seed}, "
                         f"last {last_seed}"),
        ("held-out seed", f"holdout_seed({settings['seed']}) = "
                          f"{result.holdout[0]['seed'] if result.holdout else '-'}, boards "
                          f"0..{settings['holdout_boards'] - 1}"),
        ("best candidate seen", f"{result.best.get('spec', '-')} (generation "
                                f"{result.best.get('generation', -1) + 1}, "
                                f"{result.best.get('score', float('nan')):+.2f} on its "
                                f"generation's boards)"),
    ]
    figure = convergence_svg(result.history) if result.history else "<p>no generation</p>"
    title = f"Tuning {result.family} under {rules_text}"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>
body {{ font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto;
       padding: 0 1rem; color: #222; }}
table {{ border-collapse: collapse; margin: 0.5rem 0 1.5rem; }}
th, td {{ border-bottom: 1px solid #ddd; padding: 0.25rem 0.75rem; text-align: left; }}
code {{ background: #f4f4f4; padding: 0 0.2rem; }}
svg {{ max-width: 100%; height: auto; }}
</style></head><body>
<h1>{html.escape(title)}</h1>
<p>Tuned strategy: <code>{html.escape(result.spec)}</code> (the CMA-ES mean after the last
generation).</p>
<h2>Held-out result</h2>
<p>The tuned strategy against each opponent on boards the search never played: the mean over
boards of the candidate's final score minus the opponent's (each board played in every
seating on the same deals), with the 95% t interval on the per-board differences.</p>
{_table(["opponent", "boards", "mean difference [95% CI]", "boards won / lost", "seed"],
        holdout)}
<h2>Convergence</h2>
<p>Each generation is scored on its own new boards, so the curves are noisy; the mean of a
generation tracks the search's progress better than its best candidate.</p>
{figure}
<h2>Parameters</h2>
{_table(["parameter", "start", "tuned", "search bounds"], params)}
<h2>What it rests on</h2>
{_table(["", ""], facts)}
<p>Reproduce: <code>{html.escape(command_line(result, rules))}</code></p>
</body></html>
"""


def command_line(result: TuneResult, rules) -> str:
    """The ``spades-sim tune`` command that reproduces this tuning."""
    settings = result.settings
    parts = ["spades-sim tune", result.family, "--rules", rules.preset_name]
    parts += [f"--rule {key}={_rule_text(value)}" for key, value in rules.overrides().items()]
    parts += [f"--against '{spec}'" for spec in settings["against"]]
    if _objective(settings) != "mean":
        parts.append(f"--objective {_objective(settings)}")
    default = _space_or_none(result.family, settings["start"])
    if default is None or settings["params"] != default.to_dict()["params"]:
        # (the default set with its default bounds goes without saying)
        parts += [f"--param {p['name']}={format_number(p['low'])}:{format_number(p['high'])}"
                  for p in settings["params"]]
    own = _space_or_none(result.family)
    if own is None or settings["start"] != own.start.spec():  # (the family's own start)
        parts.append(f"--start '{settings['start']}'")
    parts += [f"--generations {result.generations}", f"--popsize {settings['popsize']}",
              f"--boards {settings['boards']}", f"--holdout-boards {settings['holdout_boards']}",
              f"--sigma {format_number(settings['sigma'])}", f"--seed {settings['seed']}"]
    return " ".join(parts)


def _space_or_none(family: str, start=None):
    """The family's default space, or None where it has none (a plug-in that declares no
    bounds needs ``--param NAME=LOW:HIGH``)."""
    try:
        return build_space(family, start=start)
    except StrategyError:
        return None


def _objective(settings: dict) -> str:
    """The objective's name (``mean``, ``worst``) from its text in the settings."""
    return next((name for name, text in OBJECTIVES.items() if text == settings["objective"]),
                "mean")


def holdout_objective(result: TuneResult) -> float:
    """The tuning's objective applied to the held-out results (the mean, or the worst, of the
    mean differences against each opponent)."""
    against = {row["against"]: row["mean_diff"] for row in result.holdout}
    return objective_score(against, _objective(result.settings)) if against else float("nan")


def _rule_text(value) -> str:
    if value is None:
        return "null"
    return str(value).lower() if isinstance(value, bool) else str(value)


def format_result(result: TuneResult) -> str:
    """A readable summary of a tuning (what the command line prints)."""
    lines = [f"tuned {result.family} in {result.generations} generation(s) of "
             f"{result.popsize}: {result.spec}"]
    width = max(map(len, result.params), default=0)
    for name, value in result.params.items():
        lines.append(f"  {name:<{width}}  {format_number(result.start[name]):>8} -> "
                     f"{format_number(value)}")
    lines.append("held out (mean final-score difference per board, 95% CI):")
    for row in result.holdout:
        lines.append(f"  vs {row['against']}: {_interval(row)} over {row['boards']:,} boards")
    if len(result.holdout) > 1:
        lines.append(f"  objective ({_objective(result.settings)} over the opponents): "
                     f"{holdout_objective(result):+.2f}")
    lines.append(f"results: {result.out} ({TUNED}, {RESULT}, {REPORT})")
    return "\n".join(lines)
