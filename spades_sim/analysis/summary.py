"""The per-side summaries of one configuration's tidy frame: what `spades-sim simulate` and
`spades-sim games` print, and the report's side tables."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .metrics import mean_interval, rate_interval, side_bags


def _hand_keys(frame: pd.DataFrame) -> list[str]:
    """The columns that name one hand of a run: ``hand_id`` numbers hands within a game, and a
    duplicate run plays every deal twice."""
    return [c for c in ("duplicate", "game_id", "hand_id") if c in frame.columns]


def side_summary(frame: pd.DataFrame, rules) -> pd.DataFrame:
    """Per side of one configuration's tidy frame (``run/frames.py``) played under ``rules``:
    hands, bid accuracy of the side's contract (made exactly, bagged, set), nil bids made/failed,
    ``mean_seat_bid`` and ``mean_seat_tricks`` (per seat of the side, not per side: the mean of its
    seats' non-nil bids, and of its seats' tricks), overtricks and bags added to the side's bag
    counter per hand (:func:`~spades_sim.analysis.metrics.side_bags`: the overtricks plus the failed
    nils' tricks under ``failed_nil_tricks = bags_only``) and mean score per hand, with 95%
    intervals (``*_low``, ``*_high``) on the set rate and the mean score. ``rules`` is
    kept for the callers; the counts need only the frame."""
    rows = []
    for side, part in frame.groupby("side", sort=True, observed=True):
        first = ~part.duplicated(_hand_keys(part)).to_numpy()
        per_hand = part.loc[first]
        overtricks, bags_added = side_bags(part)
        contracted = per_hand[per_hand["side_contract"] > 0]
        n_contracts = len(contracted)
        exact = int((contracted["side_taken"] == contracted["side_contract"]).sum())
        made = int((contracted["side_taken"] >= contracted["side_contract"]).sum())
        nil = part[part["nil"]]
        nil_made = int((nil["tricks"] == 0).sum())
        mean, low, high = mean_interval(per_hand["score_delta"])
        set_low, set_high = rate_interval(n_contracts - made, n_contracts)
        rows.append(
            {
                "side": side,
                "strategies": " / ".join(sorted(set(map(str, part["strategy"])))),
                "hands": len(per_hand),
                # Per seat, though the table is per side: hence the names.
                "mean_seat_bid": part.loc[~part["nil"], "bid"].mean(),
                "mean_seat_tricks": part["tricks"].mean(),
                "exact_rate": exact / n_contracts if n_contracts else np.nan,
                "bagged_rate": (made - exact) / n_contracts if n_contracts else np.nan,
                "set_rate": 1 - made / n_contracts if n_contracts else np.nan,
                "set_low": set_low,
                "set_high": set_high,
                "nil_bids": len(nil),
                "nil_made": nil_made,
                "nil_failed": len(nil) - nil_made,
                "overtricks_per_hand": overtricks[first].mean(),
                "bags_added_per_hand": bags_added[first].mean(),
                "mean_score": mean,
                "score_low": low,
                "score_high": high,
            }
        )
    return pd.DataFrame(rows).set_index("side")


def game_table(frame: pd.DataFrame, rules) -> pd.DataFrame:
    """One row per whole game of one configuration's tidy frame: ``game_id``, ``n_hands``,
    ``winner`` (the winning side, -1 for a tie or a draw at the hand cap) and ``score_S``, the
    final score of each side ``S``."""
    keys = [c for c in ("duplicate", "game_id") if c in frame.columns]
    last = frame[frame["game_over"]]
    per_game = last.drop_duplicates(keys)
    data = {key: per_game[key].to_numpy() for key in keys}
    data["n_hands"] = per_game["hand_id"].to_numpy().astype(np.int64) + 1
    data["winner"] = per_game["game_winner"].to_numpy().astype(np.int64)
    index = pd.MultiIndex.from_frame(per_game[keys])
    for side in range(rules.n_sides):
        rows = last[last["side"] == side].drop_duplicates(keys).set_index(keys)
        final = rows["score_before"].astype(np.int64) + rows["score_delta"]
        data[f"score_{side}"] = final.reindex(index).to_numpy()
    return pd.DataFrame(data)


def game_summary(frame: pd.DataFrame, rules) -> pd.DataFrame:
    """Per side: games won, win rate with a Wilson 95% interval; ties/draws and game length."""
    games = game_table(frame, rules)
    n_games = len(games)
    rows = []
    for side in range(rules.n_sides):
        wins = int((games["winner"] == side).sum())
        low, high = rate_interval(wins, n_games)
        rows.append({"side": side, "games": n_games, "wins": wins,
                     "win_rate": wins / n_games if n_games else np.nan,
                     "win_low": low, "win_high": high,
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
