"""Result arrays -> tidy pandas DataFrames (one row per hand and seat; one row per game)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..api import Run


def seat_frame(run: Run) -> pd.DataFrame:
    """One row per hand and seat: ids, seat, side, strategy, bid, blind, nil, tricks, and the
    side's contract, contract tricks, score delta and bags after the hand."""
    hands = run.hands
    rules = run.rules
    players = rules.players
    n_hands = len(hands.hand_id)
    seats = np.tile(np.arange(players), n_hands)
    sides = seats % 2 if rules.partnership else seats
    rows = np.repeat(np.arange(n_hands), players)
    bids = hands.bids[:, :players].reshape(-1).astype(np.int64)
    blind = hands.blind[:, :players].reshape(-1).astype(bool)
    tricks = hands.tricks[:, :players].reshape(-1).astype(np.int64)
    nil = (bids == 0) & (rules.nil | blind)
    frame = pd.DataFrame(
        {
            "hand_id": hands.hand_id[rows],
            "game_id": hands.game_id[rows],
            "dealer": hands.dealer[rows].astype(np.int64),
            "seat": seats,
            "side": sides,
            "strategy": pd.Categorical([str(run.strategies[s]) for s in seats]),
            "bid": bids,
            "blind": blind,
            "nil": nil,
            "tricks": tricks,
            "score_delta": hands.score_delta[rows, sides].astype(np.int64),
            "bags_after": hands.bags_after[rows, sides].astype(np.int64),
        }
    )
    # The side's contract (non-nil bids) and contract tricks (non-nil bidders' tricks, plus
    # failed nils' tricks under failed_nil_tricks = count_toward_bid).
    contract_part = np.where(nil, 0, bids)
    counts_toward = ~nil | (rules.failed_nil_tricks == "count_toward_bid")
    taken_part = np.where(counts_toward, tricks, 0)
    key = frame["hand_id"].to_numpy() * 8 + sides
    frame["side_contract"] = pd.Series(contract_part).groupby(key).transform("sum").to_numpy()
    frame["side_taken"] = pd.Series(taken_part).groupby(key).transform("sum").to_numpy()
    return frame


def game_frame(run: Run) -> pd.DataFrame:
    """One row per game: id, first dealer, hands played, winner (-1 tie/draw), final scores."""
    games = run.games
    data = {
        "game_id": games.game_id,
        "first_dealer": games.first_dealer.astype(np.int64),
        "n_hands": games.n_hands.astype(np.int64),
        "winner": games.winner.astype(np.int64),
    }
    for side in range(run.rules.n_sides):
        data[f"score_{side}"] = games.final_score[:, side].astype(np.int64)
    return pd.DataFrame(data)
