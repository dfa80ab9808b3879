"""Fair strategy evaluation: matches between two strategies on shared deals.

A match plays every deal once per *seating* of the two strategies (``rotation.py``), so each
strategy holds each seat's cards equally often and card luck cancels:

- four players in two partnerships: A at seats 0 and 2, B at 1 and 3, every deal played twice
  through the duplicate mode of runs: the second time the strategies move one seat, so the
  partnerships swap cards (one configuration ``match``);
- two, three (or four) players each on their own: one configuration per rotation,
  ``match-r0``, ``match-r1``, ...: in rotation ``r`` A sits at seat ``r`` and B at every other
  seat. Configurations of a run are played from the same stream keys, so the rotations see the
  same deals (the same stock, with the two-player draw deal).

The unit of the statistics is the *board*: one deal (one game's sequence of deals in games
mode) played in every seating.

- games mode: a play's result is each scoring side's final score; hands mode: its score delta,
  every hand from zero scores. A play's difference is A's side minus B's side (partnerships),
  or A's seat minus the mean of the B seats (each player on their own); ``diff`` of a board is
  the mean of its plays' differences.
- ``mean_diff``: the mean of ``diff`` over boards; ``ci95``: Student's t interval on those
  paired per-board differences.
- ``a_wins``/``b_wins``/``ties`` count *encounters* of A's side with a B side, ``players - 1``
  in each play with players on their own, one with partnerships: in games mode, the game's
  winner decides (with partnerships: A's side or B's won; on their own: where the game has a
  winner, the higher final score of A's seat and that B seat wins the encounter, equal scores
  tie); a game without a winner (a tie, or a draw at the hand cap) is a tie; in hands mode,
  the higher score delta. Counting A against each B seat rather than against the game's winner
  keeps the count fair: a strategy against itself gets as many wins as losses, where "a B seat
  won" would give B two wins in three.
- ``deals_a``/``deals_b``/``deals_tied``: boards with ``diff`` above, below or equal to 0.

A tournament plays every pair of strategies in such a match on the same deals (same seed and
chunk size) and fits Bradley-Terry ratings (``ratings.py``) to the encounters
(``tournament.py``).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from ..analysis.metrics import interval_from_moments
from ..core.errors import EvaluationError
from ..core.rules import Rules, build_rules
from ..core.strategies import Strategy, parse_strategy
from ..run import RunSpec, execute, load_run, make_config
from .rotation import differences, seatings

CONFIG_NAME = "match"
# The configuration of rotation r of a match of players on their own (A at seat r).
ROTATION_NAME = CONFIG_NAME + "-r{}"
_ROTATION = re.compile(r"-r(\d+)$")


def paired_interval(diffs) -> tuple[float, float, float]:
    """Mean of paired differences and its 95% t interval ``(mean, low, high)``.

    >>> [round(x, 4) for x in paired_interval([1.0, 3.0])]
    [2.0, -10.7062, 14.7062]
    >>> paired_interval([0.0, 0.0, 0.0])
    (0.0, 0.0, 0.0)
    """
    values = np.asarray(diffs, dtype=float)
    if len(values) == 0:
        return float("nan"), float("nan"), float("nan")
    mean = float(values.mean())
    std = float(values.std(ddof=1)) if len(values) > 1 else float("nan")
    low, high = interval_from_moments(mean, std, len(values), t=True)
    return mean, float(low), float(high)


def json_number(value):
    """JSON-safe float: ``None`` for nan."""
    return None if value is None or value != value else float(value)


@dataclass
class MatchResult:
    """The result of a match of ``a`` against ``b``: with partnerships A at seats 0 and 2
    and B at 1 and 3, duplicated; with players on their own, rotated (the module docstring)."""

    a: str
    b: str
    rules: str
    unit: str  # "games" or "hands"
    n: int  # boards: deals, each played once per seating
    seed: int | None
    played: int  # games (or hands) played: rotations * n
    a_wins: int
    b_wins: int
    ties: int
    deals_a: int
    deals_b: int
    deals_tied: int
    mean_diff: float
    ci95: tuple[float, float]
    sd_diff: float  # standard deviation of the per-board differences
    out: str | None = None
    rule_overrides: dict = field(default_factory=dict)
    run: dict | None = field(default=None, repr=False, compare=False)  # the runner's summary
    players: int = 4  # seats at the table
    rotations: int = 2  # seatings each board is played in (2: the duplicate pair)
    # Where the points went, per board (``split.points_split``; partnership matches only).
    split: pd.DataFrame | None = field(default=None, repr=False, compare=False)

    @property
    def partnership(self) -> bool:
        """Whether A and B each held two seats as partners (else A one seat, B the others)."""
        return self.players == 4 and self.rotations == 2

    def to_dict(self) -> dict:
        data = asdict(replace(self, split=None))
        del data["unit"], data["n"], data["run"], data["split"]
        ordered = {"a": self.a, "b": self.b, "rules": self.rules, self.unit: self.n}
        ordered.update(data)
        ordered["mean_diff"] = json_number(self.mean_diff)
        ordered["sd_diff"] = json_number(self.sd_diff)
        ordered["ci95"] = [json_number(self.ci95[0]), json_number(self.ci95[1])]
        return ordered

    @classmethod
    def from_dict(cls, data: dict) -> MatchResult:
        """The inverse of :meth:`to_dict` (a match read back from ``tournament.json``)."""
        data = dict(data)
        unit = "games" if "games" in data else "hands"
        n = data.pop(unit)
        nan = float("nan")
        for key in ("mean_diff", "sd_diff"):
            data[key] = nan if data.get(key) is None else float(data[key])
        data["ci95"] = tuple(nan if v is None else float(v) for v in data["ci95"])
        return cls(unit=unit, n=int(n), **data)


def _sides(frame: pd.DataFrame, a: str, b: str) -> pd.Series:
    """Whether each row is one of A's seats.

    The runner relabels the duplicate copy's seats to each strategy's home seat, so A's rows sit
    on side 0 in both copies; when the strategies differ this is checked against the
    ``strategy`` column (which is then what decides), and when they are the same strategy the
    home side is all that tells them apart.
    """
    home = frame["side"].to_numpy() == 0
    if a == b:
        return pd.Series(home, index=frame.index)
    names = frame["strategy"].astype(str).to_numpy()
    is_a, is_b = names == a, names == b
    if not (is_a | is_b).all():
        others = sorted(set(names[~(is_a | is_b)]))
        raise EvaluationError(f"the frame holds other strategies than {a} and {b}: {others}")
    if not (is_a == home).all():
        raise EvaluationError(f"{a} is not on side 0 in every row; not a match frame")
    return pd.Series(is_a, index=frame.index)


def a_rows(frame: pd.DataFrame, a: str, b: str) -> pd.Series:
    """Whether each row of a partnership match's frame is one of A's seats (checked against
    the ``strategy`` column where A and B differ; a one-line error where it does not hold)."""
    return _sides(frame, a, b)


def _duplicate_plays(rows: pd.DataFrame, a: str, b: str, games: bool):
    """A partnership match (duplicate mode): ``(per-board diffs, plays, a_wins, b_wins,
    ties)``."""
    key = "game_id" if games else "hand_id"
    is_a = _sides(rows, a, b)
    value = rows["score_delta"].astype(np.int64)
    if games:
        value = value + rows["score_before"].astype(np.int64)
    part = pd.DataFrame({"duplicate": rows["duplicate"].to_numpy(), "key": rows[key].to_numpy(),
                         "is_a": is_a.to_numpy(), "side": rows["side"].to_numpy(),
                         "value": value.to_numpy(), "winner": rows["game_winner"].to_numpy()})
    part = part.drop_duplicates(["duplicate", "key", "is_a"])  # side columns repeat per seat
    mine = part[part["is_a"]].set_index(["duplicate", "key"])
    theirs = part[~part["is_a"]].set_index(["duplicate", "key"])
    plays = mine.merge(theirs, left_index=True, right_index=True,
                       suffixes=("_a", "_b")).reset_index()
    plays = plays[plays.groupby("key")["duplicate"].transform("nunique") == 2]
    plays = plays.sort_values(["key", "duplicate"])
    diff = (plays["value_a"] - plays["value_b"]).to_numpy()
    if games:
        winner = plays["winner_a"].to_numpy()
        a_wins = int((winner == plays["side_a"].to_numpy()).sum())
        b_wins = int((winner == plays["side_b"].to_numpy()).sum())
    else:
        a_wins, b_wins = int((diff > 0).sum()), int((diff < 0).sum())
    per_board = pd.Series(diff.astype(float)).groupby(plays["key"].to_numpy()).mean()
    return per_board, len(diff), a_wins, b_wins, len(diff) - a_wins - b_wins


def _rotation_plays(rows: pd.DataFrame, a: str, b: str, games: bool, players: int):
    """A match of ``players`` on their own (one configuration per rotation, ``match-r<r>``: A
    at seat ``r``): ``(per-board diffs, plays, a_wins, b_wins, ties)``."""
    key = "game_id" if games else "hand_id"
    names = rows["config"].astype(str)
    found = names.str.extract(_ROTATION, expand=False)
    if found.isna().any():
        raise EvaluationError(f"configuration {names[found.isna()].iloc[0]!r} is not a "
                              f"rotation of a match (match-r0, match-r1, ...)")
    rotation = found.astype(np.int64).to_numpy()
    seat = rows["seat"].to_numpy().astype(np.int64)
    if len(rows) and rotation.max() >= players:
        raise EvaluationError(f"rotation {rotation.max()} of a {players}-player match")
    if a != b:
        expected = np.where(seat == rotation, a, b)
        wrong = rows["strategy"].astype(str).to_numpy() != expected
        if wrong.any():
            raise EvaluationError(f"{a} is not at seat r of rotation r (and {b} elsewhere) in "
                                  f"every row; not a match frame")
    value = rows["score_delta"].astype(np.int64).to_numpy()
    if games:
        value = value + rows["score_before"].astype(np.int64).to_numpy()
    boards, board = np.unique(rows[key].to_numpy(), return_inverse=True)
    values = np.zeros((players, len(boards), players), dtype=np.int64)  # [rotation, board, seat]
    present = np.zeros(values.shape, dtype=bool)
    winner = np.full((players, len(boards)), -1, dtype=np.int64)
    values[rotation, board, seat] = value
    present[rotation, board, seat] = True
    winner[rotation, board] = rows["game_winner"].to_numpy()
    complete = present.all(axis=(0, 2))  # boards missing a play are left out
    boards, values, winner = boards[complete], values[:, complete], winner[:, complete]
    sides = [([r], [s for s in range(players) if s != r]) for r in range(players)]
    a_wins = b_wins = ties = 0
    for r in range(players):
        mine = values[r, :, r]
        for other in sides[r][1]:
            theirs = values[r, :, other]
            decided = winner[r] >= 0 if games else np.ones(len(boards), dtype=bool)
            a_wins += int((decided & (mine > theirs)).sum())
            b_wins += int((decided & (mine < theirs)).sum())
            ties += int((~decided | (mine == theirs)).sum())
    per_board = pd.Series(differences(values, sides), index=boards)
    return per_board, players * len(boards), a_wins, b_wins, ties


def _scored(frame: pd.DataFrame, a, b, games, config):
    """``(a, b, games, per-board diffs, plays, a_wins, b_wins, ties, players, rotations)``."""
    a, b = str(parse_strategy(a)), str(parse_strategy(b))
    rotated = (len(frame) > 0 and "seat" in frame.columns and not frame["duplicate"].any()
               and bool((frame["seat"] == frame["side"]).all()))
    players = int(frame["seat"].max()) + 1 if rotated else 4
    if config is not None:
        names = frame["config"].astype(str)
        chosen = names.str.match(re.escape(config) + r"-r\d+$") if rotated else names == config
        frame = frame[chosen]
    if games is None:
        games = bool(frame["game_over"].any())
    rows = frame[frame["game_over"]] if games else frame
    if rotated:
        per_board, played, a_wins, b_wins, ties = _rotation_plays(rows, a, b, games, players)
        rotations = players
    else:
        per_board, played, a_wins, b_wins, ties = _duplicate_plays(rows, a, b, games)
        rotations = 2
    return a, b, games, per_board, played, a_wins, b_wins, ties, players, rotations


def match_boards(frame: pd.DataFrame, a, b, *, games: bool | None = None,
                 config: str | None = None) -> pd.Series:
    """Every complete board's ``diff`` (the module docstring), float64, indexed by the board
    (its ``game_id``, or ``hand_id`` in hands mode); arguments as for :func:`match_result`."""
    return _scored(frame, a, b, games, config)[3].rename("diff")


def match_result(frame: pd.DataFrame, a, b, *, games: bool | None = None, rules: str = "",
                 seed: int | None = None, out=None, config: str | None = None) -> MatchResult:
    """The match statistics of a tidy match-run frame (see the module docstring).

    ``frame``: ``run.load_run`` of a match run: a duplicate run of ``[a, b, a, b]``, or a run
    of one configuration per rotation (``match-r<r>``, A at seat ``r``) of players on their own
    (any frame with the columns ``config``, ``duplicate``, ``hand_id``, ``game_id``, ``seat``,
    ``side``, ``strategy``, ``score_before``, ``score_delta``, ``game_over``, ``game_winner``);
    ``games``: games mode (default: whether any row ends a game); ``config``: keep that
    configuration's rows only (of a rotation run: those of ``<config>-r<r>``). Boards missing
    one of their plays are left out.
    """
    a, b, games, per_board, played, a_wins, b_wins, ties, players, rotations = _scored(
        frame, a, b, games, config)
    per_deal = per_board.to_numpy()
    mean, low, high = paired_interval(per_deal)
    return MatchResult(
        a=a, b=b, rules=rules, unit="games" if games else "hands", n=len(per_deal), seed=seed,
        played=played, a_wins=a_wins, b_wins=b_wins, ties=ties,
        deals_a=int((per_deal > 0).sum()), deals_b=int((per_deal < 0).sum()),
        deals_tied=int((per_deal == 0).sum()), mean_diff=mean, ci95=(low, high),
        sd_diff=float(per_deal.std(ddof=1)) if len(per_deal) > 1 else float("nan"),
        out=None if out is None else str(out), players=players, rotations=rotations,
    )


# -- running matches -------------------------------------------------------------------------
def slug(text: str) -> str:
    """A file-name-safe form of a strategy spec or a rules name.

    >>> slug("heuristic:aggression=0.5,nil_threshold=2")
    'heuristic_aggression=0.5_nil_threshold=2'
    """
    return re.sub(r"[^A-Za-z0-9.=+-]+", "_", text).strip("_") or "x"


def match_rules(rules, overrides=()) -> Rules:
    """``rules`` (a Rules, or a preset name with ``field=value`` override texts), checked to be
    a table a match can seat: four players in two partnerships, or players on their own."""
    if not isinstance(rules, Rules):
        rules = build_rules(rules, list(overrides))
    elif overrides:
        raise EvaluationError("rule overrides go with a preset name, not with a Rules object")
    if rules.partnership and rules.players != 4:  # (Rules refuses this already)
        raise EvaluationError(f"rules {rules.preset_name}: partnerships need 4 players")
    return rules


def match_configs(a: Strategy, b: Strategy, rules: Rules) -> tuple:
    """The configurations of a match (``rotation.seatings``): ``match``, ``[a, b, a, b]``,
    played in duplicate mode, with partnerships; else ``match-r<r>`` for each rotation."""
    table = (a, b)
    if rules.partnership:
        return (make_config(CONFIG_NAME, rules, [a, b] * 2),)
    return tuple(make_config(ROTATION_NAME.format(r), rules, [table[who] for who in seating])
                 for r, seating in enumerate(seatings(rules.players, False)))


def match_units(n_games, n_hands) -> tuple[str, int]:
    if (n_games is None) == (n_hands is None):
        raise EvaluationError("give either a number of games or a number of hands")
    unit, count = ("games", n_games) if n_games is not None else ("hands", n_hands)
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 1:
        raise EvaluationError(f"{unit}: {count!r} is not an integer of at least 1")
    return unit, int(count)


def _default_chunk_size(unit: str) -> int:
    return 1000 if unit == "games" else 100_000


def folder_tag(*parts) -> str:
    """A short hash of what a default directory name leaves out (rule overrides, chunk size)."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:8]


def match_spec(a: Strategy, b: Strategy, rules: Rules | str = "classic", *,
               n_games: int | None = None, n_hands: int | None = None, seed: int,
               rule_overrides=(), chunk_size: int | None = None) -> RunSpec:
    """The :class:`~spades_sim.run.RunSpec` of a match (see :func:`match`): with
    partnerships one configuration ``[a, b, a, b]``, duplicate mode; with players on their own
    one configuration per rotation (:func:`match_configs`), on the same deals."""
    unit, count = match_units(n_games, n_hands)
    rules_obj = match_rules(rules, rule_overrides)
    configs = match_configs(parse_strategy(a), parse_strategy(b), rules_obj)
    return RunSpec(configs, seed, chunk_size=chunk_size or _default_chunk_size(unit),
                   duplicate=rules_obj.partnership, **{f"n_{unit}": count})


def match(a, b, rules: Rules | str = "classic", *, n_games: int | None = None,
          n_hands: int | None = None, seed: int, jobs: int = 1, out=None,
          rule_overrides=(), chunk_size: int | None = None, backend: str = "loky",
          scheduler: str | None = None, quiet: bool = True) -> MatchResult:
    """Play a match of ``a`` against ``b`` and score it: with partnerships a duplicate match
    (``a`` at seats 0 and 2, ``b`` at 1 and 3, then moved one seat), with players on their own
    one play per rotation (``a`` at one seat, ``b`` at the others; ``rotation.seatings``).

    ``a``, ``b``: strategies (or their texts, parsed here once); ``rules``: a
    :class:`~spades_sim.core.rules.Rules`, or a preset name with ``rule_overrides``
    (``"field=value"`` texts); exactly one of ``n_games`` and ``n_hands`` (boards: each deal
    is played once per seating: twice, or once per seat on their own). The run is
    written to ``out`` (default ``results/match-<a>-vs-<b>-<rules>-<N><unit>-<seed>``), and
    re-running the same call resumes or reuses it. The numbers depend on the seed only, never on
    ``jobs`` or the chunk size (default 1000 games or 100000 hands).
    """
    unit, count = match_units(n_games, n_hands)
    strategy_a, strategy_b = parse_strategy(a), parse_strategy(b)
    rules_obj = match_rules(rules, rule_overrides)
    overrides = [f"{name}={value}" for name, value in rules_obj.overrides().items()]
    spec = match_spec(strategy_a, strategy_b, rules_obj, n_games=n_games, n_hands=n_hands,
                      seed=seed, chunk_size=chunk_size)
    rules_name = rules_obj.preset_name
    if out is None:
        name = (f"match-{slug(str(strategy_a))}-vs-{slug(str(strategy_b))}-"
                f"{slug(rules_name)}-{count}{unit[0]}")
        if overrides or spec.chunk_size != _default_chunk_size(unit):
            name += "-" + folder_tag(overrides, spec.chunk_size)
        out = Path("results") / f"{name}-{seed}"
    summary = execute(spec, out, jobs=jobs, backend=backend, scheduler=scheduler, quiet=quiet)
    result = scored_match(summary["out"], strategy_a, strategy_b, rules_obj, unit, seed)
    result.run = summary
    if result.n != count:
        raise EvaluationError(f"{summary['out']}: only {result.n} of {count} boards are complete")
    return result


def scored_match(folder, a: Strategy, b: Strategy, rules: Rules, unit: str,
                 seed: int | None) -> MatchResult:
    """The match statistics of the run in ``folder`` (played under ``rules``), with where the
    points went (``split.points_split``) in ``split`` when A and B played as partnerships."""
    from .split import COLUMNS, points_split  # (split.py builds on this module)

    frame = load_run(folder, columns=list(COLUMNS))
    games = unit == "games"
    result = match_result(frame, a, b, games=games, rules=rules.preset_name, seed=seed,
                          out=str(folder))
    result.rule_overrides = rules.overrides()
    if result.partnership:
        result.split = points_split(frame, a, b, rules, games=games)
    return result


def _seating_text(result: MatchResult) -> list[str]:
    """How the match seated A and B, for :func:`format_match`."""
    if result.partnership:
        return [f"  A (seats 0, 2): {result.a}", f"  B (seats 1, 3): {result.b}"]
    others = "the other seat" if result.players == 2 else f"the other {result.players - 1} seats"
    table = " | ".join(" ".join("AB"[who] for who in seating)
                       for seating in seatings(result.players, False))
    return [f"  A (one seat, each seat in turn): {result.a}",
            f"  B ({others}): {result.b}",
            f"  seatings by seat: {table}"]


def format_match(result: MatchResult) -> str:
    """A readable table of a match."""
    unit = result.unit
    low, high = result.ci95
    if result.partnership:
        head = (f"duplicate match, rules {result.rules}, {result.n} boards x 2 = "
                f"{result.played} {unit}, seed {result.seed}")
        won, against = f"{unit} won", "B"
    else:
        head = (f"rotation match, {result.players} players on their own, rules {result.rules}, "
                f"{result.n} boards x {result.rotations} seatings = {result.played} {unit}, "
                f"seed {result.seed}")
        several = result.players > 2
        won = f"{unit} won" + ("*" if several else "")
        against = "the mean B seat" if several else "B"
    lines = [
        head, *_seating_text(result),
        "",
        f"{'':<22}{'A':>8}{'B':>8}{'tied':>8}",
        f"{won:<22}{result.a_wins:>8}{result.b_wins:>8}{result.ties:>8}",
        f"{'boards won (diff)':<22}{result.deals_a:>8}{result.deals_b:>8}{result.deals_tied:>8}",
        "",
        f"mean score difference A - {against} per board "
        f"({'final score' if unit == 'games' else 'hand'})"
        f": {result.mean_diff:+.2f}  95% CI [{low:+.2f}, {high:+.2f}]",
    ]
    if not result.partnership and result.players > 2:
        lines.insert(-2, f"* A's seat against each of the {result.players - 1} B seats, "
                         f"{result.players - 1} results per {unit[:-1]}")
    if result.split is not None and len(result.split):
        from .split import format_split  # (split.py builds on this module)

        lines += ["", format_split(result.split)]
    if result.out:
        lines.append(f"results: {result.out}")
    return "\n".join(lines)
