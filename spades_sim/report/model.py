"""The report's page model: tables, figures, sections (and the registry of section builders),
and the build context that loads the runs' frames once and writes files into the report folder.
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..core.errors import RunError
from ..core.par import tidy_columns
from ..evaluate import load_tournament
from ..experiment import Experiment
from ..experiment.counterfactual import is_number_line, number_pairs
from ..run import load_run, read_meta
from .draw import (  # noqa: F401  (FACET_*, render_figure: the figures' contract, read here too)
    FACET_COLUMNS,
    FACET_OVER,
    FIGURE_FORMAT,
    FIGURE_SIZE,
    draw_figure,
    render_figure,
)
from .formatting import (
    FEW_CASES,
    display_table,
    few_cases,
    is_answer,
    leading_names,
)
from .frames import ConfigFrames, combine, give_back_memory
from .headline import Finding

MANY_LINES = 12  # a line plot of this many lines or more is drawn one panel per configuration
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
    #: Per column: whether it gives the answer (kept in view without scrolling sideways).
    answers: list = field(default_factory=list)
    #: Per row: whether it rests on fewer than ``formatting.FEW_CASES`` cases (greyed).
    few: list = field(default_factory=list)


@dataclass
class Figure:
    title: str
    src: str
    kind: str = "figure"
    #: What the figure leaves out (rows on too few cases), said under it.
    note: str = ""


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
    #: per_config(ctx) -> {key: function}: what the builder asks ``ctx.per_config`` for
    per_config: object = None


SECTIONS: dict[str, SectionSpec] = {}


def section(name: str, title: str, about: str, per_config=None):
    """Register the builder of an analysis section (the decorated function). ``per_config``:
    ``per_config(ctx) -> {key: function}``, the per-configuration analyses the builder asks
    :meth:`Context.per_config` for (mode ``ctx.any_mode()``, every configuration; keys unique
    in the report): the report plans them (:meth:`Context.plan`), so that the first pass over
    the configurations computes those of every section and each configuration's tidy frame is
    built once for all of them."""
    def register(build):
        SECTIONS[name] = SectionSpec(name, title, about, build, per_config)
        return build
    return register


# -- the build context: frames, files -------------------------------------------------------------
class Context:
    """What a section builder works with: the experiment, its run frames (loaded once, on
    demand) and the report folder it writes tables and figures into."""

    def __init__(self, experiment: Experiment, results: Path, out: Path, tournament=None,
                 tournaments=()):
        """``tournament``: the experiment's tournament as ``report.results.read_tournament``
        read and checked it (read here, on demand, when not given); ``tournaments``: every
        round robin of it so read (one per mode of a [tournament] in both modes)."""
        self.experiment, self.results, self.out = experiment, results, out
        self.tournament_said = tournament
        self.tournaments_said = tuple(tournaments) or ((tournament,) if tournament else ())
        self._round_robins: dict = {said.folder: said.result for said in self.tournaments_said}
        self._frames: dict = {}
        self._split: dict = {}
        self._planned: dict = {}  # mode -> {key: function}: see plan
        self._computed: dict = {}  # (mode, key) -> table, computed ahead of its section
        self._taken: dict = {}  # mode -> {configuration: {key: table}}: see take_frame
        #: An executor (``concurrent.futures``) that draws the figures in other processes
        #: while the analyses go on (``build_report`` sets it); None: drawn here, in turn.
        self.drawing = None
        self.drawn: list = []
        self.files: list[str] = []
        self.figure_titles: dict[str, str] = {}  # a figure title (folded) -> its section
        #: ``(config, baseline) -> (hands dealt identical cards, paired hands)``, measured by
        #: the paired effects from the stored cards, for the setup's sentences on deals.
        self.deal_shares: dict = {}

    @property
    def rules(self) -> dict:
        return self.experiment.rules_by_config()

    def frame(self, mode: str, number_lines: bool = False) -> pd.DataFrame | None:
        """The tidy frame of the ``hands`` or ``games`` run (None when the experiment has none),
        without the number lines of ``nil_counterfactual`` unless ``number_lines``."""
        if mode not in self.experiment.modes:
            return None
        if mode not in self._frames:
            # (the same rows split by configuration: dropped, read again if a later section
            # asks: memory before speed)
            self._split.pop(mode, None)
            columns = [c for c in tidy_columns(self.has_par(mode)) if c not in UNUSED_COLUMNS]
            give_back_memory()  # (what the sections before freed: not under this frame too)
            frame = load_run(self.results / mode, columns=columns)
            if not len(frame):  # every chunk file corrupt or unfinished
                raise RunError(f"{self.results / mode}: no finished chunk; run the experiment "
                               f"again to play them")
            names = frame["config"].cat.categories
            lines = np.isin(frame["config"].cat.codes.to_numpy(),
                            [code for code, name in enumerate(names) if is_number_line(str(name))])
            self._frames[(mode, True)] = frame
            if lines.any():
                frame = frame.loc[~lines].reset_index(drop=True)
                frame["config"] = frame["config"].cat.remove_unused_categories()
            self._frames[mode] = frame
        return self._frames[(mode, True)] if number_lines else self._frames[mode]

    def config_frames(self, mode: str) -> ConfigFrames:
        """The ``hands`` or ``games`` run's rows split by configuration (read once, on
        demand): what :meth:`per_config` builds its frames from."""
        if mode not in self._split:
            # (the nil bidders' cards for the facts section's nil success by cards held)
            self._split[mode] = ConfigFrames(self.results / mode,
                                             nil_cards="facts" in self.experiment.analyses)
            give_back_memory()  # (the chunk files' tables read)
            if not self._split[mode].parts:
                raise RunError(f"{self.results / mode}: no finished chunk; run the experiment "
                               f"again to play them")
        return self._split[mode]

    def per_config(self, mode: str, analyses: dict, names=None) -> dict:
        """``{key: table}``: each analysis ``function(frame)`` of ``analyses`` (``{key:
        function}``) applied to the tidy frame of one configuration at a time (the
        configurations ``names``, by default all but the number lines), the tables put
        together as the whole frame would have given them (``report.frames.combine``). Exact
        for analyses whose groups are within a configuration (``config`` is their first key):
        the same rows in the same order make the same groups."""
        if names is None and all((mode, key) in self._computed for key in analyses):
            return {key: self._computed.pop((mode, key)) for key in analyses}
        ahead = {} if names is not None else {
            key: function for key, function in self._planned.get(mode, {}).items()
            if key not in analyses and (mode, key) not in self._computed}
        frames = self.config_frames(mode)
        wanted = set(frames.names() if names is None else names)
        results: dict = {key: [] for key in [*analyses, *ahead]}
        for name in frames.names():
            if name not in wanted or (names is None and is_number_line(name)):
                continue
            done = self._taken.get(mode, {}).pop(name, {}) if names is None else {}
            frame = None
            for key, function in [*analyses.items(), *ahead.items()]:
                if key in done:
                    table = done[key]
                else:
                    if frame is None:
                        frame = frames.frame(name)
                    table = function(frame)
                if table is not None:  # (None: nothing for this configuration)
                    results[key].append(table)
            del frame
        for key in ahead:  # (kept for the section that planned them)
            self._computed[(mode, key)] = combine(results.pop(key))
        return {key: combine(tables) for key, tables in results.items()}

    def take_frame(self, mode: str, name: str, frame: pd.DataFrame) -> None:
        """Compute the planned analyses (:meth:`plan`) of configuration ``name`` on ``frame``,
        its tidy frame as :meth:`per_config` builds it (``config_frames(mode).frame(name)``),
        which a section built for its own use: the pass over every configuration then takes
        them instead of building that frame again."""
        if is_number_line(name):
            return
        planned = {key: function for key, function in self._planned.get(mode, {}).items()
                   if (mode, key) not in self._computed}
        if planned:
            self._taken.setdefault(mode, {})[name] = {key: function(frame)
                                                      for key, function in planned.items()}

    def plan(self, mode: str, analyses: dict) -> None:
        """Have the next :meth:`per_config` pass over every configuration of ``mode`` compute
        ``analyses`` (``{key: function}``) too, for a later section's :meth:`per_config` call
        with those keys (answered then without a pass of its own)."""
        self._planned.setdefault(mode, {}).update(analyses)

    def number_lines(self) -> dict:
        """Configuration -> its number line, for those the hands run played one of."""
        if "hands" not in self.experiment.modes:
            return {}
        return number_pairs(self.config_frames("hands").names())

    def has_par(self, mode: str) -> bool:
        """Whether the ``hands`` or ``games`` run was played with par (has the par columns)."""
        if mode not in self.experiment.modes:
            return False
        return bool(read_meta(self.results / mode)["identity"].get("par", False))

    def tournament(self, spec=None):
        """The experiment's round robin ``spec`` (by default its first) read back from its
        saved summary (None without one); refused when the saved tournament is not the one the
        experiment file describes."""
        spec = self.experiment.tournament if spec is None else spec
        if spec is None:
            return None
        if spec.folder not in self._round_robins:
            folder = self.results / spec.folder
            result = load_tournament(folder)
            saved = (tuple(result.strategies), result.rules, result.unit, result.n, result.seed)
            wanted = (spec.names, spec.rules.preset_name, spec.unit, spec.n,
                      self.experiment.seed)
            if saved != wanted:
                raise RunError(f"{folder}: holds another tournament than the experiment's; "
                               f"run the experiment again")
            self._round_robins[spec.folder] = result
        return self._round_robins[spec.folder]

    def any_mode(self) -> str:
        """``hands`` when the experiment has a hands run, else ``games``."""
        return "hands" if "hands" in self.experiment.modes else "games"

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

    def claim(self, section: Section, text, label: str, effect, low, high, p=None,
              unit: str = "", scale: float = 1.0, digits: int = 1, n=None, n_unit: str = "",
              mode: str = "") -> Finding:
        """Add a finding that tests ``effect`` (95% interval ``low`` to ``high``, two-sided
        p-value ``p``: None to take the normal test the interval implies) against zero; it
        enters the report's multiple-comparison family, its headline (``report.headline``)
        and, when it ranks among the largest, its summary (``report.summary``). ``n``
        ``n_unit``: the sample (``400000``, ``"deals"``); ``mode``: where the finding comes
        from (``"self-play, independent hands"``)."""
        finding = Finding(text, label, float(effect), float(low), float(high),
                          None if p is None else float(p), unit, scale, digits,
                          n=None if n is None or n != n else int(n), n_unit=n_unit, mode=mode)
        section.findings.append(finding)
        return finding

    def estimate(self, section: Section, text, label: str, effect, low, high, unit: str = "",
                 scale: float = 1.0, digits: int = 1, n=None, n_unit: str = "",
                 mode: str = "") -> Finding:
        """Add a measurement (``effect``, 95% interval ``low`` to ``high``) that tests
        nothing: it stays out of the multiple-comparison family and the headline, and the
        summary shows it after the tested findings (``report.summary``)."""
        finding = Finding(text, label, float(effect), float(low), float(high), None, unit,
                          scale, digits, n=None if n is None or n != n else int(n),
                          n_unit=n_unit, mode=mode, estimate=True)
        section.findings.append(finding)
        return finding

    def table(self, section: Section, slug: str, title: str, frame: pd.DataFrame,
              note: str = "") -> Table:
        """Write ``frame`` as ``<section>-<slug>.csv`` and add its formatted table."""
        name = f"{section.name}-{slug}.csv"
        frame = self.ordered(frame)
        frame.to_csv(self.out / name, index=False, float_format="%.6g")
        self.files.append(name)
        headers, rows, numeric = display_table(frame)
        leading = leading_names(frame)
        answers = [is_answer(header, number, position, leading)
                   for position, (header, number) in enumerate(zip(headers, numeric))]
        few = few_cases(frame)
        table = Table(title, name, headers, rows, numeric, note, len(rows) > LONG_TABLE,
                      answers=answers, few=few)
        if any(few):
            table.note = (f"{table.note} " if table.note else "") + (
                f"Rows in grey rest on fewer than {FEW_CASES} cases: too few to read.")
        section.items.append(table)
        return table

    def figure(self, section: Section, slug: str, title: str, plot, table: pd.DataFrame,
               size=FIGURE_SIZE, facet: str | None = None, lines=None) -> None:
        """Draw ``plot(table, ax=ax)`` into ``<section>-<slug>.svg``; skipped for an empty
        table. The table is passed in the experiment's configuration order (:meth:`ordered`,
        the tables' order), so series, bars and panels come in that order. ``facet``: one
        panel per value of that column (at most :data:`FACET_COLUMNS` to a row, shared axes,
        one legend below them), each titled with its value, when it has more than
        :data:`FACET_OVER` values. The figure is titled ``title`` (with the plot's note on its
        intervals); a title used by another figure of the report, or the section's own title,
        is refused (``ValueError``): every figure says what it shows. Rows resting on fewer
        than ``formatting.FEW_CASES`` cases (their ``n``) are left out, and the caption says
        which (the table shows them, greyed). A table of one row is not drawn (a single bar
        compares nothing; the table beside it says as much). ``lines``: the columns whose
        values make the lines of a line plot; with :data:`MANY_LINES` lines or more the figure
        is drawn one panel per value of the first (unless ``facet`` is given)."""
        if table is None:
            return
        table, note = _without_few_cases(table)
        if len(table) < 2:  # one bar or point compares nothing: the table says it
            return
        if facet is None and lines:
            keys = [column for column in lines if column in table.columns]
            if keys and len(table[keys].drop_duplicates()) >= MANY_LINES:
                facet = keys[0]
        self._claim_title(section, title)
        name = f"{section.name}-{slug}.{FIGURE_FORMAT}"
        table = self.ordered(table)
        if self.drawing is not None and _picklable(plot):  # drawn beside the analyses
            arguments = (self.out / name, title, plot, table, size, facet)
            self.drawn.append((self.drawing.submit(draw_figure, *arguments), arguments))
        else:
            draw_figure(self.out / name, title, plot, table, size, facet)
        self.files.append(name)
        section.items.append(Figure(title, name, note=note))

    def finish_figures(self) -> None:
        """Wait for the figures drawn in other processes (:attr:`drawing`); the first one that
        failed raises its error here. The figures no process has started yet are drawn here,
        the last first, while the others finish theirs: the sections end with a batch of
        figures (the games' win probabilities), and this process has nothing else to do (the
        same arguments give the same bytes in any process)."""
        drawn, self.drawn = self.drawn, []
        for future, arguments in reversed(drawn):
            if future.cancel():  # (not yet handed to a process)
                draw_figure(*arguments)
        for future, _ in drawn:
            if not future.cancelled():
                future.result()

    def _claim_title(self, section: Section, title: str) -> None:
        """Refuse a figure title that another figure of the report has, or that only repeats
        its section's title."""
        key = " ".join(title.split()).casefold()
        if key == " ".join(section.title.split()).casefold():
            raise ValueError(f"figure {title!r} in section {section.name!r}: the figure's "
                             f"title repeats the section's; say what the figure shows")
        used = self.figure_titles
        if key in used:
            raise ValueError(f"figure {title!r} in section {section.name!r}: the report has "
                             f"a figure of that title already (in section {used[key]!r})")
        used[key] = section.name


def _without_few_cases(table: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """``table`` without its rows on fewer than ``formatting.FEW_CASES`` cases, and what the
    caption says of them (empty when none was left out)."""
    few = np.asarray(few_cases(table), dtype=bool)
    if not few.any():
        return table, ""
    kept = table.loc[~few]
    if "config" in table.columns:
        names = list(dict.fromkeys(table["config"].astype(str)))
        left = [name for name in names if name not in set(kept["config"].astype(str))]
        thin = [name for name in names
                if name not in left and name in set(table.loc[few, "config"].astype(str))]
        parts = []
        if left:
            parts.append(f"{', '.join(left)} (every row)")
        if thin:
            parts.append("some rows of every configuration" if len(thin) == len(names) > 2
                         else f"some rows of {', '.join(thin)}")
        which = "; ".join(parts)
    else:
        which = f"{int(few.sum())} rows"
    return kept, (f"Left out: {which}, resting on fewer than {FEW_CASES} cases each (the "
                  f"table shows them, greyed).")


def _picklable(plot) -> bool:
    try:
        pickle.dumps(plot)
    except Exception:  # a closure, a lambda: drawn here
        return False
    return True
