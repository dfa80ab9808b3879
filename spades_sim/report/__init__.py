"""The HTML report of an experiment: the page model (``model``), number formatting
(``formatting``), one builder per analysis (``sections``), the page itself (``page``,
``templates/``)."""

from .page import build_report

__all__ = ["build_report"]
