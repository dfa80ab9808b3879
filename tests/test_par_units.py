"""Par's bids and tricks analyses take the hand as the unit: their intervals against a direct
per-hand computation and a bootstrap over hands, on built frames of correlated sides."""

import numpy as np
import pandas as pd
import pytest

from spades_sim.analysis.par import bids_against_par, par_hand_types, tricks_against_par
from spades_sim.core.errors import AnalysisError


def _many_hands(hands=3000, seed=7) -> pd.DataFrame:
    """``hands`` hands of two sides whose pars add up to 13 and whose contracts follow them
    with noise: the two sides' bid minus par and tricks minus par are correlated."""
    rng = np.random.default_rng(seed)
    par0 = rng.integers(4, 10, hands)
    # The contracts of a hand total 10 to 12 whatever the par: one side's excess over its par
    # is the other's shortfall (as in play).
    swing = rng.integers(-2, 3, hands)
    contract0 = par0 + swing - 1
    contract1 = 13 - par0 - swing - 1 - rng.integers(0, 2, hands)
    tricks0 = np.clip(par0 + rng.integers(-2, 3, hands), 0, 13)
    rows = []
    for side, par, contract, tricks in ((0, par0, contract0, tricks0),
                                        (1, 13 - par0, contract1, 13 - tricks0)):
        for seat in (side, side + 2):
            rows.append(pd.DataFrame({
                "config": "c", "duplicate": False, "game_id": -1, "hand_id": np.arange(hands),
                "seat": seat, "side": side, "strategy": "s", "nil": False,
                "tricks": tricks // 2 if seat < 2 else tricks - tricks // 2,
                "side_contract": contract, "par_tricks": par}))
    return pd.concat(rows, ignore_index=True)


def test_par_intervals_take_the_hand_as_the_unit():
    """Against a direct per-hand computation (the mean of each hand's two side-hands, a normal
    interval over hands) and a bootstrap that resamples whole hands."""
    frame = _many_hands()
    table = bids_against_par(frame).iloc[0]
    tricks = tricks_against_par(frame).iloc[0]
    sides = frame[frame["seat"] < 2].sort_values(["hand_id", "side"])
    contract = sides["side_contract"].to_numpy().reshape(-1, 2)
    par = sides["par_tricks"].to_numpy().reshape(-1, 2)
    taken = frame.groupby(["hand_id", "side"])["tricks"].sum().to_numpy().reshape(-1, 2)
    assert (table["n"], table["side_hands"], tricks["n"]) == (3000, 6000, 3000)
    rng = np.random.default_rng(1)
    picks = rng.integers(0, 3000, size=(2000, 3000))
    for name, per_side, row in (("bid_minus_par", contract - par, table),
                                ("off_par", np.abs(taken - par), tricks),
                                ("under_rate", (contract < par).astype(float), table)):
        per_hand = per_side.mean(axis=1)
        half = 1.959963984540054 * per_hand.std(ddof=1) / np.sqrt(len(per_hand))
        assert row[name] == pytest.approx(per_hand.mean())
        assert row[f"{name}_low"] == pytest.approx(per_hand.mean() - half, rel=1e-9)
        assert row[f"{name}_high"] == pytest.approx(per_hand.mean() + half, rel=1e-9)
        boot = np.quantile(per_hand[picks].mean(axis=1), [0.025, 0.975])
        assert abs((row[f"{name}_high"] - row[f"{name}_low"]) - (boot[1] - boot[0])) < 0.1 * (
            boot[1] - boot[0])
    # The sides of a hand are correlated, so the interval over independent side-hands differs.
    flat = (contract - par).ravel()
    naive = 2 * 1.959963984540054 * flat.std(ddof=1) / np.sqrt(len(flat))
    assert abs(naive - (table["bid_minus_par_high"] - table["bid_minus_par_low"])) > 0.2 * naive
    # Both sides in one group: the contracts of a hand total 2 * mean_bid of 13 tricks.
    assert table["sides_per_hand"] == 2 and 2 * table["mean_par"] == pytest.approx(13)
    assert 2 * table["mean_bid"] == pytest.approx(contract.sum(axis=1).mean())


def test_par_hand_types_count_each_hand_once():
    frame = _many_hands(hands=500)
    types = par_hand_types(frame)
    sides = frame[frame["seat"] < 2].sort_values(["hand_id", "side"])
    state = np.sign(sides["side_contract"].to_numpy() - sides["par_tricks"].to_numpy())
    state = state.reshape(-1, 2)
    both_under = int(((state[:, 0] < 0) & (state[:, 1] < 0)).sum())
    row = types.set_index("hand_type").loc["under / under"]
    assert (row["n"], row["hands"]) == (both_under, 500)
    assert types["n"].sum() == 500 and types["share"].sum() == pytest.approx(1.0)
    with pytest.raises(AnalysisError, match="the hand is the unit"):
        par_hand_types(frame, by=("config", "strategy"))
