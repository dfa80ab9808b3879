"""Round-robin tournaments: every pair of strategies in a match on the same deals (duplicate
with partnerships, rotated with players on their own: ``match.py``), rated by Bradley-Terry
(``ratings.py``) on the matches' encounters (per game, or per hand: one with partnerships,
A's seat against each B seat with players on their own), with the pairwise differences.

The ratings come with the model's goodness of fit (``ratings.goodness_of_fit``: Pearson's
chi-square against the saturated pairwise model). Where the model is rejected (p < 0.05) the
summary and the text lead with the head-to-head matrix (each pair's mean score difference per
board with its 95% t interval), and the ratings follow as a rough order only.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..analysis.metrics import Z95
from ..core.errors import EvaluationError, SpadesError
from ..core.files import MAX_TEXT_BYTES, read_regular
from ..core.rules import Rules
from ..core.strategies import parse_strategy
from ..run import run_status
from ..run.dataset import open_run
from .match import (
    MatchResult,
    folder_tag,
    json_number,
    match,
    match_rules,
    match_spec,
    match_units,
    scored_match,
    slug,
)
from .ratings import ELO, Fit, bradley_terry, goodness_of_fit, scale_interval
from .split import format_splits, split_to_dict

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
    fit: Fit | None = None  # the Bradley-Terry model against the saturated pairwise model
    low: np.ndarray | None = None  # [i, j]: 95% interval of mean_diff[i, j]
    high: np.ndarray | None = None

    def __post_init__(self):
        if self.fit is None:
            self.fit = tournament_fit(self.strategies, self.matches)
        if self.low is None or self.high is None:
            self.low, self.high = head_to_head(self.strategies, self.matches)

    @property
    def lead(self) -> str:
        """``"matrix"`` where the Bradley-Terry model is rejected (lead with the head-to-head
        matrix), else ``"ratings"``."""
        return "ratings" if self.fit.fits else "matrix"

    def to_dict(self) -> dict:
        def cells(matrix):
            return [[json_number(v) for v in row] for row in matrix]
        return {"rules": self.rules, self.unit: self.n, "seed": self.seed, "out": self.out,
                "strategies": self.strategies, "fit": self.fit.to_dict(), "lead": self.lead,
                "ratings": self.ratings, "matrix": cells(self.mean_diff),
                "matrix_low": cells(self.low), "matrix_high": cells(self.high),
                "matches": [m.to_dict() for m in self.matches],
                "splits": [None if m.split is None else split_to_dict(m.split)
                           for m in self.matches]}


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


def head_to_head(strategies, matches) -> tuple[np.ndarray, np.ndarray]:
    """``(low, high)``: the 95% t interval of each match's mean difference per board, ``[i,
    j]`` from ``i``'s side (nan on the diagonal and for pairs that did not play)."""
    index = {name: i for i, name in enumerate(strategies)}
    k = len(strategies)
    low, high = np.full((k, k), np.nan), np.full((k, k), np.nan)
    for result in matches:
        i, j = index[result.a], index[result.b]
        low[i, j], high[i, j] = result.ci95
        low[j, i], high[j, i] = -result.ci95[1], -result.ci95[0]
    return low, high


def tournament_fit(strategies, matches) -> Fit:
    """The Bradley-Terry model's goodness of fit to the matches (``ratings.goodness_of_fit`` on
    the per-game (per-hand) wins and ties, against the ratings :func:`tournament_ratings`
    reports)."""
    wins, ties, _ = _pair_counts(strategies, matches)
    return goodness_of_fit(wins, ties, bradley_terry(wins, ties).rating)


def rating_difference(strategies, matches, first: str, second: str,
                      prior_ties: float = 1.0, scale: float | None = None
                      ) -> tuple[float, float, float]:
    """The Bradley-Terry rating of ``first`` minus that of ``second`` (Elo scale) with its 95%
    interval ``(diff, low, high)``, from the covariance of the fitted log-strengths (the
    pseudo-inverse of the Fisher information, as in ``ratings.bradley_terry``), widened by the
    square root of the model's dispersion when the results vary more than it allows
    (``scale``: the matches' ``Fit.scale`` by default)."""
    wins, ties, _ = _pair_counts(strategies, matches)
    fit = bradley_terry(wins, ties, prior_ties=prior_ties)
    if scale is None:
        scale = goodness_of_fit(wins, ties, fit.rating).scale
    strength = np.exp(fit.rating / ELO)
    off = ~np.eye(len(strategies), dtype=bool)
    trials = np.where(off, wins + wins.T + ties + prior_ties, 0.0)
    share = strength[:, None] / (strength[:, None] + strength[None, :])
    weight = trials * share * share.T
    covariance = np.linalg.pinv(np.diag(weight.sum(axis=1)) - weight)
    i, j = strategies.index(first), strategies.index(second)
    diff = float(fit.rating[i] - fit.rating[j])
    half = scale * Z95 * ELO * float(np.sqrt(max(covariance[i, i] + covariance[j, j]
                                                 - 2 * covariance[i, j], 0.0)))
    return diff, diff - half, diff + half


def tournament_ratings(strategies, matches, scale: float | None = None
                       ) -> tuple[list[dict], np.ndarray]:
    """Ratings and the mean-difference matrix from the pairwise matches of ``strategies``.

    Bradley-Terry on the per-game (per-hand) wins, ties half to each, one virtual tie per
    pair (see ``ratings.bradley_terry``), the intervals widened for the model's dispersion
    (``scale``, by default the matches' ``Fit.scale``: the games are not independent trials;
    :func:`tournament_fit`); ``mean_diff`` of a strategy is the
    mean over its opponents of its mean score difference per board against them.
    """
    wins, ties, matrix = _pair_counts(strategies, matches)
    fit = bradley_terry(wins, ties)
    if scale is None:
        scale = goodness_of_fit(wins, ties, fit.rating).scale
    rows = []
    for i, name in enumerate(strategies):
        low, high = scale_interval(fit.rating[i], fit.low[i], fit.high[i], scale)
        rows.append({"strategy": name, "rating": float(fit.rating[i]), "low": float(low),
                     "high": float(high), "games": int(wins[i].sum() + wins[:, i].sum()
                                                              + ties[i].sum()),
                     "wins": int(wins[i].sum()), "losses": int(wins[:, i].sum()),
                     "ties": int(ties[i].sum()), "mean_diff": float(np.nanmean(matrix[i]))})
    rows.sort(key=lambda row: -row["rating"])
    for rank, row in enumerate(rows, 1):
        row["rank"] = rank
    return rows, matrix


def tournament_pairs(names, out) -> list[tuple[int, int, Path]]:
    """``(i, j, folder)`` of every match of a round robin of ``names`` (``i < j``)."""
    return [(i, j, Path(out) / f"{i}-{j}-{slug(names[i])}-vs-{slug(names[j])}")
            for i in range(len(names)) for j in range(i + 1, len(names))]


def load_tournament(out) -> TournamentResult:
    """A finished tournament read back from ``out/tournament.json`` (nothing is played), every
    match scored again from its run folder (each chunk verified, ``run.load_run``) and checked
    against the summary: a summary whose numbers the runs do not give (edited, or a match
    folder holding another run, an incomplete or a damaged one) is refused in one line, so no
    table is ever built from numbers the runs do not hold."""
    path = Path(out) / SUMMARY
    try:
        data = json.loads(read_regular(path, MAX_TEXT_BYTES, EvaluationError))
    except FileNotFoundError:
        raise EvaluationError(f"{path}: no tournament summary here; play the tournament first")
    except OSError as error:
        raise EvaluationError(f"{path}: unreadable tournament summary "
                              f"({error.strerror or error})")
    except (ValueError, RecursionError):
        raise EvaluationError(f"{path}: unreadable tournament summary (not JSON: empty or "
                              f"damaged)")
    names, rules, unit, count, seed = _summary_head(path, data)
    pairs = tournament_pairs(names, out)
    entries = data["matches"]
    if not isinstance(entries, list) or len(entries) != len(pairs):
        found = f"{len(entries)} matches" if isinstance(entries, list) else type(entries).__name__
        raise EvaluationError(f"{path}: unusable tournament summary: 'matches' holds {found}, "
                              f"a round robin of {len(names)} strategies has {len(pairs)}")
    matches = []
    for (i, j, folder), entry in zip(pairs, entries):
        said = _said_match(path, entry, names[i], names[j])
        matches.append(_verified_match(path, folder, said, rules, unit, count, seed))
    fit = tournament_fit(names, matches)
    ratings, matrix = tournament_ratings(names, matches, scale=fit.scale)
    return TournamentResult(names, rules, unit, count, seed, str(Path(out).resolve()),
                            matches, ratings, matrix, fit)


def _summary_head(path: Path, data) -> tuple:
    """``(strategies, rules, unit, count, seed)`` of a parsed summary, its shape checked."""
    def bad(what):
        return EvaluationError(f"{path}: unusable tournament summary: {what}")

    if not isinstance(data, dict):
        raise bad(f"expected a JSON object, found {type(data).__name__}")
    for key in ("strategies", "rules", "seed", "matches"):
        if key not in data:
            raise bad(f"no {key!r}")
    names = data["strategies"]
    if (not isinstance(names, list) or len(names) < 2
            or not all(isinstance(name, str) for name in names)):
        raise bad(f"'strategies' is {json.dumps(names)[:60]}, expected a list of at least two "
                  f"strategy names")
    if len(set(names)) != len(names):
        raise bad("'strategies' repeats a name")
    if not isinstance(data["rules"], str):
        raise bad("'rules' is not a preset name")
    units = [key for key in ("games", "hands") if key in data]
    if len(units) != 1:
        raise bad("expected one of 'games' and 'hands'")
    unit, count, seed = units[0], data[units[0]], data["seed"]
    for key, value in ((unit, count), ("seed", seed)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise bad(f"{key!r} is {json.dumps(value)[:40]}, expected an integer >= 0")
    return names, data["rules"], unit, count, seed


def _said_match(path: Path, entry, a: str, b: str) -> MatchResult:
    """The summary's entry of the match of ``a`` against ``b``, as a MatchResult."""
    try:
        said = MatchResult.from_dict(entry)
    except (TypeError, ValueError, KeyError, AttributeError) as error:
        raise EvaluationError(f"{path}: unusable tournament summary: the match of {a} against "
                              f"{b} is not a match result ({type(error).__name__}: {error})")
    if (said.a, said.b) != (a, b):
        raise EvaluationError(f"{path}: unusable tournament summary: the match of {a} against "
                              f"{b} is listed as {said.a} against {said.b}")
    return said


#: The numbers of a match a summary must repeat from its run (floats to 1e-9, relative).
_CHECKED = ("n", "played", "a_wins", "b_wins", "ties", "deals_a", "deals_b", "deals_tied",
            "mean_diff", "sd_diff", "ci95")


def _verified_match(path: Path, folder: Path, said: MatchResult, rules: str, unit: str,
                    count: int, seed: int) -> MatchResult:
    """The match scored again from its run in ``folder``, refused (one line) where the run is
    not that match's, is not complete, or does not give the summary's numbers."""
    where = f"{path}: the match of {said.a} against {said.b}"
    try:
        _, run = open_run(folder)
        played_rules = run.configs[0].rules
        expected = match_spec(parse_strategy(said.a), parse_strategy(said.b), played_rules,
                              seed=seed, chunk_size=run.chunk_size, **{f"n_{unit}": count})
        if run.identity() != expected.identity() or played_rules.preset_name != rules:
            raise EvaluationError(f"{where}: {folder} holds another run than this match "
                                  f"(another match's, or other rules, seed or size)")
        status = run_status(folder)
        if not status["complete"] or status["units"] != count:
            raise EvaluationError(f"{where}: its run {folder} is not complete "
                                  f"({status['done']}/{status['chunks']} chunks verified; "
                                  f"spades-sim status {folder} says why); play the tournament "
                                  f"again to finish it")
        result = scored_match(folder, parse_strategy(said.a), parse_strategy(said.b),
                              played_rules, unit, seed)
    except EvaluationError:
        raise
    except SpadesError as error:
        raise EvaluationError(f"{where}: {error}")
    result.out = str(folder.resolve())
    for name in _CHECKED:
        mine, theirs = getattr(result, name), getattr(said, name)
        if not _same(mine, theirs):
            raise EvaluationError(f"{where}: the summary says {name} {_shown(theirs)}, its run "
                                  f"gives {_shown(mine)} (edited?); play the tournament again "
                                  f"to write its summary from the runs")
    if json.loads(json.dumps(result.rule_overrides)) != said.rule_overrides:
        raise EvaluationError(f"{where}: the summary's rule overrides are not those its run was "
                              f"played with (edited?)")
    return result


def _same(mine, theirs) -> bool:
    if isinstance(mine, tuple):
        return (isinstance(theirs, tuple) and len(mine) == len(theirs)
                and all(_same(m, t) for m, t in zip(mine, theirs)))
    if isinstance(mine, float) or isinstance(theirs, float):
        try:
            mine, theirs = float(mine), float(theirs)
        except (TypeError, ValueError):
            return False
        if mine != mine or theirs != theirs:
            return mine != mine and theirs != theirs
        return abs(mine - theirs) <= 1e-9 * max(1.0, abs(mine))
    return type(mine) is type(theirs) and mine == theirs


def _shown(value) -> str:
    if isinstance(value, tuple):
        return "(" + ", ".join(_shown(v) for v in value) + ")"
    return f"{value:+.4g}" if isinstance(value, float) else repr(value)


def tournament(strategies, rules: Rules | str = "classic", *, n_games: int | None = None,
               n_hands: int | None = None, seed: int, jobs: int = 1, out=None,
               rule_overrides=(), chunk_size: int | None = None, backend: str = "loky",
               scheduler: str | None = None, quiet: bool = True) -> TournamentResult:
    """A round robin of matches (duplicate, or rotated: :func:`~.match.match`) on the same
    deals, with Bradley-Terry ratings.

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
    unit, count = match_units(n_games, n_hands)
    rules_obj = match_rules(rules, rule_overrides)
    rules_name = rules_obj.preset_name
    if out is None:
        overrides = [f"{name}={value}" for name, value in rules_obj.overrides().items()]
        tag = folder_tag(names, overrides, chunk_size)
        out = Path("results") / f"tournament-{slug(rules_name)}-{count}{unit[0]}-{tag}-{seed}"
    out = Path(out)
    matches = []
    pairs = tournament_pairs(names, out)
    started = time.perf_counter()
    for k, (i, j, where) in enumerate(pairs, 1):
        if not quiet:
            _progress(f"match {k}/{len(pairs)}: {names[i]} against {names[j]}, {count} boards "
                      f"of {unit}")
        begun = time.perf_counter()
        matches.append(match(parsed[i], parsed[j], rules_obj, n_games=n_games,
                             n_hands=n_hands, seed=seed, jobs=jobs, out=where,
                             chunk_size=chunk_size, backend=backend, scheduler=scheduler,
                             quiet=quiet))
        if not quiet:
            done = matches[-1]
            elapsed = time.perf_counter() - started
            left = elapsed / k * (len(pairs) - k)
            _progress(f"match {k}/{len(pairs)}: {names[i]} against {names[j]}: "
                      f"{done.mean_diff:+.1f} [{done.ci95[0]:+.1f}, {done.ci95[1]:+.1f}] a "
                      f"board, {time.perf_counter() - begun:.1f} s"
                      + (f"; about {left:.0f} s left" if k < len(pairs) else ""))
    fit = tournament_fit(names, matches)
    ratings, matrix = tournament_ratings(names, matches, scale=fit.scale)
    result = TournamentResult(names, rules_name, unit, count, seed, str(out.resolve()),
                              matches, ratings, matrix, fit)
    (out / SUMMARY).write_text(json.dumps(result.to_dict(), indent=2) + "\n")
    return result


def _progress(text: str) -> None:
    """One progress line on standard error (as ``tune`` writes one per generation)."""
    print(f"spades-sim tournament: {text}", file=sys.stderr, flush=True)


def format_tournament(result: TournamentResult) -> str:
    """The ratings table, the model's fit and the pairwise matrix of mean differences; where the
    model is rejected, the head-to-head matrix (with its intervals) comes first."""
    unit = result.unit
    first = result.matches[0] if result.matches else None
    rotations = first.rotations if first else 2
    head = [f"round robin, rules {result.rules}, {result.n} boards x {rotations} {unit} per "
            f"pair, seed {result.seed}"]
    if first is not None and not first.partnership:
        head.append(f"({first.players} players on their own: A at one seat, B at the others, "
                    f"each seat in turn; wins count A's seat against each B seat)")
    fit = result.fit
    width = max(8, *(len(row["strategy"]) for row in result.ratings))
    if fit.fits:
        verdict = f"Bradley-Terry fit: {fit.describe()}: the model is not rejected."
    else:
        verdict = (f"Bradley-Terry fit: {fit.describe()}: the model is REJECTED (p < "
                   f"{fit.alpha:g}); the strengths do not explain the pairwise results, so the "
                   f"ratings below are a rough order only; read the head-to-head matrix.")
    ratings = ["Bradley-Terry ratings (Elo scale, mean 0; 95% interval from the Fisher "
               f"information; {fit.describe_scale()})", ""]
    ratings.append(f"{'rank':>4}  {'strategy':<{width}}  {'rating':>7}  {'95% interval':>17}  "
                   f"{unit:>6}  {'wins':>6}  {'losses':>6}  {'ties':>5}  {'mean diff':>9}")
    for row in result.ratings:
        interval = f"[{row['low']:+.0f}, {row['high']:+.0f}]"
        ratings.append(f"{row['rank']:>4}  {row['strategy']:<{width}}  {row['rating']:>+7.0f}  "
                       f"{interval:>17}  {row['games']:>6}  {row['wins']:>6}  "
                       f"{row['losses']:>6}  {row['ties']:>5}  {row['mean_diff']:>+9.1f}")
    matrix = ["head to head: mean score difference per board, row strategy minus column "
              "strategy, +- the half-width of its 95% t interval:"]
    labels = [str(i + 1) for i in range(len(result.strategies))]
    cell = 15
    matrix.append(f"{'':<{width + 4}}" + "".join(f"{label:>{cell}}" for label in labels))
    for i, name in enumerate(result.strategies):
        cells = []
        for j in range(len(labels)):
            if i == j or result.mean_diff[i, j] != result.mean_diff[i, j]:
                cells.append(f"{'--':>{cell}}")
                continue
            half = (result.high[i, j] - result.low[i, j]) / 2
            shown = (f"{result.mean_diff[i, j]:+.1f}" if half != half
                     else f"{result.mean_diff[i, j]:+.1f}+-{half:.1f}")
            cells.append(f"{shown:>{cell}}")
        matrix.append(f"{labels[i]:>2}  {name:<{width}}" + "".join(cells))
    blocks = [matrix, [verdict], ratings] if not fit.fits else [ratings, [verdict], matrix]
    splits = [(f"{labels[result.strategies.index(m.a)]}-{labels[result.strategies.index(m.b)]}",
               m.split) for m in result.matches if m.split is not None and len(m.split)]
    if splits:
        blocks.append(format_splits(splits).split("\n"))
    lines = head + [""]
    for block in blocks:
        lines += block + [""]
    lines.append(f"results: {result.out}")
    return "\n".join(lines)
