"""Head-to-head configurations analysed as such: side A minus side B within one configuration,
the same seat-balanced with the mirrored configuration, and differences-in-differences across
rule variants.

A configuration is *head to head* when it has two sides and they play different strategies
(``strategy = ["cautious", "aggressive", "cautious", "aggressive"]``: seats 0 and 2 against
seats 1 and 3). Side A is side 0 and is named by its strategies, side B likewise (a side of
several strategies is named ``x / y``).

Units. Hands mode (rows with ``game_id == -1``): the unit is a deal (``hand_id``), its value
side 0's ``score_delta`` minus side 1's. Games mode (``game_id >= 0``): the unit is a game
(``game_id``), with two metrics: ``final_score`` (A's final score minus B's) and
``win_share`` (+1 when A won, -1 when B won, 0 for a draw: its mean is A's share of all games
won minus B's; the draws are counted apart). A duplicate run's two plays of a deal are
averaged into one unit. Every interval is a 95% Student t interval over the units (SciPy,
imported on first use by :mod:`.metrics`), every p-value the t test of no difference.

Seats. The engine rotates the deal: in hands mode hand ``h`` is dealt by seat ``h mod
players``, in games the first dealer is drawn per game and the deal passes left, and the deals
are uniformly random. So neither side holds a systematic seat advantage; each deal's card luck
is noise, not bias. Where the experiment also has the mirrored configuration (the same rules,
B on side 0 and A on side 1) the two play the same deals, and :func:`head_to_head` pairs them:
per unit, the *seat-balanced* difference ``(d_AB - d_BA) / 2`` (each strategy has held both
sides' cards, so card luck cancels as in a duplicate match) and the *side-0 advantage*
``(d_AB + d_BA) / 2`` (what sitting on side 0 is worth with the strategies balanced, which
should be 0), where ``d`` is side 0 minus side 1 in each configuration.

Configurations with the same number of players play from the same shuffles (one seed, common
random numbers), so two of them are paired unit by unit; :func:`differences_in_differences`
says ``paired`` or ``independent`` for each row.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.errors import AnalysisError
from .metrics import (
    Z95,
    interval_from_moments,
    normal_p,
    rate_interval,
    require_columns,
    t_quantile,
    t_test_p,
)

#: The metrics of each mode and their units.
METRICS = {
    "score": "points per hand (side A's score change minus side B's)",
    "final_score": "points per game (A's final score minus B's)",
    "win_share": "share of games won by A minus share won by B (draws apart)",
}
MODE_METRICS = {"hands": ("score",), "games": ("final_score", "win_share")}
ESTIMATES = ("within", "seat_balanced")
_NEEDED = ("config", "duplicate", "game_id", "hand_id", "seat", "side", "strategy",
           "score_delta")


def _ordered_configs(frame: pd.DataFrame, rules_by_config) -> list[str]:
    present = list(dict.fromkeys(map(str, pd.unique(frame["config"]))))
    order = [c for c in (rules_by_config or {}) if c in present]
    return order + [c for c in present if c not in order]


def _config_mask(frame: pd.DataFrame):
    """``mask(name)``: the rows of configuration ``name`` (on the category codes when the column
    is categorical: no string copy of a frame of millions of rows)."""
    column = frame["config"]
    if isinstance(column.dtype, pd.CategoricalDtype):
        position = {str(c): i for i, c in enumerate(column.cat.categories)}
        codes = column.cat.codes.to_numpy()
        return lambda name: codes == position.get(name, -2)
    values = column.astype(str).to_numpy()
    return lambda name: values == name


def side_names(frame: pd.DataFrame) -> dict[str, tuple[str, ...]]:
    """Configuration -> the name of each side (in side order): its strategies, sorted and
    joined by ``" / "``.

    >>> frame = pd.DataFrame({"config": "c", "side": [0, 1, 0, 1],
    ...                       "strategy": ["cautious", "aggressive"] * 2})
    >>> side_names(frame)
    {'c': ('cautious', 'aggressive')}
    """
    pairs = frame.groupby(["config", "side", "strategy"], observed=True).size().index
    names: dict[str, dict[int, set]] = {}
    for config, side, strategy in pairs:
        names.setdefault(str(config), {}).setdefault(int(side), set()).add(str(strategy))
    return {config: tuple(" / ".join(sorted(sides[s])) for s in sorted(sides))
            for config, sides in names.items()}


def head_to_head_configs(frame: pd.DataFrame) -> dict[str, tuple[str, str]]:
    """Configuration -> ``(A, B)`` for the configurations with two sides that play different
    strategies."""
    return {config: names for config, names in side_names(frame).items()
            if len(names) == 2 and names[0] != names[1]}


def _per_unit(rows: pd.DataFrame, mode: str) -> tuple[pd.DataFrame, dict]:
    """One configuration's rows of one mode -> per unit ``a``, ``b`` for each metric (long:
    ``metric``, ``unit``, ``a``, ``b``) and the game counts (games mode)."""
    one = rows["seat"].to_numpy() == rows["side"].to_numpy()  # one row per side-hand
    sides = rows.loc[one]
    if mode == "hands":
        values = sides[["duplicate", "hand_id", "side"]].copy()
        values["value"] = sides["score_delta"].to_numpy(dtype=float)
        wide = values.pivot_table(index=["hand_id", "duplicate"], columns="side",
                                  values="value", aggfunc="first", observed=True)
        wide = wide.groupby(level="hand_id").mean()  # a duplicate run's two plays: one unit
        part = pd.DataFrame({"metric": "score", "unit": wide.index.to_numpy(),
                             "a": wide[0].to_numpy(), "b": wide[1].to_numpy()})
        return part.dropna(ignore_index=True), {}
    final = sides.loc[sides["game_over"].to_numpy(dtype=bool)]
    values = final[["duplicate", "game_id", "side"]].copy()
    values["value"] = (final["score_before"].to_numpy(dtype=float)
                       + final["score_delta"].to_numpy(dtype=float))
    wide = values.pivot_table(index=["game_id", "duplicate"], columns="side", values="value",
                              aggfunc="first", observed=True)
    winner = final.loc[final["side"].to_numpy() == 0].set_index(
        ["game_id", "duplicate"])["game_winner"].reindex(wide.index).to_numpy()
    counts = {"games": int(len(wide)), "a_wins": int((winner == 0).sum()),
              "b_wins": int((winner == 1).sum()), "draws": int((winner < 0).sum())}
    wide["a_win"] = (winner == 0).astype(float)
    wide["b_win"] = (winner == 1).astype(float)
    games = wide.groupby(level="game_id").mean()
    index = games.index.to_numpy()
    part = pd.concat([
        pd.DataFrame({"metric": "final_score", "unit": index, "a": games[0].to_numpy(),
                      "b": games[1].to_numpy()}),
        pd.DataFrame({"metric": "win_share", "unit": index, "a": games["a_win"].to_numpy(),
                      "b": games["b_win"].to_numpy()})], ignore_index=True)
    return part.dropna(ignore_index=True), counts


def _summarise(values: np.ndarray) -> dict:
    """n, mean, 95% t interval and t-test p-value of per-unit values."""
    n = len(values)
    mean = float(values.mean()) if n else np.nan
    sd = float(values.std(ddof=1)) if n > 1 else np.nan
    low, high = interval_from_moments(mean, sd, n, t=True)
    return {"n": n, "diff": mean, "diff_low": float(low), "diff_high": float(high),
            "diff_p": float(t_test_p(mean, sd, n))}


def _game_columns(counts: dict) -> dict:
    if not counts:
        return {key: np.nan for key in ("games", "a_wins", "b_wins", "draws", "draw_rate",
                                        "draw_rate_low", "draw_rate_high", "a_win_rate",
                                        "a_win_rate_low", "a_win_rate_high")}
    games, decisive = counts["games"], counts["a_wins"] + counts["b_wins"]
    draw_low, draw_high = rate_interval(counts["draws"], games)
    win_low, win_high = rate_interval(counts["a_wins"], decisive)
    return {**counts, "draw_rate": counts["draws"] / games if games else np.nan,
            "draw_rate_low": float(draw_low), "draw_rate_high": float(draw_high),
            "a_win_rate": counts["a_wins"] / decisive if decisive else np.nan,
            "a_win_rate_low": float(win_low), "a_win_rate_high": float(win_high)}


def head_to_head(frame: pd.DataFrame, rules_by_config=None, balance: bool = True,
                 units: bool = False):
    """Side A minus side B within each head-to-head configuration of ``frame`` (module
    docstring: units, metrics, seats), in every mode the frame holds.

    Parameters
    ----------
    frame : DataFrame
        A tidy run frame (``run/frames.py``): hands-mode rows, games-mode rows or both.
    rules_by_config : dict, optional
        Configuration name -> its :class:`~spades_sim.core.rules.Rules` (the experiment's
        ``rules_by_config()``): the order of the rows, and which configurations mirror each
        other (the same rules). Without it, no configuration is taken for a mirror.
    balance : bool
        Pair each configuration with its mirror (B on side 0, A on side 1, the same rules)
        when the frame has one, adding ``seat_balanced`` rows.
    units : bool
        Also return the per-unit differences (for :func:`differences_in_differences`).

    Returns
    -------
    DataFrame, or ``(DataFrame, DataFrame)`` with ``units``
        One row per configuration, mode, metric and ``estimate``: ``config``, ``mode``,
        ``metric``, ``estimate`` (``within``: this configuration alone, A on side 0;
        ``seat_balanced``: with its mirror ``mirror``, whose units it pairs), ``strategy_a``,
        ``strategy_b``, ``mirror``, ``n`` (units: deals or games), ``a_mean`` and ``b_mean``
        (per unit: A's and B's hand score, final score or share of games won), ``diff`` (A
        minus B), ``diff_low``, ``diff_high`` (95% t interval), ``diff_p``; for
        ``seat_balanced`` rows ``seat_advantage`` (side 0 minus side 1 with the strategies
        balanced) with ``seat_advantage_low``, ``seat_advantage_high`` and
        ``seat_advantage_p`` (nan elsewhere); games mode: ``games`` (games played: both plays
        of a duplicate run), ``a_wins``, ``b_wins``, ``draws``, ``draw_rate`` and
        ``a_win_rate`` (of the decisive games) with their 95% intervals (Wilson, exact for
        rare events; nan for hands). The units frame: ``config``, ``mode``, ``metric``,
        ``estimate``, ``unit`` (``hand_id`` or ``game_id``), ``a``, ``b``, ``diff``.

    Examples
    --------
    >>> frame = pd.DataFrame({"config": "c", "duplicate": False, "game_id": -1,
    ...     "hand_id": [0, 0, 1, 1], "seat": [0, 1, 0, 1], "side": [0, 1, 0, 1],
    ...     "strategy": ["cautious", "aggressive"] * 2, "score_delta": [50, 20, -100, 40]})
    >>> row = head_to_head(frame).iloc[0]
    >>> row["strategy_a"], row["strategy_b"], int(row["n"]), float(row["diff"])
    ('cautious', 'aggressive', 2, -55.0)
    """
    require_columns(frame, _NEEDED, "head_to_head")
    pairs = head_to_head_configs(frame)
    rules_by_config = dict(rules_by_config or {})
    order = [c for c in _ordered_configs(frame, rules_by_config) if c in pairs]
    game_id = frame["game_id"].to_numpy()
    of_config = _config_mask(frame) if order else None
    rows, unit_parts = [], []
    for mode in ("hands", "games"):
        in_mode = (game_id == -1) if mode == "hands" else (game_id >= 0)
        if not in_mode.any():
            continue
        if mode == "games":
            require_columns(frame, ["score_before", "game_over", "game_winner"], "head_to_head")
        per_config = {}
        for config in order:
            part = frame.loc[in_mode & of_config(config)]
            if not len(part):
                continue
            values, counts = _per_unit(part, mode)
            per_config[config] = (values, counts)
            a_name, b_name = pairs[config]
            for metric in MODE_METRICS[mode]:
                metric_rows = values.loc[values["metric"].to_numpy() == metric]
                diff = metric_rows["a"].to_numpy() - metric_rows["b"].to_numpy()
                rows.append({"config": config, "mode": mode, "metric": metric,
                             "estimate": "within", "strategy_a": a_name, "strategy_b": b_name,
                             "mirror": "", "a_mean": metric_rows["a"].mean(),
                             "b_mean": metric_rows["b"].mean(), **_summarise(diff),
                             **_game_columns(counts if mode == "games" else {})})
                unit_parts.append(pd.DataFrame({
                    "config": config, "mode": mode, "metric": metric, "estimate": "within",
                    "unit": metric_rows["unit"].to_numpy(), "a": metric_rows["a"].to_numpy(),
                    "b": metric_rows["b"].to_numpy(), "diff": diff}))
        if balance:
            for first, second in _mirrors(order, per_config, pairs, rules_by_config):
                rows_, units_ = _balanced(first, second, mode, per_config, pairs)
                rows.extend(rows_)
                unit_parts.extend(units_)
    table = pd.DataFrame(rows, columns=_COLUMNS)
    if len(table):
        position = {c: i for i, c in enumerate(order)}
        table = table.assign(_o=table["config"].map(position),
                             _m=table["mode"].map({"hands": 0, "games": 1}),
                             _e=table["estimate"].map({e: i for i, e in enumerate(ESTIMATES)}))
        table = table.sort_values(["_m", "_o", "_e"], kind="stable").drop(
            columns=["_o", "_m", "_e"]).reset_index(drop=True)
    if not units:
        return table
    unit_frame = (pd.concat(unit_parts, ignore_index=True) if unit_parts
                  else pd.DataFrame(columns=["config", "mode", "metric", "estimate", "unit",
                                             "a", "b", "diff"]))
    return table, unit_frame


_COLUMNS = ["config", "mode", "metric", "estimate", "strategy_a", "strategy_b", "mirror", "n",
            "a_mean", "b_mean", "diff", "diff_low", "diff_high", "diff_p", "seat_advantage",
            "seat_advantage_low", "seat_advantage_high", "seat_advantage_p", "games", "a_wins",
            "b_wins", "draws", "draw_rate", "draw_rate_low", "draw_rate_high", "a_win_rate",
            "a_win_rate_low", "a_win_rate_high"]


def _mirrors(order, per_config, pairs, rules_by_config):
    """``(X, Y)`` pairs: Y seats X's strategies the other way round under the same rules; X
    first in the configurations' order, each configuration in one pair at most."""
    used = set()
    for i, first in enumerate(order):
        if first in used or first not in per_config or first not in rules_by_config:
            continue
        for second in order[i + 1:]:
            if (second not in used and second in per_config
                    and pairs[second] == pairs[first][::-1]
                    and rules_by_config.get(second) == rules_by_config[first]):
                used.update((first, second))
                yield first, second
                break


def _balanced(first, second, mode, per_config, pairs):
    """The seat-balanced rows and units of the mirrored ``first`` and ``second``."""
    rows, parts = [], []
    (values_x, counts_x), (values_y, counts_y) = per_config[first], per_config[second]
    a_name, b_name = pairs[first]
    for metric in MODE_METRICS[mode]:
        x = values_x.loc[values_x["metric"].to_numpy() == metric]
        y = values_y.loc[values_y["metric"].to_numpy() == metric]
        both = x.merge(y, on="unit", suffixes=("_x", "_y"))
        d_x = both["a_x"].to_numpy() - both["b_x"].to_numpy()  # A - B
        d_y = both["a_y"].to_numpy() - both["b_y"].to_numpy()  # B - A
        balanced = (d_x - d_y) / 2.0
        advantage = _summarise((d_x + d_y) / 2.0)
        a_values = (both["a_x"].to_numpy() + both["b_y"].to_numpy()) / 2.0
        b_values = (both["b_x"].to_numpy() + both["a_y"].to_numpy()) / 2.0
        counts = {}
        if mode == "games":
            counts = {"games": counts_x["games"] + counts_y["games"],
                      "a_wins": counts_x["a_wins"] + counts_y["b_wins"],
                      "b_wins": counts_x["b_wins"] + counts_y["a_wins"],
                      "draws": counts_x["draws"] + counts_y["draws"]}
        rows.append({"config": first, "mode": mode, "metric": metric,
                     "estimate": "seat_balanced", "strategy_a": a_name, "strategy_b": b_name,
                     "mirror": second, "a_mean": a_values.mean() if len(both) else np.nan,
                     "b_mean": b_values.mean() if len(both) else np.nan,
                     **_summarise(balanced), "seat_advantage": advantage["diff"],
                     "seat_advantage_low": advantage["diff_low"],
                     "seat_advantage_high": advantage["diff_high"],
                     "seat_advantage_p": advantage["diff_p"], **_game_columns(counts)})
        parts.append(pd.DataFrame({"config": first, "mode": mode, "metric": metric,
                                   "estimate": "seat_balanced", "unit": both["unit"].to_numpy(),
                                   "a": a_values, "b": b_values, "diff": balanced}))
    return rows, parts


def _resolve_rules(baseline, rules_by_config):
    if baseline is None:
        raise AnalysisError("differences_in_differences: give the baseline rules (a Rules, a "
                            "configuration name or a preset name)")
    if not isinstance(baseline, str):
        return baseline
    if baseline in rules_by_config:
        return rules_by_config[baseline]
    plain = [r for r in rules_by_config.values()
             if r.preset_name == baseline and not r.overrides()]
    if not plain:
        raise AnalysisError(f"differences_in_differences: baseline {baseline!r} is neither a "
                            f"configuration nor the plain preset of one")
    return plain[0]


def rules_text(rules) -> str:
    """The preset and its overrides, for people: ``classic`` or ``classic, target=300``."""
    parts = [rules.preset_name]
    for name, value in rules.overrides().items():
        shown = "null" if value is None else (str(value).lower() if isinstance(value, bool)
                                              else str(value))
        parts.append(f"{name}={shown}")
    return ", ".join(parts)


def _t_or_normal(row) -> float:
    """The standard error a row's 95% t interval implies."""
    q = float(t_quantile(max(float(row["n"]) - 1, 1)))
    return (float(row["diff_high"]) - float(row["diff_low"])) / (2.0 * q)


def differences_in_differences(h2h: pd.DataFrame, rules_by_config, baseline,
                               units: pd.DataFrame | None = None) -> pd.DataFrame:
    """The head-to-head difference of one pair of strategies under a rule variant minus the
    same under the baseline rules.

    For each row of ``h2h`` (:func:`head_to_head`) whose configuration's rules are not
    ``baseline``, the row of the same mode, metric, estimate and strategies (A on side 0 in
    both; else the other way round, its difference negated) under the baseline rules.
    *Paired* when ``units`` (:func:`head_to_head` with ``units=True``) has both and the two
    configurations have as many players (they play from the same shuffles, the same unit ids):
    per unit, the variant's A-minus-B minus the baseline's, over the common units, with a 95% t
    interval. Otherwise *independent*: the difference of the two means, with the normal
    interval of the two standard errors their intervals imply.

    Parameters
    ----------
    rules_by_config : dict
        Configuration name -> its rules.
    baseline : Rules or str
        The baseline rules, a configuration name (its rules) or a preset name (the plain
        preset among the configurations).

    Returns
    -------
    DataFrame
        One row per variant configuration, mode, metric and estimate: ``mode``, ``metric``,
        ``estimate``, ``strategy_a``, ``strategy_b``, ``variant`` and ``baseline``
        (configurations), ``variant_rules``, ``baseline_rules`` (preset and overrides),
        ``pairing`` (``paired`` or ``independent``), ``n`` (paired units; the smaller count
        when independent), ``variant_diff``, ``baseline_diff`` (the two head-to-head
        differences, A minus B), ``did`` (their difference), ``did_low``, ``did_high``,
        ``did_p``.

    Examples
    --------
    >>> h2h = pd.DataFrame({"config": ["x", "o"], "mode": "hands", "metric": "score",
    ...     "estimate": "within", "strategy_a": "s", "strategy_b": "t", "n": 100,
    ...     "diff": [12.0, 5.0], "diff_low": [10.0, 3.0], "diff_high": [14.0, 7.0]})
    >>> class R:
    ...     def __init__(self, players): self.players = players
    >>> rules = {"x": R(4), "o": R(4)}
    >>> table = differences_in_differences(h2h, rules, rules["o"])
    >>> table[["variant", "baseline", "pairing", "did"]].values.tolist()
    [['x', 'o', 'independent', 7.0]]
    """
    rules_by_config = dict(rules_by_config)
    base_rules = _resolve_rules(baseline, rules_by_config)
    rows = []
    if not len(h2h):
        return pd.DataFrame(rows, columns=_DID_COLUMNS)
    config = h2h["config"].astype(str)
    is_base = config.map(lambda c: c in rules_by_config and rules_by_config[c] == base_rules)
    for _, row in h2h.loc[~is_base.to_numpy()].iterrows():
        if row["config"] not in rules_by_config:
            continue
        same = ((h2h["mode"] == row["mode"]) & (h2h["metric"] == row["metric"])
                & (h2h["estimate"] == row["estimate"]) & is_base).to_numpy()
        sign = 1.0
        match = h2h.loc[same & (h2h["strategy_a"] == row["strategy_a"]).to_numpy()
                        & (h2h["strategy_b"] == row["strategy_b"]).to_numpy()]
        if not len(match):
            sign = -1.0
            match = h2h.loc[same & (h2h["strategy_a"] == row["strategy_b"]).to_numpy()
                            & (h2h["strategy_b"] == row["strategy_a"]).to_numpy()]
        if not len(match):
            continue
        other = match.iloc[0]
        variant_rules = rules_by_config[row["config"]]
        paired = None
        if (units is not None and len(units)
                and getattr(variant_rules, "players", None) == getattr(base_rules, "players",
                                                                        None)):
            keys = (units["mode"] == row["mode"]) & (units["metric"] == row["metric"]) & (
                units["estimate"] == row["estimate"])
            x = units.loc[keys & (units["config"] == row["config"])]
            o = units.loc[keys & (units["config"] == other["config"])]
            both = x[["unit", "diff"]].merge(o[["unit", "diff"]], on="unit",
                                             suffixes=("_x", "_o"))
            if len(both):
                paired = both
        entry = {"mode": row["mode"], "metric": row["metric"], "estimate": row["estimate"],
                 "strategy_a": row["strategy_a"], "strategy_b": row["strategy_b"],
                 "variant": row["config"], "baseline": other["config"],
                 "variant_rules": _text_or_name(variant_rules),
                 "baseline_rules": _text_or_name(base_rules),
                 "variant_diff": float(row["diff"]), "baseline_diff": sign * float(other["diff"])}
        if paired is not None:
            per_unit = paired["diff_x"].to_numpy() - sign * paired["diff_o"].to_numpy()
            summary = _summarise(per_unit)
            entry.update(pairing="paired", n=summary["n"], did=summary["diff"],
                         did_low=summary["diff_low"], did_high=summary["diff_high"],
                         did_p=summary["diff_p"])
        else:
            did = float(row["diff"]) - sign * float(other["diff"])
            se = float(np.hypot(_t_or_normal(row), _t_or_normal(other)))
            p = normal_p(did / se) if se > 0 else (1.0 if did == 0 else 0.0)
            entry.update(pairing="independent", n=int(min(row["n"], other["n"])), did=did,
                         did_low=did - Z95 * se, did_high=did + Z95 * se, did_p=p)
        rows.append(entry)
    return pd.DataFrame(rows, columns=_DID_COLUMNS)


_DID_COLUMNS = ["mode", "metric", "estimate", "strategy_a", "strategy_b", "variant", "baseline",
                "variant_rules", "baseline_rules", "pairing", "n", "variant_diff",
                "baseline_diff", "did", "did_low", "did_high", "did_p"]


def _text_or_name(rules) -> str:
    try:
        return rules_text(rules)
    except (AttributeError, KeyError, TypeError):
        return str(getattr(rules, "preset_name", rules))


def variant_effect_differences(frame: pd.DataFrame, rules_by_config, baseline) -> pd.DataFrame:
    """Whether a rule variant's effect depends on the strategy: (variant minus baseline rules,
    every seat playing S1) minus (the same with S2), paired by deal.

    Hands mode only (``game_id == -1``, first plays: ``duplicate == False``), among the
    configurations where every seat plays one strategy; a strategy needs a configuration under
    the baseline rules and one under the variant, with as many players. Per deal, a table's
    score is the mean score change per side-hand; a strategy's effect is its table's score
    under the variant minus under the baseline on the same deal, and the row is the mean over
    deals of S1's effect minus S2's with a 95% t interval.

    Returns
    -------
    DataFrame
        ``variant_rules``, ``baseline_rules``, ``strategy_1``, ``strategy_2``, ``variant_1``,
        ``baseline_1``, ``variant_2``, ``baseline_2`` (configurations), ``n`` (deals),
        ``effect_1``, ``effect_2`` (mean paired effects), ``did``, ``did_low``, ``did_high``,
        ``did_p``.
    """
    require_columns(frame, _NEEDED, "variant_effect_differences")
    rules_by_config = dict(rules_by_config)
    base_rules = _resolve_rules(baseline, rules_by_config)
    columns = ["variant_rules", "baseline_rules", "strategy_1", "strategy_2", "variant_1",
               "baseline_1", "variant_2", "baseline_2", "n", "effect_1", "effect_2", "did",
               "did_low", "did_high", "did_p"]
    first = (frame["game_id"].to_numpy() == -1) & ~frame["duplicate"].to_numpy(dtype=bool)
    if not first.any():
        return pd.DataFrame(columns=columns)
    names = side_names(frame.loc[first, ["config", "side", "strategy"]])
    hands = frame
    single = {c: names[c][0] for c in _ordered_configs(hands, rules_by_config)
              if c in rules_by_config and c in names and len(set(names[c])) == 1
              and " / " not in names[c][0]}
    base = {}
    for config, strategy in single.items():
        if rules_by_config[config] == base_rules:
            base.setdefault(strategy, config)
    variants: dict = {}  # rules text -> {strategy: config}
    for config, strategy in single.items():
        rules = rules_by_config[config]
        if rules == base_rules or strategy not in base:
            continue
        if rules.players != rules_by_config[base[strategy]].players:
            continue
        variants.setdefault(rules_text(rules), {}).setdefault(strategy, config)
    needed = {c for configs in variants.values() for c in configs.values()}
    needed |= {base[s] for configs in variants.values() for s in configs}
    if not needed:
        return pd.DataFrame(columns=columns)
    of_config = _config_mask(hands)
    keep = first & np.logical_or.reduce([of_config(c) for c in needed])
    part = hands.loc[keep]
    one = part["seat"].to_numpy() == part["side"].to_numpy()
    scores = part.loc[one, ["config", "hand_id"]].copy()
    scores["config"] = scores["config"].astype(str)
    scores["score"] = part.loc[one, "score_delta"].to_numpy(dtype=float)
    per_deal = scores.groupby(["hand_id", "config"])["score"].mean().unstack("config")
    rows = []
    for text, configs in variants.items():
        strategies = list(configs)
        for i, s1 in enumerate(strategies):
            for s2 in strategies[i + 1:]:
                use = [configs[s1], base[s1], configs[s2], base[s2]]
                table = per_deal[use].dropna()
                e1 = table[use[0]].to_numpy() - table[use[1]].to_numpy()
                e2 = table[use[2]].to_numpy() - table[use[3]].to_numpy()
                summary = _summarise(e1 - e2)
                rows.append({"variant_rules": text, "baseline_rules": rules_text(base_rules),
                             "strategy_1": s1, "strategy_2": s2, "variant_1": use[0],
                             "baseline_1": use[1], "variant_2": use[2], "baseline_2": use[3],
                             "n": summary["n"], "effect_1": e1.mean() if len(e1) else np.nan,
                             "effect_2": e2.mean() if len(e2) else np.nan,
                             "did": summary["diff"], "did_low": summary["diff_low"],
                             "did_high": summary["diff_high"], "did_p": summary["diff_p"]})
    return pd.DataFrame(rows, columns=columns)


def opposite_signs(table: pd.DataFrame, keys, value: str = "diff",
                   first=("hands", "score"), second=("games", "win_share")) -> pd.DataFrame:
    """Where two estimates of one comparison disagree: the rows of ``table`` of the ``(mode,
    metric)`` ``first`` joined on ``keys`` with those of ``second``, kept where both 95%
    intervals (``value_low`` to ``value_high``) exclude zero and the estimates have opposite
    signs (in hands from zero scores a bag costs nothing until one hand reaches the limit, so
    the score per hand and the share of games won can rank two strategies the other way
    round). The columns of ``table`` but the keys come suffixed ``_first`` and ``_second``.

    >>> did = pd.DataFrame({"variant": "v", "mode": ["hands", "games"],
    ...     "metric": ["score", "win_share"], "did": [-12.6, 0.144],
    ...     "did_low": [-20.0, 0.05], "did_high": [-5.0, 0.24]})
    >>> opposite_signs(did, ["variant"], "did")[["variant", "did_first", "did_second"]].values
    array([['v', -12.6, 0.144]], dtype=object)
    """
    keys = list(keys)
    require_columns(table, [*keys, "mode", "metric", value, f"{value}_low", f"{value}_high"],
                    "opposite_signs")

    def part(mode_metric):
        mode, metric = mode_metric
        rows = table[(table["mode"] == mode) & (table["metric"] == metric)]
        low, high = rows[f"{value}_low"].to_numpy(), rows[f"{value}_high"].to_numpy()
        sign = np.where(low > 0, 1, np.where(high < 0, -1, 0))
        return rows.assign(_sign=sign)

    joined = part(first).merge(part(second), on=keys, suffixes=("_first", "_second"))
    keep = (joined["_sign_first"] * joined["_sign_second"]).to_numpy() < 0
    return joined.loc[keep].drop(columns=["_sign_first", "_sign_second"]).reset_index(drop=True)
