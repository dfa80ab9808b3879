"""In-kernel PRNG: wyrand, seeded per hand through the splitmix64 finalizer. The draw contract.

Draw contract (``reference/stream.py`` follows it exactly):

* A run has two 64-bit keys, one for the *deal stream* and one for the *play stream*
  (``core/seeding.py``: ``SeedSequence(seed, spawn_key=(0,)).generate_state(2, uint64)``).
* Every hand (and every game's first-dealer draw) gets a fresh generator per stream, seeded from
  the stream key and a key index ``k``: ``state = mix(key + (k + 1) * 0x9E3779B97F4A7C15)``
  (mod 2**64), where ``mix`` is the splitmix64 finalizer. Independent hands use ``k = hand_id``;
  game ``g`` uses ``k = g << 20`` for its first dealer and ``(g << 20) + 1 + j`` for its hand
  ``j``. So a hand's cards never depend on how many draws earlier hands made, and configurations
  compared on the same keys see the same deals (common random numbers).
* A draw is wyrand: ``state += 0xA0761D6478BD642F``; ``t = state * (state ^ 0xE7037ED1A0B428DB)``
  as a 128-bit product; the output is ``(t >> 64) ^ (t mod 2**64)``.
* ``bounded(n)`` draws uniformly from ``0..n-1`` with Lemire's method on the upper 32 bits of
  one output: ``m = (x >> 32) * n``; when ``m mod 2**32 < (2**32 - n) mod n`` it draws again;
  the result is ``m >> 32``. It consumes one output, very rarely more.

The state is a plain uint64 scalar that each function takes and returns (no arrays, so the hot
loop does no reference counting). Under ``NUMBA_DISABLE_JIT=1`` the same functions run on Python
ints, masked to 64 bits.
"""

import numpy as np
from numba import config, njit

GOLDEN_GAMMA = 0x9E3779B97F4A7C15
WY_INCREMENT = 0xA0761D6478BD642F
WY_XOR = 0xE7037ED1A0B428DB
MASK64 = (1 << 64) - 1

if config.DISABLE_JIT:

    def mix_nb(z):
        z = int(z) & MASK64
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9 & MASK64
        z = (z ^ (z >> 27)) * 0x94D049BB133111EB & MASK64
        return z ^ (z >> 31)

    def seed_nb(key, key_index):
        return mix_nb(int(key) + (int(key_index) + 1) * GOLDEN_GAMMA)

    def next_u64_nb(state):
        state = (int(state) + WY_INCREMENT) & MASK64
        product = state * (state ^ WY_XOR)
        return (product >> 64) ^ (product & MASK64), state

    def bounded_nb(state, n):
        n = int(n)
        output, state = next_u64_nb(state)
        product = (output >> 32) * n
        low = product & 0xFFFFFFFF
        if low < n:
            threshold = ((1 << 32) - n) % n
            while low < threshold:
                output, state = next_u64_nb(state)
                product = (output >> 32) * n
                low = product & 0xFFFFFFFF
        return product >> 32, state

else:
    from .unsafe import mul128_fold_nb as _mul128_fold

    _GAMMA = np.uint64(GOLDEN_GAMMA)
    _M1 = np.uint64(0xBF58476D1CE4E5B9)
    _M2 = np.uint64(0x94D049BB133111EB)
    _INC = np.uint64(WY_INCREMENT)
    _XOR = np.uint64(WY_XOR)
    _U1, _U27, _U30 = np.uint64(1), np.uint64(27), np.uint64(30)
    _U31, _U32 = np.uint64(31), np.uint64(32)
    _LOW32 = np.uint64(0xFFFFFFFF)
    _TWO32 = np.uint64(1 << 32)

    @njit(cache=True, inline="always")
    def mix_nb(z):
        """The splitmix64 finalizer."""
        z = (z ^ (z >> _U30)) * _M1
        z = (z ^ (z >> _U27)) * _M2
        return z ^ (z >> _U31)

    @njit(cache=True, inline="always")
    def seed_nb(key, key_index):
        """Generator state for key index ``key_index`` of the stream ``key``."""
        return mix_nb(np.uint64(key) + (np.uint64(key_index) + _U1) * _GAMMA)

    @njit(cache=True, inline="always")
    def next_u64_nb(state):
        """``(output, new_state)``: one wyrand step."""
        state = state + _INC
        return _mul128_fold(state, state ^ _XOR), state

    @njit(cache=True, inline="always")
    def bounded_nb(state, n):
        """``(value, new_state)``: uniform int in ``0..n-1`` (``1 <= n < 2**32``), Lemire."""
        un = np.uint64(n)
        output, state = next_u64_nb(state)
        product = (output >> _U32) * un
        low = product & _LOW32
        if low < un:
            threshold = (_TWO32 - un) % un
            while low < threshold:
                output, state = next_u64_nb(state)
                product = (output >> _U32) * un
                low = product & _LOW32
        return np.int64(product >> _U32), state
