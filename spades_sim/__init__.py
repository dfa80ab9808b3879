"""spades_sim: Monte Carlo simulation and analytics for Spades."""

__version__ = "0.1.0"
