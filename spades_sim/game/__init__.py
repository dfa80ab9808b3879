"""The game-state API: a hand or a whole game one decision at a time, what each seat sees, the
seats that decide (built-in strategies and plug-ins), and runs played through it.

>>> from spades_sim.core.rules import preset
>>> from spades_sim.game import Hand
>>> hand = Hand.deal(preset("classic"), seed=7)
>>> while not hand.done:
...     hand.apply(hand.legal_actions()[0])
>>> sum(hand.tricks)
13
"""

from .games import Game
from .observation import Generator, Observation
from .state import BID, BLIND, BUMP, KEEP, LOOK, OVER, PASS, PLAY, Hand, IllegalActionError

__all__ = ["BID", "BLIND", "BUMP", "Game", "Generator", "Hand", "IllegalActionError", "KEEP",
           "LOOK", "OVER", "Observation", "PASS", "PLAY"]
