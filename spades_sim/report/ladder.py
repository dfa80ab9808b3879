"""A tournament's main pairings: the games won and where the points went (a strength ladder's
closing tables).

A round robin rates every strategy against every other; to say *why* one beats another, the
report splits each board's difference of the pairings of the tournament's first strategy (the
reference player of a ladder: the default heuristic in ``experiments/strength.toml``) into its
scoring parts (``evaluate.split``: contracts made and set, overtricks, nil won and lost, bag
penalties, ...) and, a second way, into the hands bid alike in both plays of a board (the card
play given the bids) and those bid differently. Every part is a mean per board with its 95% t
interval, the board as the unit; the parts of a view add up to the board's difference.

In whole games the same pairings also give the share of the games won (:func:`board_win_shares`):
per board, +1 for each of its two games the reference player won, -1 for each it lost, 0 for a
draw, halved; the mean is the reference player's share of the games won minus the opponent's,
with a 95% t interval over boards. They are findings of the report's family, and the summary
puts differences in games won first.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from markupsafe import Markup

from ..analysis.metrics import t_test_p
from ..evaluate import paired_interval, split_summary
from ..run import load_run
from .formatting import code
from .model import Context, Section

#: The modes in words, as the findings name them.
_MODE = {"games": "whole games", "hands": "independent hands"}
#: The split's views, as the table names them.
_VIEW = {"scoring": "by scoring", "total": "total", "bidding": "by bidding"}


def main_pairing_splits(result, main: str | None = None) -> pd.DataFrame:
    """One row per part of each pairing of ``main`` (the tournament's first strategy by
    default) in the round robin ``result`` (an ``evaluate.TournamentResult``), from
    ``main``'s side: ``opponent``, ``view`` (by scoring, total, by bidding), ``part`` (its
    label), ``main_points`` and ``opponent_points`` (each side's points of that part per
    board), ``diff`` with ``diff_low`` and ``diff_high`` (main minus the opponent, 95% t
    interval over boards) and ``boards``. Parts that are 0 for both sides on every board of
    every pairing are left out (as ``evaluate.format_splits`` leaves them out); pairings
    without a split (players on their own) have no rows."""
    main = result.strategies[0] if main is None else main
    frames = []
    for match in result.matches:
        if main not in (match.a, match.b) or match.split is None or not len(match.split):
            continue
        summary = split_summary(match.split)
        flip = match.b == main  # (the split is A's side: turned round when main is B)
        sign = -1.0 if flip else 1.0
        frames.append(pd.DataFrame({
            "opponent": match.a if flip else match.b,
            "view": summary["view"].map(_VIEW), "part": summary["label"],
            "key": summary["part"], "shown": summary["shown"],
            "main_points": summary["b"] if flip else summary["a"],
            "opponent_points": summary["a"] if flip else summary["b"],
            "diff": sign * summary["diff"],
            "diff_low": (sign * summary["high"]) if flip else summary["low"],
            "diff_high": (sign * summary["low"]) if flip else summary["high"],
            "boards": len(match.split)}))
    if not frames:
        return pd.DataFrame(columns=["opponent", "view", "part", "main_points", "opponent_points",
                                     "diff", "diff_low", "diff_high", "boards"])
    table = pd.concat(frames, ignore_index=True)
    shown = table.groupby("key", sort=False)["shown"].transform("any")
    return table[shown].drop(columns=["key", "shown"]).reset_index(drop=True)


def ladder_splits(ctx: Context, section: Section, result, suffix: str = "") -> None:
    """Add the table of :func:`main_pairing_splits` of the round robin ``result`` and, per
    opponent, a finding naming the part that moved the most points; ``suffix`` tells apart the
    files of a [tournament] in both modes (``-games``, ``-hands``)."""
    table = main_pairing_splits(result)
    if not len(table):
        return
    main, mode = result.strategies[0], _MODE.get(result.unit, result.unit)
    ctx.table(section, "split" + suffix, f"Where the points went: {main} against each other "
              f"strategy ({mode}, {result.n:,} boards per pair)", table,
              note=f"main points: {main}'s points of the part per board; opponent points: the "
                   f"opponent's; diff: main minus opponent with its 95% t interval over "
                   f"boards (each board's difference is the mean over its two plays). The "
                   f"parts by scoring add up to the total, and so do the parts by bidding "
                   f"(hands bid alike in both plays: the card play given the bids; hands bid "
                   f"differently; in whole games, the hands only one play reached). Parts "
                   f"that are 0 on every board are left out.")
    for opponent, rows in table.groupby("opponent", sort=False):
        total = rows[rows["view"] == _VIEW["total"]].iloc[0]
        parts = rows[rows["view"] == _VIEW["scoring"]]
        largest = parts.loc[parts["diff"].abs().idxmax()]
        bidding = rows[rows["view"] == _VIEW["bidding"]].set_index("part")["diff"]
        play = bidding.get("hands bid alike: card play given the bids", float("nan"))
        section.findings.append(Markup(
            "Against {} ({}, {:,} boards), {} scores {:+.1f} points per board (95% CI {:+.1f} "
            "to {:+.1f}); the part that moved the most is {}: {:+.1f} (95% CI {:+.1f} to "
            "{:+.1f}); the hands both plays bid alike (card play) give {:+.1f}.").format(
            code(opponent), mode, int(total["boards"]), code(main), total["diff"],
            total["diff_low"], total["diff_high"], largest["part"], largest["diff"],
            largest["diff_low"], largest["diff_high"], play))


def board_win_shares(folder, a: str) -> pd.Series:
    """Per board (``game_id``) of the whole-games match run in ``folder``, strategy ``a``'s
    games won minus its games lost over the board's two plays, halved (from -1 to +1; a draw,
    ``game_winner`` -1, counts 0), read from each game's last hand (``game_over``)."""
    frame = load_run(Path(folder), columns=["game_id", "duplicate", "side", "strategy",
                                            "game_over", "game_winner"])
    last = frame[frame["game_over"].to_numpy(dtype=bool)
                 & (frame["strategy"].astype(str) == a).to_numpy()]
    last = last.drop_duplicates(["game_id", "duplicate"])  # (one row of a's side per game)
    winner = last["game_winner"].to_numpy()
    share = np.where(winner == last["side"].to_numpy(), 1.0, np.where(winner < 0, 0.0, -1.0))
    return pd.Series(share, index=last["game_id"].to_numpy()).groupby(level=0).sum() / 2


def main_pairing_wins(result, main: str | None = None) -> pd.DataFrame:
    """One row per whole-games pairing of ``main`` (the tournament's first strategy by default)
    in the round robin ``result``: ``opponent``, ``win_share`` with ``win_share_low`` and
    ``win_share_high`` (main's share of the games won minus the opponent's, 95% t interval over
    boards), ``win_share_p`` (the t test), ``main_wins``, ``opponent_wins``, ``draws`` and
    ``boards``; empty for a round robin of hands."""
    main = result.strategies[0] if main is None else main
    rows = []
    for match in result.matches:
        if result.unit != "games" or main not in (match.a, match.b) or not match.out:
            continue
        shares = board_win_shares(match.out, main).to_numpy()
        mean, low, high = paired_interval(shares)
        std = float(shares.std(ddof=1)) if len(shares) > 1 else float("nan")
        flip = match.b == main
        rows.append({"opponent": match.a if flip else match.b, "win_share": mean,
                     "win_share_low": low, "win_share_high": high,
                     "win_share_p": float(t_test_p(mean, std, len(shares))),
                     "main_wins": match.b_wins if flip else match.a_wins,
                     "opponent_wins": match.a_wins if flip else match.b_wins,
                     "draws": match.ties, "boards": len(shares)})
    return pd.DataFrame(rows, columns=["opponent", "win_share", "win_share_low",
                                       "win_share_high", "win_share_p", "main_wins",
                                       "opponent_wins", "draws", "boards"])


def ladder_wins(ctx: Context, section: Section, result, suffix: str = "") -> None:
    """Add the table of :func:`main_pairing_wins` and one finding (a claim: it joins the
    report's family and, among the largest, its summary) per opponent."""
    table = main_pairing_wins(result)
    if not len(table):
        return
    main = result.strategies[0]
    ctx.table(section, "wins" + suffix, f"Games won: {main} against each other strategy "
              f"(whole games, {result.n:,} boards per pair)", table,
              note=f"win share: {main}'s share of the games won minus the opponent's, with its "
                   f"95% t interval over boards (per board, the two games: +1 for a game "
                   f"{main} won, -1 for one it lost, 0 for a draw, halved) and the t test's "
                   f"p-value (unadjusted).")
    for row in table.to_dict(orient="records"):
        ctx.claim(section, Markup(
            "In whole games, {} wins {:,} games against {} and loses {:,} ({:,} drawn): {:+.1f} "
            "percentage points of the games won (95% CI {:+.1f} to {:+.1f}), over {:,} "
            "boards.").format(
            code(main), int(row["main_wins"]), code(row["opponent"]),
            int(row["opponent_wins"]), int(row["draws"]), 100 * row["win_share"],
            100 * row["win_share_low"], 100 * row["win_share_high"], int(row["boards"])),
            label=f"{main} vs {row['opponent']}: win share (round robin, games)",
            effect=row["win_share"], low=row["win_share_low"], high=row["win_share_high"],
            p=row["win_share_p"], unit=" percentage points of the games won", scale=100.0,
            n=row["boards"], n_unit="boards", mode="head to head, round robin whole games")
