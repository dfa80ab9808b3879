"""The generator a hand's state holds: the engine's draw contract (``engine/rng.py``) on plain
Python ints, and the engine's kernels behind the game state (loaded on first use).

A :class:`Stream` is one wyrand generator seeded for a key index of a stream key
(``core/seeding.py``). The state API keeps one per stream (deal, play, search) and hands its
``state`` to the engine's per-decision kernels (``engine/decide.py``), which draw in the
engine's order and return the new state; a plug-in draws from it through
:class:`~.observation.Generator`. The reference twin keeps a generator of its own
(``reference/stream.py``): the test oracle shares no code with what it checks.

The engine is imported on first use, not with this module: ``import spades_sim.game`` loads no
numba (``tests/test_layers.py``).
"""

from __future__ import annotations

import functools

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

    __slots__ = ("state",)

    def __init__(self, key: int, key_index: int):
        self.state = mix64(int(key) + (int(key_index) + 1) * GOLDEN_GAMMA)

    def __deepcopy__(self, memo) -> Stream:
        copy = Stream.__new__(Stream)
        copy.state = self.state
        return copy

    def __eq__(self, other) -> bool:
        return isinstance(other, Stream) and other.state == self.state

    __hash__ = None

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


@functools.lru_cache(maxsize=64)
def dealer(rules):
    """The engine's deal kernels for ``rules`` (``engine.decide.Dealer``), made once."""
    from ..engine.decide import Dealer

    return Dealer(rules)


_DECIDERS: dict = {}


def decider(rules, strategy):
    """The engine's decisions of ``strategy`` under ``rules`` (``engine.decide.Decider``),
    made once per pair."""
    key = (rules, strategy.name, tuple(sorted(strategy.params.items())))
    found = _DECIDERS.get(key)
    if found is None:
        from ..engine.decide import Decider

        if len(_DECIDERS) >= 256:
            _DECIDERS.clear()
        found = _DECIDERS[key] = Decider(rules, strategy)
    return found
