"""Tuning a built-in strategy family's parameters with CMA-ES (``spades-sim tune``).

``space`` holds the search space (which parameters, which bounds), ``scoring`` how a candidate
is scored (duplicate whole games on common deals) and the seeds, ``workers`` where the games
are played, ``search`` the resumable search and ``output`` the files it leaves
(docs/tuning.md).
"""

from .output import format_result
from .scoring import generation_seed, holdout_seed
from .search import TuneError, TuneResult, tune
from .space import BOUNDS, DEFAULT_PARAMS, build_space

__all__ = ["BOUNDS", "DEFAULT_PARAMS", "TuneError", "TuneResult", "build_space",
           "format_result", "generation_seed", "holdout_seed", "tune"]

