"""Plots: each returns an Axes, draws on a given one, works under Agg and survives an empty
table; intervals become error bars."""

import matplotlib
import numpy as np
import pytest
from matplotlib.axes import Axes
from matplotlib.container import ErrorbarContainer
from matplotlib.figure import Figure

from spades_sim.analysis import bids, effects, nil, plots
from spades_sim.core.rules import preset
from spades_sim.run import make_config, simulate


@pytest.fixture(autouse=True, scope="module")
def agg_backend():
    """The Agg backend, chosen here (library code never picks a backend)."""
    previous = matplotlib.get_backend()
    matplotlib.use("Agg")
    yield
    matplotlib.use(previous)


MIXED = ["heuristic", "random", "heuristic:aggression=1", "random:bid_max=6"]


@pytest.fixture(scope="module")
def tables():
    configs = [make_config("a", preset("classic"), MIXED),
               make_config("s", preset("simple"), ["heuristic"])]
    hands = simulate(configs, n_hands=2_000, seed=5, chunk_size=1_000)
    games = simulate(configs, n_games=20, seed=5, chunk_size=10)
    return {
        "plot_bid_accuracy": bids.bid_accuracy(hands),
        "plot_tricks_minus_bid": bids.tricks_minus_bid(hands),
        "plot_calibration": bids.bid_calibration(hands, "hcp", by=("config",)),
        "plot_nil_success": nil.nil_success(hands),
        "plot_paired_effects": effects.paired_effects(hands, "a"),
        "plot_game_lengths": effects.game_effects(games),
    }


NAMES = ["plot_bid_accuracy", "plot_tricks_minus_bid", "plot_calibration", "plot_nil_success",
         "plot_paired_effects", "plot_game_lengths"]


def error_bars(ax) -> list:
    """The error-bar segments drawn on the Axes."""
    return [segment for container in ax.containers if isinstance(container, ErrorbarContainer)
            for collection in container.lines[2] for segment in collection.get_segments()]


@pytest.mark.parametrize("name", NAMES)
def test_plot_returns_its_own_axes(tables, name):
    ax = getattr(plots, name)(tables[name])
    assert isinstance(ax, Axes)
    assert ax.get_title()
    assert ax.get_ylabel() or ax.get_xlabel()
    assert ax.has_data()
    assert len(error_bars(ax)) >= len(tables[name])
    ax.figure.canvas.draw()  # renders under Agg
    import matplotlib.pyplot as plt

    assert plt.get_fignums() == []  # a figure outside pyplot: nothing left to close


@pytest.mark.parametrize("name", NAMES)
def test_plot_draws_on_a_given_axes(tables, name):
    figure = Figure()
    ax = figure.add_subplot()
    assert getattr(plots, name)(tables[name], ax=ax) is ax
    assert ax.has_data()


@pytest.mark.parametrize("name", NAMES)
def test_plot_of_an_empty_table_says_no_data(tables, name):
    ax = getattr(plots, name)(tables[name].iloc[:0])
    assert isinstance(ax, Axes) and ax.get_title()
    assert not ax.has_data()
    assert [text.get_text() for text in ax.texts] == ["no data"]
    ax.figure.canvas.draw()


@pytest.mark.parametrize("name", NAMES)
def test_plot_of_a_wrong_table_is_refused(tables, name):
    with pytest.raises(ValueError, match="lacks column"):
        getattr(plots, name)(tables[name].iloc[:, :1])  # the first key only


def test_other_nil_tables_plot_against_their_x():
    configs = [make_config("a", preset("classic"), MIXED)]
    hands = simulate(configs, n_hands=1_000, seed=6, chunk_size=1_000)
    ax = plots.plot_nil_success(nil.nil_by_feature(hands, "spades"))
    assert "spades" in ax.get_xlabel()
    ax = plots.plot_nil_success(nil.nil_by_partner_bid(hands))
    assert ax.get_xlabel() == "partner's bid"
    assert "nil" in [tick.get_text() for tick in ax.get_xticklabels()]


def test_error_bars_span_the_interval(tables):
    table = tables["plot_game_lengths"]
    ax = plots.plot_game_lengths(table)
    ends = sorted((float(seg[:, 1].min()), float(seg[:, 1].max())) for seg in error_bars(ax))
    expected = sorted(zip(table["mean_hands_low"], table["mean_hands_high"]))
    assert np.allclose(ends, expected)


def test_paired_effects_plot_units(tables):
    table = tables["plot_paired_effects"]
    ax = plots.plot_paired_effects(table, metric="score")
    assert "points" in ax.get_xlabel()
    assert len(ax.get_yticklabels()) == 1  # s (the baseline a is not compared with itself)
    ax = plots.plot_paired_effects(table)
    assert "standard deviations" in ax.get_xlabel()
    with pytest.raises(ValueError, match="metric"):
        plots.plot_paired_effects(table, metric="luck")


# -- figures worth looking at: palette, legends, integer ticks, the table's order ----------------
def test_plots_use_the_colour_blind_safe_palette(tables):
    from matplotlib.colors import to_hex

    assert plots.PALETTE[0] == "#E69F00" and plots.PALETTE[-1] == "#000000"  # black last
    ax = plots.plot_tricks_minus_bid(tables["plot_tricks_minus_bid"])
    colours = [to_hex(c.lines[0].get_color()) for c in ax.containers]
    assert colours[:3] == [c.lower() for c in plots.PALETTE[:3]]
    bars = plots.plot_bid_accuracy(tables["plot_bid_accuracy"])
    assert to_hex(bars.patches[0].get_facecolor()) == plots.PALETTE[0].lower()


def test_legend_outside_the_axes_and_only_for_several_series(tables):
    for name in ("plot_bid_accuracy", "plot_tricks_minus_bid", "plot_calibration"):
        ax = getattr(plots, name)(tables[name])
        ax.figure.canvas.draw()
        legend = ax.get_legend()
        assert legend is not None and len(legend.get_texts()) > 1, name
        assert not legend.get_window_extent().overlaps(ax.get_window_extent()), name
    one = plots.plot_game_lengths(tables["plot_game_lengths"])  # one series: no legend
    assert one.get_legend() is None
    single = tables["plot_tricks_minus_bid"]
    single = single[(single["config"] == "s")]
    assert plots.plot_tricks_minus_bid(single).get_legend() is None


def test_count_axes_have_integer_ticks(tables):
    ax = plots.plot_tricks_minus_bid(tables["plot_tricks_minus_bid"])
    ax.figure.canvas.draw()
    ticks = ax.get_xticks()
    assert len(ticks) > 1 and np.allclose(ticks, np.round(ticks))
    ax = plots.plot_game_lengths(tables["plot_game_lengths"])
    ax.set_ylim(10.2, 13.9)  # a narrow range would get ticks at halves without the locator
    ax.figure.canvas.draw()
    assert np.allclose(ax.get_yticks(), np.round(ax.get_yticks()))


def test_plots_keep_the_row_order_they_are_given(tables):
    table = tables["plot_bid_accuracy"]
    backwards = table.iloc[::-1].reset_index(drop=True)
    ticks = [t.get_text() for t in plots.plot_bid_accuracy(backwards).get_xticklabels()]
    assert ticks == [f"{c} / {s}" for c, s in zip(backwards["config"], backwards["strategy"])]
    assert ticks != sorted(ticks)
    lines = tables["plot_tricks_minus_bid"]
    lines = lines.iloc[np.argsort(lines["config"] != "s", kind="stable")]  # "s" first
    labels = plots.plot_tricks_minus_bid(lines).get_legend_handles_labels()[1]
    assert labels[0].startswith("s / ") and labels[-1].startswith("a / ")


def test_many_category_labels_are_rotated(tables):
    ax = plots.plot_bid_accuracy(tables["plot_bid_accuracy"])
    assert len(ax.get_xticklabels()) > 3
    assert all(t.get_rotation() == 35 and t.get_ha() == "right" for t in ax.get_xticklabels())
