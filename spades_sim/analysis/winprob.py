"""Win probability from a game state: the share of whole games a side went on to win from each
state seen at the start of a hand, estimated from games-mode runs, with 95% intervals.

A *state* is one side at the start of one hand of one game (rows with ``game_id >= 0``): the
hands already played in the game (``hand_id``), the side's score and bags before the hand
(``score_before``, ``bags_before``) and its best opponent's score before the hand (the other
side's in partnership and two-player games; the highest other score in cutthroat, ties
included). The outcome is the game's ``game_winner`` (marked on the game's last hand):

- a **win** when it is the side;
- a **draw** when it is -1 (a tie, or the game cut at the hand cap): a draw is *not* a win,
  so ``win_rate`` is the share of games won outright, and ``draw_rate`` shows the draws
  apart (the losses are ``1 - win_rate - draw_rate``).

Each game counts **once per cell and side**: a side that starts several hands of one game in
the same cell (same bins) adds one game to it, with its one outcome (``states`` counts the
side-hands, ``games`` the distinct games). The games of a cell are independent; the two sides of
one game can share a cell (at equal scores: the first hand of every game), and their outcomes
are then negatively correlated, which makes the binomial interval there, if anything, too wide.
Intervals are the package's 95% rate intervals (``analysis.metrics.rate_interval``): Wilson,
exact Clopper-Pearson where the rate rests on fewer than 10 wins or non-wins.

Two tables: :func:`win_probability`, by the full state (scores, bags, hands played), and
:func:`win_probability_by_lead`, by the score lead (own score minus the best opponent's) and
hands played, the one :func:`plot_win_probability` draws as a heat map. SciPy and statsmodels
are imported only when the intervals are computed.

Two kinds of cell are not what they seem:

- the **identity cell** (``hands == 0``, before the first hand): every game starts there with
  every side level, so its win rate is the share of games each side wins overall (about
  ``(1 - draw_rate) / 2`` for two sides): an identity of the run, not an estimate of a state's
  chances; the tables mark it (``identity``);
- **strategy-specific cells**: the rate is the strategies' win rate from the state *as they
  play it*. Where a strategy's rule fires on the state itself (the heuristic bids blind nil
  whenever its side trails by its ``blind_nil_deficit``), the cell shows that rule's outcome,
  not the state's: ``blind_nil_share`` is the share of the cell's side-hands in which the side
  bid blind nil, and a cell at or above :data:`RULE_SHARE` reflects the strategy's rule.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.errors import AnalysisError
from .metrics import RARE_EVENTS, Z95, require_columns

#: Keys a table can be grouped by: constant within a game, or the side itself.
BY_KEYS = ("config", "rules", "duplicate", "chunk", "side")
#: Default edges of the hands-played bins ``[edge, next edge)``; states at or after the last
#: edge are left out (few games get there; the draws at a 200-hand cap would stretch the axis).
HAND_BINS = (0, 1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 30)
#: Default edges of the bags bins; the last bin is open (every count from its edge up).
BAG_BINS = (0, 3, 6, 9)
#: Cells reached by fewer games are left out of the tables (the default of ``min_games``).
MIN_GAMES = 30
#: A cell whose side-hands bid blind nil at least this often reflects the strategy's blind-nil
#: rule (module docstring).
RULE_SHARE = 0.25
_GAME = ("config", "duplicate", "game_id")


def _edges(values, name: str, what: str) -> np.ndarray:
    edges = np.asarray(values, dtype=np.int64)
    if edges.ndim != 1 or len(edges) < 1 or edges[0] != 0 or np.any(np.diff(edges) <= 0):
        raise AnalysisError(f"{what}: {name} must be increasing integer edges from 0, got "
                            f"{list(values)!r}")
    return edges


def _positive(value, name: str, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise AnalysisError(f"{what}: {name} must be a positive integer, got {value!r}")
    return int(value)


def _states(frame: pd.DataFrame, by, hand_bins, what: str) -> pd.DataFrame:
    """One row per side and hand of the finished games (before the last hand edge): the by
    keys, ``unit`` (a number per game and side), ``hands``, ``hands_to``, ``score``,
    ``opponent``, ``bags``, ``win``, ``draw``."""
    by = list(by)
    wrong = [key for key in by if key not in BY_KEYS]
    if wrong:
        raise AnalysisError(f"{what}: by {', '.join(wrong)}: expected some of "
                            f"{', '.join(BY_KEYS)}")
    edges = _edges(hand_bins, "hand_bins", what)
    if len(edges) < 2:
        raise AnalysisError(f"{what}: hand_bins needs at least two edges")
    game = [c for c in _GAME if c in frame.columns or c != "duplicate"]
    require_columns(frame, [*game, *by, "hand_id", "seat", "side", "score_before",
                            "bags_before", "game_over", "game_winner"], what)
    # One row per side-hand: in partnerships side = seat % 2, so seats 0 and 1; else every seat.
    keep = ((frame["game_id"].to_numpy() >= 0)
            & (frame["seat"].to_numpy() == frame["side"].to_numpy()))
    columns = list(dict.fromkeys([*game, *by, "hand_id", "side", "score_before", "bags_before",
                                  "game_over", "game_winner"]))
    rows = frame.loc[keep, columns]
    n = len(rows)
    blind_nil = np.zeros(n, dtype=bool)
    if {"nil", "blind"} <= set(frame.columns):
        # The side bid blind nil in the hand when any of its seats did (few rows: a set test).
        bid = ((frame["game_id"].to_numpy() >= 0) & frame["nil"].to_numpy(dtype=bool)
               & frame["blind"].to_numpy(dtype=bool))
        side_hand = [*game, "hand_id", "side"]
        if bid.any() and n:
            blind_nil = pd.MultiIndex.from_frame(rows[side_hand]).isin(
                pd.MultiIndex.from_frame(frame.loc[bid, side_hand]))
    game_code = (rows.groupby(game, observed=True, sort=False).ngroup().to_numpy(np.int64)
                 if n else np.zeros(0, np.int64))
    n_games = int(game_code.max()) + 1 if n else 0
    # The winner is marked on the game's last hand only: spread it over the game's rows.
    over = rows["game_over"].to_numpy(dtype=bool)
    winner_of = np.full(n_games, -2, dtype=np.int64)
    winner_of[game_code[over]] = rows["game_winner"].to_numpy(dtype=np.int64)[over]
    winner = winner_of[game_code]
    hand = rows["hand_id"].to_numpy(dtype=np.int64)
    side = rows["side"].to_numpy(dtype=np.int64)
    score = rows["score_before"].to_numpy(dtype=np.int64)
    # The best opponent's score: the top score of the hand unless it is the side's own alone,
    # then the second score.
    hand_code = game_code * (int(hand.max()) + 1 if n else 1) + hand
    keys = pd.Series(hand_code)
    top = pd.Series(score).groupby(keys, sort=False).transform("max").to_numpy()
    at_top = pd.Series((score == top).astype(np.int64)).groupby(keys, sort=False).transform(
        "sum").to_numpy()
    lowest = np.iinfo(np.int64).min
    second = pd.Series(np.where(score < top, score, lowest)).groupby(
        keys, sort=False).transform("max").to_numpy()
    opponent = np.where((score < top) | (at_top > 1), top, second)
    inside = (winner > -2) & (hand < edges[-1]) & (opponent != lowest)
    where = np.searchsorted(edges, hand[inside], side="right") - 1
    states = rows.loc[inside, by].reset_index(drop=True) if by else pd.DataFrame(
        index=pd.RangeIndex(int(inside.sum())))
    states["unit"] = game_code[inside] * (int(side.max()) + 1 if n else 1) + side[inside]
    states["hands"] = edges[where]
    states["hands_to"] = edges[where + 1]
    states["score"] = score[inside]
    states["opponent"] = opponent[inside]
    states["bags"] = rows["bags_before"].to_numpy(dtype=np.int64)[inside]
    states["win"] = (winner[inside] == side[inside]).astype(np.int64)
    states["draw"] = (winner[inside] == -1).astype(np.int64)
    states["blind_nil"] = blind_nil[inside].astype(np.int64)
    return states


def _rate_interval(successes: np.ndarray, trials: np.ndarray):
    """``analysis.metrics.rate_interval`` vectorised: Wilson 95%, exact Clopper-Pearson (from
    the beta quantiles) where the rate rests on fewer than 10 events or non-events."""
    from scipy import stats

    k = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    low = np.full(k.shape, np.nan)
    high = np.full(k.shape, np.nan)
    some = n > 0
    if not some.any():
        return low, high
    k, n, z = k[some], n[some], Z95
    centre = (k + z * z / 2) / (n + z * z)
    half = z * np.sqrt(k * (n - k) / n + z * z / 4) / (n + z * z)
    wilson_low, wilson_high = np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)
    with np.errstate(invalid="ignore"):
        exact_low = np.where(k > 0, stats.beta.ppf(0.025, k, n - k + 1), 0.0)
        exact_high = np.where(k < n, stats.beta.isf(0.025, k + 1, n - k), 1.0)
    rare = (k < RARE_EVENTS) | (n - k < RARE_EVENTS)
    low[some] = np.where(rare, exact_low, np.where(k == 0, 0.0, wilson_low))
    high[some] = np.where(rare, exact_high, np.where(k == n, 1.0, wilson_high))
    return low, high


def _table(states: pd.DataFrame, cell: list, min_games: int) -> pd.DataFrame:
    """Per cell (sorted): ``states``, and over the distinct units (game and side) in it
    ``games``, ``wins``, ``draws``; the rates and the win rate's interval; ``blind_nils`` (the
    cell's side-hands that bid blind nil) and ``blind_nil_share`` (over ``states``);
    ``identity`` (the cell is before the first hand)."""
    code = (states.groupby(cell, observed=True, sort=True).ngroup().to_numpy(np.int64)
            if len(states) else np.zeros(0, np.int64))
    cells, first = np.unique(code, return_index=True)
    table = states[cell].iloc[first].reset_index(drop=True)
    n_cells = len(cells)
    unit = states["unit"].to_numpy(np.int64)
    pair = code * (int(unit.max()) + 1 if len(unit) else 1) + unit
    once = np.unique(pair, return_index=True)[1]  # each unit once per cell
    table["states"] = np.bincount(code, minlength=n_cells)
    table["blind_nils"] = np.bincount(code, weights=states["blind_nil"].to_numpy(np.int64),
                                      minlength=n_cells)
    table["games"] = np.bincount(code[once], minlength=n_cells)
    for name, column in (("wins", "win"), ("draws", "draw")):
        values = states[column].to_numpy(np.int64)[once]
        table[name] = np.bincount(code[once], weights=values, minlength=n_cells)
    table = table.loc[table["games"].to_numpy() >= min_games].reset_index(drop=True)
    games = table["games"].to_numpy(dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        table["win_rate"] = table["wins"].to_numpy(dtype=float) / games
        table["draw_rate"] = table["draws"].to_numpy(dtype=float) / games
    low, high = _rate_interval(table["wins"].to_numpy(), games)
    table.insert(table.columns.get_loc("win_rate") + 1, "win_rate_low", low)
    table.insert(table.columns.get_loc("win_rate") + 2, "win_rate_high", high)
    for column in ("states", "games", "wins", "draws", "blind_nils"):
        table[column] = table[column].astype(np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        table["blind_nil_share"] = table["blind_nils"].to_numpy(float) / table[
            "states"].to_numpy(float)
    table["identity"] = table["hands"].to_numpy() == 0
    return table


def win_probability(frame: pd.DataFrame, *, by=("config",), score_bin: int = 50,
                    bag_bins=BAG_BINS, hand_bins=HAND_BINS, min_games: int = MIN_GAMES
                    ) -> pd.DataFrame:
    """The share of games a side went on to win from each state at the start of a hand of a
    games-mode run (module docstring: states, draws, how each game counts, intervals).

    Parameters
    ----------
    frame : DataFrame
        A tidy frame (``spades_sim.simulate(..., n_games=...)`` or ``load_run`` of a games
        run); hands-mode rows (``game_id == -1``) are ignored, and so are games without a last
        hand in the frame.
    by : sequence of str
        Group keys: any of ``config``, ``rules``, ``duplicate``, ``chunk``, ``side``.
    score_bin : int
        Width in points of the score bins ``[score, score + score_bin)`` (negative scores bin
        downward: -30 is in the bin from -50).
    bag_bins : sequence of int
        Increasing edges from 0 of the bags bins; the last bin is open.
    hand_bins : sequence of int
        Increasing edges from 0 of the hands-played bins ``[hands, hands_to)``; states at or
        after the last edge are left out.
    min_games : int
        Cells reached by fewer games (counted per side) are left out of the table.

    Returns
    -------
    DataFrame
        One row per *by and cell, sorted: ``hands``, ``hands_to`` (hands played before the
        hand: the bin's edges), ``score``, ``opponent_score`` (lower edges of the side's and the
        best opponent's score bins), ``bags`` (lower edge of the side's bags bin), ``states``
        (side-hands in the cell), ``games`` (games reaching it, per side), ``wins``, ``draws``,
        ``win_rate = wins / games`` with ``win_rate_low`` / ``win_rate_high`` (95%),
        ``draw_rate = draws / games``, ``blind_nils`` and ``blind_nil_share`` (the cell's
        side-hands that bid blind nil, and their share of ``states``: at or above
        :data:`RULE_SHARE` the cell reflects the strategy's rule), ``identity`` (the cell is
        before the first hand: every game starts there level; not an estimate).

    Examples
    --------
    One two-hand game that side 0 wins, side 0 leading 60 to 20 after the first hand:

    >>> frame = pd.DataFrame({"config": "c", "duplicate": False, "game_id": 0,
    ...     "hand_id": [0, 0, 1, 1], "seat": [0, 1, 0, 1], "side": [0, 1, 0, 1],
    ...     "score_before": [0, 0, 60, 20], "bags_before": 0,
    ...     "game_over": [False, False, True, True], "game_winner": [-1, -1, 0, 0]})
    >>> table = win_probability(frame, min_games=1)
    >>> table[["hands", "score", "opponent_score", "games", "wins"]].values.tolist()
    [[0, 0, 0, 2, 1], [1, 0, 50, 1, 0], [1, 50, 0, 1, 1]]
    """
    what = "win_probability"
    score_bin = _positive(score_bin, "score_bin", what)
    min_games = _positive(min_games, "min_games", what)
    bags = _edges(bag_bins, "bag_bins", what)
    states = _states(frame, by, hand_bins, what)
    states["score"] = np.floor_divide(states["score"].to_numpy(), score_bin) * score_bin
    states["opponent_score"] = np.floor_divide(states["opponent"].to_numpy(),
                                               score_bin) * score_bin
    where = np.searchsorted(bags, np.maximum(states["bags"].to_numpy(), 0), side="right") - 1
    states["bags"] = bags[where]
    cell = [*by, "hands", "hands_to", "score", "opponent_score", "bags"]
    table = _table(states, cell, min_games)
    table.attrs.update(score_bin=score_bin, min_games=min_games)
    return table


def win_probability_by_lead(frame: pd.DataFrame, *, by=("config",), lead_bin: int = 50,
                            hand_bins=HAND_BINS, min_games: int = MIN_GAMES) -> pd.DataFrame:
    """The margin view of :func:`win_probability`: the share of games a side went on to win by
    its score lead at the start of a hand (its score minus the best opponent's, in bins
    ``[lead, lead_to)`` of ``lead_bin`` points: the bin from 0 is a lead of 0 to 49, the bin from
    -50 a deficit of 1 to 50) and hands played; what :func:`plot_win_probability` draws.

    Returns one row per *by and cell: ``hands``, ``hands_to``, ``lead``, ``lead_to``,
    ``states``, ``games``, ``wins``, ``draws``, ``win_rate``, ``win_rate_low``,
    ``win_rate_high``, ``draw_rate``, ``blind_nils``, ``blind_nil_share``, ``identity`` (as in
    :func:`win_probability`); cells reached by fewer than ``min_games`` games are left out.

    >>> frame = pd.DataFrame({"config": "c", "duplicate": False, "game_id": 0,
    ...     "hand_id": [0, 0, 1, 1], "seat": [0, 1, 0, 1], "side": [0, 1, 0, 1],
    ...     "score_before": [0, 0, 60, 20], "bags_before": 0,
    ...     "game_over": [False, False, True, True], "game_winner": [-1, -1, 0, 0]})
    >>> table = win_probability_by_lead(frame, min_games=1)
    >>> table[["hands", "lead", "games", "wins"]].values.tolist(), table["win_rate"].tolist()
    ([[0, 0, 2, 1], [1, -50, 1, 0], [1, 0, 1, 1]], [0.5, 0.0, 1.0])
    """
    what = "win_probability_by_lead"
    lead_bin = _positive(lead_bin, "lead_bin", what)
    min_games = _positive(min_games, "min_games", what)
    states = _states(frame, by, hand_bins, what)
    lead = states["score"].to_numpy() - states["opponent"].to_numpy()
    states["lead"] = np.floor_divide(lead, lead_bin) * lead_bin
    states["lead_to"] = states["lead"].to_numpy() + lead_bin
    table = _table(states, [*by, "hands", "hands_to", "lead", "lead_to"], min_games)
    table.attrs.update(lead_bin=lead_bin, min_games=min_games)
    return table


def plot_win_probability(table: pd.DataFrame, *, ax=None):
    """A heat map of a :func:`win_probability_by_lead` table of one group: hands played across,
    the score lead up, the win rate as the colour (the colour-blind-safe diverging ``RdBu``,
    white at 50%); cells the table leaves out (too few games) are blank; a ring marks the cells
    that reflect the strategy's blind-nil rule (``blind_nil_share`` at or above
    :data:`RULE_SHARE`). Returns the Axes
    (a new figure's when ``ax`` is None; works under Agg); an empty table draws "no data"."""
    if ax is None:
        from matplotlib.figure import Figure

        ax = Figure(figsize=(7, 4.5), layout="constrained").add_subplot()
    title = "Win probability by lead and hands played"
    columns = ["hands", "hands_to", "lead", "lead_to", "games", "win_rate"]
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise AnalysisError(f"plot_win_probability: the table lacks column(s) "
                            f"{', '.join(missing)}")
    keys = list(table.columns[: table.columns.get_loc("hands")])
    several = [k for k in keys if table[k].astype(str).nunique() > 1]
    if several:
        raise AnalysisError(f"plot_win_probability: one group at a time (the table has several "
                            f"values of {', '.join(several)})")
    ax.set_title(title)
    ax.set_xlabel("hands played before the hand")
    ax.set_ylabel("score lead over the best opponent (points)")
    if table.empty:
        ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes)
        return ax
    x = np.unique(np.concatenate([table["hands"].to_numpy(), table["hands_to"].to_numpy()]))
    y = np.unique(np.concatenate([table["lead"].to_numpy(), table["lead_to"].to_numpy()]))
    grid = np.full((len(y) - 1, len(x) - 1), np.nan)
    column = np.searchsorted(x, table["hands"].to_numpy())
    row = np.searchsorted(y, table["lead"].to_numpy())
    grid[row, column] = table["win_rate"].to_numpy(dtype=float)
    import matplotlib

    cmap = matplotlib.colormaps["RdBu"].with_extremes(bad="#eeeeee")
    mesh = ax.pcolormesh(x, y, np.ma.masked_invalid(grid), cmap=cmap, vmin=0.0, vmax=1.0,
                         shading="flat")
    ax.axhline(0, color="black", linewidth=0.6)
    ax.figure.colorbar(mesh, ax=ax, label="share of games won")
    if "blind_nil_share" in table.columns:
        rule = table["blind_nil_share"].to_numpy(dtype=float) >= RULE_SHARE
        if rule.any():
            centre_x = (x[column[rule]] + x[column[rule] + 1]) / 2
            centre_y = (y[row[rule]] + y[row[rule] + 1]) / 2
            ax.scatter(centre_x, centre_y, marker="o", s=18, facecolors="none",
                       edgecolors="black", linewidths=0.8,
                       label=f"blind nil in {RULE_SHARE:.0%}+ of the states: the strategy's "
                             f"rule")
            ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), fontsize="small",
                      frameon=False)
    return ax
