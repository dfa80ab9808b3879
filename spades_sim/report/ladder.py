"""Where the points went in a tournament's main pairings: a strength ladder's closing table.

A round robin rates every strategy against every other; to say *why* one beats another, the
report splits each board's difference of the pairings of the tournament's first strategy (the
reference player of a ladder: the default heuristic in ``experiments/strength.toml``) into its
scoring parts (``evaluate.split``: contracts made and set, overtricks, nil won and lost, bag
penalties, ...) and, a second way, into the hands bid alike in both plays of a board (the card
play given the bids) and those bid differently. Every part is a mean per board with its 95% t
interval, the board as the unit; the parts of a view add up to the board's difference.
"""

from __future__ import annotations

import pandas as pd
from markupsafe import Markup

from ..evaluate import split_summary
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
