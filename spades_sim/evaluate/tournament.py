"""Round-robin tournaments: every pair of strategies in a duplicate match on the same deals,
rated by Bradley-Terry (``ratings.py``), with the pairwise differences.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..analysis.metrics import Z95
from ..core.errors import EvaluationError
from ..core.rules import Rules
from ..core.strategies import parse_strategy
from .match import MatchResult, _number, _partnership_rules, _slug, _tag, _units, match
from .ratings import ELO, bradley_terry

SUMMARY = "tournament.json"


@dataclass
class TournamentResult:
    """A round robin: every pair's match and the Bradley-Terry ratings."""

    strategies: list[str]
    rules: str
    unit: str
    n: int
    seed: int
    out: str
    matches: list[MatchResult]
    ratings: list[dict]  # best first
    mean_diff: np.ndarray  # [i, j]: mean diff of i against j per board (i's perspective)

    def to_dict(self) -> dict:
        return {"rules": self.rules, self.unit: self.n, "seed": self.seed, "out": self.out,
                "strategies": self.strategies, "ratings": self.ratings,
                "matrix": [[_number(v) for v in row] for row in self.mean_diff],
                "matches": [m.to_dict() for m in self.matches]}


def _pair_counts(strategies, matches):
    """``wins[i, j]``, ``ties[i, j]`` and the mean-difference matrix of the matches."""
    index = {name: i for i, name in enumerate(strategies)}
    k = len(strategies)
    wins, ties = np.zeros((k, k)), np.zeros((k, k))
    matrix = np.full((k, k), np.nan)
    for result in matches:
        i, j = index[result.a], index[result.b]
        wins[i, j] += result.a_wins
        wins[j, i] += result.b_wins
        ties[i, j] += result.ties
        ties[j, i] += result.ties
        matrix[i, j], matrix[j, i] = result.mean_diff, -result.mean_diff
    return wins, ties, matrix


def rating_difference(strategies, matches, first: str, second: str,
                      prior_ties: float = 1.0) -> tuple[float, float, float]:
    """The Bradley-Terry rating of ``first`` minus that of ``second`` (Elo scale) with its 95%
    interval ``(diff, low, high)``, from the covariance of the fitted log-strengths (the
    pseudo-inverse of the Fisher information, as in ``ratings.bradley_terry``)."""
    wins, ties, _ = _pair_counts(strategies, matches)
    fit = bradley_terry(wins, ties, prior_ties=prior_ties)
    strength = np.exp(fit.rating / ELO)
    off = ~np.eye(len(strategies), dtype=bool)
    trials = np.where(off, wins + wins.T + ties + prior_ties, 0.0)
    share = strength[:, None] / (strength[:, None] + strength[None, :])
    weight = trials * share * share.T
    covariance = np.linalg.pinv(np.diag(weight.sum(axis=1)) - weight)
    i, j = strategies.index(first), strategies.index(second)
    diff = float(fit.rating[i] - fit.rating[j])
    half = Z95 * ELO * float(np.sqrt(max(covariance[i, i] + covariance[j, j]
                                         - 2 * covariance[i, j], 0.0)))
    return diff, diff - half, diff + half


def tournament_ratings(strategies, matches) -> tuple[list[dict], np.ndarray]:
    """Ratings and the mean-difference matrix from the pairwise matches of ``strategies``.

    Bradley-Terry on the per-game (per-hand) wins, ties half to each, one virtual tie per
    pair (see ``ratings.bradley_terry``); ``mean_diff`` of a strategy is the mean over its
    opponents of its mean score difference per board against them.
    """
    wins, ties, matrix = _pair_counts(strategies, matches)
    fit = bradley_terry(wins, ties)
    rows = []
    for i, name in enumerate(strategies):
        rows.append({"strategy": name, "rating": float(fit.rating[i]), "low": float(fit.low[i]),
                     "high": float(fit.high[i]), "games": int(wins[i].sum() + wins[:, i].sum()
                                                              + ties[i].sum()),
                     "wins": int(wins[i].sum()), "losses": int(wins[:, i].sum()),
                     "ties": int(ties[i].sum()), "mean_diff": float(np.nanmean(matrix[i]))})
    rows.sort(key=lambda row: -row["rating"])
    for rank, row in enumerate(rows, 1):
        row["rank"] = rank
    return rows, matrix


def tournament_pairs(names, out) -> list[tuple[int, int, Path]]:
    """``(i, j, folder)`` of every match of a round robin of ``names`` (``i < j``)."""
    return [(i, j, Path(out) / f"{i}-{j}-{_slug(names[i])}-vs-{_slug(names[j])}")
            for i in range(len(names)) for j in range(i + 1, len(names))]


def load_tournament(out) -> TournamentResult:
    """A finished tournament read back from ``out/tournament.json`` (nothing is played)."""
    path = Path(out) / SUMMARY
    try:
        data = json.loads(path.read_text())
        unit = "games" if "games" in data else "hands"
        matches = [MatchResult.from_dict(m) for m in data["matches"]]
        names = list(data["strategies"])
        ratings, matrix = tournament_ratings(names, matches)
        return TournamentResult(names, data["rules"], unit, int(data[unit]), data["seed"],
                                str(Path(out).resolve()), matches, ratings, matrix)
    except FileNotFoundError:
        raise EvaluationError(f"{path}: no tournament summary here; play the tournament first")
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise EvaluationError(f"{path}: unreadable tournament summary ({error})")


def tournament(strategies, rules: Rules | str = "classic", *, n_games: int | None = None,
               n_hands: int | None = None, seed: int, jobs: int = 1, out=None,
               rule_overrides=(), chunk_size: int | None = None, backend: str = "loky",
               scheduler: str | None = None, quiet: bool = True) -> TournamentResult:
    """A round robin of duplicate matches on the same deals, with Bradley-Terry ratings.

    Match ``(i, j)`` (``i < j``, ``strategies[i]`` as A) is written to
    ``out/<i>-<j>-<a>-vs-<b>``; the summary to ``out/tournament.json``. Re-running resumes.
    Default ``out``: ``results/tournament-<rules>-<N><unit>-<hash of the strategies>-<seed>``.
    """
    parsed = [parse_strategy(s) for s in strategies]  # parsed once, here
    names = [str(s) for s in parsed]
    if len(names) < 2:
        raise EvaluationError(f"a tournament needs at least 2 strategies, got {len(names)}")
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise EvaluationError(f"strategies repeat: {', '.join(repeated)}")
    unit, count = _units(n_games, n_hands)
    rules_obj = _partnership_rules(rules, rule_overrides)
    rules_name = rules_obj.preset_name
    if out is None:
        overrides = [f"{name}={value}" for name, value in rules_obj.overrides().items()]
        tag = _tag(names, overrides, chunk_size)
        out = Path("results") / f"tournament-{_slug(rules_name)}-{count}{unit[0]}-{tag}-{seed}"
    out = Path(out)
    matches = []
    for i, j, where in tournament_pairs(names, out):
        matches.append(match(parsed[i], parsed[j], rules_obj, n_games=n_games,
                             n_hands=n_hands, seed=seed, jobs=jobs, out=where,
                             chunk_size=chunk_size, backend=backend, scheduler=scheduler,
                             quiet=quiet))
    ratings, matrix = tournament_ratings(names, matches)
    result = TournamentResult(names, rules_name, unit, count, seed, str(out.resolve()),
                              matches, ratings, matrix)
    (out / SUMMARY).write_text(json.dumps(result.to_dict(), indent=2) + "\n")
    return result


def format_tournament(result: TournamentResult) -> str:
    """The ratings table and the pairwise matrix of mean differences."""
    unit = result.unit
    lines = [f"round robin, rules {result.rules}, {result.n} boards x 2 {unit} per pair, "
             f"seed {result.seed}",
             "Bradley-Terry ratings (Elo scale, mean 0; 95% interval from the Fisher "
             "information)", ""]
    width = max(8, *(len(row["strategy"]) for row in result.ratings))
    lines.append(f"{'rank':>4}  {'strategy':<{width}}  {'rating':>7}  {'95% interval':>17}  "
                 f"{unit:>6}  {'wins':>6}  {'losses':>6}  {'ties':>5}  {'mean diff':>9}")
    for row in result.ratings:
        interval = f"[{row['low']:+.0f}, {row['high']:+.0f}]"
        lines.append(f"{row['rank']:>4}  {row['strategy']:<{width}}  {row['rating']:>+7.0f}  "
                     f"{interval:>17}  {row['games']:>6}  {row['wins']:>6}  {row['losses']:>6}  "
                     f"{row['ties']:>5}  {row['mean_diff']:>+9.1f}")
    lines += ["", "mean score difference per board, row strategy minus column strategy:"]
    labels = [str(i + 1) for i in range(len(result.strategies))]
    lines.append(f"{'':<{width + 4}}" + "".join(f"{label:>9}" for label in labels))
    for i, name in enumerate(result.strategies):
        cells = "".join(f"{'--':>9}" if i == j else f"{result.mean_diff[i, j]:>+9.1f}"
                        for j in range(len(labels)))
        lines.append(f"{labels[i]:>2}  {name:<{width}}{cells}")
    lines.append(f"results: {result.out}")
    return "\n".join(lines)
