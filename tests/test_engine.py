"""Engine properties: invariants over seeds x presets x strategies, reproducibility, one compiled
signature per entry kernel, JIT vs NUMBA_DISABLE_JIT, and a hypergeometric deal check."""

import hashlib
import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import engine_score
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numba import njit

from spades_sim.core.cards import SUIT_MASKS, cards_of
from spades_sim.core.rules import PRESETS, preset
from spades_sim.core.strategies import seat_strategies
from spades_sim.engine.bits import (
    TRUMP_MASK,
    pdep_loop_nb,
    pdep_nb,
    pext_loop_nb,
    pext_nb,
)
from spades_sim.engine.unsafe import borrow_nb, keep_nb, prefetch_nb
from spades_sim.run import play_games, simulate_hands

PLAYABLE = list(PRESETS)
STRATEGY_SETS = [
    ["random"],
    ["heuristic"],
    ["random:bid_min=0,bid_max=3,blind_nil_rate=0.3,blind_bid_rate=0.3"],
    ["heuristic:nil_threshold=2,blind_nil_deficit=0,blind_bid_deficit=0"],
    ["heuristic", "random"],
    ["cautious", "aggressive", "nil-happy", "bag-averse"],
    ["mc:samples=2", "heuristic"],
]


def _seat_specs(specs, players):
    if len(specs) > 1:
        return [specs[seat % len(specs)] for seat in range(players)]
    return specs


def _suit(card):
    return 3 if card >= 52 else card // 13


def check_hand(rules, hands, row):
    """Every rule a recorded hand must obey (independent of the engine's code)."""
    players, hand_size = rules.players, rules.hand_size
    dealt = [int(hands.hands[row, seat]) for seat in range(players)]
    all_cards = 0
    for mask in dealt:
        assert bin(mask).count("1") == hand_size
        assert all_cards & mask == 0
        all_cards |= mask
    assert all_cards & ~rules.deck_mask == 0
    plays = hands.plays[row, : players * hand_size].astype(int)
    seats = hands.play_seats[row, : players * hand_size].astype(int)
    holding = list(dealt)
    for giver, taker, card in hands.exchange[row]:
        if giver < 0:
            break
        assert rules.partnership and taker == (giver + 2) % 4
        assert holding[giver] >> int(card) & 1, "passed a card not held"
        holding[giver] ^= 1 << int(card)
        holding[taker] |= 1 << int(card)
    leader = int(hands.first_leader[row])
    if rules.first_leader == "dealer_left":
        assert leader == (int(hands.dealer[row]) + 1) % players
    if rules.first_leader == "two_of_clubs":
        assert plays[0] == 0 and dealt[leader] & 1
    broken = False
    tricks = [0] * players
    for trick in range(hand_size):
        cards = plays[trick * players:(trick + 1) * players]
        who = seats[trick * players:(trick + 1) * players]
        assert list(who) == [(leader + k) % players for k in range(players)]
        led = _suit(cards[0])
        for k, (card, seat) in enumerate(zip(cards, who)):
            assert holding[seat] >> card & 1, "card not held"
            hand = holding[seat]
            if k == 0 and _suit(card) == 3:
                open_lead = rules.spades_lead == "anytime" or (
                    rules.spades_lead == "after_first_trick" and trick > 0)
                assert open_lead or broken or hand & ~TRUMP_MASK == 0, "spade led before broken"
                if hand & ~TRUMP_MASK == 0 and rules.broken_by_forced_lead:
                    broken = True
            if k > 0:
                suit_mask = TRUMP_MASK if led == 3 else SUIT_MASKS[led]
                if hand & suit_mask:
                    assert _suit(card) == led, "did not follow suit"
                if _suit(card) == 3 and led != 3:
                    broken = True
            holding[seat] ^= 1 << card
        trumps = [c for c in cards if _suit(c) == 3]
        best = max(trumps) if trumps else max(c for c in cards if _suit(c) == led)
        winner = int(who[list(cards).index(best)])
        tricks[winner] += 1
        leader = winner
    assert all(h == 0 for h in holding)
    assert list(hands.tricks[row, :players]) == tricks
    bids = [int(b) for b in hands.bids[row, :players]]
    assert all(0 <= b <= hand_size for b in bids)
    deltas, bags_after = engine_score(
        rules, bids, list(hands.blind[row, :players]), tricks,
        [int(b) for b in hands.bags_before[row, : rules.n_sides]],
    )
    assert list(hands.score_delta[row, : rules.n_sides]) == deltas
    assert list(hands.bags_after[row, : rules.n_sides]) == bags_after


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**63), preset_name=st.sampled_from(PLAYABLE),
       specs=st.sampled_from(STRATEGY_SETS))
def test_hand_invariants(seed, preset_name, specs):
    rules = preset(preset_name)
    strategies = seat_strategies(_seat_specs(specs, rules.players), rules.players)
    run = simulate_hands(rules, strategies, 12, seed, record_plays=True)
    for row in range(12):
        check_hand(rules, run.hands, row)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), preset_name=st.sampled_from(PLAYABLE),
       specs=st.sampled_from(STRATEGY_SETS))
def test_game_invariants(seed, preset_name, specs):
    rules = preset(preset_name)
    strategies = seat_strategies(_seat_specs(specs, rules.players), rules.players)
    run = play_games(rules, strategies, 3, seed, record_plays=True)
    hands, games = run.hands, run.games
    row = 0
    for g in range(3):
        n_hands = int(games.n_hands[g])
        scores = np.zeros(rules.n_sides, np.int64)
        bags = np.zeros(rules.n_sides, np.int64)
        dealer = int(games.first_dealer[g])
        for j in range(n_hands):
            check_hand(rules, hands, row)
            assert hands.game_id[row] == games.game_id[g]
            assert hands.dealer[row] == dealer
            assert list(hands.score_before[row, : rules.n_sides]) == list(scores)
            assert list(hands.bags_before[row, : rules.n_sides]) == list(bags)
            scores += hands.score_delta[row, : rules.n_sides]
            bags = hands.bags_after[row, : rules.n_sides].astype(np.int64)
            assert np.all((bags >= 0) & (bags < rules.bag_limit))
            dealer = (dealer + 1) % rules.players
            row += 1
            top = scores.max()
            unique_top = (scores == top).sum() == 1
            over = (top >= rules.target and unique_top) or j + 1 >= rules.hand_cap
            assert over == (j == n_hands - 1)
        assert list(games.final_score[g, : rules.n_sides]) == list(scores)
        winner = int(games.winner[g])
        if winner >= 0:
            assert scores[winner] == scores.max()
    assert row == len(hands.hand_id)


def _digest(arrays):
    digest = hashlib.sha256()
    for array in arrays:
        digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()


def test_same_seed_same_results_for_any_jobs(classic):
    strategies = seat_strategies(["heuristic"], 4)
    one = simulate_hands(classic, strategies, 3000, 11, jobs=1)
    two = simulate_hands(classic, strategies, 3000, 11, jobs=2)
    assert _digest(one.hands) == _digest(two.hands)
    games_one = play_games(classic, strategies, 40, 5, jobs=1)
    games_two = play_games(classic, strategies, 40, 5, jobs=2)
    assert _digest(games_one.hands) == _digest(games_two.hands)
    assert _digest(games_one.games) == _digest(games_two.games)
    other = simulate_hands(classic, strategies, 3000, 12, jobs=1)
    assert _digest(other.hands) != _digest(one.hands)


def test_hand_depends_only_on_its_id(classic):
    strategies = seat_strategies(["random"], 4)
    whole = simulate_hands(classic, strategies, 100, 3)
    tail = simulate_hands(classic, strategies, 40, 3, first_hand_id=60)
    assert np.array_equal(whole.hands.hands[60:], tail.hands.hands)
    assert np.array_equal(whole.hands.score_delta[60:], tail.hands.score_delta)


def test_strategies_share_deals(classic):
    """Common random numbers: the deal stream does not depend on the strategies."""
    a = simulate_hands(classic, seat_strategies(["random"], 4), 200, 9)
    b = simulate_hands(classic, seat_strategies(["heuristic"], 4), 200, 9)
    assert np.array_equal(a.hands.hands, b.hands.hands)


def test_one_signature_per_entry_kernel():
    from spades_sim.engine import simulate as kernels

    for name in PLAYABLE:
        rules = preset(name, target=300)
        for specs in STRATEGY_SETS:
            strategies = seat_strategies(_seat_specs(specs, rules.players), rules.players)
            simulate_hands(rules, strategies, 5, 1, record_plays=True)
            simulate_hands(rules, strategies, 5, 1)
            play_games(rules, strategies, 1, 1)
    for kernel in (kernels.simulate_hands_nb, kernels.play_games_nb,
                   kernels.simulate_hands_search_nb, kernels.play_games_search_nb):
        assert len(kernel.signatures) == 1, kernel


def test_jit_matches_no_jit():
    script = (
        "import hashlib\n"
        "from spades_sim.core.rules import preset\n"
        "from spades_sim.core.strategies import seat_strategies\n"
        "from spades_sim.run import simulate_hands, play_games\n"
        "h = hashlib.sha256()\n"
        "for name in ['random', 'heuristic', 'random:bid_min=0', 'mc:samples=2',"
        " 'aggressive']:\n"
        "    for p in ['classic', 'cutthroat', 'jokers', 'casual']:\n"
        "        r = preset(p)\n"
        "        run = simulate_hands(r, seat_strategies([name], r.players), 6, 7,"
        " record_plays=True)\n"
        "        [h.update(a.tobytes()) for a in run.hands]\n"
        "run = play_games(preset('classic'), seat_strategies(['heuristic'], 4), 2, 7,"
        " record_plays=True)\n"
        "[h.update(a.tobytes()) for a in list(run.hands) + list(run.games)]\n"
        "print(h.hexdigest())\n"
    )
    outputs = []
    for disable in ("0", "1"):
        env = dict(os.environ, NUMBA_DISABLE_JIT=disable)
        result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                                text=True, timeout=600)
        assert result.returncode == 0, result.stderr
        outputs.append(result.stdout.strip())
    assert outputs[0] == outputs[1]


@pytest.mark.slow
def test_spade_count_is_hypergeometric(classic):
    """Seeded chi-square check of seat 0's spade count against the exact distribution."""
    from math import comb

    run = simulate_hands(classic, seat_strategies(["random"], 4), 200_000, 2024)
    spade_mask = SUIT_MASKS[3]
    counts = np.array([bin(int(m) & spade_mask).count("1") for m in run.hands.hands[:, 0]])
    observed = np.bincount(counts, minlength=14)[:14]
    expected = np.array([comb(13, k) * comb(39, 13 - k) / comb(52, 13) for k in range(14)])
    expected *= len(counts)
    keep = expected >= 5
    observed_kept = np.append(observed[keep], observed[~keep].sum())
    expected_kept = np.append(expected[keep], expected[~keep].sum())
    chi2 = ((observed_kept - expected_kept) ** 2 / expected_kept).sum()
    # 99.9% quantile of chi-square with len-1 degrees of freedom (< 30 for <= 11 dof).
    assert chi2 < 32.0, chi2


def test_cards_of_roundtrip():
    assert cards_of(SUIT_MASKS[0]) == list(range(13))


@njit(cache=True)
def _gather_scatter(sources, masks, out):
    for i in range(sources.shape[0]):
        out[i, 0] = pext_nb(sources[i], masks[i])
        out[i, 1] = pdep_nb(sources[i], masks[i])
        out[i, 2] = pext_loop_nb(sources[i], masks[i])
        out[i, 3] = pdep_loop_nb(sources[i], masks[i])


def _pext_reference(source, mask):
    return sum(((source >> bit) & 1) << i
               for i, bit in enumerate(b for b in range(63) if (mask >> b) & 1))


def _pdep_reference(source, mask):
    return sum(((source >> i) & 1) << bit
               for i, bit in enumerate(b for b in range(63) if (mask >> b) & 1))


def test_bit_gather_and_scatter_match_their_definitions():
    """``pext_nb``/``pdep_nb`` (BMI2 where the host has it) and their loop fallbacks agree
    with the definitions on random 63-bit masks (the double-dummy table's suit codes use
    them)."""
    rng = np.random.default_rng(5)
    sources = rng.integers(0, 1 << 62, 200, dtype=np.int64)
    masks = rng.integers(0, 1 << 62, 200, dtype=np.int64) & rng.integers(0, 1 << 62, 200,
                                                                            dtype=np.int64)
    masks[:3] = (0, (1 << 62) - 1, 0x1555555555555555)
    out = np.zeros((200, 4), dtype=np.int64)
    _gather_scatter(sources, masks, out)
    for i in range(200):
        source, mask = int(sources[i]), int(masks[i])
        assert out[i, 0] == out[i, 2] == _pext_reference(source, mask)
        assert out[i, 1] == out[i, 3] == _pdep_reference(source, mask)


@njit(cache=True)
def _borrowed_reads(n):
    """Reads through a borrowed view after fresh allocations, its owner kept alive by keep_nb
    (as the kernels do): the view must still see the owner's values."""
    owner = np.arange(n, dtype=np.int64)
    view = borrow_nb(owner)
    total = 0
    for _ in range(8):  # allocations that could reuse a freed owner's memory
        other = np.full(n, -1, dtype=np.int64)
        total += other[0]
    same = True
    for i in range(n):
        same &= view[i] == i
    keep_nb(owner)
    return same, total


def test_borrowed_view_reads_its_owner():
    same, total = _borrowed_reads(4096)
    assert same and total == -8


@njit(cache=True)
def _prefetched_sum(table):
    total = 0
    for row in range(table.shape[0]):
        prefetch_nb(table, (row * 7) % table.shape[0], row % table.shape[1])
        total += table[row, 0]
    return total


def test_prefetch_changes_nothing_it_reads():
    table = np.arange(64, dtype=np.int64).reshape(16, 4)
    assert _prefetched_sum(table) == int(table[:, 0].sum())
