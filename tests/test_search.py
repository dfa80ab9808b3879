"""The search player ``mc``: its sampling, its candidates, and that it beats the heuristic.

The engine and the twin agree on whole hands with ``mc`` seats in ``test_reference.py``; here
the pieces are checked on their own, and the search's strength in a duplicate match.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spades_sim.core.cards import cards_of, mask_of, parse_card
from spades_sim.core.rules import preset
from spades_sim.core.strategies import parse_strategy
from spades_sim.engine.search import candidates_nb, sample_hands_nb
from spades_sim.evaluate import match
from spades_sim.reference import strategies as ref_strategies
from spades_sim.reference.search import candidates, sample_hands
from spades_sim.reference.stream import Stream

CLASSIC = preset("classic")
MC = parse_strategy("mc")


def cards(text):
    return mask_of([parse_card(card) for card in text.split()])


@pytest.mark.parametrize("legal, unseen, expected", [
    # 9H, TH, JH touch (no unseen heart between them): one candidate, the 9H; the 2C apart.
    ("2C 9H TH JH", "QH KH AH", ["2C", "9H"]),
    # The QH is unseen between the JH and the KH: both are tried.
    ("JH KH", "QH", ["JH", "KH"]),
    # The QH was played (not unseen): JH and KH are equivalent.
    ("JH KH", "2H", ["JH"]),
    # Spades and jokers are one trump suit.
    ("AS LJ", "BJ", ["AS"]),
    ("KS LJ", "AS", ["KS", "LJ"]),
])
def test_candidates(legal, unseen, expected):
    expected = [parse_card(card) for card in expected]
    assert candidates(cards(legal), cards(unseen)) == expected
    assert candidates_nb(cards(legal), cards(unseen)) == mask_of(expected)


@st.composite
def sampling_states(draw):
    """A seat's view in the middle of a classic hand: its hand, the unseen cards, the other
    seats' counts, their voids (consistent with some real deal) and their bids."""
    deck = draw(st.permutations(range(52)))
    trick_index = draw(st.integers(0, 11))
    seat = draw(st.integers(0, 3))
    held = [deck[13 * other: 13 * other + 13 - trick_index] for other in range(4)]
    played = [deck[13 * other + 13 - trick_index: 13 * other + 13] for other in range(4)]
    counts = [0 if other == seat else len(held[other]) for other in range(4)]
    voids = 0
    for other in range(4):
        for suit in range(4):
            if other != seat and not any(card // 13 == suit for card in held[other]):
                if draw(st.booleans()):
                    voids |= 1 << (4 * other + suit)
    bids = [draw(st.integers(0, 6)) for _ in range(4)]
    return seat, mask_of(held[seat]), counts, voids, [mask_of(p) for p in played], bids


# The default tries, and a single one: then tight positions (two seats void in a suit with
# many of its cards unseen) often fail every try, and the deal comes from the void-respecting
# fallback (``void_deal_nb``).
SAMPLERS = [parse_strategy("mc"), parse_strategy("mc:sample_tries=1")]


@settings(max_examples=60, deadline=None)
@given(state=sampling_states(), key=st.integers(0, 2**64 - 1), which=st.sampled_from([0, 1]))
def test_sampling_is_consistent_and_matches_the_engine(state, key, which):
    seat, hand, counts, voids, played_by, bids = state
    sampler = SAMPLERS[which]
    unseen = CLASSIC.deck_mask & ~hand
    for cards_played in played_by:
        unseen &= ~cards_played
    blind = [False] * 4
    sampled = sample_hands(CLASSIC, sampler.params, seat, unseen, counts, voids, played_by,
                           bids, blind, Stream(key, 7))
    # Every other seat gets exactly its count, from the unseen cards, never in a void suit
    # (a real deal with these voids exists, so a try or the fallback finds one).
    assert [s.bit_count() for s in sampled] == counts
    assert sampled[0] | sampled[1] | sampled[2] | sampled[3] == unseen
    for other in range(4):
        for card in cards_of(sampled[other]):
            assert not voids >> (4 * other + card // 13) & 1
    # The engine deals the same cards from the same stream.
    from spades_sim.engine.rng import seed_nb

    out = np.zeros(4, dtype=np.int64)
    packed_bids = sum(bid << (8 * other) for other, bid in enumerate(bids))
    sample_hands_nb(CLASSIC.kernel_tuple(), tuple(float(v) for v in sampler.vector()), seat,
                    unseen, np.array(counts, dtype=np.int64), voids,
                    np.array(played_by, dtype=np.int64), packed_bids, 0,
                    np.zeros(64, dtype=np.int64), out, np.zeros(4, dtype=np.int64),
                    seed_nb(np.uint64(key), 7))
    assert out.tolist() == sampled


def test_the_fallback_deal_meets_tight_voids():
    """Seats 1 and 2 are void in spades and seat 3 must take all six unseen spades: a shuffled
    order that deals spades early to whoever has room fails, and the flow search moves them."""
    from spades_sim.engine.search import void_deal_nb
    from spades_sim.reference.search import void_deal

    spades = cards("2S 5S 7S 9S JS AS")
    others = cards("2C 3C 4C 5C 6D 7D 8D 9D TH JH QH KH")
    pool = list(cards_of(spades | others))[::-1]  # spades first
    counts = [0, 6, 6, 6]
    voids = (1 << (4 * 1 + 3)) | (1 << (4 * 2 + 3)) | (1 << (4 * 3 + 2))  # seat 3 void in hearts
    sampled = void_deal(pool, counts, voids, 0)
    assert sampled[3] & spades == spades
    assert [s.bit_count() for s in sampled] == counts
    for other in range(4):
        for card in cards_of(sampled[other]):
            assert not voids >> (4 * other + card // 13) & 1
    out = np.zeros(4, dtype=np.int64)
    void_deal_nb(np.array(pool + [0] * (64 - len(pool)), dtype=np.int64), len(pool),
                 np.array(counts, dtype=np.int64), voids, 0, out)
    assert out.tolist() == sampled


def test_sampled_holdings_lean_towards_the_bids():
    """Sampling with a bid tolerance brings the other seats' trick estimates nearer their bids
    than sampling that ignores the bids (a tolerance of 20 tricks)."""
    hand = cards("2C 3C 4C 5D 6D 7D 8H 9H TH 2S 3S 4S 5S")
    unseen = CLASSIC.deck_mask & ~hand
    bids = [2, 6, 3, 1]  # seat 0 searches; seats 1..3 bid 6, 3, 1

    def mean_error(tolerance):
        params = parse_strategy(f"mc:bid_tolerance={tolerance}").params
        stream = Stream(3, 3)
        errors = []
        for _ in range(200):
            sampled = sample_hands(CLASSIC, params, 0, unseen, [0, 13, 13, 13], 0, [0] * 4,
                                   bids, [False] * 4, stream)
            errors += [abs(ref_strategies.estimate_tricks(CLASSIC, params, sampled[seat])
                           - bids[seat]) for seat in (1, 2, 3)]
        return float(np.mean(errors))

    assert mean_error(1) < 0.75 * mean_error(20)


def test_mc_beats_the_heuristic(tmp_path):
    """Duplicate games under classic: the search player's default budget wins by a margin
    whose 95% interval excludes zero (the numbers in docs/players.md come from a longer match)."""
    result = match("mc", "heuristic", "classic", n_games=60, seed=5, out=tmp_path / "m",
                   quiet=True)
    assert result.ci95[0] > 0
    assert result.a_wins > result.b_wins
