"""A hand-log object drawn as text (``spades-sim hand ... --show``): checked and scored as
``spades-sim replay`` does, then drawn by ``core/diagram.py``."""

from __future__ import annotations

import json

from ..core.diagram import draw_hand
from ..core.errors import HandLogError
from .replay import replay_line


def hand_diagram(obj: dict) -> str:
    """The diagram of one hand-log object (``core.diagram.draw_hand``); a bad hand raises a
    one-line :class:`HandLogError` naming what is wrong."""
    scored = replay_line(1, json.dumps(obj))
    if isinstance(scored, str):
        raise HandLogError(f"hand diagram: {scored.removeprefix('line 1 ')}")
    return draw_hand(scored)
