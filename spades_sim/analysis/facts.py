"""Spades facts a player expects, from a run's tidy frames: bag penalties per game, how often
contracts of 10 or more are bid and made, blind-nil frequency, success and what the blind-nil
hands scored, nil success by the spade honours and low cards held, and game length.

Each fact states its unit, the thing counted once: a *game* (the hands of one game share its
score, so a game is one unit), a *deal* (the sides of one hand share its cards, so a deal is
one unit) or a bid clustered by its deal or game (``analysis.clustered``: the interval counts
deals or games, not bids). Games-mode facts read rows with ``game_id >= 0``; the contract facts
read the frame they are given (independent hands, or games).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.errors import AnalysisError
from .clustered import clustered_mean, clustered_rate
from .groups import text_values
from .metrics import require_columns, side_bags

#: Columns of :func:`spades_facts`.
FACT_COLUMNS = ("config", "mode", "fact", "unit", "n", "value", "low", "high")
#: Card index bits (``core/cards.py``: suit * 13 + rank, spades suit 3, jokers 52 and 53).
SPADE_HONOURS_MASK = sum(1 << card for card in (49, 50, 51, 52, 53))  # QS KS AS and jokers
LOW_CARDS_MASK = sum(1 << (suit * 13 + rank) for suit in range(4) for rank in range(4))
_GAME = ["config", "duplicate", "game_id"]


def _side_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per side-hand: seat == side picks seats 0 and 1 in partnerships, every seat
    otherwise."""
    return frame.loc[frame["seat"].to_numpy() == frame["side"].to_numpy()]


def _codes(frame: pd.DataFrame, keys) -> np.ndarray:
    return frame.groupby(list(keys), observed=True, sort=False).ngroup().to_numpy(np.int64)


def _margins(sides: pd.DataFrame, deal) -> tuple[np.ndarray, np.ndarray]:
    """Per side-hand: its score minus the mean of the other sides' (``margin``), and how far it
    trailed the best other side before the hand (``deficit``, negative when ahead)."""
    code = _codes(sides, deal)
    own = sides["score_delta"].to_numpy(dtype=float)
    total = np.bincount(code, weights=own)[code]
    count = np.bincount(code)[code]
    with np.errstate(invalid="ignore", divide="ignore"):
        margin = own - np.where(count > 1, (total - own) / (count - 1), np.nan)
    before = sides["score_before"].to_numpy(dtype=np.int64)
    keys = pd.Series(code)
    top = pd.Series(before).groupby(keys).transform("max").to_numpy()
    at_top = pd.Series((before == top).astype(np.int64)).groupby(keys).transform(
        "sum").to_numpy()
    lowest = np.iinfo(np.int64).min
    second = pd.Series(np.where(before < top, before, lowest)).groupby(keys).transform(
        "max").to_numpy()
    best_other = np.where((before < top) | (at_top > 1), top, second)
    return margin, (best_other - before).astype(float)


def _by_config(frame: pd.DataFrame):
    """``(name, rows)`` of each configuration, in order of appearance (the column factorised
    once: comparing it as text for every configuration is slow)."""
    which, names = pd.factorize(frame["config"], sort=False)
    for index, name in enumerate(names):
        yield str(name), frame.loc[which == index]


def blind_nil_games(frame: pd.DataFrame) -> pd.DataFrame:
    """Blind nil in whole games, per configuration: how often it is bid, how often made, and
    what the side-hands that bid it scored.

    A blind nil is chosen from the score (the heuristic bids it when trailing by its
    ``blind_nil_deficit``), so it shows in games-mode rows (``game_id >= 0``) only, and what
    its side-hands scored is conditional on the states the strategy chose it in: it is not a
    paired value (a game with a number bid instead would go on differently).

    Returns
    -------
    DataFrame
        One row per configuration with games: ``config``, ``games``, ``side_hands``,
        ``blind_nils``; ``per_game`` (blind nils per game) with its 95% t interval
        ``per_game_low``, ``per_game_high`` (the game is the unit); ``made``, ``rate = made /
        blind_nils`` with a game-clustered Wilson 95% interval ``rate_low``, ``rate_high``;
        ``deficit`` (mean points the side trailed the best other side by, before the hand);
        ``score`` and ``margin`` (mean side score of the hand, and that score minus the other
        sides' mean, on the blind-nil side-hands) with game-clustered 95% t intervals
        ``score_low`` .. ``margin_high``. Configurations whose games hold no blind nil have
        ``blind_nils == 0`` and nan rates.

    Examples
    --------
    Two one-hand games; in game 0 seat 0 bids blind nil trailing by 120 and makes it.

    >>> frame = pd.DataFrame({"config": "c", "duplicate": False, "game_id": [0, 0, 1, 1],
    ...     "hand_id": 0, "seat": [0, 1, 0, 1], "side": [0, 1, 0, 1],
    ...     "nil": [True, False, False, False], "blind": [True, False, False, False],
    ...     "tricks": [0, 5, 3, 4], "score_before": [0, 120, 0, 0],
    ...     "score_delta": [250, 50, 30, 40]})
    >>> table = blind_nil_games(frame)
    >>> table.loc[0, ["games", "blind_nils", "per_game", "made", "deficit", "margin"]].tolist()
    [2.0, 1.0, 0.5, 1.0, 120.0, 200.0]
    """
    require_columns(frame, [*_GAME, "hand_id", "seat", "side", "nil", "blind", "tricks",
                            "score_before", "score_delta"], "blind_nil_games")
    games = frame.loc[frame["game_id"].to_numpy() >= 0]
    records = []
    for name, rows in _by_config(games):
        game = _codes(rows, _GAME)
        n_games = int(game.max()) + 1
        blind = (rows["nil"].to_numpy(dtype=bool) & rows["blind"].to_numpy(dtype=bool))
        counts = np.bincount(game, weights=blind.astype(float), minlength=n_games)
        per_game, per_low, per_high, _ = clustered_mean(counts, np.arange(n_games))
        sides = _side_rows(rows)
        margin, deficit = _margins(sides, [*_GAME, "hand_id"])
        side_key = [*_GAME, "hand_id", "side"]
        blind_sides = rows.loc[blind, side_key].drop_duplicates()
        chosen = pd.MultiIndex.from_frame(sides[side_key]).isin(
            pd.MultiIndex.from_frame(blind_sides))
        made = blind & (rows["tricks"].to_numpy() == 0)
        record = {"config": name, "games": n_games, "side_hands": len(sides),
                  "blind_nils": int(blind.sum()), "per_game": per_game,
                  "per_game_low": per_low, "per_game_high": per_high,
                  "made": int(made.sum())}
        rate = clustered_rate(made[blind].astype(float), game[blind])
        record.update(zip(("rate", "rate_low", "rate_high"), rate[:3]))
        side_game = _codes(sides, _GAME)[chosen]
        record["deficit"] = float(deficit[chosen].mean()) if chosen.any() else np.nan
        for column, values in (("score", sides["score_delta"].to_numpy(dtype=float)),
                               ("margin", margin)):
            mean, low, high, _ = clustered_mean(values[chosen], side_game)
            record.update({column: mean, f"{column}_low": low, f"{column}_high": high})
        records.append(record)
    columns = ["config", "games", "side_hands", "blind_nils", "per_game", "per_game_low",
               "per_game_high", "made", "rate", "rate_low", "rate_high", "deficit", "score",
               "score_low", "score_high", "margin", "margin_low", "margin_high"]
    return pd.DataFrame(records, columns=columns)


def _fact(config, fact, unit, n, value, low, high, mode="games") -> dict:
    return dict(zip(FACT_COLUMNS, (config, mode, fact, unit, int(n), value, low, high)))


def game_facts(frame: pd.DataFrame, bag_limits: dict | None = None) -> list[dict]:
    """The games-mode facts of each configuration (rows of :func:`spades_facts`): bag
    penalties per game, game length, blind nils per game and their success."""
    require_columns(frame, [*_GAME, "hand_id", "seat", "side", "tricks", "side_contract",
                            "side_taken", "bags_before", "bags_after", "game_over"],
                    "game_facts")
    games = frame.loc[frame["game_id"].to_numpy() >= 0]
    facts = []
    blind = blind_nil_games(games).set_index("config") if len(games) else None
    for name, rows in _by_config(games):
        sides = _side_rows(rows)
        game = _codes(sides, _GAME)
        n_games = int(game.max()) + 1
        # (side_bags sums the side's tricks over its seats: computed on every row.)
        added = side_bags(rows)[1][rows["seat"].to_numpy() == rows["side"].to_numpy()]
        drop = sides["bags_before"].to_numpy(np.int64) + added - sides["bags_after"].to_numpy(
            np.int64)
        limit = (bag_limits or {}).get(name, 0)
        penalties = drop // limit if limit else (drop > 0).astype(np.int64)
        per_game = np.bincount(game, weights=penalties.astype(float), minlength=n_games)
        facts.append(_fact(name, "bag penalties per game (all sides)", "game", n_games,
                           *clustered_mean(per_game, np.arange(n_games))[:3]))
        # A game's length is its last hand's id + 1 (hand ids count from 0 in a game).
        lengths = pd.Series(sides["hand_id"].to_numpy(np.int64)).groupby(game).max().to_numpy(
        ) + 1
        facts.append(_fact(name, "hands per game", "game", len(lengths),
                           *clustered_mean(lengths.astype(float), np.arange(len(lengths)))[:3]))
        if blind is not None and name in blind.index:
            row = blind.loc[name]
            facts.append(_fact(name, "blind nils per game", "game", row["games"],
                               row["per_game"], row["per_game_low"], row["per_game_high"]))
            if row["blind_nils"]:
                facts.append(_fact(name, "blind nils made", "blind nil (by game)",
                                   row["blind_nils"], row["rate"], row["rate_low"],
                                   row["rate_high"]))
    return facts


def contract_facts(frame: pd.DataFrame, mode: str = "hands") -> list[dict]:
    """How often a side bids a contract of 10 or more (the deal is the unit: the share of
    deals in which some side did) and how often such contracts are made (per contract,
    clustered by deal), per configuration (rows of :func:`spades_facts`)."""
    require_columns(frame, ["config", "duplicate", "game_id", "hand_id", "seat", "side",
                            "side_contract", "side_taken"], "contract_facts")
    facts = []
    for name, rows in _by_config(frame):
        sides = _side_rows(rows)
        deal = _codes(sides, ["duplicate", "game_id", "hand_id"])
        contract = sides["side_contract"].to_numpy(np.int64)
        big = contract >= 10
        n_deals = int(deal.max()) + 1
        any_big = np.bincount(deal, weights=big.astype(float), minlength=n_deals) > 0
        facts.append(_fact(name, "deals with a contract of 10+", "deal", n_deals,
                           *clustered_rate(any_big.astype(float), np.arange(n_deals))[:3],
                           mode=mode))
        if big.any():
            made = sides["side_taken"].to_numpy(np.int64)[big] >= contract[big]
            facts.append(_fact(name, "contracts of 10+ made", "contract (by deal)",
                               int(big.sum()),
                               *clustered_rate(made.astype(float), deal[big])[:3], mode=mode))
    return facts


def spades_facts(hands: pd.DataFrame | None, games: pd.DataFrame | None,
                 bag_limits: dict | None = None) -> pd.DataFrame:
    """The facts table: contracts of 10+ from ``hands`` (independent hands; from ``games``
    when there is no hands frame), and from ``games`` the bag penalties, game length and blind
    nil. ``bag_limits``: configuration -> its ``bag_limit``, to count several penalties in one
    hand exactly (without it a hand whose counter dropped counts one).

    Returns
    -------
    DataFrame
        ``config``, ``mode`` (``hands``: independent hands; ``games``: whole games), ``fact``,
        ``unit`` (what one counted thing is), ``n`` (how many), ``value`` and its 95% interval
        ``low``, ``high`` (rates as fractions).
    """
    if hands is None and games is None:
        raise AnalysisError("spades_facts: give a hands or a games frame")
    facts = (contract_facts(hands) if hands is not None else contract_facts(games, "games"))
    if games is not None:
        facts += game_facts(games, bag_limits)
    return facts_table(facts)


def facts_table(facts) -> pd.DataFrame:
    """The table of :func:`spades_facts` from its rows (dicts of :data:`FACT_COLUMNS`, as
    :func:`contract_facts` and :func:`game_facts` give them, for frames of one configuration
    each, say): the rows of each configuration together, in the order of its first row."""
    table = pd.DataFrame(list(facts), columns=list(FACT_COLUMNS))
    order = {name: i for i, name in enumerate(dict.fromkeys(table["config"]))}
    table["_order"] = table["config"].map(order)
    return table.sort_values("_order", kind="stable").drop(columns="_order").reset_index(
        drop=True)


def nil_by_cards(frame: pd.DataFrame) -> pd.DataFrame:
    """Nil success by the bidder's spade honours (the Q, K and A of spades and any jokers) and
    low cards (the 2 to 5 of any suit) as dealt, from a frame with the ``cards`` column (a run
    played with cards), per configuration. A nil is one bid; the interval is clustered by deal
    (the nils of one deal share its cards).

    Returns
    -------
    DataFrame
        ``config``, ``feature`` (``spade honours`` or ``low cards``), ``held`` (the count), ``n``
        (nil bids), ``made``, ``rate`` and its 95% interval ``rate_low``, ``rate_high``.

    >>> frame = pd.DataFrame({"config": "c", "duplicate": False, "game_id": -1,
    ...     "hand_id": [0, 1, 2], "nil": True, "tricks": [0, 1, 0],
    ...     "cards": [1 << 51, 1 << 51, 1 | 2]})
    >>> nil_by_cards(frame)[["feature", "held", "n", "made"]].values.tolist()
    [['spade honours', 0, 1, 1], ['spade honours', 1, 2, 1], ['low cards', 0, 2, 1], \
['low cards', 2, 1, 1]]
    """
    require_columns(frame, ["config", "duplicate", "game_id", "hand_id", "nil", "tricks",
                            "cards"], "nil_by_cards")
    nils = frame.loc[frame["nil"].to_numpy(dtype=bool)]
    cards = nils["cards"].to_numpy(dtype=np.int64)
    made = (nils["tricks"].to_numpy() == 0).astype(float)
    config = text_values(nils["config"])
    deal = _codes(nils, ["config", "duplicate", "game_id", "hand_id"]) if len(nils) else []
    records = []
    for feature, mask in (("spade honours", SPADE_HONOURS_MASK), ("low cards", LOW_CARDS_MASK)):
        held = np.array([bin(value & mask).count("1") for value in cards.tolist()],
                        dtype=np.int64)
        for name in dict.fromkeys(config):
            for count in np.unique(held[config == name]):
                chosen = (config == name) & (held == count)
                rate, low, high, _ = clustered_rate(made[chosen], np.asarray(deal)[chosen])
                records.append({"config": name, "feature": feature, "held": int(count),
                                "n": int(chosen.sum()), "made": int(made[chosen].sum()),
                                "rate": rate, "rate_low": low, "rate_high": high})
    columns = ["config", "feature", "held", "n", "made", "rate", "rate_low", "rate_high"]
    return pd.DataFrame(records, columns=columns)
