"""The HTML report of an experiment: the page model (``model``), number formatting
(``formatting``), one builder per analysis (``sections``), the page itself (``page``,
``templates/``), how a figure is drawn (``draw``).

``build_report`` is imported on first use: a process that draws the report's figures imports
``draw`` alone, not the runs and the engine that the page's sections read.
"""

from __future__ import annotations

import importlib

__all__ = ["build_report"]


def __getattr__(name):
    if name == "build_report":
        value = importlib.import_module(".page", __name__).build_report
        globals()[name] = value  # (the next lookup skips this function)
        return value
    raise AttributeError(f"module 'spades_sim.report' has no attribute {name!r}")
