"""Rule variants: every choice the variants create actually happens, obeys its rule, and the
hands are replayable; 2/3-player deals; constraints; preset behaviour."""

import numpy as np
import pytest

from spades_sim.core.cards import SUIT_MASKS
from spades_sim.core.rules import PRESETS, preset
from spades_sim.core.strategies import seat_strategies
from spades_sim.engine.bits import HONOURS_KQJ_MASK, TRUMP_MASK
from spades_sim.run import play_games, simulate_hands

BLIND_HAPPY = "random:bid_min=0,blind_nil_rate=0.3,blind_bid_rate=0.3,bump_rate=0.5"
HEURISTIC_BLIND = "heuristic:blind_nil_deficit=0,blind_bid_deficit=0"


def _run(name, spec, n_hands=3000, seed=5, **overrides):
    rules = preset(name, **overrides)
    return rules, simulate_hands(rules, seat_strategies([spec], rules.players), n_hands, seed,
                                 record_plays=True)


def _exchanged(hands):
    return (hands.exchange[:, :, 0] >= 0).sum(axis=1)


@pytest.mark.parametrize("spec", [BLIND_HAPPY, HEURISTIC_BLIND])
def test_blind_nil_and_exchange_happen_in_classic(spec):
    rules, run = _run("classic", spec)
    hands = run.hands
    blind_nil = (hands.blind[:, :4] == 1) & (hands.bids[:, :4] == 0)
    assert blind_nil.any()
    # A blind nil exchanges 3 cards each way unless the partner also bid blind nil.
    for row in np.flatnonzero(blind_nil.any(axis=1))[:200]:
        for seat in np.flatnonzero(blind_nil[row]):
            partner = (seat + 2) % 4
            passes = hands.exchange[row][hands.exchange[row, :, 0] == seat]
            if blind_nil[row, partner]:
                assert len(passes) == 0
            else:
                assert len(passes) == rules.blind_nil_exchange
                assert set(passes[:, 1]) == {partner}
    assert (hands.bumped == 0).all()  # no bid_bump in classic
    assert not (hands.blind[:, :4].astype(bool) & (hands.bids[:, :4] > 0)).any()  # no blind bids


def test_tournament_makes_blind_bids_bumps_and_keeps_constraints():
    rules = preset("tournament")
    strategies = seat_strategies([BLIND_HAPPY], 4)
    run = play_games(rules, strategies, 60, 3, record_plays=True)
    hands = run.hands
    blind = hands.blind[:, :4].astype(bool)
    bids = hands.bids[:, :4].astype(int)
    bumped = hands.bumped[:, :4].astype(bool)
    assert (blind & (bids > 0)).any(), "no blind number bid"
    assert (blind & (bids == 0)).any(), "no blind nil"
    assert bumped.any(), "no bump"
    assert _exchanged(hands).any(), "no exchange"
    # Blind bids only up to the cap and only when trailing by the minimum deficit.
    assert bids[blind].max() <= rules.blind_bid_max
    scores = hands.score_before[:, :2].astype(int)
    for row, seat in zip(*np.nonzero(blind)):
        side = seat % 2
        deficit = scores[row, 1 - side] - scores[row, side]
        assert deficit >= 100
    # Bumps: +1 on a non-nil, non-blind bid; the total before bumps never equals 13.
    assert not (bumped & blind).any()
    before = bids - bumped
    assert (before[bumped] >= 1).all()
    assert (before.sum(axis=1) != rules.hand_size).all()


def test_min_team_bid_is_respected():
    rules, run = _run("classic", "random:bid_min=0,bid_max=6", min_team_bid=5, nil=True)
    bids = run.hands.bids[:, :4].astype(int)
    nil = bids == 0
    for team in ((0, 2), (1, 3)):
        a, b = team
        ok = nil[:, a] | nil[:, b] | (bids[:, a] + bids[:, b] >= 5)
        assert ok.all()


def test_two_player_draw_deal():
    rules, run = _run("two-player", "random", n_hands=500)
    hands = run.hands.hands
    assert (hands[:, 2:] == 0).all()
    for row in range(500):
        a, b = int(hands[row, 0]), int(hands[row, 1])
        assert bin(a).count("1") == 13 and bin(b).count("1") == 13 and a & b == 0
    assert run.hands.tricks[:, :2].sum(axis=1).tolist() == [13] * 500
    # The heuristic keeps high cards: its hands are stronger than a random deal's.
    _, picked = _run("two-player", "heuristic", n_hands=500)
    ranks = [bin(int(m) & (0b1110000000000 * 0x8004002001)).count("1")
             for m in picked.hands.hands[:, 0]]
    assert np.mean(ranks) > 3.5  # a random 13-card hand holds 3 of the 12 queens, kings, aces


def test_cutthroat_deals_seventeen_without_two_of_clubs_and_redeals_misdeals():
    rules, run = _run("cutthroat", "heuristic", n_hands=500)
    hands = run.hands.hands[:, :3]
    assert (hands[:, :] & 1 == 0).all()
    for row in range(500):
        for seat in range(3):
            mask = int(hands[row, seat])
            assert bin(mask).count("1") == 17
            assert mask & TRUMP_MASK and mask & HONOURS_KQJ_MASK
    assert (run.hands.tricks[:, :3].sum(axis=1) == 17).all()


def test_jokers_are_dealt_and_win():
    rules, run = _run("jokers", "random", n_hands=500)
    dealt = np.bitwise_or.reduce(run.hands.hands[:, :4], axis=1)
    assert (dealt >> 52 & 3 == 3).all() and (dealt & 1 == 0).all() and (dealt >> 13 & 1 == 0).all()
    plays = run.hands.plays[:, :52]
    assert (plays == 53).any() and (plays == 52).any()


def test_first_leader_two_of_clubs_leads_it():
    rules, run = _run("classic", "random", n_hands=300, first_leader="two_of_clubs")
    assert (run.hands.plays[:, 0] == 0).all()
    for row in range(300):
        holder = int(np.flatnonzero(run.hands.hands[row, :4] & 1)[0])
        for giver, taker, card in run.hands.exchange[row]:
            if giver >= 0 and card == 0:
                holder = int(taker)  # the 2C changed hands in an exchange
        assert holder == run.hands.first_leader[row] == run.hands.play_seats[row, 0]


@pytest.mark.parametrize("mode", ["anytime", "after_first_trick"])
def test_spades_lead_modes_change_play(mode):
    _, broken = _run("classic", "random", n_hands=300)
    _, other = _run("classic", "random", n_hands=300, spades_lead=mode)
    first_leads = other.hands.plays[:, 0]
    if mode == "anytime":
        assert (first_leads >= 39).any()
    spade_leads_broken = (broken.hands.plays[:, 0] >= 39).sum()
    assert spade_leads_broken < (first_leads >= 39).sum() or mode == "after_first_trick"


def test_nil_exchange():
    rules, run = _run("classic", "random:bid_min=0,bid_max=2,blind_nil_rate=0", n_hands=500,
                      nil_exchange=2)
    hands = run.hands
    nil = hands.bids[:, :4] == 0
    for row in np.flatnonzero(nil.any(axis=1))[:100]:
        for seat in np.flatnonzero(nil[row]):
            partner = (seat + 2) % 4
            passes = hands.exchange[row][hands.exchange[row, :, 0] == seat]
            assert len(passes) == (0 if nil[row, partner] else 2)


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_plays_games_and_replays(name, tmp_path):
    from spades_sim.handlog import replay, write_log

    rules = preset(name)
    for spec in ("heuristic", BLIND_HAPPY):
        run = play_games(rules, seat_strategies([spec], rules.players), 4, 1, record_plays=True)
        path = tmp_path / f"{name}.jsonl"
        write_log(path, run)
        lines = path.read_text().splitlines()
        assert len(lines) == len(run.hands.hand_id)
        results = replay(lines)
        errors = [r for r in results if isinstance(r, str)]
        assert not errors, errors[:3]


def test_suit_masks_cover_the_deck():
    assert sum(SUIT_MASKS) == (1 << 52) - 1


def test_quick_game_and_mercy_and_target():
    quick = preset("classic", max_hands=1)
    run = play_games(quick, seat_strategies(["heuristic"], 4), 50, 2)
    assert (run.games.n_hands == 1).all()
    scores = run.games.final_score[:, :2].astype(int)
    winners = run.games.winner.astype(int)
    assert all(w == -1 if s[0] == s[1] else w == int(np.argmax(s)) for s, w in zip(scores, winners))

    mercy = preset("classic", mercy=-100, target=300)
    run = play_games(mercy, seat_strategies(["random:bid_min=0,blind_nil_rate=0.2"], 4), 50, 2)
    finals = run.games.final_score[:, :2].astype(int)
    ended_by_mercy = (finals <= -100).any(axis=1)
    assert ended_by_mercy.any()
    assert ((finals.max(axis=1) >= 300) | ended_by_mercy | (run.games.n_hands == 200)).all()
