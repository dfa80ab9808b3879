"""Does playing two independent hands interleaved in one loop hide the play loop's latency?

    .venv/bin/python benchmarks/interleave.py [--hands 400000] [--repeats 3] [--no-history]

A stand-alone model of the engine's hand loop with four random players (not the engine itself):
a Fisher-Yates deal into four 64-bit hands, then 13 tricks in which each seat picks a legal card
(follow suit, spades not led before they are broken) from a splitmix64 stream of its own hand,
the trick won by the highest trump or card of the led suit, the winner leading next. ``single``
plays one hand after the other; ``double`` plays two hands at once, card for card in one loop,
so that the processor has two independent chains (legal mask -> card -> trick winner -> next
leader) to overlap. Both play the same hands and must give the same tricks (checked). ``deal``
times the deals alone, to show the play's share.

Prints one JSON object (hands/s of each, medians over ``--repeats``) and appends it to
``benchmarks/history.jsonl``. The engine's interleaving was judged by this: when ``double`` is
not clearly faster than ``single``, interleaving the engine's far larger loop will not be either.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from spades_sim.bench import publish, stamp

TRUMP = np.int64(0x1FFF << 39)
SUITS = np.array([0x1FFF << (13 * suit) for suit in range(4)], dtype=np.int64)


@njit(inline="always")
def _next(state):
    """splitmix64: ``(output, state)``."""
    state = state + np.uint64(0x9E3779B97F4A7C15)
    z = state
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31)), state


@njit(inline="always")
def _pick(mask, state):
    """A set bit of ``mask`` (the lowest after a random rotation), and the state."""
    r, state = _next(state)
    k = np.int64(r >> np.uint64(58))
    m = np.uint64(mask)
    rotated = (m >> np.uint64(k)) | (m << np.uint64((64 - k) & 63)) if k else m
    return (np.int64(trailing_zeros(rotated)) + k) & 63, state


@njit(inline="always")
def _deal(state):
    deck = np.arange(52)
    for i in range(51, 0, -1):
        r, state = _next(state)
        j = np.int64((r >> np.uint64(32)) * np.uint64(i + 1) >> np.uint64(32))
        deck[i], deck[j] = deck[j], deck[i]
    h0 = h1 = h2 = h3 = 0
    for i in range(13):
        h0 |= 1 << deck[i]
        h1 |= 1 << deck[13 + i]
        h2 |= 1 << deck[26 + i]
        h3 |= 1 << deck[39 + i]
    return h0, h1, h2, h3, state


@njit(inline="always")
def _strength(card, led):
    return card + (128 if card >= 39 else (64 if (led >> card) & 1 else 0))


@njit(cache=True)
def deal(n, seed):
    total = 0
    for h in range(n):
        h0, _, _, h3, _ = _deal(np.uint64(seed * 1000003 + h))
        total += h0 ^ h3
    return total


@njit(cache=True)
def single(n, seed):
    total = 0
    hands = np.zeros(4, dtype=np.int64)
    for h in range(n):
        hands[0], hands[1], hands[2], hands[3], state = _deal(np.uint64(seed * 1000003 + h))
        leader = h & 3
        broken = False
        tricks = 0
        for _ in range(13):
            hand = hands[leader]
            legal = hand & ~TRUMP if not broken and hand & ~TRUMP else hand
            card, state = _pick(legal, state)
            hands[leader] = hand ^ (1 << card)
            led = SUITS[card // 13]
            best, winner = _strength(card, led), leader
            for k in range(1, 4):
                seat = (leader + k) & 3
                hand = hands[seat]
                legal = hand & led if hand & led else hand
                card, state = _pick(legal, state)
                hands[seat] = hand ^ (1 << card)
                broken |= card >= 39
                strength = _strength(card, led)
                if strength > best:
                    best, winner = strength, seat
            tricks += 1 << (8 * winner)
            leader = winner
        total += tricks
    return total


@njit(cache=True)
def double(n, seed):
    total = 0
    ha = np.zeros(4, dtype=np.int64)
    hb = np.zeros(4, dtype=np.int64)
    for h in range(0, n, 2):
        ha[0], ha[1], ha[2], ha[3], sa = _deal(np.uint64(seed * 1000003 + h))
        hb[0], hb[1], hb[2], hb[3], sb = _deal(np.uint64(seed * 1000003 + h + 1))
        la, lb = h & 3, (h + 1) & 3
        broken_a = broken_b = False
        tricks_a = tricks_b = 0
        for _ in range(13):
            hand_a, hand_b = ha[la], hb[lb]
            legal_a = hand_a & ~TRUMP if not broken_a and hand_a & ~TRUMP else hand_a
            legal_b = hand_b & ~TRUMP if not broken_b and hand_b & ~TRUMP else hand_b
            card_a, sa = _pick(legal_a, sa)
            card_b, sb = _pick(legal_b, sb)
            ha[la], hb[lb] = hand_a ^ (1 << card_a), hand_b ^ (1 << card_b)
            led_a, led_b = SUITS[card_a // 13], SUITS[card_b // 13]
            best_a, winner_a = _strength(card_a, led_a), la
            best_b, winner_b = _strength(card_b, led_b), lb
            for k in range(1, 4):
                seat_a, seat_b = (la + k) & 3, (lb + k) & 3
                hand_a, hand_b = ha[seat_a], hb[seat_b]
                legal_a = hand_a & led_a if hand_a & led_a else hand_a
                legal_b = hand_b & led_b if hand_b & led_b else hand_b
                card_a, sa = _pick(legal_a, sa)
                card_b, sb = _pick(legal_b, sb)
                ha[seat_a], hb[seat_b] = hand_a ^ (1 << card_a), hand_b ^ (1 << card_b)
                broken_a |= card_a >= 39
                broken_b |= card_b >= 39
                strength_a, strength_b = _strength(card_a, led_a), _strength(card_b, led_b)
                if strength_a > best_a:
                    best_a, winner_a = strength_a, seat_a
                if strength_b > best_b:
                    best_b, winner_b = strength_b, seat_b
            tricks_a += 1 << (8 * winner_a)
            tricks_b += 1 << (8 * winner_b)
            la, lb = winner_a, winner_b
        total += tricks_a + tricks_b
    return total


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=400_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-history", action="store_true")
    args = parser.parse_args(argv)
    hands = args.hands - args.hands % 2
    if single(2000, 1) != double(2000, 1):  # (also compiles, or loads, the three)
        print("interleave: the two loops played different tricks", file=sys.stderr)
        return 1
    deal(2, 1)
    rates = {"single": [], "double": [], "deal": []}
    for repeat in range(args.repeats):
        for name, function in (("single", single), ("double", double), ("deal", deal)):
            started = time.perf_counter()
            function(hands, repeat + 2)
            rates[name].append(hands / (time.perf_counter() - started))

    result = {"benchmark": "interleave", "hands": hands,
              **{f"{name}_hands_per_second": statistics.median(values)
                 for name, values in rates.items()},
              "double_over_single": statistics.median(rates["double"])
              / statistics.median(rates["single"]),
              **stamp()}
    publish(result, history=not args.no_history)
    return 0


if __name__ == "__main__":
    sys.exit(main())
