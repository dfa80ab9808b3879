"""Tuning a strategy family's parameters with CMA-ES (``spades-sim tune``): a built-in kind or
preset, or a plug-in that declares its tunable parameters.

``space`` holds the search space (which parameters, which bounds), ``plugin_space`` a
plug-in's (its ``tunable`` attribute, a numba plug-in's ``params``), ``scoring`` how a
candidate is scored (duplicate whole games on common deals, the mean or the worst over the
opponents) and the seeds, ``workers`` where the games are played, ``search`` the resumable
search and ``output`` the files it leaves (docs/tuning.md).
"""

from .output import format_result
from .scoring import generation_seed, holdout_seed
from .search import TuneError, TuneResult, tune
from .space import BOUNDS, DEFAULT_PARAMS, build_space

__all__ = ["BOUNDS", "DEFAULT_PARAMS", "TuneError", "TuneResult", "build_space",
           "format_result", "generation_seed", "holdout_seed", "tune"]

