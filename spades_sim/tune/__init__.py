"""Tuning a built-in strategy family's parameters with CMA-ES (``spades-sim tune``).

``space`` holds the search space (which parameters, which bounds), ``scoring`` how a candidate
is scored (duplicate whole games on common deals) and the seeds, ``workers`` where the games
are played, ``search`` the resumable search and ``output`` the files it leaves
(docs/tuning.md).
"""

import sys
import types

from .output import format_result
from .scoring import board_differences, generation_seed, holdout_seed, seatings
from .search import TuneError, TuneResult, tune
from .space import BOUNDS, DEFAULT_PARAMS, build_space

__all__ = ["BOUNDS", "DEFAULT_PARAMS", "TuneError", "TuneResult", "board_differences",
           "build_space", "format_result", "generation_seed", "holdout_seed", "seatings",
           "tune"]


class _CallableModule(types.ModuleType):
    """``spades_sim.tune`` is both this package and the function :func:`tune` (importing any
    module of the package binds the package to that name on ``spades_sim``), so the package
    is callable: ``spades_sim.tune(...)`` calls :func:`search.tune`."""

    def __call__(self, *args, **kwargs) -> TuneResult:
        return tune(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
