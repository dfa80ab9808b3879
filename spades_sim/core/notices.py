"""One-line notices a library call may have for the person waiting on it (for instance that a
kernel compiles for the first time and will take a minute): nothing is said unless the caller
asked, with :func:`set_notice`. The command line asks, and prints them on standard error."""

from __future__ import annotations

_callback = None


def set_notice(callback) -> None:
    """Have :func:`notice` call ``callback(text)``; ``None`` silences notices again."""
    global _callback
    _callback = callback


def listening() -> bool:
    """Whether a caller asked for notices."""
    return _callback is not None


def notice(text: str) -> None:
    """Pass ``text`` (one line) to the caller's callback, if any."""
    if _callback is not None:
        _callback(text)
