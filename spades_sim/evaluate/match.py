"""Fair strategy evaluation: duplicate matches between two strategies, round-robin tournaments.

A match seats strategy A at seats 0 and 2 and strategy B at seats 1 and 3 and plays every deal
twice through the duplicate mode of runs: the second time the strategies move one seat, so the
partnerships swap cards and card luck cancels. The unit of the statistics is the duplicate deal
(a *board*: one deal played both ways).

- games mode: ``diff_g`` = the mean over the board's two games of (A's final score - B's final
  score); hands mode: ``diff_h`` = the mean over the two plays of the hand of (A's side score
  delta - B's side score delta), every hand from zero scores.
- ``mean_diff``: the mean of ``diff`` over boards; ``ci95``: Student's t interval on those
  paired per-board differences.
- ``a_wins``/``b_wins``/``ties``: over every game played (2N; a tie or a draw at the hand cap is
  a tie), or over every hand played in hands mode (A's side delta above, below or equal to B's).
- ``deals_a``/``deals_b``/``deals_tied``: boards with ``diff`` above, below or equal to 0.

A tournament plays every pair of strategies in such a match on the same deals (same seed and
chunk size) and fits Bradley-Terry ratings (``ratings.py``) to the per-game results
(``tournament.py``).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..analysis.metrics import interval_from_moments
from ..core.errors import EvaluationError
from ..core.rules import Rules, build_rules
from ..core.strategies import Strategy, parse_strategy
from ..run import RunSpec, execute, load_run, make_config

CONFIG_NAME = "match"


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


def _number(value):
    """JSON-safe float: ``None`` for nan."""
    return None if value is None or value != value else float(value)


@dataclass
class MatchResult:
    """The result of a duplicate match of ``a`` (seats 0 and 2) against ``b`` (1 and 3)."""

    a: str
    b: str
    rules: str
    unit: str  # "games" or "hands"
    n: int  # boards: deals, each played twice
    seed: int | None
    played: int  # games (or hands) played: 2 n
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

    def to_dict(self) -> dict:
        data = asdict(self)
        del data["unit"], data["n"], data["run"]
        ordered = {"a": self.a, "b": self.b, "rules": self.rules, self.unit: self.n}
        ordered.update(data)
        ordered["mean_diff"] = _number(self.mean_diff)
        ordered["sd_diff"] = _number(self.sd_diff)
        ordered["ci95"] = [_number(self.ci95[0]), _number(self.ci95[1])]
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


def match_result(frame: pd.DataFrame, a, b, *, games: bool | None = None, rules: str = "",
                 seed: int | None = None, out=None, config: str | None = None) -> MatchResult:
    """The match statistics of a tidy duplicate-run frame (see the module docstring).

    ``frame``: ``run.load_run`` of a duplicate run of ``[a, b, a, b]`` (or any frame with the
    columns ``duplicate``, ``hand_id``, ``game_id``, ``side``, ``strategy``, ``score_before``,
    ``score_delta``, ``game_over``, ``game_winner``); ``games``: games mode (default: whether any
    row ends a game); ``config``: keep that configuration's rows only. Boards missing one of
    their two plays are left out.
    """
    a, b = str(parse_strategy(a)), str(parse_strategy(b))
    if config is not None:
        frame = frame[frame["config"].astype(str) == config]
    if games is None:
        games = bool(frame["game_over"].any())
    key = "game_id" if games else "hand_id"
    rows = frame[frame["game_over"]] if games else frame
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
    per_deal = pd.Series(diff.astype(float)).groupby(plays["key"].to_numpy()).mean().to_numpy()
    mean, low, high = paired_interval(per_deal)
    return MatchResult(
        a=a, b=b, rules=rules, unit="games" if games else "hands", n=len(per_deal), seed=seed,
        played=len(diff), a_wins=a_wins, b_wins=b_wins, ties=len(diff) - a_wins - b_wins,
        deals_a=int((per_deal > 0).sum()), deals_b=int((per_deal < 0).sum()),
        deals_tied=int((per_deal == 0).sum()), mean_diff=mean, ci95=(low, high),
        sd_diff=float(per_deal.std(ddof=1)) if len(per_deal) > 1 else float("nan"),
        out=None if out is None else str(out),
    )


# -- running matches -------------------------------------------------------------------------
def _slug(text: str) -> str:
    """A file-name-safe form of a strategy spec or a rules name.

    >>> _slug("heuristic:aggression=0.5,nil_threshold=2")
    'heuristic_aggression=0.5_nil_threshold=2'
    """
    return re.sub(r"[^A-Za-z0-9.=+-]+", "_", text).strip("_") or "x"


def _partnership_rules(rules, overrides=()) -> Rules:
    """``rules`` (a Rules, or a preset name with ``field=value`` override texts), checked to be
    four players in two partnerships."""
    if not isinstance(rules, Rules):
        rules = build_rules(rules, list(overrides))
    elif overrides:
        raise EvaluationError("rule overrides go with a preset name, not with a Rules object")
    if rules.players != 4 or not rules.partnership:
        shape = (f"{rules.players} players" if rules.players != 4 else "no partnerships")
        raise EvaluationError(f"rules {rules.preset_name}: matches need a partnership preset "
                              f"(4 players in 2 sides), these have {shape}")
    return rules


def _units(n_games, n_hands) -> tuple[str, int]:
    if (n_games is None) == (n_hands is None):
        raise EvaluationError("give either a number of games or a number of hands")
    unit, count = ("games", n_games) if n_games is not None else ("hands", n_hands)
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 1:
        raise EvaluationError(f"{unit}: {count!r} is not an integer of at least 1")
    return unit, int(count)


def _default_chunk_size(unit: str) -> int:
    return 1000 if unit == "games" else 100_000


def _tag(*parts) -> str:
    """A short hash of what a default directory name leaves out (rule overrides, chunk size)."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:8]


def match_spec(a: Strategy, b: Strategy, rules: Rules | str = "classic", *,
               n_games: int | None = None, n_hands: int | None = None, seed: int,
               rule_overrides=(), chunk_size: int | None = None) -> RunSpec:
    """The :class:`~spades_sim.run.RunSpec` of a duplicate match (see :func:`match`): one
    configuration ``[a, b, a, b]``, duplicate mode."""
    unit, count = _units(n_games, n_hands)
    rules_obj = _partnership_rules(rules, rule_overrides)
    config = make_config(CONFIG_NAME, rules_obj, [a, b] * 2)
    return RunSpec((config,), seed, chunk_size=chunk_size or _default_chunk_size(unit),
                   duplicate=True, **{f"n_{unit}": count})


def match(a, b, rules: Rules | str = "classic", *, n_games: int | None = None,
          n_hands: int | None = None, seed: int, jobs: int = 1, out=None,
          rule_overrides=(), chunk_size: int | None = None, backend: str = "loky",
          scheduler: str | None = None, quiet: bool = True) -> MatchResult:
    """Play a duplicate match of ``a`` (seats 0, 2) against ``b`` (seats 1, 3) and score it.

    ``a``, ``b``: strategies (or their texts, parsed here once); ``rules``: a partnership
    :class:`~spades_sim.core.rules.Rules`, or a preset name with ``rule_overrides``
    (``"field=value"`` texts);
    exactly one of ``n_games`` and ``n_hands`` (boards: each deal is played twice). The run is
    written to ``out`` (default ``results/match-<a>-vs-<b>-<rules>-<N><unit>-<seed>``), and
    re-running the same call resumes or reuses it. The numbers depend on the seed only, never on
    ``jobs`` or the chunk size (default 1000 games or 100000 hands).
    """
    unit, count = _units(n_games, n_hands)
    strategy_a, strategy_b = parse_strategy(a), parse_strategy(b)
    rules_obj = _partnership_rules(rules, rule_overrides)
    overrides = [f"{name}={value}" for name, value in rules_obj.overrides().items()]
    spec = match_spec(strategy_a, strategy_b, rules_obj, n_games=n_games, n_hands=n_hands,
                      seed=seed, chunk_size=chunk_size)
    rules_name = rules_obj.preset_name
    if out is None:
        name = (f"match-{_slug(str(strategy_a))}-vs-{_slug(str(strategy_b))}-"
                f"{_slug(rules_name)}-{count}{unit[0]}")
        if overrides or spec.chunk_size != _default_chunk_size(unit):
            name += "-" + _tag(overrides, spec.chunk_size)
        out = Path("results") / f"{name}-{seed}"
    summary = execute(spec, out, jobs=jobs, backend=backend, scheduler=scheduler, quiet=quiet)
    frame = load_run(summary["out"], columns=["config", "duplicate", "hand_id", "game_id",
                                               "side", "strategy", "score_before",
                                               "score_delta", "game_over", "game_winner"])
    result = match_result(frame, strategy_a, strategy_b, games=unit == "games",
                          rules=rules_name, seed=seed, out=summary["out"])
    result.rule_overrides = rules_obj.overrides()
    result.run = summary
    if result.n != count:
        raise EvaluationError(f"{summary['out']}: only {result.n} of {count} boards are complete")
    return result


def format_match(result: MatchResult) -> str:
    """A readable table of a match."""
    unit = result.unit
    low, high = result.ci95
    lines = [
        f"duplicate match, rules {result.rules}, {result.n} boards x 2 = {result.played} "
        f"{unit}, seed {result.seed}",
        f"  A (seats 0, 2): {result.a}",
        f"  B (seats 1, 3): {result.b}",
        "",
        f"{'':<22}{'A':>8}{'B':>8}{'tied':>8}",
        f"{unit + ' won':<22}{result.a_wins:>8}{result.b_wins:>8}{result.ties:>8}",
        f"{'boards won (diff)':<22}{result.deals_a:>8}{result.deals_b:>8}{result.deals_tied:>8}",
        "",
        f"mean score difference A - B per board ({'final score' if unit == 'games' else 'hand'})"
        f": {result.mean_diff:+.2f}  95% CI [{low:+.2f}, {high:+.2f}]",
    ]
    if result.out:
        lines.append(f"results: {result.out}")
    return "\n".join(lines)
