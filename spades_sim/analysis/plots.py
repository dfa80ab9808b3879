"""Plots of the analysis tables (matplotlib): one function per table, each drawing the 95%
intervals as error bars, with units on the axes and a title.

Every ``plot_*(table, *, ax=None)`` draws on ``ax`` (or on a new figure made with
``matplotlib.figure.Figure``, outside pyplot: nothing to close, safe under any backend,
including Agg) and returns the Axes. No ``plt.show()``, no global style change: each plot sets
the colour cycle of its own Axes to :data:`PALETTE` (colour-blind safe). Series, bars and
groups keep the row order of the table they are given (pass a table in the order you want
them; the report passes its tables in the experiment's configuration order). A legend is
drawn only for more than one series, outside the data area (to the right of the axes); axes
that count (tricks, spades held, hands) get integer ticks; many or long category labels are
rotated. An empty table draws an empty Axes with its title and the note "no data" (a report
still renders); a table without the columns the plot needs raises ``ValueError``.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pandas as pd

from ..core.errors import AnalysisError
from .effects import METRICS
from .metrics import FEATURES

_NO_DATA = "no data"
# The Okabe-Ito palette (Okabe and Ito 2008, "Color Universal Design"), distinguishable under
# the common colour-vision deficiencies; black last (it reads as an axis or reference line).
PALETTE = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7",
           "#000000")
_LONG_LABEL = 10  # category labels longer than this (or more than 3 of them) are rotated


def _axes(ax):
    """``ax``, or the Axes of a new figure (constrained layout: room for a legend outside);
    its colour cycle set to :data:`PALETTE`."""
    if ax is None:
        from matplotlib.figure import Figure

        ax = Figure(figsize=(7, 4), layout="constrained").add_subplot()
    ax.set_prop_cycle(color=list(PALETTE))
    return ax


_WRAP = 28  # long labels are wrapped at this many characters
_MANY_SERIES = 6  # a legend of more entries goes below the axes, in columns


def _wrap(label) -> str:
    return textwrap.fill(str(label), _WRAP)


def _legend(ax) -> None:
    """A legend outside the data area, only for more than one series: right of the axes, or
    below them, in columns, for many series (the data keep the figure's width)."""
    handles, labels = ax.get_legend_handles_labels()
    if len(labels) <= 1:
        return
    labels = [_wrap(label) for label in labels]
    if len(labels) > _MANY_SERIES:
        legend = ax.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0),
                           bbox_transform=under_x_axis(ax), ncols=3, borderaxespad=0,
                           fontsize="small", frameon=False)
        legend.set_gid(UNDER_X_AXIS)  # placed again once the axis label is set
    else:
        ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.02, 1),
                  borderaxespad=0, fontsize="small", frameon=False)


#: The id of a legend drawn under its x axis (:func:`place_legends_under`).
UNDER_X_AXIS = "legend-under-x-axis"


def place_legends_under(fig) -> None:
    """Move every legend that goes under its x axis (id :data:`UNDER_X_AXIS`) under the axis
    as it is now: a plot sets its axis label after its legend."""
    legends = [(ax, ax.get_legend()) for ax in fig.axes]
    legends = [(ax, legend) for ax, legend in legends
               if legend is not None and legend.get_gid() == UNDER_X_AXIS]
    if legends:
        fig.draw_without_rendering()
    for ax, legend in legends:
        legend.set_bbox_to_anchor((0.5, 0), transform=under_x_axis(ax, laid_out=True))


def under_x_axis(ax, laid_out: bool = False):
    """A transform of axes coordinates moved down under the x axis's tick labels and label
    (measured on the laid-out figure; ``laid_out``: already drawn), so that a legend anchored
    at y = 0 covers neither."""
    from matplotlib.transforms import ScaledTranslation

    fig = ax.figure
    if not laid_out:
        fig.draw_without_rendering()
    axis = ax.xaxis.get_tightbbox()  # (None: no tick label or axis label shown)
    below = ax.get_window_extent().y0 - axis.y0 if axis is not None else 0.0
    return ax.transAxes + ScaledTranslation(0, -(max(below, 0.0) + 4 * fig.dpi / 72) / fig.dpi,
                                            fig.dpi_scale_trans)


def _integer_ticks(axis) -> None:
    """Whole-number ticks on an axis that counts (tricks, cards, hands)."""
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(integer=True))


def _category_ticks(ax, positions, labels) -> None:
    """Category labels under the x axis, rotated (anchored at their right end, under the tick)
    when there are many or long ones, so that they do not overlap."""
    labels = [_wrap(label) for label in labels]
    turn = len(labels) > 3 or any(len(label) > _LONG_LABEL for label in labels)
    # Many labels, or labels wrapped to several lines, stand upright: slanted, the lines of
    # one reach under its neighbour's (label_overlaps found it on the nil report's 13 bars).
    upright = len(labels) > _MANY_SERIES or any("\n" in label for label in labels)
    rotation = 90 if upright else 35 if turn else 0
    ax.set_xticks(positions, labels, fontsize="small", rotation=rotation,
                  ha="right" if turn else "center", va="center" if upright else "top",
                  rotation_mode="anchor" if turn else "default")


def _check(table: pd.DataFrame, columns, what: str) -> None:
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise AnalysisError(f"{what}: the table lacks column(s) {', '.join(missing)}")


def _empty(ax, title: str):
    ax.set_title(title)
    ax.text(0.5, 0.5, _NO_DATA, ha="center", va="center", transform=ax.transAxes)
    return ax


def _keys_before(table: pd.DataFrame, column: str) -> list[str]:
    """The group key columns: those before ``column`` (tables put their keys first)."""
    return list(table.columns[: table.columns.get_loc(column)])


def _labels(table: pd.DataFrame, keys) -> list[str]:
    """One label per row from the keys that vary (all keys when none varies)."""
    varying = [k for k in keys if table[k].astype(str).nunique() > 1] or list(keys)
    if not varying:
        return [""] * len(table)
    parts = [table[k].astype(str).to_numpy() for k in varying]
    return [" / ".join(values) for values in zip(*parts)]


def _errors(table: pd.DataFrame, name: str):
    """Asymmetric error-bar lengths ``[estimate - low, high - estimate]`` (0 where unknown)."""
    estimate = table[name].to_numpy(dtype=float)
    if f"{name}_low" not in table.columns:
        return None
    low = estimate - table[f"{name}_low"].to_numpy(dtype=float)
    high = table[f"{name}_high"].to_numpy(dtype=float) - estimate
    return np.nan_to_num(np.clip(np.vstack([low, high]), 0, None))


def _x_values(values: pd.Series):
    """Positions and tick labels of an x column: numbers as they are, other values in order."""
    if pd.api.types.is_numeric_dtype(values) and not isinstance(values.dtype,
                                                                pd.CategoricalDtype):
        return values.to_numpy(dtype=float), None
    if isinstance(values.dtype, pd.CategoricalDtype):
        order = [c for c in values.cat.categories if c in set(values)]
    else:
        order = list(dict.fromkeys(values))
    position = {value: index for index, value in enumerate(order)}
    return np.array([position[v] for v in values], dtype=float), [str(v) for v in order]


def _lines(ax, table, x_column, y_column, keys, *, style="-o", suffix="", colors=None):
    """One line with error bars per group of ``keys``, y against ``x_column``; returns the
    colours used (pass them back to draw a second line per group in the same colours)."""
    x_all, ticks = _x_values(table[x_column])
    groups = (table.groupby(keys, observed=True, sort=False, dropna=False).indices if keys
              else {"": np.arange(len(table))})
    labels = _labels(table, keys) if keys else [""] * len(table)
    used = []
    # in the order of the groups' first rows (the table's order, never sorted by name)
    for index, rows in enumerate(sorted(groups.values(), key=lambda rows: rows[0])):
        part = table.iloc[rows]
        label = (labels[rows[0]] + suffix).strip(" :") or None
        color = {"color": colors[index]} if colors else {}
        fmt = style  # past the palette's colours, other markers tell the series apart
        if index >= len(PALETTE):
            fmt = style[:-1] + "^Dv"[(index // len(PALETTE) - 1) % 3]
        container = ax.errorbar(x_all[rows], part[y_column].to_numpy(dtype=float),
                                yerr=_errors(part, y_column), fmt=fmt, capsize=3, label=label,
                                **color)
        used.append(container.lines[0].get_color())
    if ticks is not None:
        _category_ticks(ax, range(len(ticks)), ticks)
    else:
        _integer_ticks(ax.xaxis)  # the x columns are counts: tricks, cards held, bids
    _legend(ax)
    return used


def _bars(ax, table, columns, keys, names=None):
    """Grouped bars: one group per row, one bar per column, with error bars."""
    labels = _labels(table, keys)
    positions = np.arange(len(table))
    width = 0.8 / len(columns)
    for index, column in enumerate(columns):
        offset = (index - (len(columns) - 1) / 2) * width
        ax.bar(positions + offset, table[column].to_numpy(dtype=float), width,
               yerr=_errors(table, column), capsize=3,
               label=(names or columns)[index])
    _category_ticks(ax, positions, labels)
    _legend(ax)


def plot_bid_accuracy(table: pd.DataFrame, *, ax=None):
    """Bars of the exact, over and under rates of number bids and the set rate of side
    contracts per group of a :func:`~spades_sim.analysis.bids.bid_accuracy` table."""
    ax = _axes(ax)
    title = "Bid accuracy (95% Wilson intervals)"
    columns = ["exact_rate", "over_rate", "under_rate", "set_rate"]
    _check(table, ["n", *columns], "plot_bid_accuracy")
    if table.empty:
        return _empty(ax, title)
    _bars(ax, table, columns, _keys_before(table, "n"),
          names=["exact (seat bids)", "over (seat bids)", "under (seat bids)",
                 "set (side contracts)"])
    ax.set_ylabel("share of bids")
    ax.set_ylim(0, 1)
    ax.set_title(title)
    return ax


def plot_tricks_minus_bid(table: pd.DataFrame, *, ax=None):
    """Share of number bids by tricks taken minus bid, one line per group of a
    :func:`~spades_sim.analysis.bids.tricks_minus_bid` table."""
    ax = _axes(ax)
    title = "Tricks taken minus bid (95% Wilson intervals)"
    _check(table, ["diff", "n", "share"], "plot_tricks_minus_bid")
    if table.empty:
        return _empty(ax, title)
    _lines(ax, table, "diff", "share", _keys_before(table, "diff"))
    ax.axvline(0, color="grey", linewidth=0.8)
    ax.set_xlabel("tricks taken - bid (tricks)")
    ax.set_ylabel("share of number bids")
    ax.set_title(title)
    return ax


def plot_calibration(table: pd.DataFrame, *, ax=None):
    """Mean bid (solid) and mean tricks taken (dashed) against the hand feature of a
    :func:`~spades_sim.analysis.bids.bid_calibration` table, one pair of lines per group."""
    ax = _axes(ax)
    _check(table, ["n", "mean_bid", "mean_tricks"], "plot_calibration")
    keys = _keys_before(table, "n")
    if not keys:
        raise AnalysisError("plot_calibration: the table has no feature column before n")
    feature, keys = keys[-1], keys[:-1]
    title = f"Bids and tricks by {feature} (95% intervals)"
    if table.empty:
        return _empty(ax, title)
    colors = _lines(ax, table, feature, "mean_bid", keys, style="-o", suffix=": bid")
    _lines(ax, table, feature, "mean_tricks", keys, style="--s", suffix=": tricks",
           colors=colors)
    ax.set_xlabel(f"{feature} in the dealt hand")
    ax.set_ylabel("mean per number bid (tricks)")
    ax.set_title(title)
    return ax


def plot_nil_success(table: pd.DataFrame, *, ax=None):
    """Nil success rate with Wilson intervals: bars per group of a
    :func:`~spades_sim.analysis.nil.nil_success` (or ``nil_value``) table, or lines against
    the feature of a ``nil_by_feature`` table or the partner's bid of ``nil_by_partner_bid``."""
    ax = _axes(ax)
    _check(table, ["n", "rate"], "plot_nil_success")
    keys = _keys_before(table, "n")
    x_column = keys[-1] if keys and keys[-1] in (*FEATURES, "partner_bid") else None
    title = "Nil success" + (f" by {x_column}" if x_column else "") + " (95% Wilson intervals)"
    if table.empty:
        return _empty(ax, title)
    if x_column:
        _lines(ax, table, x_column, "rate", keys[:-1])
        ax.set_xlabel("partner's bid" if x_column == "partner_bid"
                      else f"{x_column} in the nil bidder's dealt hand")
    else:
        _bars(ax, table, ["rate"], keys)
    ax.set_ylabel("share of nil bids made")
    ax.set_ylim(0, 1)
    ax.set_title(title)
    return ax


def plot_paired_effects(table: pd.DataFrame, *, metric: str | None = None, ax=None):
    """Paired differences from the baseline with their t intervals, one horizontal bar per
    configuration (and group) of a :func:`~spades_sim.analysis.effects.paired_effects` table.

    With one metric in the table (or ``metric`` given) the axis is in that metric's unit. With
    several, each difference is divided by the baseline's per-hand standard deviation
    (``baseline_sd``) so that points and shares share one axis (standardised effects).
    """
    ax = _axes(ax)
    _check(table, ["metric", "n", "diff", "baseline_sd"], "plot_paired_effects")
    if metric is not None:
        if metric not in METRICS:
            raise AnalysisError(f"plot_paired_effects: metric {metric!r}: expected one of "
                             f"{', '.join(METRICS)}")
        table = table.loc[table["metric"].astype(str) == metric]
    baseline = str(table["baseline"].iloc[0]) if len(table) and "baseline" in table else "?"
    title = f"Paired effects vs {baseline} (95% t intervals)"
    if table.empty:
        return _empty(ax, title)
    table = table.reset_index(drop=True)
    metrics = list(dict.fromkeys(table["metric"].astype(str)))
    keys = [k for k in _keys_before(table, "n") if k != "baseline"]
    scale = np.ones(len(table))
    if len(metrics) == 1:
        xlabel = f"difference from {baseline} ({METRICS.get(metrics[0], metrics[0])})"
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            scale = 1 / table["baseline_sd"].to_numpy(dtype=float)
        scale[~np.isfinite(scale)] = np.nan
        xlabel = f"difference from {baseline} (baseline per-hand standard deviations)"
    errors = _errors(table, "diff")
    positions = np.arange(len(table))[::-1]
    ax.errorbar(table["diff"].to_numpy(dtype=float) * scale, positions,
                xerr=None if errors is None else np.nan_to_num(errors * scale), fmt="o",
                capsize=3)
    ax.axvline(0, color="grey", linewidth=0.8)
    ax.set_yticks(positions, [_wrap(label) for label in _labels(table, keys)],
                  fontsize="small")
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    return ax


def plot_game_lengths(table: pd.DataFrame, *, ax=None):
    """Mean game length in hands with its 95% interval, one bar per group of a
    :func:`~spades_sim.analysis.effects.game_effects` table."""
    ax = _axes(ax)
    title = "Game length (95% intervals)"
    _check(table, ["games", "mean_hands"], "plot_game_lengths")
    if table.empty:
        return _empty(ax, title)
    _bars(ax, table, ["mean_hands"], _keys_before(table, "games"))
    ax.set_ylabel("mean game length (hands)")
    _integer_ticks(ax.yaxis)
    ax.set_title(title)
    return ax


def plot_ratings(table: pd.DataFrame, *, ax=None):
    """Bradley-Terry ratings (Elo scale) with their 95% intervals, one row per strategy of a
    ratings table (``evaluate.tournament_ratings``), the best at the top."""
    ax = _axes(ax)
    title = "Tournament ratings (95% intervals)"
    _check(table, ["strategy", "rating"], "plot_ratings")
    if table.empty:
        return _empty(ax, title)
    table = table.sort_values("rating").reset_index(drop=True)
    positions = np.arange(len(table))
    ax.errorbar(table["rating"].to_numpy(dtype=float), positions,
                xerr=_errors(table, "rating"), fmt="o", capsize=3)
    ax.axvline(0, color="grey", linewidth=0.8)
    ax.set_yticks(positions, [_wrap(label) for label in table["strategy"]], fontsize="small")
    ax.set_xlabel("rating (Elo scale, mean 0)")
    ax.set_title(title)
    return ax


def plot_bids_against_par(table: pd.DataFrame, *, ax=None):
    """Mean side contract minus par (double-dummy tricks) with its 95% interval, one bar per
    group of a :func:`~spades_sim.analysis.par.bids_against_par` table."""
    ax = _axes(ax)
    title = "Side contracts against par (95% intervals)"
    _check(table, ["n", "bid_minus_par"], "plot_bids_against_par")
    if table.empty:
        return _empty(ax, title)
    _bars(ax, table, ["bid_minus_par"], _keys_before(table, "n"))
    ax.axhline(0, color="grey", linewidth=0.8)
    ax.set_ylabel("mean contract - par (tricks per side-hand)")
    ax.set_title(title)
    return ax


def plot_tricks_against_par(table: pd.DataFrame, *, ax=None):
    """The tricks taken against par, per group of a
    :func:`~spades_sim.analysis.par.tricks_against_par` table: the mean of ``tricks - par``
    and of ``|tricks - par|`` (the tricks that changed hands), with 95% intervals."""
    ax = _axes(ax)
    title = "Tricks taken against par (95% intervals)"
    _check(table, ["n", "tricks_minus_par", "off_par"], "plot_tricks_against_par")
    if table.empty:
        return _empty(ax, title)
    _bars(ax, table, ["tricks_minus_par", "off_par"], _keys_before(table, "n"),
          names=["tricks - par", "|tricks - par|"])
    ax.axhline(0, color="grey", linewidth=0.8)
    ax.set_ylabel("mean per side-hand (tricks)")
    ax.set_title(title)
    return ax


def label_overlaps(fig, tolerance: float = 1.0) -> list[tuple[str, str]]:
    """The pairs of drawn texts of a matplotlib figure (titles, axis labels, tick labels,
    legend entries, annotations) that overlap by more than ``tolerance`` pixels: ``[(text,
    text), ...]``, empty when no label covers another. The boxes are the renderer's own
    (``Text.get_window_extent``), turned with a rotated text (its box is then its glyphs' strip,
    not the upright rectangle around it), so no browser is needed. Tick labels of ticks
    outside the axis's view (laid out, never drawn) and texts of hidden panels are left out.

    >>> from matplotlib.figure import Figure
    >>> fig = Figure(figsize=(2, 2))
    >>> ax = fig.add_subplot()
    >>> _ = ax.set_xticks(range(3), ["a long label", "another long one", "and a third"])
    >>> label_overlaps(fig)[:1]
    [('a long label', 'another long one')]
    >>> _ = ax.set_xticks(range(3), ["a long label", "another long one", "and a third"],
    ...                   rotation=90)
    >>> label_overlaps(fig)
    []
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text

    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)  # (attaches itself: a figure made without pyplot has no renderer)
    fig.canvas.draw()  # the layout (constrained) placed, as when the figure is saved
    renderer = fig.canvas.get_renderer()
    undrawn = _undrawn_tick_labels(fig)
    shapes = []
    for artist in fig.findobj(Text):
        if (id(artist) in undrawn or not artist.get_visible() or not artist.get_text().strip()
                or (artist.axes is not None and not artist.axes.get_visible())):
            continue
        box = artist.get_window_extent(renderer)
        if box.width > 0 and box.height > 0:
            shapes.append((artist.get_text(), _text_corners(artist, box, renderer)))
    found = []
    for index, (text, corners) in enumerate(shapes):
        for other, other_corners in shapes[index + 1:]:
            if _overlap(corners, other_corners) > tolerance:
                found.append((text, other))
    return found


def _undrawn_tick_labels(fig) -> set:
    """The ids of the tick labels whose ticks lie outside their axis's view (not drawn)."""
    undrawn = set()
    for axes in fig.axes:
        for axis in (axes.xaxis, axes.yaxis):
            low, high = sorted(axis.get_view_interval())
            margin = 1e-9 * max(1.0, abs(high - low))
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                location = tick.get_loc()
                if location is None or not low - margin <= location <= high + margin:
                    undrawn.update((id(tick.label1), id(tick.label2)))
    return undrawn


def _text_corners(artist, box, renderer):
    """The four corners (pixels) of a text's glyph strip: its upright box when not rotated,
    else the rotated rectangle whose upright box is ``box``."""
    import numpy as np

    upright = np.array([[box.x0, box.y0], [box.x1, box.y0], [box.x1, box.y1], [box.x0, box.y1]])
    angle = np.deg2rad(artist.get_rotation() % 180)
    cos, sin = abs(np.cos(angle)), abs(np.sin(angle))
    determinant = cos * cos - sin * sin
    if sin < 1e-6 or cos < 1e-6 or abs(determinant) < 0.2:  # upright, vertical or near 45
        return upright
    # box.width = w cos + h sin, box.height = w sin + h cos: the strip's length w, height h
    length = (box.width * cos - box.height * sin) / determinant
    height = (box.height * cos - box.width * sin) / determinant
    if length <= 0 or height <= 0:
        return upright
    centre = np.array([(box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2])
    along = np.array([np.cos(angle), np.sin(angle)])
    across = np.array([-along[1], along[0]])
    return np.array([centre + sign_a * length / 2 * along + sign_b * height / 2 * across
                     for sign_a, sign_b in ((-1, -1), (1, -1), (1, 1), (-1, 1))])


def _overlap(first, second) -> float:
    """How far two convex quadrilaterals overlap (pixels) along the axis that separates them
    best (separating axes): 0 or less when they do not overlap."""
    import numpy as np

    least = np.inf
    for corners in (first, second):
        for index in range(4):
            edge = corners[(index + 1) % 4] - corners[index]
            normal = np.array([-edge[1], edge[0]])
            normal = normal / (np.hypot(*normal) or 1.0)
            a, b = first @ normal, second @ normal
            least = min(least, min(a.max(), b.max()) - max(a.min(), b.min()))
    return float(least)
