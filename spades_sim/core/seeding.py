"""The one seeding scheme: how a seed becomes the deals and draws of every hand.

A run's seed gives two 64-bit stream keys, the first two words of the seed's first spawned child,
``SeedSequence(seed, spawn_key=(0,)).generate_state(2)``: one for dealing, one for play. (The
first child, not the root, because chunked runs once drew each chunk's keys from its own child:
a run of one chunk made then has the same hands now.) Every hand then seeds its own generators
from a key and its *key index* (``engine/rng.py`` documents the generator and the draw
contract):

- independent hand ``h`` (hands mode) uses key index ``h``;
- game ``g`` (games mode) draws its first dealer on key index ``g << GAME_SHIFT`` and plays its
  hand ``j`` on key index ``(g << GAME_SHIFT) + 1 + j``.

So a hand depends on the seed and its own id only: whether a run is played at once or in
chunks, on one worker or many, summarised in memory, logged with ``--log`` or written with
``--out``, the same seed plays the same deals with the same draws. Every configuration of a run
(rules variants, strategies) is played from the same keys, so they share their deals wherever
the rules deal alike (common random numbers).

The search player ``mc`` draws from a third stream, key ``play_key ^ SEARCH_KEY_XOR`` with the
hand's key index, so that searching never shifts the other seats' draws.
"""

from __future__ import annotations

import numpy as np

from .errors import SpadesError
from .limits import MAX_SEED

# Game g's hands use key indices (g << GAME_SHIFT) + 1 + j: a game has at most 2**20 - 2 hands
# (``Rules.hand_cap``), and game ids stay below 2**43.
GAME_SHIFT = 20
SEARCH_KEY_XOR = 0x5EA4C4ED5EA4C4ED


def check_seed(seed) -> int:
    """The seed as an int, or a SpadesError naming it.

    >>> check_seed(7)
    7
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise SpadesError(f"seed {seed!r}: expected an integer >= 0")
    if seed > MAX_SEED:
        raise SpadesError(f"seed {seed}: expected an integer below 2**128")
    return int(seed)


def stream_keys(seed: int) -> tuple[np.uint64, np.uint64]:
    """The deal-stream and play-stream keys of a run: the first two words of
    ``SeedSequence(seed, spawn_key=(0,))``.

    >>> deal_key, play_key = stream_keys(7)
    >>> bool(deal_key != play_key), stream_keys(7) == (deal_key, play_key)
    (True, True)
    """
    child = np.random.SeedSequence(check_seed(seed), spawn_key=(0,))
    deal_key, play_key = child.generate_state(2, dtype=np.uint64)
    return np.uint64(deal_key), np.uint64(play_key)


def game_key_index(game_id: int, hand: int = -1) -> int:
    """Key index of hand ``hand`` (0-based) of game ``game_id``; ``hand = -1`` gives the index of
    the game's first-dealer draw.

    >>> game_key_index(0), game_key_index(1, 0), game_key_index(1, 2)
    (0, 1048577, 1048579)
    """
    return (game_id << GAME_SHIFT) + 1 + hand


def search_key(play_key: int) -> int:
    """The search player's stream key."""
    return int(play_key) ^ SEARCH_KEY_XOR
