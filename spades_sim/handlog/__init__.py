"""Hand logs (JSON Lines, version 1): write a run's hands, read them back, check and score them.

The format is ``docs/hand-log.md``: one JSON object per hand. :func:`write_log` writes the hands
of a ``run.Run`` played with ``record_plays=True``; :func:`replay` checks every line against its
rules (deal, bids, exchange, every play) and scores it with the pure rule helpers of ``core``,
never with the engine, so a log is an independent check of a run; and :func:`replay_file` is the
``spades-sim replay FILE`` command; :func:`hand_record` replays one hand of a run on disk into
a hand-log object (``spades-sim hand DIR --hand H``), and :func:`hand_diagram` draws one as
text (``--show``).

Replay never raises on bad input: each bad line becomes one error text that begins ``line N``
(1-based), then ``(hand H)`` once the hand id is known, then the trick and seat where they matter
and what is wrong, e.g. ``line 3 (hand 17): trick 5: seat 2 played 4H but holds clubs and must
follow 7C``. Tricks are numbered from 1 in messages (as players count them), seats from 0 (as
the log stores them).

Where the spec leaves room, this reader decides: fields outside the format are refused (a typo
in an optional field would otherwise be silently ignored); blank lines are skipped; the first
leader, which the log does not store, is the dealer's left under ``first_leader = dealer_left``
and the seat of the first play otherwise (the 2C holder leading the 2C under
``two_of_clubs``); an exchange the rules call for must be in the log, in order (the nil bidder
passes all its cards, then the partner passes back), while the two sides' passes may
interleave.
"""

from .diagram import hand_diagram
from .format import FIELDS, REQUIRED_FIELDS, RESULT_FIELDS, VERSION
from .recover import hand_record, hand_record_checked
from .replay import iter_replay, replay, replay_file, replay_line
from .write import hand_objects, write_log

__all__ = ["FIELDS", "REQUIRED_FIELDS", "RESULT_FIELDS", "VERSION", "hand_diagram", "hand_objects",
           "hand_record", "hand_record_checked", "iter_replay", "replay", "replay_file",
           "replay_line", "write_log"]
