"""The learning example (examples/learn): a tiny training run saves weights, and the plug-in
loads them and plays legal cards; its features match a direct per-card computation."""

import subprocess
import sys
from importlib import util
from pathlib import Path

import numpy as np
import pytest

from spades_sim.core.rules import preset
from spades_sim.core.view import V_HAND, V_LEGAL, V_PHASE, V_WINNING_CARD
from spades_sim.game import BID, BLIND, LOOK, PLAY, Hand

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "learn"


@pytest.fixture(scope="module")
def weights_file(tmp_path_factory):
    out = tmp_path_factory.mktemp("learn") / "tiny.npz"
    completed = subprocess.run(
        [sys.executable, str(EXAMPLE / "train.py"), "--out", str(out), "--hands", "600",
         "--tables", "64", "--batch-hands", "200", "--seed", "3"],
        capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr
    assert "weights saved" in completed.stdout
    return out


def test_training_saves_weights_reproducibly(weights_file, tmp_path):
    with np.load(weights_file) as saved:
        weights = saved["weights"]
        assert weights.shape == (len(saved["features"]),)
        assert np.all(np.isfinite(weights)) and np.any(weights != 0)
    again = tmp_path / "again.npz"
    subprocess.run([sys.executable, str(EXAMPLE / "train.py"), "--out", str(again), "--hands",
                    "600", "--tables", "64", "--batch-hands", "200", "--seed", "3"],
                   check=True, capture_output=True, timeout=300)
    with np.load(again) as repeated:
        np.testing.assert_array_equal(repeated["weights"], weights)


def test_bad_budget_is_one_line(tmp_path):
    completed = subprocess.run([sys.executable, str(EXAMPLE / "train.py"), "--out",
                                str(tmp_path / "x.npz"), "--hands", "0"],
                               capture_output=True, text=True, timeout=60)
    assert completed.returncode == 2
    assert "--hands: 0 is not >= 1" in completed.stderr


def load_policy():
    spec = util.spec_from_file_location("learn_policy", EXAMPLE / "policy.py")
    policy = util.module_from_spec(spec)
    spec.loader.exec_module(policy)
    return policy


def test_plugin_plays_legal_cards(weights_file):
    learned = load_policy().Learned(weights=str(weights_file))
    for hand_id in range(4):
        hand = Hand.deal(preset("classic"), seed=5, hand_id=hand_id)
        while not hand.done:
            legal = hand.legal_actions()
            if hand.to_act in (0, 2) and hand.phase in (BID, PLAY):
                seen = hand.observation()
                action = learned.play(seen) if hand.phase == PLAY else learned.bid(seen)
                assert type(action) is int and action in legal
            else:
                action = legal[0] if hand.phase != BLIND else LOOK
            hand.apply(action)


def test_match_command_runs_the_plugin(weights_file):
    completed = subprocess.run(
        [sys.executable, "-m", "spades_sim.cli", "match",
         f"{EXAMPLE / 'policy.py'}:Learned:weights={weights_file}", "heuristic",
         "--rules", "classic", "--hands", "8", "--jobs", "1", "--seed", "1"],
        capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr


def test_features_match_a_direct_computation():
    policy = load_policy()
    hand = Hand.deal(preset("classic"), seed=7, hand_id=0)
    checked = 0
    while not hand.done:
        if hand.phase == PLAY:
            view = np.asarray(hand.observation(hand.to_act).view(), dtype=np.int64)
            assert view[V_PHASE] == 1
            features = policy.card_features(view[None, :])[0]
            names = policy.FEATURES
            winning = int(view[V_WINNING_CARD])
            for card in range(54):
                if not view[V_LEGAL] >> card & 1:
                    continue
                # a direct per-card computation of two features
                suit = 3 if card >= 52 else card // 13
                if winning < 0:
                    wins = 0
                elif winning >= 39:
                    wins = int(card >= 39 and card > winning)
                else:
                    wins = int(card >= 39 or (suit == winning // 13 and card > winning))
                assert features[card, names.index("wins")] == wins
                length = sum(1 for other in range(52)
                             if view[V_HAND] >> other & 1 and other // 13 == suit)
                assert features[card, names.index("suit_length")] == length / 13
                checked += 1
        hand.apply(hand.legal_actions()[0] if hand.phase != BLIND else LOOK)
    assert checked > 0
