"""Where a random hand's time goes: the engine's kernel beside loops built from its own parts.

    .venv/bin/python benchmarks/hand_profile.py [--hands 1000000] [--repeats 3] [--no-history]

Every loop below uses the engine's own helpers (``engine/rng.py``'s draws, ``engine/deal.py``'s
deal, ``engine/trick.py``'s masks and strengths, the BMI2 card pick), so it pays what the
engine pays for the same work under the draw contract; each adds one thing to the one before:

- ``draws``: the deal stream of each hand seeded and 51 ``bounded`` draws taken from it (the
  deal's draws, nothing else);
- ``deal``: the engine's deal (``shuffle_deal_nb``: the draws, the Fisher-Yates swaps, the four
  bitboards);
- ``deal_play_lowest``: the deal, then 13 tricks under ``classic``'s lead rule in which every
  seat plays its lowest legal card (the play loop without the play stream's draws);
- ``deal_play``: the same with each card a uniformly random legal one, as ``random`` picks it
  (a ``bounded`` draw and a ``pdep``): a model of the engine's random hand without bids,
  scores or records;
- ``deal_play_double``: the same hands as ``deal_play``, two at a time, card for card in one
  loop, so that the processor has two independent trick chains to overlap (the remedy the
  latency of the play loop suggests); both must give the same tricks (checked);
- ``deal_play_heuristic``: the deal, then 13 tricks with every card the default heuristic's
  (``strategy_play.choose_card_nb``, its play switches under ``classic``), the bids fixed at 3,
  4, 3, 4: a model of the heuristic's hand without bidding, scores or records;
- ``engine``: the engine's kernel (``simulate_hands_nb``) with ``random`` at every seat under
  ``classic``: deal, blind choices, bids, nil exchanges, play, scores and every per-hand record;
- ``engine_heuristic``: the same with the default ``heuristic`` at every seat;
- ``engine_no_nil``: the same under ``classic`` with neither nil nor blind nil (no blind
  choices, no exchanges).

Each loop runs ``--repeats`` times in turn; the fastest run of each is reported as ns a hand
(a neighbour's load on a shared machine only slows a run down), with its median. Prints one JSON
object and appends it to ``benchmarks/history.jsonl``.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import time

import numpy as np
from numba import njit

from spades_sim.bench import publish, stamp
from spades_sim.core import schema
from spades_sim.core.rules import preset
from spades_sim.core.seeding import stream_keys
from spades_sim.core.strategies import seat_strategies
from spades_sim.engine.bits import TRUMP_MASK, lowest_card, nth_card_nb, popcount, wrap_seat_nb
from spades_sim.engine.calls import hands_kernel, kernel_strategies
from spades_sim.engine.deal import ordered_deck_nb, shuffle_deal_nb
from spades_sim.engine.layout import STRATEGY_HEURISTIC
from spades_sim.engine.rng import bounded_nb, seed_nb
from spades_sim.engine.strategy_kernels import play_bits_nb
from spades_sim.engine.strategy_play import choose_card_nb, credit_nb, hand_facts_nb
from spades_sim.engine.trick import (
    card_strength_nb,
    follow_mask_nb,
    lead_mask_nb,
    suit_mask_of_card_nb,
)


@njit(cache=True)
def draws(rules, deal_key, first, n):
    total = 0
    for h in range(first, first + n):
        state = seed_nb(deal_key, h)
        for i in range(51, 0, -1):
            j, state = bounded_nb(state, i + 1)
            total += j
    return total


@njit(cache=True)
def deal(rules, deal_key, first, n):
    deck = np.zeros(108, np.int64)
    n_cards = ordered_deck_nb(rules, deck)
    total = 0
    for h in range(first, first + n):
        hand0, hand1, hand2, hand3, _ = shuffle_deal_nb(rules, seed_nb(deal_key, h), deck,
                                                        n_cards)
        total ^= hand0 ^ (hand1 << 1) ^ (hand2 << 2) ^ (hand3 << 3)
    return total


@njit(cache=True, inline="always")
def _pick(legal, state, lowest):
    if lowest:
        return lowest_card(legal), state
    index, state = bounded_nb(state, popcount(legal))
    return nth_card_nb(legal, index), state


@njit(cache=True, inline="always")
def _trick(rules, hands, leader, broken, trick_index, state, lowest):
    """One trick of four seats from ``leader``; ``(winner, broken, state)``."""
    hand = hands[np.uint64(leader)]
    legal = lead_mask_nb(rules, hand, broken, trick_index)
    card, state = _pick(legal, state, lowest)
    hands[np.uint64(leader)] = hand ^ (1 << card)
    led_mask = suit_mask_of_card_nb(card)
    broken |= (card >= 39) & ((hand & ~TRUMP_MASK) == 0)
    side_suit = (led_mask & TRUMP_MASK) == 0
    winner = leader
    best = card_strength_nb(card, led_mask)
    for k in range(1, 4):
        seat = wrap_seat_nb(leader + k, 4)
        hand = hands[np.uint64(seat)]
        card, state = _pick(follow_mask_nb(hand, led_mask), state, lowest)
        hands[np.uint64(seat)] = hand ^ (1 << card)
        broken |= (card >= 39) & side_suit
        strength = card_strength_nb(card, led_mask)
        better = strength > best
        best = strength if better else best
        winner = seat if better else winner
    return winner, broken, state


@njit(cache=True, inline="always")
def _deal_into(rules, deal_key, h, deck, n_cards, hands):
    hand0, hand1, hand2, hand3, _ = shuffle_deal_nb(rules, seed_nb(deal_key, h), deck, n_cards)
    hands[0] = hand0
    hands[1] = hand1
    hands[2] = hand2
    hands[3] = hand3


@njit(cache=True)
def deal_play(rules, deal_key, play_key, first, n, lowest):
    deck = np.zeros(108, np.int64)
    n_cards = ordered_deck_nb(rules, deck)
    hands = np.zeros(4, np.int64)
    total = 0
    for h in range(first, first + n):
        _deal_into(rules, deal_key, h, deck, n_cards, hands)
        state = seed_nb(play_key, h)
        leader = h & 3
        broken = False
        tricks = 0
        for trick_index in range(13):
            leader, broken, state = _trick(rules, hands, leader, broken, trick_index, state,
                                           lowest)
            tricks += 1 << (8 * leader)
        total += tricks
    return total


@njit(cache=True)
def deal_play_double(rules, deal_key, play_key, first, n):
    deck = np.zeros(108, np.int64)
    n_cards = ordered_deck_nb(rules, deck)
    hands_a = np.zeros(4, np.int64)
    hands_b = np.zeros(4, np.int64)
    total = 0
    for h in range(first, first + n - 1, 2):
        _deal_into(rules, deal_key, h, deck, n_cards, hands_a)
        _deal_into(rules, deal_key, h + 1, deck, n_cards, hands_b)
        state_a = seed_nb(play_key, h)
        state_b = seed_nb(play_key, h + 1)
        leader_a = h & 3
        leader_b = (h + 1) & 3
        broken_a = False
        broken_b = False
        tricks_a = 0
        tricks_b = 0
        for trick_index in range(13):
            leader_a, broken_a, state_a = _trick(rules, hands_a, leader_a, broken_a,
                                                 trick_index, state_a, False)
            leader_b, broken_b, state_b = _trick(rules, hands_b, leader_b, broken_b,
                                                 trick_index, state_b, False)
            tricks_a += 1 << (8 * leader_a)
            tricks_b += 1 << (8 * leader_b)
        total += tricks_a + tricks_b
    return total


@njit(cache=True)
def deal_play_heuristic(rules, kinds, params, deal_key, first, n):
    deck = np.zeros(108, np.int64)
    n_cards = ordered_deck_nb(rules, deck)
    hands = np.zeros(4, np.int64)
    play_packed = play_bits_nb(kinds, params)
    facts = hand_facts_nb(rules, 0x04030403, 0)  # bids 3, 4, 3, 4 from seat 0
    state = np.uint64(0)  # (the heuristic draws nothing)
    total = 0
    for h in range(first, first + n):
        _deal_into(rules, deal_key, h, deck, n_cards, hands)
        leader = h & 3
        broken = False
        tricks = 0
        taken = 0
        played = 0
        for trick_index in range(13):
            hand = hands[np.uint64(leader)]
            legal = lead_mask_nb(rules, hand, broken, trick_index)
            card, state = choose_card_nb(rules, STRATEGY_HEURISTIC, play_packed, leader, hand,
                                         legal, 0, leader, -1, -1, facts, tricks, taken, played,
                                         state)
            hands[np.uint64(leader)] = hand ^ (1 << card)
            played |= 1 << card
            led_mask = suit_mask_of_card_nb(card)
            broken |= (card >= 39) & ((hand & ~TRUMP_MASK) == 0)
            side_suit = (led_mask & TRUMP_MASK) == 0
            winner = leader
            best = card_strength_nb(card, led_mask)
            for k in range(1, 4):
                seat = wrap_seat_nb(leader + k, 4)
                hand = hands[np.uint64(seat)]
                card, state = choose_card_nb(rules, STRATEGY_HEURISTIC, play_packed, seat, hand,
                                             follow_mask_nb(hand, led_mask), k, leader,
                                             best & 63, winner, facts, tricks, taken, 0, state)
                hands[np.uint64(seat)] = hand ^ (1 << card)
                played |= 1 << card
                broken |= (card >= 39) & side_suit
                strength = card_strength_nb(card, led_mask)
                better = strength > best
                best = strength if better else best
                winner = seat if better else winner
            tricks += 1 << (8 * winner)
            taken += credit_nb(facts, winner)
            leader = winner
        total += tricks
    return total


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-history", action="store_true")
    args = parser.parse_args(argv)
    n = args.hands - args.hands % 2
    classic = preset("classic")
    rules = classic.kernel_tuple()
    deal_key, play_key = stream_keys(1)
    if deal_play(rules, deal_key, play_key, 0, 2000, False) != deal_play_double(
            rules, deal_key, play_key, 0, 2000):  # (also compiles, or loads, both)
        print("hand_profile: the single and double loops played different tricks",
              file=sys.stderr)
        return 1

    heuristic = kernel_strategies(seat_strategies(["heuristic"], 4), classic)
    no_games = schema.allocate_games(0)
    out = schema.allocate_hands(n, False)
    for array in out:
        array.fill(0)  # touch the pages before timing

    def engine(rules_object, strategy="random"):
        kinds, params = kernel_strategies(seat_strategies([strategy], 4), rules_object)
        kernel = hands_kernel(kinds)
        rules_tuple = rules_object.kernel_tuple()
        kernel(rules_tuple, kinds, params, deal_key, play_key, 0, schema.take(out, 100),
               no_games, False)
        return lambda first: kernel(rules_tuple, kinds, params, deal_key, play_key, first, out,
                                    no_games, False)

    loops = {
        "draws": lambda first: draws(rules, deal_key, first, n),
        "deal": lambda first: deal(rules, deal_key, first, n),
        "deal_play_lowest": lambda first: deal_play(rules, deal_key, play_key, first, n, True),
        "deal_play": lambda first: deal_play(rules, deal_key, play_key, first, n, False),
        "deal_play_double": lambda first: deal_play_double(rules, deal_key, play_key, first, n),
        "deal_play_heuristic": lambda first: deal_play_heuristic(rules, heuristic[0],
                                                                 heuristic[1], deal_key, first, n),
        "engine": engine(classic),
        "engine_heuristic": engine(classic, "heuristic"),
        "engine_no_nil": engine(dataclasses.replace(classic, nil=False, blind_nil=False)),
    }
    for loop in loops.values():
        loop(0)  # warm
    seconds = {name: [] for name in loops}
    for repeat in range(args.repeats):
        for name, loop in loops.items():
            started = time.perf_counter()
            loop((repeat + 1) * n)
            seconds[name].append(time.perf_counter() - started)
    result = {"benchmark": "hand_profile", "rules": "classic", "hands": n,
              "repeats": args.repeats}
    for name, values in seconds.items():
        result[f"{name}_ns"] = round(min(values) / n * 1e9, 1)
        result[f"{name}_ns_median"] = round(statistics.median(values) / n * 1e9, 1)
    result["deal_play_hands_per_second"] = round(n / min(seconds["deal_play"]))
    result["engine_hands_per_second"] = round(n / min(seconds["engine"]))
    result["deal_play_heuristic_hands_per_second"] = round(n / min(seconds["deal_play_heuristic"]))
    result["engine_heuristic_hands_per_second"] = round(n / min(seconds["engine_heuristic"]))
    result.update(stamp())
    publish(result, history=not args.no_history)
    return 0


if __name__ == "__main__":
    sys.exit(main())
