"""Make the tuned presets: tune the heuristic for each rules preset and ship the results.

For each preset below this runs ``spades-sim tune heuristic --rules PRESET --against heuristic``
with the settings in ``SETTINGS`` (each tuning in ``results/tune-PRESET``, resumable), then
writes ``spades_sim/core/data/tuned.json``: the tuned parameters of each ``tuned-PRESET``, the
command that made it and its held-out result against the default heuristic. The engine's hash
covers that file, so the next run recompiles and names the new values.

    python experiments/tuned_presets.py [PRESET ...] [--jobs J]

(``make tuned`` runs it for every preset.) The tunings start from the default heuristic, so a
retune after the heuristic or its trick model changes starts again from the new defaults.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from spades_sim.core.strategies import TUNED_PATH
from spades_sim.tuning import tune

PRESETS = ("classic", "casual", "simple", "tournament", "jokers", "openspiel", "cutthroat",
           "two-player")
SETTINGS = {"generations": 30, "popsize": 16, "boards": 600, "holdout_boards": 20_000,
            "seed": 2026}
# Presets where the default heuristic is hardest to beat get more boards per candidate (less
# noise in each generation's ranking) and more generations.
LARGER = {"classic": {"boards": 2000, "generations": 40},
          "casual": {"boards": 2000, "generations": 40}}
# The two-player draw deal adds its own choices: which face-up cards to keep, and the scale of
# the estimate after the draw.
EXTRA_PARAMS = {"two-player": ("keep_rank", "draw_scale")}


def settings(preset: str) -> dict:
    return {**SETTINGS, **LARGER.get(preset, {})}


def command(preset: str) -> str:
    extra = "".join(f" --param {name}" for name in EXTRA_PARAMS.get(preset, ()))
    base = "".join(f" --param {name}" for name in _default_params()) if extra else ""
    used = settings(preset)
    return (f"spades-sim tune heuristic --rules {preset} --against heuristic{base}{extra} "
            f"--generations {used['generations']} --popsize {used['popsize']} "
            f"--boards {used['boards']} --holdout-boards {used['holdout_boards']} "
            f"--seed {used['seed']} --out results/tune-{preset}")


def _default_params() -> tuple[str, ...]:
    from spades_sim.tuning.space import DEFAULT_PARAMS

    return DEFAULT_PARAMS["heuristic"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("presets", nargs="*", default=list(PRESETS))
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    shipped = json.loads(TUNED_PATH.read_text()) if TUNED_PATH.exists() else {}
    for preset in args.presets:
        params = None
        if preset in EXTRA_PARAMS:
            params = list(_default_params()) + list(EXTRA_PARAMS[preset])
        result = tune("heuristic", preset, against=["heuristic"], params=params,
                      jobs=args.jobs, out=f"results/tune-{preset}", quiet=False,
                      **settings(preset))
        held = result.holdout[0]
        entry = {
            "kind": "heuristic", "rules": preset, "params": result.params,
            "spec": result.spec, "command": command(preset),
            "holdout": {"against": held["against"], "boards": held["boards"],
                        "seed": held["seed"], "mean": held["mean_diff"],
                        "low": held["ci95"][0], "high": held["ci95"][1]},
        }
        shipped[f"tuned-{preset}"] = entry
        print(f"tuned-{preset}: {result.spec}\n  held out: {held['mean_diff']:+.1f} "
              f"[{held['ci95'][0]:+.1f}, {held['ci95'][1]:+.1f}] over {held['boards']} boards",
              file=sys.stderr)
    ordered = {f"tuned-{p}": shipped[f"tuned-{p}"] for p in PRESETS if f"tuned-{p}" in shipped}
    Path(TUNED_PATH).write_text(json.dumps(ordered, indent=1) + "\n")
    print(f"wrote {TUNED_PATH}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
