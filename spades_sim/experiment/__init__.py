"""Experiment files: what one describes (``model``), reading one (``parse``), playing one
(``execute``)."""

from .execute import default_results_dir, load_results_experiment, run_experiment
from .model import ANALYSES, EXPERIMENT_COPY, TOURNAMENT_DIR, Experiment
from .parse import load_experiment, parse_experiment, rule_text

__all__ = ["ANALYSES", "EXPERIMENT_COPY", "TOURNAMENT_DIR", "Experiment", "default_results_dir",
           "load_experiment", "load_results_experiment", "parse_experiment", "rule_text",
           "run_experiment"]
