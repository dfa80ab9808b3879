"""Exact double-dummy solver for Spades: every hand seen, every seat playing perfectly.

What it answers: the tricks each side takes from a position on (:func:`solve`,
:func:`solve_seat`, the batch :func:`solve_deals`), the value of every legal card
(:func:`solve_cards`) and whether a nil bidder can avoid every trick (:func:`nil_safe`). Rules:
the standard and jokers decks (trumps are the spades and jokers, bits 39..53), every
``spades_lead`` mode with ``broken_by_forced_lead`` (the position carries the broken flag), the
two-of-clubs opening at trick 0, 2, 3 or 4 players. With 4 players in partnership the
maximising side is a team; otherwise one seat plays against all the others.

How: null-window alpha-beta over single cards with DDS's main ideas (equivalent cards, one
small card a suit, quick tricks and sure trump tricks, move ordering, a partition-search
transposition table), answering yes/no questions in a short sequence until the count is
pinned. The modules, by job:

- ``layout``: the shared array layouts (every row, column and context slot named) and types.
- ``holdings``: small card-set helpers of the search.
- ``bounds``: quick tricks and sure trump tricks, which answer without a search.
- ``ordering``: move generation and ordering.
- ``table``: the transposition table (keys, lookup, store).
- ``search``: the recursive search of one question.
- ``drivers``: the compiled entry points (the question sequence, the first guess, the batch).
- ``position``: checking a position given from Python.
- ``api``: the Python functions below and the process's solver buffers.

How fast it is against DDS, and the ideas measured and dropped, are in ``benchmarks/`` (the
README and RESULTS.md); ``docs/double-dummy.md`` is the user's guide.
"""

from .api import nil_safe, nodes_searched, solve, solve_cards, solve_deals, solve_seat

__all__ = ["solve", "solve_seat", "solve_cards", "nil_safe", "solve_deals",
           "nodes_searched"]
