"""Deal identity measured from the dealt cards (``analysis.deals``, the ``identical_deals``
columns of ``effects.paired_effects``), against direct comparisons of the cards."""

import numpy as np
import pandas as pd
import pytest

from spades_sim.analysis import effects
from spades_sim.analysis.deals import deal_fingerprint
from spades_sim.core.errors import AnalysisError


def test_fingerprints_are_equal_exactly_for_equal_deals():
    rng = np.random.default_rng(3)
    cards = rng.integers(1, 2**52, size=(2000, 4), dtype=np.int64)
    prints = deal_fingerprint(cards)
    assert len(np.unique(prints)) == 2000  # no collision among different deals
    swapped = cards[:, [1, 0, 2, 3]]  # the same cards in other seats is another deal
    assert not (deal_fingerprint(swapped) == prints).any()
    assert (deal_fingerprint(cards.copy()) == prints).all()
    # A seat without cards (a three-player table stored beside four-player ones) adds nothing.
    padded = np.concatenate([cards[:, :3], np.zeros((2000, 1), np.int64)], axis=1)
    assert (deal_fingerprint(padded) == deal_fingerprint(cards[:, :3])).all()
    with pytest.raises(AnalysisError, match="expected"):
        deal_fingerprint(np.zeros(4, np.int64))


def _frame(config, cards):
    hands, seats = cards.shape
    return pd.DataFrame({
        "config": config, "duplicate": False, "game_id": -1,
        "hand_id": np.repeat(np.arange(hands), seats), "seat": np.tile(np.arange(seats), hands),
        "side": np.tile(np.arange(seats) % 2, hands), "tricks": 3, "score_delta": 10,
        "side_contract": 6, "side_taken": 6, "nil": False, "cards": cards.reshape(-1)})


def test_paired_effects_count_the_hands_dealt_identical_cards():
    rng = np.random.default_rng(5)
    base = rng.integers(1, 2**52, size=(400, 4), dtype=np.int64)
    other = base.copy()
    changed = rng.random(400) < 0.3
    other[changed, 2] += 1  # one seat's cards differ on about 30% of the hands
    frame = pd.concat([_frame("base", base), _frame("other", other)], ignore_index=True)
    frame["config"] = frame["config"].astype("category")
    table = effects.paired_effects(frame, "base", metrics=["score", "set"])
    same = int((base == other).all(axis=1).sum())
    assert table["identical_deals"].tolist() == [same, same]
    assert table["identical_deal_rate"].tolist() == pytest.approx([same / 400] * 2)
    # The two-stage path with the deals given apart (as the report reads them) agrees.
    summaries = [effects.hand_summary(
        frame[frame["config"] == name].drop(columns="cards"), ["score", "set"],
        deals=pd.DataFrame({"hand_id": np.arange(400), "deal": deal_fingerprint(cards)}))
        for name, cards in (("base", base), ("other", other))]
    joined = effects.join_summaries(summaries, ["base", "other"])
    two_stage = effects.paired_from_summary(joined, "base")
    assert two_stage["identical_deals"].tolist() == [same, same]
    # Without cards the share is unknown, not assumed.
    unknown = effects.paired_effects(frame.drop(columns="cards"), "base", metrics=["score"])
    assert unknown["identical_deals"].isna().all()
