"""spades_sim: Monte Carlo simulation and analytics for Spades.

The two entry points most work starts from: :func:`simulate` (a run straight to a pandas
DataFrame) and :func:`load_run` (a run folder written by ``spades-sim ... --out DIR``);
:func:`hand_features` gives the hand features of a frame's dealt cards and :class:`DealFilter`
keeps only deals of a kind (``docs/runs.md``). From a
games run's frame, :func:`win_probability` and :func:`win_probability_by_lead` estimate the
chance of winning a game from a state (``analysis/winprob.py``). :func:`tune` tunes a
strategy family's parameters with CMA-ES (``tune/``, docs/tuning.md).
"""

__version__ = "0.1.0"


def __getattr__(name):
    # The run API, imported on first use so that `import spades_sim` stays light.
    if name in ("load_run", "simulate", "hand_features", "DealFilter"):
        from . import run

        return getattr(run, name)
    if name in ("win_probability", "win_probability_by_lead"):
        from .analysis.winprob import win_probability, win_probability_by_lead

        return {"win_probability": win_probability,
                "win_probability_by_lead": win_probability_by_lead}[name]
    if name == "tune":
        # The package spades_sim.tune, callable as its function tune() (the import system
        # binds the package to this name whenever it is imported, so the two must be one).
        import importlib

        return importlib.import_module("spades_sim.tune")
    raise AttributeError(f"module 'spades_sim' has no attribute {name!r}")
