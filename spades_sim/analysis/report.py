"""The report of an experiment: one self-contained HTML page per experiment, read top to bottom.

``build_report(results_dir)`` reads the saved runs of an experiment (``spades-sim run`` writes
them: ``experiment.toml``, ``hands/``, ``games/``) and writes ``reports/<name>/``: ``index.html``
(the question, the setup, key findings with intervals, one section per analysis, the runs'
metadata), one PNG per figure and one CSV per table beside it. Every link is relative, the CSS is
inline: the folder opens from disk and can be copied anywhere. The folder is built under a
temporary name and swapped in whole, so an interrupted build never leaves a half-written report.

Sections are table-driven: :data:`SECTIONS` maps an analysis name (the ``analyses`` list of an
experiment file) to a title, a short definition and a builder ``build(ctx, section)`` that adds
tables, figures and findings to its :class:`Section` from the analysis functions. A new analysis
is one :func:`section` entry (and its name in ``experiment.ANALYSES``).
"""

from __future__ import annotations

import math
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display: selected before pyplot is imported

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from markupsafe import Markup  # noqa: E402

from ..experiment import (  # noqa: E402
    EXPERIMENT_COPY,
    TOURNAMENT_DIR,
    Experiment,
    load_results_experiment,
    rule_text,
)
from ..runner import RunError, load_run, read_meta, run_status  # noqa: E402

FIGURE_DPI = 80
FIGURE_SIZE = (7.5, 4.2)
FACET_OVER = 3  # figures with more groups than this are drawn one panel per group
LONG_TABLE = 30  # tables with more rows are folded (<details>) in the page
# Columns no section reads: left on disk (a 400,000-hand run of 8 configurations is 12 M rows).
UNUSED_COLUMNS = ("chunk", "dealer", "bumped", "hcp", "voids", "singletons", "longest")


# -- what a section holds -------------------------------------------------------------------------
@dataclass
class Table:
    title: str
    csv: str
    headers: list
    rows: list
    numeric: list
    note: str = ""
    folded: bool = False
    kind: str = "table"


@dataclass
class Figure:
    title: str
    src: str
    kind: str = "figure"


@dataclass
class Section:
    name: str
    title: str
    about: str
    findings: list = field(default_factory=list)
    items: list = field(default_factory=list)
    notes: list = field(default_factory=list)


@dataclass(frozen=True)
class SectionSpec:
    name: str
    title: str
    about: str
    build: object  # build(ctx: Context, section: Section) -> None


SECTIONS: dict[str, SectionSpec] = {}


def section(name: str, title: str, about: str):
    """Register the builder of an analysis section (the decorated function)."""
    def register(build):
        SECTIONS[name] = SectionSpec(name, title, about, build)
        return build
    return register


# -- the build context: frames, files -------------------------------------------------------------
class Context:
    """What a section builder works with: the experiment, its run frames (loaded once, on
    demand) and the report folder it writes tables and figures into."""

    def __init__(self, experiment: Experiment, results: Path, out: Path):
        self.experiment, self.results, self.out = experiment, results, out
        self._frames: dict[str, pd.DataFrame] = {}
        self.files: list[str] = []

    @property
    def rules(self) -> dict:
        return self.experiment.rules_by_config()

    def frame(self, mode: str) -> pd.DataFrame | None:
        """The tidy frame of the ``hands`` or ``games`` run (None when the experiment has none)."""
        if mode not in self.experiment.modes:
            return None
        if mode not in self._frames:
            from .frames import TIDY_COLUMNS

            columns = [c for c in TIDY_COLUMNS if c not in UNUSED_COLUMNS]
            self._frames[mode] = load_run(self.results / mode, columns=columns)
        return self._frames[mode]

    def tournament(self):
        """The experiment's tournament read back from its saved summary (None without one);
        refused when the saved tournament is not the one the experiment file describes."""
        spec = self.experiment.tournament
        if spec is None:
            return None
        if not hasattr(self, "_tournament"):
            from ..evaluate import load_tournament

            result = load_tournament(self.results / TOURNAMENT_DIR)
            saved = (tuple(result.strategies), result.rules, result.unit, result.n, result.seed)
            wanted = (spec.strategies, spec.rules, spec.unit, spec.n, self.experiment.seed)
            if saved != wanted:
                raise RunError(f"{self.results / TOURNAMENT_DIR}: holds another tournament than "
                               f"the experiment's; run the experiment again")
            self._tournament = result
        return self._tournament

    def any_frame(self) -> tuple[str, pd.DataFrame]:
        """The hands run's frame when there is one, else the games run's."""
        mode = "hands" if "hands" in self.experiment.modes else "games"
        return mode, self.frame(mode)

    def ordered(self, frame: pd.DataFrame) -> pd.DataFrame:
        """Rows in the experiment's configuration order (stable), index reset."""
        frame = frame.reset_index(drop=True)
        if "config" not in frame.columns or not len(frame):
            return frame
        order = {c.name: i for i, c in enumerate(self.experiment.configs)}
        position = frame["config"].astype(str).map(order).fillna(len(order))
        return frame.iloc[np.argsort(position.to_numpy(), kind="stable")].reset_index(drop=True)

    def table(self, section: Section, slug: str, title: str, frame: pd.DataFrame,
              note: str = "") -> Table:
        """Write ``frame`` as ``<section>-<slug>.csv`` and add its formatted table."""
        name = f"{section.name}-{slug}.csv"
        frame = self.ordered(frame)
        frame.to_csv(self.out / name, index=False, float_format="%.6g")
        self.files.append(name)
        headers, rows, numeric = display_table(frame)
        table = Table(title, name, headers, rows, numeric, note, len(rows) > LONG_TABLE)
        section.items.append(table)
        return table

    def figure(self, section: Section, slug: str, title: str, plot, table: pd.DataFrame,
               size=FIGURE_SIZE, facet: str | None = None) -> None:
        """Draw ``plot(table, ax=ax)`` into ``<section>-<slug>.png``; skipped for an empty
        table. ``facet``: one panel per value of that column (three to a row, shared axes),
        each titled with its value, when it has more than :data:`FACET_OVER` values."""
        if table is None or len(table) == 0:
            return
        name = f"{section.name}-{slug}.png"
        values = list(dict.fromkeys(self.ordered(table)[facet].astype(str))) if facet else []
        if len(values) <= FACET_OVER:
            values = []
        columns = min(3, len(values)) or 1
        rows = -(-len(values) // columns) or 1
        if values:
            size = (size[0] * 1.4, 3.0 * rows + 0.4)
        fig, axes = plt.subplots(rows, columns, figsize=size, squeeze=False, sharex=True,
                                 sharey=True)
        try:
            if values:
                for ax, value in zip(axes.flat, values):
                    plot(table[table[facet].astype(str) == value], ax=ax)
                    ax.set_title(value, fontsize="medium")
                for ax in list(axes.flat)[len(values):]:
                    ax.set_visible(False)
                fig.suptitle(title)
            else:
                plot(table, ax=axes[0, 0])
            fig.tight_layout()
            fig.savefig(self.out / name, dpi=FIGURE_DPI, metadata={"Software": None})
        finally:
            plt.close(fig)
        self.files.append(name)
        section.items.append(Figure(title, name))


# -- formatting -----------------------------------------------------------------------------------
def _is_share(column: str) -> bool:
    return "rate" in column or column in ("share", "break_even")


def format_value(value, column: str = "") -> str:
    """One cell as text: shares as percentages, counts with thousands separators.

    >>> format_value(0.1234, "set_rate"), format_value(123456, "n"), format_value(4.56789, "diff")
    ('12.3%', '123,456', '4.57')
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}"
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if column.startswith("rating"):  # Elo-scale ratings: whole points
            return f"{value:+.0f}"
        if _is_share(column) and -1.0 <= value <= 1.0:
            return f"{100 * value:.1f}%"
        if value.is_integer() and abs(value) >= 1000:
            return f"{int(value):,}"
        if abs(value) >= 100:
            return f"{value:,.1f}"
        if abs(value) >= 0.1 or value == 0:
            return f"{value:.2f}"
        return f"{value:.3g}"
    return str(value)


def display_table(frame: pd.DataFrame) -> tuple[list, list, list]:
    """Headers, rows of cell texts and which columns are numeric; ``x``, ``x_low`` and
    ``x_high`` become one column ``x (95% CI)``."""
    columns = list(frame.columns)
    shown, headers, numeric = [], [], []
    for column in columns:
        if column.endswith(("_low", "_high")):
            base = column.rsplit("_", 1)[0]
            if base in columns and f"{base}_low" in columns and f"{base}_high" in columns:
                continue
        has_interval = f"{column}_low" in columns and f"{column}_high" in columns
        shown.append((column, has_interval))
        headers.append(f"{column} (95% CI)" if has_interval else column)
        numeric.append(pd.api.types.is_numeric_dtype(frame[column])
                       and not pd.api.types.is_bool_dtype(frame[column]))
    rows = []
    for record in frame.to_dict(orient="records"):
        row = []
        for column, has_interval in shown:
            text = format_value(record[column], column)
            if has_interval:
                low = format_value(record[f"{column}_low"], column)
                high = format_value(record[f"{column}_high"], column)
                text = f"{text} [{low}, {high}]"
            row.append(text)
        rows.append(row)
    return headers, rows, numeric


def code(name) -> Markup:
    return Markup("<code>{}</code>").format(str(name))


def _interval(value, low, high, column="") -> str:
    """``"12.3% (95% CI 12.0% to 12.6%)"``, with a digit more when the ends would look equal.

    >>> _interval(0.048, 0.0476, 0.0484, "rate")
    '4.80% (95% CI 4.76% to 4.84%)'
    """
    texts = [format_value(v, column) for v in (value, low, high)]
    if texts[1] == texts[2] and _is_share(column) and low != high:
        texts = [f"{100 * v:.2f}%" for v in (value, low, high)]
    return f"{texts[0]} (95% CI {texts[1]} to {texts[2]})"


def _digits(low, high, digits: int) -> int:
    """Decimals that keep an interval's ends apart (up to 4).

    >>> _digits(-0.004, 0.002, 1), _digits(1.0, 2.0, 1)
    (3, 1)
    """
    while digits < 4 and low != high and round(low, digits) == round(high, digits):
        digits += 1
    return digits


def _signed(value, low, high, unit="", scale=1.0, digits=1) -> tuple[str, str]:
    """``("4.1 higher", "95% CI +3.8 to +4.4")`` for a difference."""
    word = "higher" if value > 0 else "lower"
    digits = _digits(low * scale, high * scale, digits)
    amount = f"{abs(value) * scale:.{digits}f}{unit}"
    return f"{amount} {word}", f"95% CI {low * scale:+.{digits}f} to {high * scale:+.{digits}f}"


def _plots():
    """The plotting functions (imported late: they arrive with the analysis functions)."""
    from . import plots

    return plots


# -- the sections ---------------------------------------------------------------------------------
EFFECT_WORDS = {  # metric -> (phrase, unit, scale, digits)
    "score": ("the mean score per side and hand", " points", 1.0, 1),
    "set": ("the share of contracts set", " percentage points", 100.0, 1),
    "bags": ("the bags taken per side and hand", " bags", 1.0, 2),
    "nil": ("the share of seats bidding nil", " percentage points", 100.0, 1),
}


@section("variant_effects", "Paired effects on shared deals",
         "Every configuration plays the same deals (common random numbers), so each hand gives "
         "a paired difference against the baseline: for each metric, the difference of the "
         "per-hand values of a configuration and the baseline on the same deal, averaged over "
         "the shared deals, with a 95% t interval on those per-hand differences. Metrics: score "
         "= mean score change per side and hand; set = share of side-hands whose contract was "
         "set; bags = mean bags taken per side and hand; nil = share of seats bidding nil. Only "
         "configurations with the same number of players are compared (their deals match).")
def _variant_effects(ctx: Context, section: Section) -> None:
    from .effects import paired_effects

    frame = ctx.frame("hands")
    experiment = ctx.experiment
    by_players: dict[int, list[str]] = {}
    for config in experiment.configs:
        by_players.setdefault(config.rules.players, []).append(config.name)
    tables = []
    for players, names in sorted(by_players.items(), reverse=True):
        if len(names) < 2:
            section.notes.append(Markup("{} ({} players) has no other configuration with "
                                        "{} players to compare with; it appears in the other "
                                        "sections.").format(code(names[0]), players, players))
            continue
        baseline = experiment.baseline if experiment.baseline in names else names[0]
        part = frame[frame["config"].isin(names)]
        part = part.assign(config=part["config"].astype(str).astype("category"))
        tables.append(paired_effects(part, baseline))
    if not tables:
        return
    table = pd.concat(tables, ignore_index=True)
    ctx.table(section, "paired", "Paired differences against the baseline", table)
    plots = _plots()
    for metric in ("score", "set", "bags", "nil"):
        part = table[(table["metric"] == metric) & (table["config"] != table["baseline"])]
        ctx.figure(section, f"{metric}", f"Paired difference: {EFFECT_WORDS[metric][0]}",
                   plots.plot_paired_effects, part,
                   size=(7.5, max(2.5, 0.45 * len(part) + 1.2)))
    for metric in ("score", "set"):
        phrase, unit, scale, digits = EFFECT_WORDS[metric]
        rows = table[(table["metric"] == metric) & (table["config"] != table["baseline"])]
        for row in ctx.ordered(rows).to_dict(orient="records"):
            if row["diff"] == row["diff_low"] == row["diff_high"] == 0:
                section.findings.append(Markup(
                    "Under {}, {} is the same as under {} on every one of {:,} shared deals.")
                    .format(code(row["config"]), phrase, code(row["baseline"]), int(row["n"])))
                continue
            if row["diff_low"] <= 0 <= row["diff_high"]:
                shown = _digits(row["diff_low"] * scale, row["diff_high"] * scale, digits)
                section.findings.append(Markup(
                    "Under {}, {} is not distinguishable from {} ({:+.{d}f}{}, 95% CI "
                    "{:+.{d}f} to {:+.{d}f}), on {:,} shared deals.").format(
                    code(row["config"]), phrase, code(row["baseline"]), row["diff"] * scale,
                    unit, row["diff_low"] * scale, row["diff_high"] * scale, int(row["n"]),
                    d=shown))
                continue
            amount, interval = _signed(row["diff"], row["diff_low"], row["diff_high"], unit,
                                       scale, digits)
            section.findings.append(Markup(
                "Under {}, {} is {} than under {} ({}), on {:,} shared deals.").format(
                code(row["config"]), phrase, amount, code(row["baseline"]), interval,
                int(row["n"])))


@section("bid_accuracy", "Bid accuracy",
         "A seat's non-nil bid is exact when it takes exactly its bid in tricks, over when it "
         "takes more, under when fewer (rates with Wilson 95% intervals, over seat-hands). A "
         "side is set when the tricks counting toward its contract fall short of it (over "
         "side-hands with a contract); bags per hand are the tricks a side took beyond its "
         "contract. Tricks minus bid is the distribution of that difference per seat; "
         "calibration shows the mean bid and the mean tricks taken by the number of spades "
         "(and of high cards: aces, kings, queens) in the hand as dealt.")
def _bid_accuracy(ctx: Context, section: Section) -> None:
    from .bids import bid_accuracy, bid_calibration, tricks_minus_bid

    mode, frame = ctx.any_frame()
    plots = _plots()
    accuracy = bid_accuracy(frame)
    ctx.table(section, "accuracy", f"Bid accuracy by configuration and strategy ({mode})",
              accuracy)
    ctx.figure(section, "accuracy", "Bid accuracy", plots.plot_bid_accuracy, accuracy,
               size=(7.5, max(3.5, 0.4 * len(accuracy) + 1.5)))
    spread = tricks_minus_bid(frame)
    ctx.figure(section, "tricks-minus-bid", "Tricks minus bid", plots.plot_tricks_minus_bid,
               spread)
    ctx.table(section, "tricks-minus-bid", "Tricks minus bid (share of non-nil seat bids)",
              spread)
    for feature in ("spades", "high_cards"):
        calibration = bid_calibration(frame, feature=feature)
        ctx.figure(section, f"calibration-{feature}", f"Mean bid and tricks by {feature}",
                   plots.plot_calibration, calibration, facet="config")
        ctx.table(section, f"calibration-{feature}",
                  f"Calibration: mean bid and mean tricks by {feature}", calibration)
    if len(accuracy) and "set_rate" in accuracy:
        ordered = accuracy.sort_values("set_rate")
        for label, row in (("lowest", ordered.iloc[0]), ("highest", ordered.iloc[-1])):
            section.findings.append(Markup(
                "The {} set rate is under {} with {}: {}; its seats bid exactly in {}.").format(
                label, code(row["config"]), code(row["strategy"]),
                _interval(row["set_rate"], row["set_rate_low"], row["set_rate_high"],
                          "set_rate"),
                _interval(row["exact_rate"], row["exact_rate_low"], row["exact_rate_high"],
                          "exact_rate")))
            if len(ordered) == 1:
                break


@section("nil", "Nil and blind nil",
         "A nil (or blind nil) bid is made when the bidder takes no trick. Success rates carry "
         "Wilson 95% intervals; by feature they are split by the bidder's hand as dealt, and by "
         "the partner's bid in partnerships. Value: with a bonus B won when made and lost when "
         "failed, a nil bid is worth B x (2 x rate - 1) points on average (ignoring the bags "
         "and the partner's contract), so it pays when the success rate exceeds the break-even "
         "rate of 50%; it pays here only when the lower end of the rate's interval does.")
def _nil(ctx: Context, section: Section) -> None:
    from .nil import nil_by_feature, nil_by_partner_bid, nil_success, nil_value

    mode, frame = ctx.any_frame()
    plots = _plots()
    success = nil_success(frame)
    ctx.table(section, "success", f"Nil success by configuration, strategy and blind ({mode})",
              success)
    ctx.figure(section, "success", "Nil success rate", plots.plot_nil_success, success,
               size=(7.5, max(3.5, 0.35 * len(success) + 1.5)))
    by_spades = nil_by_feature(frame, feature="spades")
    ctx.figure(section, "by-spades", "Nil success by spades held", plots.plot_nil_success,
               by_spades)
    ctx.table(section, "by-spades", "Nil success by spades held", by_spades)
    by_high = nil_by_feature(frame, feature="high_cards")
    ctx.table(section, "by-high-cards", "Nil success by high cards held", by_high)
    partnership = [c.name for c in ctx.experiment.configs if c.rules.partnership]
    if partnership:
        part = frame[frame["config"].isin(partnership)]
        ctx.table(section, "by-partner-bid", "Nil success by the partner's bid",
                  nil_by_partner_bid(part))
    for mode in ctx.experiment.modes:
        # Blind nil depends on the score (a deficit), so whole games are where it shows.
        value = nil_value(ctx.frame(mode), ctx.rules)
        where = "independent hands" if mode == "hands" else "whole games"
        ctx.table(section, f"value-{mode}",
                  f"Expected value of a nil bid against break-even ({where})", value)
        for row in ctx.ordered(value).to_dict(orient="records"):
            blind = bool(row.get("blind"))
            if row["n"] < 30 or (blind != (mode == "games") and len(ctx.experiment.modes) > 1):
                continue  # findings: plain nil from hands, blind nil from games
            kind = "blind nil" if blind else "nil"
            verdict = ("pays" if row["pays"] else
                       "does not pay" if row["rate_high"] < row["break_even"]
                       else "is not distinguishable from break-even")
            section.findings.append(Markup(
                "In {} under {}, {} bids were made in {} of {:,} bids: worth {:+.0f} points per "
                "bid (95% CI {:+.0f} to {:+.0f}), so {} {}.").format(
                where, code(row["config"]), kind,
                _interval(row["rate"], row["rate_low"], row["rate_high"], "rate"),
                int(row["n"]), row["ev"], row["ev_low"], row["ev_high"], kind, verdict))


@section("games", "Whole games",
         "Games are played to the target from zero (random first dealer, the deal passing "
         "left). Length: hands per game (95% normal interval). Side 0 win rate: share of games "
         "won by side 0 (Wilson interval; ties and draws at the hand cap counted apart). Bag "
         "penalties: a side's bags crossing the bag limit, per game. Comebacks: share of games "
         "won by a side that trailed by 100 points or more after some hand.")
def _games(ctx: Context, section: Section) -> None:
    from .effects import game_effects

    frame = ctx.frame("games")
    table = game_effects(frame)
    ctx.table(section, "summary", "Games by configuration", table)
    ctx.figure(section, "lengths", "Game length in hands", _plots().plot_game_lengths, table,
               size=(7.5, max(3.0, 0.4 * len(table) + 1.5)))
    if len(table) and "mean_hands" in table:
        for row in ctx.ordered(table).to_dict(orient="records"):
            section.findings.append(Markup(
                "Under {}, a game lasts {:.1f} hands on average (95% CI {:.1f} to {:.1f}) over "
                "{:,} games; side 0 wins {} of the decisive ones.").format(
                code(row["config"]), row["mean_hands"], row["mean_hands_low"],
                row["mean_hands_high"], int(row["games"]),
                _interval(row["side0_win_rate"], row["side0_win_rate_low"],
                          row["side0_win_rate_high"], "rate")))


@section("strategies", "Strategies against each other",
         "Tournament (when the experiment has a [tournament]): every pair of strategies plays a "
         "duplicate match on the same deals, each deal twice with the partnerships' cards "
         "swapped, so card luck cancels. Ratings are Bradley-Terry strengths fitted to the won, "
         "lost and tied games (hands) of all the matches, on the Elo scale (a 100-point gap: "
         "the better strategy wins 64% of its games against the other), averaging 0, with 95% "
         "intervals from the Fisher information; mean diff is the mean score difference per "
         "board (in games, of the final scores) against the others, and the pairwise table "
         "gives each match's mean difference with its 95% t interval over boards. Below that, "
         "for the experiment's own runs: the mean score per side and hand of each side's "
         "strategies (95% normal interval) and, in games, each side's win rate (Wilson "
         "interval).")
def _strategies(ctx: Context, section: Section) -> None:
    if ctx.experiment.tournament is not None:
        _tournament(ctx, section)
    if ctx.experiment.modes:
        _side_scores(ctx, section)


_SCORED = {"games": "final scores, the mean over the board's two games",
           "hands": "hand scores from zero, the mean over the deal's two plays"}


def _tournament(ctx: Context, section: Section) -> None:
    from ..evaluate import rating_difference

    result = ctx.tournament()
    unit = result.unit
    ratings = pd.DataFrame(result.ratings)
    ratings = ratings[["rank", "strategy", "rating", "low", "high", "games", "wins", "losses",
                       "ties", "mean_diff"]].rename(
        columns={"low": "rating_low", "high": "rating_high", "games": unit})
    ctx.table(section, "ratings", f"Tournament ratings ({result.n:,} boards x 2 {unit} per "
              f"pair, rules {result.rules})", ratings)
    ctx.figure(section, "ratings", "Tournament ratings", _plots().plot_ratings, ratings,
               size=(7.5, max(2.5, 0.45 * len(ratings) + 1.2)))
    rank = {row["strategy"]: row["rank"] for row in result.ratings}
    rows = []
    for m in result.matches:  # each pair once, the better-rated strategy first
        flip = rank[m.b] < rank[m.a]
        sign = -1.0 if flip else 1.0
        low, high = sorted((sign * m.ci95[0], sign * m.ci95[1]))
        rows.append({"strategy": m.b if flip else m.a, "opponent": m.a if flip else m.b,
                     "boards": m.n, "mean_diff": sign * m.mean_diff, "mean_diff_low": low,
                     "mean_diff_high": high, "wins": m.b_wins if flip else m.a_wins,
                     "losses": m.a_wins if flip else m.b_wins, "ties": m.ties})
    pairs = pd.DataFrame(rows)
    pairs = pairs.iloc[np.lexsort((pairs["opponent"].map(rank), pairs["strategy"].map(rank)))]
    ctx.table(section, "pairwise", "Pairwise matches: mean score difference per board of the "
              "better-rated strategy", pairs,
              note=f"wins, losses and ties count {unit} of the strategy against the opponent; "
                   f"mean diff is in points per board ({_SCORED[unit]}).")
    ranked = [row["strategy"] for row in result.ratings]
    for better, worse in zip(ranked, ranked[1:]):
        diff, low, high = rating_difference(result.strategies, result.matches, better, worse)
        if low <= 0:
            section.findings.append(Markup(
                "{} and {} are not distinguishable in the tournament: {} is rated {:.0f} Elo "
                "above (95% CI {:+.0f} to {:+.0f}).").format(
                code(better), code(worse), code(better), diff, low, high))
            continue
        section.findings.append(Markup(
            "{} is rated {:.0f} Elo above {} (95% CI {:.0f} to {:.0f}), over {:,} {} per "
            "pair.").format(code(better), diff, code(worse), low, high, 2 * result.n, unit))
    top = result.ratings[0]
    section.findings.append(Markup(
        "{} rates best ({:+.0f} Elo, 95% CI {:+.0f} to {:+.0f}): it wins {:,} of its {:,} {} "
        "and scores {:+.1f} points per board more than its opponents on average.").format(
        code(top["strategy"]), top["rating"], top["low"], top["high"], top["wins"],
        top["games"], unit, top["mean_diff"]))


def _side_scores(ctx: Context, section: Section) -> None:
    from .metrics import mean_interval, wilson_interval

    mode, frame = ctx.any_frame()
    rows = []
    keys = ["config", "duplicate", "game_id", "hand_id", "side"]
    sides = frame.drop_duplicates(keys)
    names = (frame.groupby(["config", "side"], observed=True)["strategy"]
             .agg(lambda s: " + ".join(sorted(set(map(str, s))))))
    for (config, side), part in sides.groupby(["config", "side"], observed=True):
        mean, low, high = mean_interval(part["score_delta"])
        rows.append({"config": config, "side": int(side), "strategies": names[(config, side)],
                     "side_hands": len(part), "mean_score": mean, "mean_score_low": low,
                     "mean_score_high": high})
    table = pd.DataFrame(rows)
    ctx.table(section, "scores", f"Mean score per side and hand ({mode})", table)
    games = ctx.frame("games")
    if games is not None and len(games):
        last = games[games["game_over"]].drop_duplicates(["config", "duplicate", "game_id"])
        rows = []
        for config, part in last.groupby("config", observed=True):
            n_sides = ctx.rules[config].n_sides
            for side in range(n_sides):
                wins = int((part["game_winner"] == side).sum())
                low, high = wilson_interval(wins, len(part))
                rows.append({"config": config, "side": side,
                             "strategies": names.get((config, side), ""), "games": len(part),
                             "wins": wins, "win_rate": wins / len(part) if len(part) else 0.0,
                             "win_rate_low": float(low), "win_rate_high": float(high)})
        ctx.table(section, "wins", "Wins per side in whole games", pd.DataFrame(rows))


# -- setup, metadata, the page --------------------------------------------------------------------
def setup_rows(experiment: Experiment) -> list[dict]:
    """One row per configuration: name, players, preset, overrides, strategies per seat."""
    rows = []
    for config, source in zip(experiment.configs, experiment.sources):
        specs = [s.spec() for s in config.strategies]
        if len(set(specs)) == 1:
            seats = f"{specs[0]} (every seat)"
        else:
            seats = "; ".join(f"seat {seat}: {spec}" for seat, spec in enumerate(specs))
        overrides = ", ".join(f"{k}={rule_text(v)}" for k, v in source.overrides.items())
        rows.append({"name": config.name, "players": config.rules.players,
                     "rules": source.preset, "overrides": overrides or "–",
                     "strategies": seats})
    return rows


def run_metadata(ctx: Context) -> list[dict]:
    """One entry per run (hands, games): identity, versions, commit, created, completeness."""
    runs = []
    for mode in ctx.experiment.modes:
        meta = read_meta(ctx.results / mode)
        identity = meta["identity"]
        status = run_status(ctx.results / mode)
        runs.append({
            "mode": mode, "dir": f"{mode}/",
            "items": [
                ("units", f"{identity['units']:,} {identity['unit']}"),
                ("seed", str(identity["seed"])),
                ("chunk size", f"{identity['chunk_size']:,}"),
                ("duplicate", "yes" if identity["duplicate"] else "no"),
                ("engine hash", identity["engine"]),
                ("commit", meta.get("commit") or "unknown"),
                ("created", meta.get("created", "")),
                ("versions", ", ".join(f"{k} {v}" for k, v in meta.get("versions", {}).items())),
                ("complete", "yes" if status["complete"] else
                 f"no: {status['units_done']:,} of {status['units']:,} {status['unit']} "
                 f"(re-run spades-sim run to finish)"),
            ],
        })
    spec = ctx.experiment.tournament
    if spec is not None:
        result = ctx.tournament()
        folders = [Path(m.out) for m in result.matches if m.out]
        meta = read_meta(ctx.results / TOURNAMENT_DIR / folders[0].name) if folders else {}
        done = all(run_status(ctx.results / TOURNAMENT_DIR / f.name)["complete"]
                   for f in folders)
        runs.append({
            "mode": "tournament", "dir": f"{TOURNAMENT_DIR}/",
            "items": [
                ("units", f"{spec.n:,} boards x 2 {spec.unit} in each of {len(result.matches)} "
                          f"matches ({len(spec.strategies)} strategies)"),
                ("rules", spec.rules + "".join(f", {text}" for text in spec.rule)),
                ("seed", str(ctx.experiment.seed)),
                ("chunk size", f"{spec.chunk_size:,}"),
                ("engine hash", meta.get("identity", {}).get("engine", "unknown")),
                ("commit", meta.get("commit") or "unknown"),
                ("created", meta.get("created", "")),
                ("complete", "yes" if done else "no (re-run spades-sim run to finish)"),
            ],
        })
    return runs


def _environment():
    from jinja2 import Environment, PackageLoader, select_autoescape

    return Environment(loader=PackageLoader("spades_sim", "templates"),
                       autoescape=select_autoescape(["html", "j2"]), trim_blocks=True,
                       lstrip_blocks=True, keep_trailing_newline=True)


def build_report(results_dir, reports_root="reports") -> Path:
    """Build ``<reports_root>/<name>/`` from an experiment's results folder; returns the path of
    its ``index.html``. The folder is written under a temporary name and swapped in whole."""
    results = Path(results_dir)
    experiment = load_results_experiment(results)
    for mode in experiment.modes:
        if not (results / mode / "meta.json").exists():
            raise RunError(f"{results / mode}: no run here; run the experiment first "
                           f"(spades-sim run {experiment.name}.toml)")
    if experiment.tournament is not None and \
            not (results / TOURNAMENT_DIR / "tournament.json").exists():
        raise RunError(f"{results / TOURNAMENT_DIR}: no finished tournament here; run the "
                       f"experiment first (spades-sim run {experiment.name}.toml)")
    final = Path(reports_root) / experiment.name
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = final.parent / f".{experiment.name}.tmp-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        ctx = Context(experiment, results, tmp)
        sections = []
        for name in experiment.analyses:
            spec = SECTIONS[name]
            built = Section(name, spec.title, spec.about)
            spec.build(ctx, built)
            sections.append(built)
        (tmp / EXPERIMENT_COPY).write_text(experiment.text, encoding="utf-8")
        page = _environment().get_template("report.html.j2").render(
            experiment=experiment, sections=sections, setup=setup_rows(experiment),
            runs=run_metadata(ctx), experiment_file=EXPERIMENT_COPY,
            sizes=_sizes(experiment),
            generated=time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()))
        (tmp / "index.html").write_text(page, encoding="utf-8")
        _swap_in(tmp, final)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return final / "index.html"


def _sizes(experiment: Experiment) -> list[tuple[str, str]]:
    sizes = [("seed", str(experiment.seed))]
    if experiment.hands:
        sizes.append(("hands", f"{experiment.hands:,} independent hands per configuration, "
                               f"chunks of {experiment.chunk_size:,}"))
    if experiment.games:
        sizes.append(("games", f"{experiment.games:,} whole games per configuration, chunks "
                               f"of {experiment.games_chunk_size:,}"))
    if experiment.modes:
        sizes.append(("duplicate", "yes: every deal also played with the partnerships' seats "
                                   "swapped" if experiment.duplicate else "no"))
    spec = experiment.tournament
    if spec is not None:
        rules = spec.rules + "".join(f", {text}" for text in spec.rule)
        sizes.append(("tournament", f"round robin of {', '.join(spec.strategies)} under "
                                    f"{rules}: {spec.n:,} duplicate boards ({2 * spec.n:,} "
                                    f"{spec.unit}) per pair"))
    return sizes


def _swap_in(tmp: Path, final: Path) -> None:
    """Replace ``final`` by the finished folder ``tmp`` (the old folder is renamed away first,
    so ``final`` is only ever absent for an instant, never half-written)."""
    old = final.parent / f".{final.name}.old-{os.getpid()}"
    if final.exists():
        os.replace(final, old)
    os.replace(tmp, final)
    shutil.rmtree(old, ignore_errors=True)
