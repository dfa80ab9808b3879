"""spades_sim: Monte Carlo simulation and analytics for Spades."""

__version__ = "0.1.0"


def __getattr__(name):
    # The run API, imported on first use so that `import spades_sim` stays light.
    if name in ("load_run", "simulate"):
        from . import runner

        return getattr(runner, name)
    raise AttributeError(f"module 'spades_sim' has no attribute {name!r}")
