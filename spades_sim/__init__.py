"""spades_sim: Monte Carlo simulation and analytics for Spades.

The names a user needs, importable from here (``dir(spades_sim)`` lists them):

* rules: :func:`preset` (a named rule set, with keyword overrides) and :class:`Rules`;
* runs: :func:`simulate` (a run straight to a pandas DataFrame) and :func:`load_run` (a run
  folder written by ``spades-sim ... --out DIR``);
* strategies compared: :func:`match` (a duplicate match), :func:`tournament` (a round robin with
  ratings), :func:`tune` (CMA-ES tuning of a strategy's parameters);
* experiments: :func:`run_experiment` (an experiment file played) and :func:`build_report`
  (its HTML report);
* one hand at a time: :class:`Hand` and :class:`Game` (the game-state API);
* double dummy: :func:`solve` (the tricks each side takes from a position) and :func:`par`
  (par of played hands);
* hands of a kind: :func:`hand_features` (suit counts, honours, the trick estimate of a frame's
  dealt cards) and :class:`DealFilter` (deal only hands a predicate accepts);
* from a games run: :func:`win_probability` and :func:`win_probability_by_lead`.

Each is imported on first use, so ``import spades_sim`` stays light (no numba, no pandas).
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

#: Each public name and the module that defines it.
_PUBLIC = {
    "DealFilter": "spades_sim.run",
    "Game": "spades_sim.game",
    "Hand": "spades_sim.game",
    "Rules": "spades_sim.core.rules",
    "build_report": "spades_sim.report",
    "hand_features": "spades_sim.run",
    "load_run": "spades_sim.run",
    "match": "spades_sim.evaluate",
    "par": "spades_sim.game.par",
    "preset": "spades_sim.core.rules",
    "run_experiment": "spades_sim.experiment",
    "simulate": "spades_sim.run",
    "solve": "spades_sim.engine.dd",
    "tournament": "spades_sim.evaluate",
    "tune": "spades_sim.tuning",
    "win_probability": "spades_sim.analysis.winprob",
    "win_probability_by_lead": "spades_sim.analysis.winprob",
}

__all__ = sorted(_PUBLIC)


def __getattr__(name):
    if name in _PUBLIC:
        value = getattr(importlib.import_module(_PUBLIC[name]), name)
        globals()[name] = value  # (the next lookup skips this function)
        return value
    raise AttributeError(f"module 'spades_sim' has no attribute {name!r}")


def __dir__():
    return sorted(set(__all__) | {"__version__"})
