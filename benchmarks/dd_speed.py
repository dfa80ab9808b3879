"""Double-dummy speed: positions solved per second on one core, ours against DDS (``endplay``).

A position is one deal with one leader. On ``--deals`` random deals of the standard deck
(``spades_lead = anytime``, so Spades play is bridge play with spades trumps and DDS is exact)
both solvers find the leader's side's tricks for every leader: ours through the batch kernel
(``solve_deals``, the four leaders of a deal in a row), DDS through ``SolveBoard`` in
best-value mode (``SolveMode.OptimalOne``), one thread, one call per position. The script checks
that the two agree on every position and records the mismatch count. It then times mid-hand
positions: the same deals after ``--tricks-played`` random legal tricks (ours only from a
trick boundary, DDS the same position).

Usage::

    python benchmarks/dd_speed.py [--deals 2000] [--tricks-played 3] [--seed 1] [--jobs 1]
                                  [--no-history]

``--jobs J`` splits the full deals into ``J`` runs of whole deals, each in its own process on its
own core (the solvers themselves stay single-threaded): the rates are per core, the positions
over the seconds the processes spent, summed.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from endplay import _dds  # noqa: E402
from endplay.dds import solve_board  # noqa: E402
from endplay.dds.solve import SolveMode  # noqa: E402
from endplay.types import Deal, Denom, Player  # noqa: E402

from spades_sim.bench import append_history, stamp
from spades_sim.core.cards import cards_of, suit_of  # noqa: E402
from spades_sim.core.rules import preset  # noqa: E402
from spades_sim.core.tricks import legal_cards, trick_winner  # noqa: E402
from spades_sim.engine import dd  # noqa: E402

RULES = preset("classic", spades_lead="anytime")


def pbn(hands) -> str:
    """Our seats 0..3 as N, E, S, W (both play clockwise); suits S.H.D.C, ranks high first."""
    ranks = "23456789TJQKA"
    return "N:" + " ".join(
        ".".join("".join(ranks[r] for r in range(12, -1, -1) if (int(h) >> (13 * s + r)) & 1)
                 for s in (3, 2, 1, 0))
        for h in hands)


def random_deals(rng, count):
    deals = np.zeros((count, 4), dtype=np.int64)
    for i in range(count):
        cards = rng.permutation(52)
        for seat in range(4):
            deals[i, seat] = sum(1 << int(c) for c in cards[13 * seat:13 * (seat + 1)])
    return deals


def play_random_tricks(rng, hands, leader, tricks):
    """The hands and the leader after ``tricks`` random legal tricks."""
    hands = [int(h) for h in hands]
    for trick_index in range(tricks):
        cards = []
        led = None
        for position in range(4):
            seat = (leader + position) % 4
            legal = cards_of(legal_cards(RULES, hands[seat], led, True, trick_index))
            card = legal[rng.integers(len(legal))]
            cards.append(card)
            hands[seat] &= ~(1 << card)
            if position == 0:
                led = suit_of(card)
        leader = (leader + trick_winner(cards)) % 4
    return hands, leader


def time_ours(rows, leaders):
    started = time.perf_counter()
    out = dd.solve_deals(RULES, rows, leaders)
    return out, time.perf_counter() - started


def time_dds(rows, leaders):
    deals = [Deal(pbn(h), first=Player(int(leader)), trump=Denom.spades)
             for h, leader in zip(rows, leaders)]
    scores = np.zeros(len(deals), dtype=np.int64)
    started = time.perf_counter()
    for i, deal in enumerate(deals):
        scores[i] = max(score for _, score in solve_board(deal, SolveMode.OptimalOne))
    return scores, time.perf_counter() - started


def _full_part(rows, leaders):
    """One process's share of the full deals: both solvers timed, ours' node count."""
    _dds.SetMaxThreads(1)
    nodes_before = dd.nodes_searched()
    ours, ours_seconds = time_ours(rows, leaders)
    nodes = dd.nodes_searched() - nodes_before
    dds_scores, dds_seconds = time_dds(rows, leaders)
    return ours, ours_seconds, nodes, dds_scores, dds_seconds


def _full(rows, leaders, jobs: int):
    if jobs == 1:
        return _full_part(rows, leaders)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    bounds = np.linspace(0, len(rows) // 4, jobs + 1).astype(int) * 4  # whole deals
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
        parts = list(pool.map(_full_part, [rows[a:b] for a, b in zip(bounds, bounds[1:])],
                              [leaders[a:b] for a, b in zip(bounds, bounds[1:])]))
    return (np.concatenate([p[0] for p in parts]), sum(p[1] for p in parts),
            sum(p[2] for p in parts), np.concatenate([p[3] for p in parts]),
            sum(p[4] for p in parts))


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--tricks-played", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--no-history", action="store_true")
    args = parser.parse_args(argv)
    _dds.SetMaxThreads(1)
    rng = np.random.default_rng(args.seed)
    deals = random_deals(rng, args.deals)
    rows = np.repeat(deals, 4, axis=0)
    leaders = np.tile(np.arange(4, dtype=np.int64), args.deals)
    # Warm-up: load (or compile) the kernels outside the timing.
    warm = dd.solve_deals(RULES, rows[:0], leaders[:0])
    del warm
    dd.solve(RULES, [["AS"], ["KS"], ["2H"], ["3H"]], 0, trick_index=12)

    ours, ours_seconds, nodes, dds_scores, dds_seconds = _full(rows, leaders, args.jobs)
    ours_leader = ours[np.arange(len(rows)), leaders % 2]
    mismatches = int((ours_leader != dds_scores).sum())

    mid_rows = np.zeros_like(deals)
    mid_leaders = np.zeros(args.deals, dtype=np.int64)
    for i in range(args.deals):
        hands, leader = play_random_tricks(rng, deals[i], int(rng.integers(4)),
                                           args.tricks_played)
        mid_rows[i] = hands
        mid_leaders[i] = leader
    mid_ours, mid_seconds = time_ours(mid_rows, mid_leaders)
    mid_dds, mid_dds_seconds = time_dds(mid_rows, mid_leaders)
    mid_mismatches = int((mid_ours[np.arange(args.deals), mid_leaders % 2] != mid_dds).sum())

    positions = len(rows)
    result = {
        "benchmark": "dd_speed",
        "rules": "classic spades_lead=anytime",
        "deals": args.deals,
        "seed": args.seed,
        "jobs": args.jobs,
        "full": {
            "positions": positions,
            "ours_seconds": ours_seconds,
            "ours_per_second": positions / ours_seconds,
            "ours_nodes": nodes,
            "dds_seconds": dds_seconds,
            "dds_per_second": positions / dds_seconds,
            "ratio": dds_seconds / ours_seconds,
            "mismatches": mismatches,
        },
        "mid_hand": {
            "tricks_played": args.tricks_played,
            "positions": args.deals,
            "ours_seconds": mid_seconds,
            "ours_per_second": args.deals / mid_seconds,
            "dds_seconds": mid_dds_seconds,
            "dds_per_second": args.deals / mid_dds_seconds,
            "ratio": mid_dds_seconds / mid_seconds,
            "mismatches": mid_mismatches,
        },
        **stamp(),
    }
    full, mid = result["full"], result["mid_hand"]
    print(f"full deals: {positions} positions; ours {full['ours_per_second']:.1f}/s "
          f"({ours_seconds:.1f} s), DDS {full['dds_per_second']:.1f}/s ({dds_seconds:.1f} s); "
          f"ours/DDS speed {full['ratio']:.3f}; mismatches {mismatches}")
    print(f"after {args.tricks_played} tricks: {args.deals} positions; ours "
          f"{mid['ours_per_second']:.1f}/s, DDS {mid['dds_per_second']:.1f}/s; ours/DDS speed "
          f"{mid['ratio']:.3f}; mismatches {mid_mismatches}")
    if not args.no_history:
        append_history(result)
    return result


if __name__ == "__main__":
    main()
