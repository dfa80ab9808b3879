"""How the report draws a figure: the one function that turns a plot and its table into an SVG
file, and the layout it uses (facets, a shared legend, the title with the plot's note on its
intervals).

Kept apart from the page model so that the processes that draw the figures beside the
analyses (``page.build_report``) import only matplotlib, pandas and the plots: a worker that
loaded the whole report (the runs, the engine and numba) held about 150 MB more for nothing.
"""

from __future__ import annotations

import os
import re
import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display: selected before pyplot is imported

import pandas as pd  # noqa: E402
from matplotlib.figure import Figure as MplFigure  # noqa: E402

from ..analysis.plots import PALETTE, place_legends_under, under_x_axis  # noqa: E402

FIGURE_FORMAT = "svg"  # vector figures: sharp at any screen resolution and zoom
FIGURE_DPI = 72  # SVG user units per inch: a figure's size in the page is its size in points
FIGURE_SIZE = (7.5, 4.2)
FIGURE_WIDTH_MAX = 10.5  # inches: facets wrap to rows instead of widening the figure
# The same data give byte-identical SVG files: fixed ids (salt), no date or software version;
# text drawn as paths (the look does not depend on the fonts of the reader's machine).
FIGURE_STYLE = {"svg.hashsalt": "spades-sim", "svg.fonttype": "path"}
FIGURE_METADATA = {"Date": None, "Creator": None}
FACET_OVER = 3  # figures with more groups than this are drawn one panel per group
FACET_COLUMNS = 3  # panels per row at most


def ready() -> None:
    """Load what draws a figure (the SVG backend): a figure process's first task, so that it
    has loaded it by the report's first figure."""
    import matplotlib.backends.backend_svg  # noqa: F401


def draw_figure(path: Path, title: str, plot, table: pd.DataFrame, size=FIGURE_SIZE,
                facet: str | None = None) -> None:
    """Draw ``plot(table, ax=ax)`` into the SVG file ``path`` as :meth:`Context.figure`
    describes (``table`` already in the configuration order); the same arguments give the
    same bytes in any process."""
    fig = render_figure(title, plot, table, size, facet)
    with matplotlib.rc_context(FIGURE_STYLE):
        fig.savefig(path, format=FIGURE_FORMAT, dpi=FIGURE_DPI, metadata=FIGURE_METADATA)


def render_figure(title: str, plot, table: pd.DataFrame, size=FIGURE_SIZE,
                  facet: str | None = None) -> MplFigure:
    """The figure :func:`draw_figure` saves (panels, legend, title), not yet written."""
    values = list(dict.fromkeys(table[facet].astype(str))) if facet else []
    if len(values) <= FACET_OVER:
        values = []
    columns = min(FACET_COLUMNS, len(values)) or 1
    rows = -(-len(values) // columns) or 1
    if values:
        size = (min(FIGURE_WIDTH_MAX, 3.4 * columns + 0.6), 2.7 * rows + 1.2)
    fig = MplFigure(figsize=size, layout="constrained")
    axes = fig.subplots(rows, columns, squeeze=False, sharex=True, sharey=True)
    for ax in axes.flat:
        ax.set_prop_cycle(color=list(PALETTE))
    if values:
        for ax, value in zip(axes.flat, values):
            part = table[table[facet].astype(str) == value]
            plot(part.drop(columns=facet).reset_index(drop=True), ax=ax)
            note = _interval_note(ax.get_title())
            ax.set_title(textwrap.fill(value, 30), fontsize="medium")
        for index, ax in enumerate(axes.flat):
            if index >= len(values):
                ax.set_visible(False)
            elif index + columns < len(values):  # a panel below shows the x axis
                ax.tick_params(axis="x", labelbottom=False)
                ax.set_xlabel("")
            if index % columns:
                ax.tick_params(axis="y", labelleft=False)
                ax.set_ylabel("")
        _facet_legend(fig, list(axes.flat)[:len(values)], values)
    else:
        ax = axes[0, 0]
        plot(table, ax=ax)
        note = _interval_note(ax.get_title())
        ax.set_title("")
        place_legends_under(fig)
    # the figure's title, centred on it (not on the axes) and wrapped to its width
    fig.suptitle(textwrap.fill(f"{title} {note}".strip(), int(size[0] * 11)))
    return fig


def _interval_note(title: str) -> str:
    """The plot's note on its intervals, the parenthesis ending its title ("(95% ...)")."""
    found = re.search(r"\(95%[^()]*\)$", title or "")
    return found.group(0) if found else ""


def _facet_legend(fig, axes, values) -> None:
    """One legend below the panels when every panel shows the same series, once the part of
    the labels that all series of a panel share ("heuristic: bid", "heuristic: tricks") moved
    to its title; else each panel keeps a legend of its own, below it. Never over the data."""
    found = [ax.get_legend_handles_labels() for ax in axes]
    shown = []
    for ax, value, (_, labels) in zip(axes, values, found):
        if ax.get_legend() is not None:
            ax.get_legend().remove()
        shared = _shared_part(labels)
        shown.append(tuple(label[len(shared):] for label in labels))
        shared = shared.rstrip(" :/")
        if shared and shared != value:
            ax.set_title(textwrap.fill(f"{value}: {shared}", 30), fontsize="medium")
    if not any(len(labels) > 1 for labels in shown):
        return
    if len(set(shown)) == 1:
        fig.legend(found[0][0], shown[0], loc="outside lower center",
                   ncols=min(4, len(shown[0])), fontsize="small", frameon=False)
        return
    # Each panel's own legend goes under its x axis: under the tick labels and axis label
    # where the panel shows them (measured once the layout is done), else just under the axes.
    for ax, (handles, _), labels in zip(axes, found, shown):
        if len(labels) > 1:
            ax.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0),
                      bbox_transform=under_x_axis(ax), ncols=2, fontsize="small",
                      frameon=False)


def _shared_part(labels) -> str:
    """The start that all of several labels share, up to a separator (": " or " / ")."""
    if len(labels) < 2:
        return ""
    prefix = os.path.commonprefix(list(labels))
    cut = max(prefix.rfind(": ") + 2, prefix.rfind(" / ") + 3, 0)
    return prefix[:cut] if cut > 1 else ""
