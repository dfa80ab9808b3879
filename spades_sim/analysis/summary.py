"""The summary table `spades-sim simulate` and `make run` print: bid accuracy, nil, scores."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..api import Run
from .frames import game_frame, seat_frame
from .metrics import mean_interval, wilson_interval


def side_summary(run: Run) -> pd.DataFrame:
    """Per side: hands, bid accuracy of the side's contract (made exactly, bagged, set), nil
    bids made/failed, mean bid and tricks per seat, bags and mean score per hand (95% CI)."""
    frame = seat_frame(run)
    rows = []
    for side, part in frame.groupby("side", sort=True):
        per_hand = part.drop_duplicates("hand_id")
        contracted = per_hand[per_hand["side_contract"] > 0]
        n_contracts = len(contracted)
        exact = int((contracted["side_taken"] == contracted["side_contract"]).sum())
        made = int((contracted["side_taken"] >= contracted["side_contract"]).sum())
        nil = part[part["nil"]]
        nil_made = int((nil["tricks"] == 0).sum())
        mean, low, high = mean_interval(per_hand["score_delta"])
        set_low, set_high = wilson_interval(n_contracts - made, n_contracts)
        rows.append(
            {
                "side": side,
                "strategies": " / ".join(sorted(set(map(str, part["strategy"])))),
                "hands": len(per_hand),
                "mean_bid": part.loc[~part["nil"], "bid"].mean(),
                "mean_tricks": part["tricks"].mean(),
                "exact_rate": exact / n_contracts if n_contracts else np.nan,
                "bagged_rate": (made - exact) / n_contracts if n_contracts else np.nan,
                "set_rate": 1 - made / n_contracts if n_contracts else np.nan,
                "set_ci95": f"[{set_low:.3f}, {set_high:.3f}]",
                "nil_bids": len(nil),
                "nil_made": nil_made,
                "nil_failed": len(nil) - nil_made,
                "bags_per_hand": _bags(part, per_hand, run.rules) / len(per_hand),
                "mean_score": mean,
                "score_ci95": f"[{low:.2f}, {high:.2f}]",
            }
        )
    return pd.DataFrame(rows).set_index("side")


def _bags(part: pd.DataFrame, per_hand: pd.DataFrame, rules) -> int:
    """Bags taken: overtricks (every contract trick when the contract is 0), plus failed-nil
    tricks under ``failed_nil_tricks = bags_only``."""
    contract = per_hand["side_contract"].to_numpy()
    taken = per_hand["side_taken"].to_numpy()
    overtricks = np.where(contract > 0, np.maximum(taken - contract, 0), taken)
    nil_tricks = 0
    if rules.failed_nil_tricks == "bags_only":
        nil_tricks = part.loc[part["nil"], "tricks"].sum()
    return int(overtricks.sum() + nil_tricks)


def game_summary(run: Run) -> pd.DataFrame:
    """Per side: games won, win rate with a Wilson 95% interval; ties/draws and game length."""
    games = game_frame(run)
    n_games = len(games)
    rows = []
    for side in range(run.rules.n_sides):
        wins = int((games["winner"] == side).sum())
        low, high = wilson_interval(wins, n_games)
        rows.append({"side": side, "games": n_games, "wins": wins,
                     "win_rate": wins / n_games if n_games else np.nan,
                     "win_ci95": f"[{low:.3f}, {high:.3f}]",
                     "mean_final_score": games[f"score_{side}"].mean()})
    table = pd.DataFrame(rows).set_index("side")
    table.attrs["ties"] = int((games["winner"] < 0).sum())
    table.attrs["mean_hands"] = float(games["n_hands"].mean()) if n_games else float("nan")
    return table


def format_table(table: pd.DataFrame) -> str:
    """A fixed-width text rendering with 3 decimals."""
    with pd.option_context("display.width", 200, "display.max_columns", 50,
                           "display.float_format", "{:.3f}".format):
        return table.to_string()
