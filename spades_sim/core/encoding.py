"""The layout of the environment's observation vector (``env/encoding.py`` fills it from an
``Observation``, ``engine/env_table.py`` from the engine's state): its blocks in order, each a
name, a size and the bounds of its values, and each block's first index.

>>> OFFSETS["hand"], OFFSETS["phase"], OBSERVATION_SIZE
(0, 598, 902)
"""

from __future__ import annotations

import numpy as np

from .rules import MAX_HAND_SIZE

SEATS = 4  # relative seat slots (the most players)
SIDES = 4  # relative side slots (four players each on their own would need four)
N_CARDS = 54
N_BIDS = MAX_HAND_SIZE + 1
PHASES = ("keep", "blind", "bid", "bump", "pass", "play", "over")  # the game's phase names
SCORE_CLIP = 4.0  # scores are scaled by the target and clipped to +-SCORE_CLIP
MAX_EXCHANGE = 4  # the most cards an exchange passes (rules bound of *_exchange)

# (name, size, low, high), in vector order.
BLOCKS: tuple[tuple[str, int, float, float], ...] = (
    ("hand", N_CARDS, 0, 1),                    # own cards now (none in its blind choice)
    ("played_by", SEATS * N_CARDS, 0, 1),       # cards each relative seat has played
    ("trick", SEATS * N_CARDS, 0, 1),           # the current trick's card of each seat
    ("leader", SEATS, 0, 1),                    # who led the current trick (play phase)
    ("led_suit", 4, 0, 1),                      # the current trick's suit (C, D, H, S)
    ("winning", SEATS, 0, 1),                   # who wins the current trick so far
    ("bids", SEATS * N_BIDS, 0, 1),             # one-hot bid per seat (all 0: not yet)
    ("blind", SEATS, 0, 1),                     # the bid was blind
    ("bumped", SEATS, 0, 1),                    # the bid was bumped
    ("tricks", SEATS, 0, 1),                    # tricks taken / hand size
    ("voids", SEATS * 4, 0, 1),                 # seat showed it holds no card of a suit
    ("phase", len(PHASES), 0, 1),               # keep, blind, bid, bump, pass, play, over
    ("to_act", SEATS, 0, 1),                    # the seat to act (all 0 when over)
    ("spades_broken", 1, 0, 1),
    ("trick_index", 1, 0, 1),                   # tricks completed / hand size
    ("dealer", SEATS, 0, 1),
    ("face_up", N_CARDS, 0, 1),                 # keep phase: the face-up card offered
    ("declined", N_CARDS, 0, 1),                # draw deal: face-up cards this seat turned down
    ("pass_count", 1, 0, 1),                    # pass phase: cards still to pass / 4
    ("passing_as_nil", 1, 0, 1),                # pass phase: passing as the nil bidder
    ("pass_chosen", N_CARDS, 0, 1),             # pass phase: cards already chosen to pass
    ("given", N_CARDS, 0, 1),                   # cards this seat passed in the exchange
    ("received", N_CARDS, 0, 1),                # cards this seat received in the exchange
    ("scores", SIDES, -SCORE_CLIP, SCORE_CLIP),  # score before the hand / target, clipped
    ("bags", SIDES, 0, 1),                      # bags / bag_limit (0 without a bag penalty)
    ("players", 3, 0, 1),                       # one-hot 2, 3, 4 players
    ("rules", 4, 0, 1),                         # partnership, jokers deck, draw deal, size / 17
)

OFFSETS: dict[str, int] = {}
_offset = 0
for _name, _size, _, _ in BLOCKS:
    OFFSETS[_name] = _offset
    _offset += _size
OBSERVATION_SIZE = _offset
SIZES = {name: size for name, size, _, _ in BLOCKS}
LOW = np.concatenate([np.full(size, low, np.float32) for _, size, low, _ in BLOCKS])
HIGH = np.concatenate([np.full(size, high, np.float32) for _, size, _, high in BLOCKS])
del _offset, _name, _size
