"""The slow, readable, pure-Python twin of the numba engine: the test oracle.

From the same stream keys it reproduces the engine bit for bit: the dealt hands (the shuffle, the
misdeal redeal and the two-player draw deal), the dealer and first leader, every blind choice,
bid and bid bump, every card passed in an exchange, every play (the search player ``mc``
included), the tricks, the score and bag counters, and for whole games the sequence of hands and
the game results. It uses plain Python ints for bitboards and the generator, shares only the
pure rule helpers of ``core`` (legal cards, trick winner, scoring), and never imports the engine.

Modules: ``stream`` (the generator), ``deal``, ``strategies`` (random and the heuristic family),
``search`` (``mc``), ``hand`` (the hand loop, independent hands, whole games).
"""

from .hand import play_games, play_hand, simulate_hands

__all__ = ["play_games", "play_hand", "simulate_hands"]
