"""Experiment files: what one describes (``model``), reading one (``parse``, with ``configs`` for
the configurations and grids and ``lines`` for the line of every key), playing one
(``execute``)."""

from .configs import rule_text
from .execute import (
    default_results_dir,
    finish_results,
    load_results_experiment,
    results_status,
    run_experiment,
)
from .model import ANALYSES, EXPERIMENT_COPY, TOURNAMENT_DIR, Experiment
from .parse import load_experiment, parse_experiment

__all__ = ["ANALYSES", "EXPERIMENT_COPY", "TOURNAMENT_DIR", "Experiment", "default_results_dir",
           "finish_results", "load_experiment", "load_results_experiment", "parse_experiment",
           "results_status", "rule_text", "run_experiment"]
