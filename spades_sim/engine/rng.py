"""In-kernel PRNG: xoshiro256** seeded per hand through splitmix64. The draw contract.

Draw contract (the reference twin follows it exactly):

* A run has two 64-bit keys, one for the *deal stream* and one for the *play stream*.
* Every hand (and every game's first-dealer draw) gets a fresh generator per stream, seeded from
  the stream key and a key index ``k``: the four xoshiro256** state words are the splitmix64
  outputs number ``4k+1 .. 4k+4`` of the sequence that starts at the key, i.e.
  ``mix(key + (4k + i) * 0x9E3779B97F4A7C15)`` for ``i = 1..4``. Independent hands use
  ``k = hand_id``; game ``g`` uses ``k = g << 20`` for its first dealer and ``(g << 20) + 1 + j``
  for its hand ``j``. So a hand's cards never depend on how many draws earlier hands made, and
  configurations compared on the same keys see the same deals (common random numbers).
* ``bounded(n)`` draws uniformly from ``0..n-1`` with Lemire's method on the upper 32 bits of the
  next 64-bit output: ``m = (x >> 32) * n``; accept unless ``m mod 2**32 < (2**32 - n) mod n``, in
  which case draw again. It consumes one output, rarely more.

The state lives in a caller-provided ``uint64[4]`` array, updated in place. Under
``NUMBA_DISABLE_JIT=1`` the same functions run on Python ints, masked to 64 bits.
"""

import numpy as np
from numba import config, njit

GOLDEN_GAMMA = 0x9E3779B97F4A7C15
MASK64 = (1 << 64) - 1

if config.DISABLE_JIT:

    def _mix(z):
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9 & MASK64
        z = (z ^ (z >> 27)) * 0x94D049BB133111EB & MASK64
        return z ^ (z >> 31)

    def seed_stream_nb(state, key, key_index):
        base = (int(key) & MASK64) + 4 * int(key_index) * GOLDEN_GAMMA
        for i in range(4):
            state[i] = np.uint64(_mix((base + (i + 1) * GOLDEN_GAMMA) & MASK64))

    def next_u64_nb(state):
        s0, s1, s2, s3 = (int(v) for v in state)
        x = (s1 * 5) & MASK64
        result = (((x << 7) | (x >> 57)) & MASK64) * 9 & MASK64
        t = (s1 << 17) & MASK64
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = ((s3 << 45) | (s3 >> 19)) & MASK64
        state[0], state[1], state[2], state[3] = (np.uint64(v) for v in (s0, s1, s2, s3))
        return result

    def bounded_nb(state, n):
        n = int(n)
        product = (next_u64_nb(state) >> 32) * n
        low = product & 0xFFFFFFFF
        if low < n:
            threshold = ((1 << 32) - n) % n
            while low < threshold:
                product = (next_u64_nb(state) >> 32) * n
                low = product & 0xFFFFFFFF
        return product >> 32

else:
    _GAMMA = np.uint64(GOLDEN_GAMMA)
    _M1 = np.uint64(0xBF58476D1CE4E5B9)
    _M2 = np.uint64(0x94D049BB133111EB)
    _U1, _U4, _U5, _U7, _U9 = np.uint64(1), np.uint64(4), np.uint64(5), np.uint64(7), np.uint64(9)
    _U17, _U19, _U27, _U30 = np.uint64(17), np.uint64(19), np.uint64(27), np.uint64(30)
    _U31, _U32, _U45, _U57 = np.uint64(31), np.uint64(32), np.uint64(45), np.uint64(57)
    _LOW32 = np.uint64(0xFFFFFFFF)
    _TWO32 = np.uint64(1 << 32)

    @njit(cache=True, inline="always")
    def _mix(z):
        z = (z ^ (z >> _U30)) * _M1
        z = (z ^ (z >> _U27)) * _M2
        return z ^ (z >> _U31)

    @njit(cache=True)
    def seed_stream_nb(state, key, key_index):
        """Seed ``state`` (uint64[4]) for key index ``key_index`` of the stream ``key``."""
        base = np.uint64(key) + _U4 * np.uint64(key_index) * _GAMMA
        for i in range(4):
            state[i] = _mix(base + np.uint64(i + 1) * _GAMMA)

    @njit(cache=True, inline="always")
    def next_u64_nb(state):
        """Next 64-bit output of xoshiro256**; advances ``state`` in place."""
        s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
        x = s1 * _U5
        result = ((x << _U7) | (x >> _U57)) * _U9
        t = s1 << _U17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = (s3 << _U45) | (s3 >> _U19)
        state[0], state[1], state[2], state[3] = s0, s1, s2, s3
        return result

    @njit(cache=True)
    def bounded_nb(state, n):
        """Uniform int in ``0..n-1`` (``1 <= n < 2**32``), Lemire's method (see contract)."""
        un = np.uint64(n)
        product = (next_u64_nb(state) >> _U32) * un
        low = product & _LOW32
        if low < un:
            threshold = (_TWO32 - un) % un
            while low < threshold:
                product = (next_u64_nb(state) >> _U32) * un
                low = product & _LOW32
        return np.int64(product >> _U32)
