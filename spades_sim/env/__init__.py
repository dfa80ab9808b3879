"""Spades as a PettingZoo AEC environment, for reinforcement learning.

Needs the ``rl`` extra (``pip install 'spades_sim[rl]'``: PettingZoo and Gymnasium). The
table's state lives in the engine's arrays (``table.py``; numba loads at the first ``reset()``),
and every preset and phase works: the draw deal's keep choices, blind bids, bids, bumps,
exchange passes (one card per step) and the play. ``docs/environment.md`` is the full guide.
:class:`BatchEnv` (``batch.py``) is the other way in: many tables stepped together by the
engine, as NumPy arrays, for learning at engine speed (it loads numba on first use).

A random-legal-action episode (one hand of ``classic``):

>>> import numpy as np
>>> from spades_sim.env import env
>>> table = env("classic")
>>> table.reset(seed=1)
>>> rng = np.random.default_rng(0)
>>> totals = dict.fromkeys(table.possible_agents, 0.0)
>>> for agent in table.agent_iter():
...     observation, reward, terminated, truncated, info = table.last()
...     totals[agent] += reward
...     if terminated or truncated:
...         action = None
...     else:
...         action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
...     table.step(action)
>>> totals["player_0"] == totals["player_2"]  # partners share their side's score change
True

Agents are ``player_0 .. player_{n-1}``, the seats; ``player_0`` and ``player_2`` are partners
at four. Actions (one ``Discrete(95)`` space for every phase; the ``action_mask`` marks exactly
the legal ones for the agent to act, and is all zeros for the others):

=========  ============  =====================================================================
actions    phase         meaning
=========  ============  =====================================================================
0 .. 53    play, pass    the card with that index (``13 * suit + rank``, suits C D H S; 52 LJ,
                         53 BJ); a seat passing k cards takes k steps
54 .. 71   bid           bid ``action - 54`` (0 .. 17; 0 is nil where nil is on)
72         blind         look at the cards (no blind bid); the bid phase follows
73 .. 90   blind         a blind bid of ``action - 73`` (0 blind nil, 1 .. 17 blind bids)
91, 92     bump          91 keeps the bid, 92 raises it by one
93, 94     keep          93 takes the face-down card, 94 keeps the face-up card
=========  ============  =====================================================================

The observation is ``{"observation": float32 vector of 902, "action_mask": int8 vector of
95}``, from the observing seat's point of view and holding only what it may know. Seats are
relative (slot 0 the seat itself, slot 1 the seat on its left, slot 2 the partner at four,
slot 3 the last; unused slots 0), sides too (slot 0 its own). Blocks, in order
(:data:`.encoding.OFFSETS`):

==============  ======  ====  ================================================================
block           offset  size  meaning
==============  ======  ====  ================================================================
hand            0       54    own cards now (none in the seat's own blind choice)
played_by       54      216   4 x 54: cards each relative seat has played this hand
trick           270     216   4 x 54: each relative seat's card in the current trick
leader          486     4     the seat that led the current trick (play phase)
led_suit        490     4     the current trick's suit, C D H S (0 while leading)
winning         494     4     the seat winning the current trick so far
bids            498     72    4 x 18: one-hot bid 0 .. 17 per seat (all 0: not bid yet)
blind           570     4     the seat's bid was blind
bumped          574     4     the seat's bid was bumped
tricks          578     4     tricks taken / hand size
voids           582     16    4 x 4: the seat has shown it holds no card of the suit
phase           598     7     one-hot keep, blind, bid, bump, pass, play, over
to_act          605     4     the seat to act (all 0 when the hand is over)
spades_broken   609     1     spades are broken
trick_index     610     1     tricks completed / hand size
dealer          611     4     the dealer
face_up         615     54    keep phase, seat to act: the face-up card offered
declined        669     54    draw deal: face-up cards this seat turned down
pass_count      723     1     pass phase, seat to act: cards still to choose / 4
passing_as_nil  724     1     pass phase, seat to act: it passes as the nil bidder
pass_chosen     725     54    pass phase, seat to act: cards chosen so far (still in hand)
given           779     54    cards this seat passed in the exchange
received        833     54    cards this seat received in the exchange
scores          887     4     side scores before the hand / target, clipped to -4 .. 4
bags            891     4     side bags / bag_limit (0 when there is no bag penalty)
players         895     3     one-hot 2, 3, 4 players
rules           898     4     partnership, jokers deck, draw deal, hand size / 17
==============  ======  ====  ================================================================

Rewards: when a hand ends every agent gets its side's score change for the hand
(``Hand.result()["score_delta"][side]``; side ``seat % 2`` in partnership, else the seat), as
a float; 0 on every other step. With ``whole_game=False`` (the default) an episode is one hand
(independent hand ``episode_id`` of the run, as the engine deals it); with ``whole_game=True``
it is a game played to its end (``Game``), with the rewards as each hand ends. ``infos`` holds,
from the end of a hand on, ``hand_id`` and ``hand_result`` (and, in whole-game mode,
``scores``, ``bags``, ``hands_played``, ``game_over`` and at the end ``winner``: the winning
side, -1 for a tie or a draw). ``terminations`` are all True when the episode ends; there are
no truncations.

Seeding: ``reset(seed=s)`` makes ``s`` the run seed and plays its episode 0; each reset
without a seed plays the next episode id (1, 2, ...) of the same seed, so episodes differ and
any of them can be replayed (``reset(seed=s, options={"episode_id": k})``).
"""

try:
    import gymnasium  # noqa: F401
    import pettingzoo  # noqa: F401
except ImportError as error:  # pragma: no cover (the dev extra installs them)
    raise ImportError("spades_sim.env needs PettingZoo and Gymnasium: "
                      "pip install 'spades_sim[rl]'") from error

from .actions import N_ACTIONS, describe, to_env, to_game
from .aec import env, raw_env, render_text, resolve_rules
from .batch import BatchEnv
from .encoding import BLOCKS, OBSERVATION_SIZE, OFFSETS

__all__ = ["BLOCKS", "N_ACTIONS", "OBSERVATION_SIZE", "OFFSETS", "BatchEnv", "describe", "env",
           "raw_env", "render_text", "resolve_rules", "to_env", "to_game"]
