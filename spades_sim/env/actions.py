"""The environment's one action space: every phase's actions numbered 0..94.

A :class:`~spades_sim.game.Hand` numbers its actions per phase (a card, a bid, -1 for "look",
...); a reinforcement-learning agent wants one fixed ``Discrete`` space with a mask. This
module maps between the two. The table (``docs/environment.md`` shows it too):

=========  ============  =====================================================================
actions    phase         meaning
=========  ============  =====================================================================
0 .. 53    play, pass    the card with that index (``13 * suit + rank``; 52 LJ, 53 BJ)
54 .. 71   bid           bid ``action - 54`` (0 .. 17; 0 is a nil where nil is on)
72         blind         look at the cards (no blind bid); the bid phase follows
73 .. 90   blind         a blind bid of ``action - 73`` (0 is blind nil, 1 .. 17 blind bids)
91, 92     bump          91 keeps the bid, 92 raises it by one
93, 94     keep          93 takes the face-down card, 94 keeps the face-up card
=========  ============  =====================================================================

>>> to_env("bid", 4), to_env("blind", -1), to_game("keep", 94)
(58, 72, 1)
>>> to_game("bid", 3) is None  # a card number is no bid
True
"""

from __future__ import annotations

from ..core.cards import card_text
from ..core.rules import MAX_HAND_SIZE
from ..game import BID, BLIND, BUMP, KEEP, LOOK, PASS, PLAY

N_CARDS = 54
BID_OFFSET = N_CARDS  # 54: bids 0..17
LOOK_ACTION = BID_OFFSET + MAX_HAND_SIZE + 1  # 72
BLIND_OFFSET = LOOK_ACTION + 1  # 73: blind bids 0..17
BUMP_OFFSET = BLIND_OFFSET + MAX_HAND_SIZE + 1  # 91: no, yes
KEEP_OFFSET = BUMP_OFFSET + 2  # 93: face-down, face-up
N_ACTIONS = KEEP_OFFSET + 2  # 95


def to_env(phase: str, action: int) -> int:
    """The environment's number of the hand's ``action`` in ``phase``."""
    if phase in (PLAY, PASS):
        return action
    if phase == BID:
        return BID_OFFSET + action
    if phase == BLIND:
        return LOOK_ACTION if action == LOOK else BLIND_OFFSET + action
    if phase == BUMP:
        return BUMP_OFFSET + action
    if phase == KEEP:
        return KEEP_OFFSET + action
    raise ValueError(f"no action is taken in the {phase} phase")


def to_game(phase: str, action: int) -> int | None:
    """The hand's action for the environment's ``action`` in ``phase``, or None when the number
    names no action of that phase (an action of another phase, or out of range)."""
    if phase in (PLAY, PASS):
        return action if 0 <= action < N_CARDS else None
    if phase == BID:
        return action - BID_OFFSET if BID_OFFSET <= action < LOOK_ACTION else None
    if phase == BLIND:
        if action == LOOK_ACTION:
            return LOOK
        return action - BLIND_OFFSET if BLIND_OFFSET <= action < BUMP_OFFSET else None
    if phase == BUMP:
        return action - BUMP_OFFSET if BUMP_OFFSET <= action < KEEP_OFFSET else None
    if phase == KEEP:
        return action - KEEP_OFFSET if KEEP_OFFSET <= action < N_ACTIONS else None
    return None


def describe(action: int) -> str:
    """A short text for an environment action, whatever the phase.

    >>> describe(51), describe(54), describe(72), describe(73), describe(80), describe(92)
    ('AS', 'bid nil/0', 'look', 'blind nil', 'blind 7', 'bump')
    """
    if 0 <= action < N_CARDS:
        return card_text(action)
    if action < LOOK_ACTION:
        bid = action - BID_OFFSET
        return "bid nil/0" if bid == 0 else f"bid {bid}"
    if action == LOOK_ACTION:
        return "look"
    if action < BUMP_OFFSET:
        bid = action - BLIND_OFFSET
        return "blind nil" if bid == 0 else f"blind {bid}"
    if action < KEEP_OFFSET:
        return "bump" if action - BUMP_OFFSET else "no bump"
    if action < N_ACTIONS:
        return "keep face-up" if action - KEEP_OFFSET else "take face-down"
    raise ValueError(f"action {action} is out of range 0..{N_ACTIONS - 1}")
