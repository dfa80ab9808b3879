"""Effects of rule variants and strategies: paired per-hand differences between configurations
played on the same deals, and per-configuration summaries of whole games.

The configurations of one run play from the same random streams (common random numbers:
``runner``), so the difference between two configurations is measured hand by hand, and its
interval is that of the mean of the per-hand differences, much tighter than the difference of
two independent means. The same streams are not the same cards: rules that deal otherwise (a
jokers deck) or strategies whose choices change the deal (the two-player draw) give other cards
from them; ``identical_deals`` counts the paired hands whose stored cards are the same
(``analysis.deals``).

Binary metrics (``set``, ``nil``: an event per side-hand or per seat) are differences of rates
that can rest on very few events. Their interval comes from the per-deal differences like the
means' (the share of the hand's side-hands set, or of its seats bidding nil, under the
configuration minus under the baseline; a t interval over the deals): the deal is the unit, so
the two sides (and four seats) of one hand, which are correlated, count once together. The
interval conditional on the discordant counts (McNemar's, Clopper-Pearson on ``gains`` of
``gains + losses``) treats the number of discordant units as fixed and is far too narrow (20
times on a set rate of classic against another preset), so it is not used. McNemar's exact test
on the discordant units (the side-hand or seat with the event under one configuration and not
the other: ``gains`` and ``losses``) stays as the p-value of no difference. The means
(``score``, ``bags_added``, ``overtricks``) keep the t interval and the t test.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..core.errors import AnalysisError
from .deals import deals_from_rows, identical_deals
from .groups import first_rows, join_unique
from .metrics import (
    add_mean_interval,
    add_rate,
    aggregate,
    mcnemar_exact,
    require_columns,
    side_bags,
    t_test_p,
)

#: Per-hand metrics of :func:`paired_effects` and their units.
METRICS = {
    "score": "points per side-hand",
    "set": "share of side-hands set",
    "bags_added": "bags added to the side's bag counter per side-hand",
    "overtricks": "overtricks per side-hand",
    "nil": "share of seats bidding nil",
}
#: Binary metrics and the unit each counts an event of (McNemar's test, module docstring).
BINARY = {"set": "side", "nil": "seat"}
#: Columns constant within a game: the group keys :func:`game_effects` accepts.
GAME_KEYS = ("config", "rules", "duplicate", "chunk")


def _per_seat_metrics(rows: pd.DataFrame, metrics) -> dict[str, np.ndarray]:
    contract = rows["side_contract"].to_numpy(dtype=np.int64)
    taken = rows["side_taken"].to_numpy(dtype=np.int64)
    bags = {}

    def bag(index):  # (side_bags once for both of its metrics: it groups every row)
        if not bags:
            bags["found"] = side_bags(rows)
        return bags["found"][index].astype(float)

    values = {
        "score": lambda: rows["score_delta"].to_numpy(dtype=float),
        "set": lambda: ((contract > 0) & (taken < contract)).astype(float),
        "bags_added": lambda: bag(1),
        "overtricks": lambda: bag(0),
        "nil": lambda: rows["nil"].to_numpy(dtype=float),
    }
    return {name: values[name]() for name in metrics}


def paired_effects(df: pd.DataFrame, baseline: str,
                   metrics=("score", "set", "bags_added", "overtricks", "nil"),
                   by=()) -> pd.DataFrame:
    """Per-hand paired differences of each configuration from ``baseline`` on the same deals.

    Only first plays of hands-mode runs are used (``duplicate == False``, ``game_id == -1``),
    and only configurations with as many seats as the baseline (the same deals). For each
    configuration and hand (and group of ``by``, e.g. ``("side",)``), the per-hand metric is the
    mean over the seat rows, which is the mean over side-hands (every side has as many seats):

    - ``score``: mean side ``score_delta`` per side-hand (points);
    - ``set``: share of side-hands set (``side_contract > 0`` and ``side_taken <
      side_contract``);
    - ``bags_added``: mean bags added to the side's bag counter per side-hand, as the hand's
      rules count them (:func:`~spades_sim.analysis.metrics.side_bags`: the overtricks plus,
      under ``failed_nil_tricks = bags_only``, the tricks of failed nils);
    - ``overtricks``: mean overtricks ``max(side_taken - side_contract, 0)`` per side-hand
      (tricks counting toward the contract beyond it; failed-nil tricks only under
      ``count_toward_bid``);
    - ``nil``: share of seats bidding nil.

    These are *hands-mode* effects: every hand starts from zero scores and empty bag counters,
    so a bag costs nothing here until a hand alone crosses the bag limit; whole games
    (:func:`game_effects`) can rank configurations differently.

    Parameters
    ----------
    baseline : str
        Name of the baseline configuration.
    metrics : sequence of str
        Any of ``score``, ``set``, ``bags_added``, ``overtricks``, ``nil``.
    by : sequence of str
        Extra keys to pair within (``side``, ``seat``...); the same keys in both configurations.

    Returns
    -------
    DataFrame
        One row per *by, ``config`` (every configuration but the baseline; none when the baseline is
        the only one) and ``metric`` (ordered as given): ``baseline``, ``n`` (paired hands),
        ``baseline_mean`` and ``config_mean`` (means of the per-hand metric), ``diff`` (mean of the
        per-hand differences config - baseline), ``diff_low``, ``diff_high`` (95% interval),
        ``diff_p`` (two-sided p-value of no difference), ``method``, ``gains`` and ``losses``,
        ``baseline_sd`` (standard deviation of the baseline's per-hand metric, for
        standardised effects). Every interval is the Student t interval of the per-hand
        differences, ``diff ± t(n - 1) sd / sqrt(n)`` over the ``n`` deals (exactly ``diff``
        when every difference is equal; nan for ``n < 2``): the deal is the unit. ``method``
        ``t`` (``score``, ``bags_added``, ``overtricks``): ``diff_p`` is the one-sample t
        test. ``method`` ``mcnemar`` (the binary ``set`` and ``nil``): ``gains`` / ``losses``
        count the units (side-hands for ``set``, seats for ``nil``) with the event under the
        configuration only / under the baseline only, and ``diff_p`` is McNemar's exact test
        on them (which treats the units as independent pairs; the interval does not);
        ``gains`` and ``losses`` are nan for the ``t`` metrics.

    Raises
    ------
    ValueError
        When ``baseline`` has no hands-mode first plays in ``df`` (an empty frame, a games-mode
        run), or for an unknown metric.

    Examples
    --------
    >>> frame = pd.DataFrame({"config": ["a"] * 4 + ["b"] * 4, "duplicate": False,
    ...     "game_id": -1, "hand_id": [0, 0, 1, 1] * 2, "seat": [0, 1] * 4,
    ...     "score_delta": [50, -100, 20, 30, 60, -100, 10, 30], "nil": False,
    ...     "side_contract": 3, "side_taken": 3})
    >>> paired_effects(frame, "a", metrics=["score"])[["config", "n", "diff"]].values.tolist()
    [['b', 2, 0.0]]
    """
    summary = hand_summary(df, metrics, by)
    return paired_from_summary(summary, baseline)


@dataclass(frozen=True)
class HandSummary:
    """The first stage of :func:`paired_effects`, for the configurations of a frame (see
    :func:`hand_summary`)."""

    metrics: tuple
    by: tuple
    seats: pd.Series  # configuration -> its highest seat
    per_hand: pd.DataFrame  # config, hand_id, *by, one mean per metric; sorted by them
    units: dict  # binary metric -> config, its unit keys, *by, event: each unit's first row
    deals: pd.DataFrame | None = None  # config, hand_id, deal (deal_fingerprint); None: unknown


def hand_summary(df: pd.DataFrame, metrics=tuple(METRICS), by=(), deals=None) -> HandSummary:
    """The per-hand metrics :func:`paired_effects` pairs, for every configuration of ``df``:
    ``per_hand`` (the mean of each metric over the seat rows of each configuration and hand,
    first plays of hands-mode runs only) and, for the binary metrics, ``units`` (whether each
    unit, side-hand or seat, had the event). Each configuration's rows give its own part, so the
    summaries of frames of one configuration each, joined by :func:`join_summaries`, are the
    summary of the frame of all of them.

    ``deals``: the dealt cards of the frame's first plays as ``hand_id`` and ``deal``
    (:func:`deal_fingerprint`) for a frame of one configuration; by default they come from the
    frame's ``cards`` column where it has one, else the share of identical deals is unknown."""
    by = list(by)
    metrics = list(metrics)
    unknown = [m for m in metrics if m not in METRICS]
    if unknown or not metrics:
        raise AnalysisError(f"paired_effects: metric(s) {', '.join(unknown) or '(none)'}: expected "
                         f"some of {', '.join(METRICS)}")
    if {"config", "hand_id"} & set(by):
        raise AnalysisError("paired_effects: by may not hold config or hand_id (the pairing keys)")
    bags = ["side", "tricks"] if {"bags_added", "overtricks"} & set(metrics) else []
    if "set" in metrics and not bags:
        bags = ["side"]
    require_columns(df, ["config", "duplicate", "game_id", "hand_id", "seat", *by, *bags,
                         "score_delta", "side_contract", "side_taken", "nil"], "paired_effects")
    first = ~df["duplicate"].to_numpy(dtype=bool) & (df["game_id"].to_numpy() == -1)
    hands = df if first.all() else df.loc[first]  # (no copy of a frame of first plays only)
    seats = hands.groupby("config", observed=True)["seat"].max()
    work = hands[["config", "hand_id", *by]].copy()
    if isinstance(work["config"].dtype, pd.CategoricalDtype) and not _all_used(work["config"]):
        work["config"] = work["config"].cat.remove_unused_categories()
    grid = None if by else _seat_grid(hands)
    if grid is None:
        for name, values in _per_seat_metrics(hands, metrics).items():
            work[name] = values
        per_hand = aggregate(work, ["config", "hand_id", *by],
                             **{m: (m, "mean") for m in metrics})
    else:
        per_hand, values = _grid_per_hand(hands, work, metrics, grid)
        for name in BINARY:
            if name in values:
                work[name] = values[name]
    units = {}
    for name in metrics:
        if name in BINARY:
            keys = list(dict.fromkeys(["hand_id", BINARY[name], *by]))
            found = hands[list(dict.fromkeys(["config", *keys]))].copy()
            found["config"] = work["config"].array
            found["event"] = work[name].to_numpy() > 0.5
            units[name] = (first_rows(found, ["config", *keys]) if grid is None
                           else found.iloc[_grid_first_rows(grid, BINARY[name], len(found))])
    if deals is not None:
        deals = pd.DataFrame({"config": pd.Categorical.from_codes(  # (codes: no text per row)
            np.zeros(len(deals), dtype=np.int8), categories=[str(seats.index[0])]),
            "hand_id": np.asarray(deals["hand_id"], dtype=np.int64),
            "deal": np.asarray(deals["deal"], dtype=np.int64)}) if len(seats) == 1 else None
    elif "cards" in hands.columns:
        deals = deals_from_rows(hands)
    return HandSummary(tuple(metrics), tuple(by), seats, per_hand, units, deals)


def _all_used(column: pd.Series) -> bool:
    """Whether every category of the categorical ``column`` occurs in it (then
    ``remove_unused_categories`` would change nothing): a count of the codes, not pandas'
    hashing of a million of them."""
    codes = column.cat.codes.to_numpy()
    size = len(column.cat.categories)
    return bool(len(codes)) and codes.min() >= 0 and bool(
        np.bincount(codes, minlength=size).all())


def _seat_grid(hands: pd.DataFrame) -> tuple[int, np.ndarray] | None:
    """``(players, sides)`` where the rows are one configuration's hands, each as ``players``
    rows in a row (seats 0 to ``players - 1``, ``sides``: their sides, alike in every hand),
    the hand ids rising (the tidy frame of one configuration's first plays); else None."""
    if not len(hands) or "side" not in hands.columns:
        return None
    config = hands["config"]
    codes = (config.cat.codes.to_numpy() if isinstance(config.dtype, pd.CategoricalDtype)
             else None)
    if codes is None or (codes != codes[0]).any():
        return None
    seat = hands["seat"].to_numpy().astype(np.int64)
    players = int(seat.max()) + 1
    if len(seat) % players or not (seat.reshape(-1, players) == np.arange(players)).all():
        return None
    ids = hands["hand_id"].to_numpy().reshape(-1, players)
    sides = hands["side"].to_numpy().reshape(-1, players)
    if not ((ids == ids[:, :1]).all() and (np.diff(ids[:, 0]) > 0).all()
            and (sides == sides[:1]).all()):
        return None
    return players, sides[0].astype(np.int64)


def _grid_per_hand(hands: pd.DataFrame, work: pd.DataFrame, metrics, grid):
    """``per_hand`` of :func:`hand_summary` for a frame :func:`_seat_grid` accepts, by
    position (each hand's rows summed, then divided by the seats: the very values of the
    group-by mean, every sum being of whole numbers), and the per-row values of the binary
    metrics."""
    players, sides = grid
    contract = hands["side_contract"].to_numpy().reshape(-1, players).astype(np.int64)
    taken = hands["side_taken"].to_numpy().reshape(-1, players).astype(np.int64)
    values = {}
    for name in metrics:
        if name == "score":
            values[name] = hands["score_delta"].to_numpy(dtype=float).reshape(-1, players)
        elif name == "set":
            values[name] = ((contract > 0) & (taken < contract)).astype(float)
        elif name == "nil":
            values[name] = hands["nil"].to_numpy(dtype=float).reshape(-1, players)
        else:  # overtricks and bags added, as metrics.side_bags counts them
            overtricks = np.maximum(taken - contract, 0)
            if name == "overtricks":
                values[name] = overtricks.astype(float)
                continue
            tricks = hands["tricks"].to_numpy().reshape(-1, players).astype(np.int64)
            side_tricks = np.zeros_like(tricks)
            for side in np.unique(sides):
                mine = sides == side
                side_tricks[:, mine] = tricks[:, mine].sum(axis=1, keepdims=True)
            values[name] = (overtricks + side_tricks - taken).astype(float)
    first = np.arange(0, len(hands), players)
    per_hand = work[["config", "hand_id"]].iloc[first].reset_index(drop=True)
    for name in metrics:
        per_hand[name] = values[name].sum(axis=1) / players
    return per_hand, {name: values[name].reshape(-1) for name in BINARY if name in values}


def _grid_first_rows(grid, key: str, n_rows: int) -> np.ndarray:
    """The positions of the first row of each unit (``side``: side-hand, ``seat``: seat) among
    the ``n_rows`` rows of a frame :func:`_seat_grid` accepts, in order."""
    players, sides = grid
    seats = (np.arange(players) if key == "seat"
             else np.sort(np.unique(sides, return_index=True)[1]))
    return (np.arange(0, n_rows, players)[:, None] + seats[None, :]).reshape(-1)


def join_summaries(summaries, names) -> HandSummary:
    """The :class:`HandSummary` of the frame of several configurations from the summaries of
    frames of one configuration each, given in the sorted order of their names ``names`` (as
    the frame's ``config`` categories sort them); ``config`` becomes a categorical of
    ``names``."""
    summaries = list(summaries)
    first = summaries[0]

    names = [str(name) for name in names]

    def joined(frames):  # the config column as codes into names, without comparing strings
        codes = []
        for frame in frames:
            config = frame["config"]
            if isinstance(config.dtype, pd.CategoricalDtype):
                position = np.array([names.index(str(c)) for c in config.cat.categories] or [0])
                codes.append(position[config.cat.codes.to_numpy()])
            else:
                codes.append(pd.Categorical(config.astype(object), categories=names).codes)
        frame = pd.concat([f.drop(columns="config") for f in frames], ignore_index=True)
        frame.insert(0, "config", pd.Categorical.from_codes(np.concatenate(codes).astype(
            np.int32), categories=names))
        return frame

    return HandSummary(
        first.metrics, first.by, pd.concat([s.seats for s in summaries]),
        joined([s.per_hand for s in summaries]),
        {name: joined([s.units[name] for s in summaries]) for name in first.units},
        joined([s.deals for s in summaries]) if all(s.deals is not None for s in summaries)
        else None)


def paired_from_summary(summary: HandSummary, baseline: str, only=None) -> pd.DataFrame:
    """The second stage of :func:`paired_effects`: its table from the :class:`HandSummary` of
    the configurations; ``only``: the rows of these configurations alone (each row depends
    only on its configuration and the baseline)."""
    metrics, by = list(summary.metrics), list(summary.by)
    seats = summary.seats
    if baseline not in seats.index:
        raise AnalysisError(f"paired_effects: baseline {baseline!r} is not a configuration with "
                         f"hands-mode plays (have: {', '.join(map(str, seats.index)) or 'none'})")
    comparable = set(seats.index[seats.to_numpy() == seats[baseline]])
    per_hand = summary.per_hand
    keep = per_hand["config"].isin(comparable).to_numpy()
    if not keep.all():
        per_hand = per_hand.loc[keep].reset_index(drop=True)
        if isinstance(per_hand["config"].dtype, pd.CategoricalDtype):
            per_hand["config"] = per_hand["config"].cat.remove_unused_categories()
    is_base = (per_hand["config"] == baseline).to_numpy()
    base = per_hand.loc[is_base].drop(columns="config")
    # The baseline is not compared with itself: only the other configurations get rows.
    per_hand = per_hand.loc[~is_base]
    comparable.discard(baseline)
    if only is not None:
        per_hand = per_hand.loc[per_hand["config"].isin(set(only)).to_numpy()]
        comparable &= set(only)
    paired = join_unique(per_hand, base, ["hand_id", *by], "_baseline")
    work = paired[[*by, "config"]].copy()
    reductions = {"n": ("n", "size")}
    for index, name in enumerate(metrics):  # every metric in one group-by (its columns: i:x)
        work[f"{index}:value"] = paired[name].to_numpy()
        work[f"{index}:base"] = paired[f"{name}_baseline"].to_numpy()
        work[f"{index}:difference"] = (work[f"{index}:value"].to_numpy()
                                       - work[f"{index}:base"].to_numpy())
        reductions.update({
            f"{index}:baseline_mean": (f"{index}:base", "mean"),
            f"{index}:config_mean": (f"{index}:value", "mean"),
            f"{index}:diff": (f"{index}:difference", "mean"),
            f"{index}:diff_sd": (f"{index}:difference", "std"),
            f"{index}:baseline_sd": (f"{index}:base", "std")})
    work["n"] = np.zeros(len(work), dtype=np.int8)
    moments = aggregate(work, [*by, "config"], **reductions)
    parts = []
    for index, name in enumerate(metrics):
        table = moments[[*by, "config", "n"]].copy()
        for column in ("baseline_mean", "config_mean", "diff", "diff_sd", "baseline_sd"):
            table[column] = moments[f"{index}:{column}"].to_numpy()
        table.insert(len(by) + 1, "metric", name)
        table["diff_p"] = t_test_p(table["diff"], table["diff_sd"], table["n"])
        table["method"] = "mcnemar" if name in BINARY else "t"
        table["gains"] = table["losses"] = np.nan
        parts.append(table)
    table = pd.concat(parts, ignore_index=True)
    table["metric"] = pd.Categorical(table["metric"], categories=metrics, ordered=True)
    table = table.sort_values([*by, "config", "metric"], kind="stable", ignore_index=True)
    add_mean_interval(table, "diff", "n", t=True)
    table.insert(len(by) + 1, "baseline", baseline)
    for name, units in summary.units.items():
        config = units["config"]
        _mcnemar_binary(table, units.loc[config.isin(comparable).to_numpy()],
                      units.loc[(config == baseline).to_numpy()], name, baseline, by)
    table["identical_deals"] = table["identical_deal_rate"] = np.nan
    if summary.deals is not None:
        found = identical_deals(summary.deals, baseline, {str(c) for c in comparable})
        names = table["config"].astype(str)
        same = names.map(lambda name: found.get(name, (np.nan, 0))[0]).to_numpy(dtype=float)
        paired = names.map(lambda name: found.get(name, (0, 0))[1]).to_numpy(dtype=float)
        table["identical_deals"] = same
        with np.errstate(invalid="ignore", divide="ignore"):
            table["identical_deal_rate"] = np.where(paired > 0, same / paired, np.nan)
    return table


def _mcnemar_binary(table, units, base, name, baseline, by) -> None:
    """Set the p-value of the binary metric ``name`` in ``table`` to McNemar's exact test on the
    discordant units, with their counts ``gains`` and ``losses`` (module docstring; ``base``:
    the baseline's units); the per-deal t interval stays. In place."""
    keys = list(dict.fromkeys(["hand_id", BINARY[name], *by]))
    base = base.drop(columns="config")
    if not by and _same_keys(units, base, keys):  # one configuration, unit for unit
        config = units["config"]
        (value,) = config.unique()  # (the caller's table has that configuration's rows)
        event, before = units["event"].to_numpy(), base["event"].to_numpy()
        gains = int(np.count_nonzero(event & ~before))
        losses = int(np.count_nonzero(~event & before))
        where = ((table["metric"] == name) & (table["config"] == value)).to_numpy()
        table.loc[where, "diff_p"] = mcnemar_exact(gains, losses)
        table.loc[where, ["gains", "losses"]] = float(gains), float(losses)
        return
    paired = join_unique(units, base, keys, "_baseline")
    paired["gains"] = paired["event"] & ~paired["event_baseline"]
    paired["losses"] = ~paired["event"] & paired["event_baseline"]
    counts = aggregate(paired, [*by, "config"], units=("event", "size"), gains=("gains", "sum"),
                       losses=("losses", "sum"))
    rows = (table["metric"] == name).to_numpy()
    for key, row in counts.set_index([*by, "config"]).iterrows():
        key = key if isinstance(key, tuple) else (key,)
        where = rows.copy()
        for column, value in zip([*by, "config"], key):
            where &= (table[column] == value).to_numpy()
        table.loc[where, "diff_p"] = mcnemar_exact(row["gains"], row["losses"])
        table.loc[where, ["gains", "losses"]] = float(row["gains"]), float(row["losses"])


def _same_keys(units: pd.DataFrame, base: pd.DataFrame, keys) -> bool:
    """Whether ``units`` hold one configuration and the very keys of ``base``, row for row
    (then each unit pairs with the baseline's unit in the same position)."""
    if len(units) != len(base) or not len(units) or units["config"].nunique() != 1:
        return False
    return all(np.array_equal(units[key].to_numpy(), base[key].to_numpy()) for key in keys)


def game_effects(df: pd.DataFrame, by=("config",), comeback_deficit: int = 100) -> pd.DataFrame:
    """Whole-game summaries of games-mode runs (rows with ``game_id >= 0``).

    A game is one ``(config, duplicate, game_id)`` with a row marked ``game_over`` (both
    duplicate copies are real games). Per group:

    - ``games``; ``mean_hands``: mean game length in hands (normal 95% interval);
    - ``draws``: games without a winner (a tie, or a draw at the hand cap) and ``draw_rate =
      draws / games`` (Wilson 95%); ``decisive``: the others; ``side0_wins`` and
      ``side0_win_rate = side0_wins / decisive`` (Wilson 95%: of the decisive games only);
    - ``bag_penalties``: bag-counter resets over all sides, a reset being a side-hand with
      ``bags_after < bags_before + bags_added`` (:func:`~spades_sim.analysis.metrics.side_bags`:
      overtricks plus failed-nil tricks that do not count toward the contract);
      ``bag_penalties_per_game`` (normal 95% interval). With ``bag_penalty = 0`` a reset costs
      no points and still counts; two resets in one hand count once;
    - ``comebacks``: decisive games whose winner trailed the leading side by at least
      ``comeback_deficit`` points after some hand; ``comeback_rate = comebacks / decisive``
      (Wilson 95%);
    - ``mean_margin``: the winner's final score minus the best other final score, over decisive
      games (points; normal 95% interval).

    Parameters
    ----------
    by : sequence of str
        Keys constant within a game: any of ``config``, ``rules``, ``duplicate``, ``chunk``.
    comeback_deficit : int
        Points behind the leader that make a win a comeback.
    """
    by = list(by)
    wrong = [key for key in by if key not in GAME_KEYS]
    if wrong:
        raise AnalysisError(f"game_effects: by {', '.join(wrong)}: expected keys constant within a "
                         f"game ({', '.join(GAME_KEYS)})")
    game = ["config", "duplicate", "game_id"]
    require_columns(df, [*game, *by, "hand_id", "seat", "side", "tricks", "side_contract",
                         "side_taken", "score_before", "score_delta", "bags_before",
                         "bags_after", "game_over", "game_winner"], "game_effects")
    games = df.loc[df["game_id"].to_numpy() >= 0]
    # One row per side-hand: in partnerships side = seat % 2, so seats 0 and 1; else every seat.
    one = games["seat"].to_numpy() == games["side"].to_numpy()
    sides = games.loc[one, list(dict.fromkeys([*game, *by, "hand_id", "side", "game_over",
                                               "game_winner"]))].copy()
    new_bags = side_bags(games)[1][one]
    bags_before = games.loc[one, "bags_before"].to_numpy(dtype=np.int64)
    sides["penalty"] = games.loc[one, "bags_after"].to_numpy(dtype=np.int64) < (
        bags_before + new_bags)
    sides["score"] = (games.loc[one, "score_before"].to_numpy(dtype=np.int64)
                      + games.loc[one, "score_delta"].to_numpy(dtype=np.int64))
    leader = sides.groupby([*game, "hand_id"], observed=True, sort=False)["score"].transform("max")
    sides["deficit"] = leader.to_numpy() - sides["score"].to_numpy()

    # The final hand of each game: its length, winner and final scores.
    final = sides.loc[sides["game_over"].to_numpy(dtype=bool)]
    per_game = final.loc[final["side"].to_numpy() == 0, list(dict.fromkeys([*game, *by]))].copy()
    per_game["hands"] = final.loc[final["side"].to_numpy() == 0, "hand_id"].to_numpy() + 1.0
    per_game["winner"] = final.loc[final["side"].to_numpy() == 0, "game_winner"].to_numpy()
    per_game = per_game.set_index(game)
    winners = final["side"].to_numpy() == final["game_winner"].to_numpy()
    winning = final.loc[winners].set_index(game)["score"]
    others = final.loc[~winners].groupby(game, observed=True)["score"].max()
    per_game["margin"] = (winning - others).reindex(per_game.index).astype(float)
    penalties = sides.groupby(game, observed=True)["penalty"].sum()
    per_game["penalties"] = penalties.reindex(per_game.index).fillna(0).astype(float)
    worst = sides.groupby([*game, "side"], observed=True)["deficit"].max()
    winner_key = pd.MultiIndex.from_arrays(
        [*(per_game.index.get_level_values(k) for k in game), per_game["winner"].to_numpy()])
    winner_worst = worst.reindex(winner_key).to_numpy()
    decisive = per_game["winner"].to_numpy() >= 0
    per_game["decisive"] = decisive.astype(np.int64)
    per_game["draw"] = (~decisive).astype(np.int64)
    per_game["side0_win"] = (per_game["winner"].to_numpy() == 0).astype(np.int64)
    per_game["comeback"] = (decisive & (winner_worst >= comeback_deficit)).astype(np.int64)
    per_game = per_game.reset_index()
    table = aggregate(per_game, by, games=("hands", "size"), mean_hands=("hands", "mean"),
                      mean_hands_sd=("hands", "std"), decisive=("decisive", "sum"),
                      draws=("draw", "sum"), side0_wins=("side0_win", "sum"),
                      bag_penalties=("penalties", "sum"),
                      bag_penalties_per_game=("penalties", "mean"),
                      bag_penalties_per_game_sd=("penalties", "std"),
                      comebacks=("comeback", "sum"), mean_margin=("margin", "mean"),
                      mean_margin_sd=("margin", "std"), margin_n=("margin", "count"))
    add_mean_interval(table, "mean_hands", "games")
    add_mean_interval(table, "bag_penalties_per_game", "games")
    add_mean_interval(table, "mean_margin", "margin_n")
    add_rate(table, "draw_rate", "draws", "games")
    add_rate(table, "side0_win_rate", "side0_wins", "decisive")
    add_rate(table, "comeback_rate", "comebacks", "decisive")
    table["bag_penalties"] = table["bag_penalties"].astype(np.int64)
    order = [*by, "games", "mean_hands", "mean_hands_low", "mean_hands_high", "decisive",
             "draws", "draw_rate", "draw_rate_low", "draw_rate_high", "side0_wins",
             "side0_win_rate", "side0_win_rate_low",
             "side0_win_rate_high", "bag_penalties", "bag_penalties_per_game",
             "bag_penalties_per_game_low", "bag_penalties_per_game_high", "comebacks",
             "comeback_rate", "comeback_rate_low", "comeback_rate_high", "mean_margin",
             "mean_margin_low", "mean_margin_high"]
    return table[order]
