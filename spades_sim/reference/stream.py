"""The reference twin's generator: the draw contract of ``engine/rng.py`` in plain Python ints.

Each hand seeds a generator from a stream key and its key index (``core/seeding.py``):
splitmix64's finalizer on ``key + (key_index + 1) * GOLDEN_GAMMA``, then wyrand; bounded draws
use Lemire's method on the upper 32 bits of one output.
"""

from __future__ import annotations

MASK64 = (1 << 64) - 1
GOLDEN_GAMMA = 0x9E3779B97F4A7C15
WY_INCREMENT = 0xA0761D6478BD642F
WY_XOR = 0xE7037ED1A0B428DB


def mix64(value: int) -> int:
    """The splitmix64 finalizer on a 64-bit int."""
    value &= MASK64
    value = ((value ^ (value >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    value = ((value ^ (value >> 27)) * 0x94D049BB133111EB) & MASK64
    return value ^ (value >> 31)


class Stream:
    """One wyrand generator, seeded for key index ``key_index`` of the stream ``key``.

    >>> stream = Stream(0, 0)
    >>> [stream.bounded(52) for _ in range(5)]
    [24, 38, 44, 0, 1]
    """

    def __init__(self, key: int, key_index: int):
        self.state = mix64(int(key) + (int(key_index) + 1) * GOLDEN_GAMMA)

    def next_u64(self) -> int:
        """Next 64-bit output: the 128-bit product of the state and ``state ^ WY_XOR``, folded."""
        self.state = (self.state + WY_INCREMENT) & MASK64
        product = self.state * (self.state ^ WY_XOR)
        return (product >> 64) ^ (product & MASK64)

    def bounded(self, n: int) -> int:
        """Uniform int in ``0..n-1``: Lemire's method on the upper 32 bits of one output."""
        product = (self.next_u64() >> 32) * n
        low = product & 0xFFFFFFFF
        if low < n:
            threshold = ((1 << 32) - n) % n
            while low < threshold:
                product = (self.next_u64() >> 32) * n
                low = product & 0xFFFFFFFF
        return product >> 32
