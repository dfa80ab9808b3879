"""`spades-sim run` and `spades-sim report`: one tiny experiment, run once for the module."""

import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from spades_sim import report
from spades_sim.cli import main
from spades_sim.core.errors import RunError
from spades_sim.report import model as report_model

TINY = """\
name = "tiny"
title = "A tiny experiment"
question = "Does the report build?"
seed = 5
hands = 300
games = 6
chunk_size = 150
games_chunk_size = 3
analyses = ["variant_effects", "bid_accuracy", "nil", "games", "strategies"]
baseline = "classic"

[[config]]
name = "classic"
rules = "classic"
strategy = "heuristic"

[[grid]]
name = "aggr={aggression}"
rules = "classic"
strategies = { side0 = "heuristic", side1 = "random" }
params = { aggression = [1] }

[[config]]
name = "jokers"
rules = "jokers"
rule = { target = 300 }

[[config]]
name = "three"
rules = "cutthroat"

[tournament]
strategies = ["heuristic", "cautious", "random"]
games = 4
chunk_size = 2
"""
SECTIONS = ("variant_effects", "bid_accuracy", "nil", "games", "strategies")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("experiment")
    path = root / "tiny.toml"
    path.write_text(TINY)
    results, reports = root / "results", root / "reports"
    out = subprocess.run([sys.executable, "-m", "spades_sim.cli", "run", str(path), "--out",
                          str(results), "--reports", str(reports), "--quiet"],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    index = Path(out.stdout.strip().splitlines()[-1])
    return {"path": path, "results": results, "reports": reports, "index": index,
            "stdout": out.stdout}


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name in ("href", "src"):
            if attrs.get(name):
                self.links.append(attrs[name])
        if attrs.get("id"):
            self.ids.add(attrs["id"])


def _parse(index: Path) -> _Links:
    parser = _Links()
    parser.feed(index.read_text())
    return parser


def _without_timestamp(text: str) -> str:
    return re.sub(r'<span class="generated">[^<]*</span>', "", text)


def test_run_prints_the_report_path(built):
    index = built["index"]
    assert index == built["reports"] / "tiny" / "index.html" and index.exists()
    results = built["results"]
    assert (results / "experiment.toml").read_text() == TINY
    assert (results / "hands" / "meta.json").exists() and (results / "games" / "meta.json").exists()
    assert not list(built["reports"].glob(".*"))  # no temporary folders left


def test_every_section_and_the_setup(built):
    parser = _parse(built["index"])
    for name in (*SECTIONS, "setup", "headline", "findings", "metadata"):
        assert name in parser.ids
    text = built["index"].read_text()
    assert "Does the report build?" in text
    for config in ("classic", "aggr=1", "jokers", "three"):
        assert f"<code>{config}</code>" in text
    # the grid's aggression goes to the seats whose strategy has it (not random's)
    assert ("seat 0: heuristic:aggression=1; seat 1: random; seat 2: heuristic:aggression=1; "
            "seat 3: random") in text
    assert "target=300" in text and "95% CI" in text
    assert "three</code> (3 players) has no other configuration" in text


def test_headline_ranks_the_tested_findings(built):
    """The headline leads the page: the tested findings of all sections as one Holm family,
    those that survive first, then by |effect| / SE; the binary set rates with McNemar's p."""
    text = built["index"].read_text()
    assert text.index('id="headline"') < text.index('id="findings"')
    assert "Holm (family-wise error rate) adjustment" in text
    table = pd.read_csv(built["index"].parent / "headline.csv")
    assert list(table.columns) == ["rank", "finding", "effect", "low", "high", "unit",
                                   "effect_over_se", "p_adjusted", "verdict"]
    assert list(table["rank"]) == list(range(1, len(table) + 1))
    survives = table["verdict"].isin(["higher", "lower"]).to_numpy()
    assert not (~survives[:-1] & survives[1:]).any()  # survivors first
    for part in (table[survives], table[~survives]):
        ratio = part["effect_over_se"].abs().fillna(float("inf")).to_numpy()
        assert (ratio[:-1] >= ratio[1:]).all()
    covers = (table["low"] <= 0) & (table["high"] >= 0)
    assert (table.loc[covers, "verdict"] == "no detectable difference").all()
    paired = pd.read_csv(built["index"].parent / "variant_effects-paired.csv")
    assert set(paired.loc[paired["metric"].isin(["set", "nil"]), "method"]) == {"mcnemar"}
    assert set(paired.loc[paired["metric"] == "score", "method"]) == {"t"}
    assert "McNemar test on the" in text
    assert "Bradley-Terry against the saturated pairwise model" in text


def test_links_point_to_files(built):
    folder = built["index"].parent
    links = [link for link in _parse(built["index"]).links
             if not link.startswith(("#", "data:"))]  # (data: the empty favicon)
    assert any(link.endswith(".svg") for link in links)
    assert not any(".png" in link for link in links) and not list(folder.glob("*.png"))
    assert any(link.endswith(".csv") for link in links)
    for link in links:
        assert "://" not in link and not link.startswith("/"), link
        assert (folder / link).is_file(), link


def test_tables_load_as_csv(built):
    folder = built["index"].parent
    csvs = sorted(folder.glob("*.csv"))
    assert len(csvs) >= 10
    for path in csvs:
        frame = pd.read_csv(path)
        assert len(frame.columns) >= 2, path.name
    paired = pd.read_csv(folder / "variant_effects-paired.csv")
    # (the baseline, classic, is not compared with itself)
    assert set(paired["config"]) == {"aggr=1", "jokers"}
    assert "three" not in set(paired["config"])


def test_report_rebuild_is_identical(built, tmp_path, capsys):
    assert main(["report", str(built["results"]), "--reports", str(tmp_path)]) == 0
    index = Path(capsys.readouterr().out.strip().splitlines()[-1])
    assert index == tmp_path / "tiny" / "index.html"
    assert _without_timestamp(index.read_text()) == \
        _without_timestamp(built["index"].read_text())
    assert sorted(p.name for p in index.parent.iterdir()) == \
        sorted(p.name for p in built["index"].parent.iterdir())
    figures = sorted(index.parent.glob("*.svg"))
    assert figures
    for path in figures:  # the same data give byte-identical figures
        assert path.read_bytes() == (built["index"].parent / path.name).read_bytes(), path.name


def test_rerun_resumes_and_a_different_experiment_is_refused(built, tmp_path, capsys):
    assert main(["run", str(built["path"]), "--out", str(built["results"]), "--reports",
                 str(tmp_path), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "played 0 chunk(s)" in out
    changed = tmp_path / "changed.toml"
    changed.write_text(TINY.replace("seed = 5", "seed = 6"))
    assert main(["run", str(changed), "--out", str(built["results"]), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "holds another run (it differs in seed)" in err
    assert (built["results"] / "experiment.toml").read_text() == TINY


def test_failed_build_keeps_the_old_report(built, tmp_path, monkeypatch):
    index = report.build_report(built["results"], tmp_path)
    before = index.read_text()

    def broken(ctx, section):
        raise RuntimeError("boom")

    spec = report_model.SECTIONS["nil"]
    monkeypatch.setitem(report_model.SECTIONS, "nil", report_model.SectionSpec("nil", spec.title,
                                                                    spec.about, broken))
    with pytest.raises(RuntimeError):
        report.build_report(built["results"], tmp_path)
    assert index.read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["tiny"]


def test_a_killed_build_leaves_nothing_after_the_next(built, tmp_path):
    # What a build killed part-way (or stopped by a full disk) leaves: its temporary folder and
    # the old report renamed away; the next build removes both (a live build's would stay).
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    for name in (f".tiny.tmp-{dead.pid}", f".tiny.old-{dead.pid}"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "index.html").write_text("half")
    live = tmp_path / f".tiny.tmp-{os.getppid()}"  # a live process's build: kept
    live.mkdir()
    report.build_report(built["results"], tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["tiny", live.name])


def test_report_of_a_folder_without_results(tmp_path, capsys):
    assert main(["report", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not the results folder of an experiment" in err


def test_tournament_in_the_strategies_section(built):
    folder = built["index"].parent
    for name in ("strategies-ratings.csv", "strategies-pairwise.csv", "strategies-ratings.svg"):
        assert (folder / name).is_file(), name
    ratings = pd.read_csv(folder / "strategies-ratings.csv")
    assert list(ratings["rank"]) == [1, 2, 3]
    assert set(ratings["strategy"]) == {"heuristic", "cautious", "random"}
    assert {"rating", "rating_low", "rating_high", "games", "wins", "losses", "ties",
            "mean_diff"} <= set(ratings.columns)
    assert (ratings["rating_low"] <= ratings["rating"]).all()
    assert (ratings["games"] == 2 * 4 * 2).all()  # two opponents, 4 boards of 2 games each
    pairs = pd.read_csv(folder / "strategies-pairwise.csv")
    assert len(pairs) == 3 and (pairs["boards"] == 4).all()
    assert (pairs["mean_diff_low"] <= pairs["mean_diff"]).all()
    assert (pairs["mean_diff"] <= pairs["mean_diff_high"]).all()
    rank = dict(zip(ratings["strategy"], ratings["rank"]))
    assert all(rank[a] < rank[b] for a, b in zip(pairs["strategy"], pairs["opponent"]))
    text = built["index"].read_text()
    assert "Elo above" in text or "are not distinguishable in the tournament" in text
    assert "rates best" in text and "The tournament run" in text
    assert (built["results"] / "tournament" / "tournament.json").is_file()


def test_report_reads_the_tournament_without_playing(built, tmp_path, monkeypatch):
    match_module = sys.modules["spades_sim.evaluate.match"]
    experiment_execute = sys.modules["spades_sim.experiment.execute"]

    def refuse(*args, **kwargs):
        raise AssertionError("the report played a match")

    monkeypatch.setattr(match_module, "execute", refuse)
    monkeypatch.setattr(experiment_execute, "execute", refuse)
    # Where the Bradley-Terry model is rejected the head-to-head table leads and the findings
    # rest on it (the tiny tournament fits: a rejecting fit stands in for the shipped one's).
    from spades_sim.evaluate import Fit

    monkeypatch.setattr(sys.modules["spades_sim.evaluate.tournament"], "tournament_fit",
                        lambda strategies, matches: Fit(784.0, 790.0, 6, 1e-165, 0.05))
    index = report.build_report(built["results"], tmp_path)
    rejected = pd.read_csv(index.parent / "strategies-ratings.csv")
    fitting = pd.read_csv(built["index"].parent / "strategies-ratings.csv")
    assert rejected["rating"].tolist() == fitting["rating"].tolist()
    # The intervals are widened by sqrt(dispersion) = sqrt(784 / 6), the same for every row.
    ratio = ((rejected["rating_high"] - rejected["rating_low"])
             / (fitting["rating_high"] - fitting["rating_low"])).to_numpy()
    assert (ratio > 1).all() and np.allclose(ratio, ratio[0])
    text = index.read_text()
    assert "the rating intervals are widened 11.4 times" in text
    assert "chi-square 784.0 on 6 degrees of freedom" in text and "The model is rejected" in text
    strategies = text[text.index('id="strategies"'):]
    assert strategies.index("Head to head: mean score") < strategies.index("Tournament ratings")
    assert "head to head (round robin)" in (index.parent / "headline.csv").read_text()
    assert "Elo above" not in text and "rates best" not in text


def test_report_refuses_another_tournament(built, tmp_path):
    results = tmp_path / "results"
    shutil.copytree(built["results"], results)
    copy = results / "experiment.toml"
    copy.write_text(copy.read_text().replace("games = 4\nchunk_size = 2",
                                             "games = 5\nchunk_size = 2"))
    with pytest.raises(RunError, match="holds another tournament"):
        report.build_report(results, tmp_path / "reports")


# -- the report reads what the runs say ----------------------------------------------------------
def _copy(built, tmp_path, old=None, new=None):
    """A copy of the results folder, its experiment.toml with ``old`` replaced by ``new``."""
    results = tmp_path / "results"
    shutil.copytree(built["results"], results)
    if old is not None:
        copy = results / "experiment.toml"
        text = copy.read_text()
        assert old in text
        copy.write_text(text.replace(old, new, 1))
    return results


def _refused(capsys, results, fragment, tmp_path):
    assert main(["report", str(results), "--reports", str(tmp_path / "reports")]) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1 and captured.out == "", captured.err
    assert lines[0].startswith("spades-sim report: error: ")
    assert fragment in lines[0], lines[0]
    assert not (tmp_path / "reports" / "tiny").exists()
    return lines[0]


@pytest.mark.parametrize("old, new, fragment", [
    ("hands = 300", "hands = 400", "hands: 400 in the file, 300 in the run"),
    ("games = 6", "games = 7", "games: 7 in the file, 6 in the run"),
    ("seed = 5", "seed = 6", "seed: 6 in the file, 5 in the run"),
    ("chunk_size = 150", "chunk_size = 100", "chunk_size: 100 in the file, 150 in the run"),
    ("games_chunk_size = 3", "games_chunk_size = 2", "games_chunk_size: 2 in the file, 3 in"),
    ('rules = "jokers"\nrule = { target = 300 }', 'rules = "jokers"\nrule = { target = 400 }',
     'config "jokers" rules: jokers, target=400 in the file, jokers, target=300 in the run'),
    ('name = "three"\nrules = "cutthroat"', 'name = "three"\nrules = "two-player"',
     'config "three" rules: two-player in the file, cutthroat in the run'),
    ('name = "classic"\nrules = "classic"\nstrategy = "heuristic"',
     'name = "classic"\nrules = "classic"\nstrategy = "random"',
     'config "classic" strategies: random in the file, heuristic in the run'),
    ("params = { aggression = [1] }", "params = { aggression = [2] }",
     '"aggr=2" in the file only, "aggr=1" in the run only'),
    ('name = "three"', 'name = "trio"',
     'configurations: "trio" in the file only, "three" in the run only'),
])
def test_report_refuses_a_copy_that_contradicts_the_runs(built, tmp_path, capsys, old, new,
                                                         fragment):
    results = _copy(built, tmp_path, old, new)
    line = _refused(capsys, results, fragment, tmp_path)
    mode = "games" if old.startswith("games") else "hands"
    assert f"{results / mode} holds another run than {results / 'experiment.toml'} describes " \
           f"(it differs in " in line
    assert line.endswith("the report reads the runs: restore the file, or run it into another "
                         "folder")


def test_report_refuses_another_tournament_naming_the_difference(built, tmp_path, capsys):
    results = _copy(built, tmp_path, 'strategies = ["heuristic", "cautious", "random"]\ngames = 4',
                    'strategies = ["heuristic", "cautious", "random"]\nrule = { target = 300 }\n'
                    'games = 4')
    _refused(capsys, results, "holds another tournament than", tmp_path)
    err = _refused(capsys, results, "it differs in rules: classic, target=300 in the file, "
                                    "classic in tournament.json", tmp_path)
    assert "tournament" in err
    results = _copy(built, tmp_path / "chunk", "chunk_size = 2\n", "chunk_size = 4\n")
    _refused(capsys, results, "chunk_size: 4 in the file, 2 in the matches' meta.json", tmp_path)


def test_report_without_any_finished_chunk(built, tmp_path, capsys):
    results = _copy(built, tmp_path)
    for chunk in (results / "hands").glob("data/chunk-*.parquet"):
        chunk.unlink()
    # spades-sim report refuses every incomplete run (report.build_report, the whole run)
    _refused(capsys, results, f"{results / 'hands'}: 2 of 2 chunks missing (not finished: run "
                              f"the command again to resume)", tmp_path)
    with pytest.raises(RunError, match="no finished chunk .0 of 2.; run the experiment again"):
        report.build_report(results, tmp_path / "reports")
    for chunk in (built["results"] / "hands").glob("data/chunk-*.parquet"):  # corrupt
        (results / "hands" / chunk.name).write_bytes(b"not parquet")
    _refused(capsys, results, f"{results / 'hands'}: 2 of 2 chunks missing, 2 of them corrupt "
                              f"or unfinished files (not finished", tmp_path)
    with pytest.raises(RunError, match="no finished chunk .0 of 2; 2 corrupt or unfinished"):
        report.build_report(results, tmp_path / "reports")


@pytest.mark.parametrize("content, fragment", [
    ("", "unreadable run metadata"),
    ("{}", "unusable run metadata: no 'identity'"),
    ("[1, 2]", "unusable run metadata: expected a JSON object, found a list"),
    ('{"identity": {"seed": 5}}', "unusable run metadata: identity has no 'format'"),
    ('{"identity": {"format": 1, "seed": 5, "unit": "hands", "units": -3, "chunk_size": 150, '
     '"duplicate": false, "configs": []}}',
     "unusable run metadata: it is a run folder of format 1"),
])
def test_report_with_broken_run_metadata(built, tmp_path, capsys, content, fragment):
    results = _copy(built, tmp_path)
    (results / "hands" / "meta.json").write_text(content)
    _refused(capsys, results, f"{results / 'hands' / 'meta.json'}: {fragment}", tmp_path)


def test_report_setup_comes_from_the_runs(built, tmp_path, monkeypatch):
    from spades_sim.experiment import load_results_experiment
    from spades_sim.report.page import setup_rows
    from spades_sim.report.results import read_results
    from spades_sim.run import RunSpec, read_meta

    # What the file says beyond the runs (title, question, analyses) may change.
    results = _copy(built, tmp_path, 'question = "Does the report build?"',
                    'question = "Does it still build?"')
    saved = read_results(results, load_results_experiment(results))
    for mode in ("hands", "games"):
        assert saved.runs[mode] == RunSpec.from_identity(read_meta(results / mode)["identity"],
                                                         read_meta(results / mode)["size"]["units"])
    assert saved.experiment.configs == saved.runs["hands"].configs
    assert saved.tournament.strategies == ("heuristic", "cautious", "random")
    assert (saved.tournament.n, saved.tournament.chunk_size) == (4, 2)
    rows = setup_rows(saved.experiment)
    assert [row["name"] for row in rows] == ["classic", "aggr=1", "jokers", "three"]
    assert rows[2]["overrides"] == "target=300" and rows[3]["players"] == 3
    index = report.build_report(results, tmp_path / "reports")
    assert "Does it still build?" in index.read_text()


# -- figures and tables in the page -------------------------------------------------------------
def test_figures_are_small_svgs_with_distinct_titles(built):
    folder = built["index"].parent
    figures = sorted(folder.glob("*.svg"))
    assert len(figures) >= 8
    for path in figures:
        head = path.read_text()[:400]
        assert "<svg" in head and "<dc:date>" not in head, path.name
    assert max(path.stat().st_size for path in figures) < 400_000
    text = built["index"].read_text()
    captions = re.findall(r'<figcaption>([^<]*?)\s*(?:<span class="note">[^<]*</span>)?'
                          r"</figcaption>", text)
    assert len(captions) == len(figures) == len(set(captions))
    sections = set(re.findall(r'<h2 id="[^"]+">([^<]*)</h2>', text))
    assert not sections & set(captions)


def test_every_table_scrolls_inside_the_page(built):
    text = built["index"].read_text()
    assert text.count("<table") >= 10
    assert text.count("<table") == text.count('<div class="scroll"><table>')
    assert text.count("</table>") == text.count("</table></div>")
    assert re.search(r"\.scroll \{[^}]*overflow-x: auto", text)


def _context(built, tmp_path):
    from spades_sim.experiment import load_results_experiment

    experiment = load_results_experiment(built["results"])
    return report_model.Context(experiment, built["results"], tmp_path)


def test_facets_follow_the_configuration_order(built, tmp_path):
    ctx = _context(built, tmp_path)
    order = [c.name for c in ctx.experiment.configs]
    assert order == ["classic", "aggr=1", "jokers", "three"]
    table = pd.DataFrame({"config": sorted(order), "n": [101, 102, 103, 104]})
    table["config"] = table["config"].astype("category")  # alphabetical categories
    seen = []

    def plot(part, *, ax):
        seen.append(int(part["n"].iloc[0]))
        ax.plot([0, 1], [0, part["n"].iloc[0]])
        ax.set_title("ignored (95% Wilson intervals)")
        return ax

    section = report_model.Section("demo", "A demo section", "")
    ctx.figure(section, "facets", "Panels in order", plot, table, facet="config")
    names = dict(zip(table["n"], table["config"]))
    assert [names[n] for n in seen] == order
    assert [item.src for item in section.items] == ["demo-facets.svg"]
    assert (tmp_path / "demo-facets.svg").read_bytes().startswith(b"<?xml")


def test_a_single_bar_is_not_drawn(built, tmp_path):
    """A table of one row would draw one bar or point: no figure (the table says it)."""
    ctx = _context(built, tmp_path)
    section = report_model.Section("one", "Section one", "")
    ctx.figure(section, "a", "One bar", lambda part, *, ax: ax.bar([0], [1]),
               pd.DataFrame({"config": ["classic"], "n": [1]}))
    assert section.items == [] and not list(tmp_path.glob("*.svg"))


def test_rows_on_few_cases_are_left_out_of_figures(built, tmp_path):
    """Rows with n under 30 are not drawn, and the caption names them; a figure left with one
    row is not drawn at all."""
    ctx = _context(built, tmp_path)
    seen = []

    def plot(part, *, ax):
        seen.append(part["config"].astype(str).tolist())
        return ax

    section = report_model.Section("few", "Section few", "")
    table = pd.DataFrame({"config": ["classic", "aggr=1", "jokers", "jokers"],
                          "n": [100, 12, 40, 29]})
    ctx.figure(section, "a", "Some thin rows", plot, table)
    assert seen == [["classic", "jokers"]]
    note = section.items[0].note
    assert "aggr=1 (every row)" in note and "some rows of jokers" in note and "30" in note
    ctx.figure(section, "b", "One row left", plot, table.iloc[:2])
    assert len(section.items) == 1 and len(seen) == 1


def test_many_lines_become_panels(built, tmp_path):
    """A line plot of 12 lines or more is drawn one panel per configuration; fewer stay on
    one axes."""
    ctx = _context(built, tmp_path)
    panels = []

    def plot(part, *, ax):
        panels.append(len(part))
        return ax

    section = report_model.Section("lines", "Section lines", "")
    table = pd.DataFrame({"config": ["classic"] * 12, "strategy": [f"s{i}" for i in range(12)],
                          "n": 50})
    ctx.figure(section, "few", "Eleven lines", plot, table.iloc[:11],
               lines=("config", "strategy"))
    assert panels == [11]
    table["config"] = [f"c{i}" for i in range(12)]
    ctx.figure(section, "many", "Twelve lines", plot, table, lines=("config", "strategy"))
    assert panels[1:] == [1] * 12


def test_duplicate_figure_titles_are_refused(built, tmp_path):
    ctx = _context(built, tmp_path)
    table = pd.DataFrame({"config": ["classic", "jokers"], "n": [100, 200]})

    def plot(part, *, ax):
        return ax

    first = report_model.Section("one", "Section one", "")
    ctx.figure(first, "a", "Game length", plot, table)
    with pytest.raises(ValueError, match="a figure of that title already"):
        ctx.figure(report_model.Section("two", "Section two", ""), "b", "game  length", plot,
                   table)
    with pytest.raises(ValueError, match="repeats the section's"):
        ctx.figure(first, "c", "Section One", plot, table)
def test_win_probability_in_the_games_section(built, tmp_path, monkeypatch):
    folder = built["index"].parent
    columns = pd.read_csv(folder / "games-win-probability.csv").columns  # 6 games: too few
    assert list(columns[:5]) == ["config", "hands", "hands_to", "lead", "lead_to"]
    text = built["index"].read_text()
    games = text[text.index('id="games"'):]
    assert "Win probability by score lead and hands played (whole games)" in games
    assert "counts as not won" in games and "Strategies: classic: heuristic" in games
    # Every cell kept: the table and a heat map per configuration.
    from spades_sim.experiment import load_results_experiment
    from spades_sim.report import sections
    from spades_sim.report.model import Context, Section
    from spades_sim.report.results import read_results

    monkeypatch.setattr(sections, "WIN_MIN_GAMES", 1)
    saved = read_results(built["results"], load_results_experiment(built["results"]))
    ctx = Context(saved.experiment, built["results"], tmp_path)
    section = Section("games", "Whole games", "")
    sections._win_probability(ctx, section, ctx.frame("games"))
    table = pd.read_csv(tmp_path / "games-win-probability.csv")
    assert set(table["config"]) == {"classic", "aggr=1", "jokers", "three"}
    assert (table["games"] >= 1).all() and table["win_rate"].between(0, 1).all()
    figures = [name for name in ctx.files if not name.endswith(".csv")]
    assert len(figures) == 4 and all((tmp_path / name).exists() for name in figures)


# -- the report does not trust tournament.json ----------------------------------------------------
def _summary(results):
    import json

    path = results / "tournament" / "tournament.json"
    return path, json.loads(path.read_text())


def _write(path, data):
    import json

    path.write_text(json.dumps(data, indent=2))


def test_report_refuses_an_edited_tournament_summary(built, tmp_path, capsys):
    results = _copy(built, tmp_path)
    path, data = _summary(results)
    data["matches"][0]["mean_diff"] = -500.0
    _write(path, data)
    line = _refused(capsys, results, "the summary says mean_diff -500, its run gives", tmp_path)
    assert "the match of heuristic against cautious" in line
    _, data = _summary(built["results"])
    data["matches"][1]["ci95"] = [-1.0, 1.0]
    _write(path, data)
    _refused(capsys, results, "the summary says ci95 (-1, +1)", tmp_path)


def test_report_refuses_a_match_folder_holding_another_match(built, tmp_path, capsys):
    results = _copy(built, tmp_path)
    first, second = sorted(p for p in (results / "tournament").iterdir() if p.is_dir())[:2]
    shutil.rmtree(first)
    shutil.copytree(second, first)  # another match's run where this match's should be
    _refused(capsys, results, "holds another run than this match", tmp_path)


@pytest.mark.parametrize("change, fragment", [
    ({"strategies": 5}, "'strategies' is 5, expected a list"),
    ({"strategies": None}, "'strategies' is null, expected a list"),
    ({"matches": []}, "'matches' holds 0 matches, a round robin of 3 strategies has 3"),
    ({"matches": [1, 2, 3]}, "is not a match result"),
    ({"seed": "5"}, "'seed' is \"5\", expected an integer"),
])
def test_a_malformed_tournament_summary_is_one_line(built, tmp_path, capsys, change, fragment):
    from spades_sim.core.errors import EvaluationError
    from spades_sim.evaluate import load_tournament

    results = _copy(built, tmp_path)
    path, data = _summary(results)
    data.update(change)
    _write(path, data)
    with pytest.raises(EvaluationError) as refused:
        load_tournament(path.parent)
    assert fragment in str(refused.value) and "\n" not in str(refused.value)
    # `report` scores a summary it cannot use again from the verified runs, or refuses it
    code = main(["report", str(results), "--reports", str(tmp_path / "reports")])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    assert code == 0 or captured.err.count("\n") == 1
    if code == 0:
        assert load_tournament(path.parent).matches  # rewritten from the runs


@pytest.fixture
def full_disk(tmp_path):
    """A small tmpfs filled up to a few KiB."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(disk)],
                             capture_output=True)
    if mounted.returncode != 0:
        pytest.skip("cannot mount a small tmpfs here (needs root)")
    try:
        stats = os.statvfs(disk)
        (disk / "filler").write_bytes(b"\0" * (stats.f_bavail * stats.f_frsize - 8 * 1024))
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def test_a_full_disk_names_the_report_and_the_hand_log(built, full_disk, capsys):
    reports = full_disk / "reports"
    assert main(["report", str(built["results"]), "--reports", str(reports), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "No space left on device" in err
    assert f"{reports / 'tiny'}: cannot write the report" in err
    assert [p.name for p in reports.iterdir()] == []  # no half-written report left
    log = full_disk / "hands.jsonl"
    assert main(["simulate", "--hands", "2000", "--seed", "1", "--log", str(log)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"hand log {log}: cannot write: No space left" in err
    assert not log.exists()


def test_example_hands_are_linked_diagrams(built):
    """The worst set and a failed nil of the hands run, replayed and drawn beside the report
    (and folded in the page), as ``spades-sim hand ... --show`` draws them."""
    import re

    from spades_sim.handlog import hand_diagram, hand_record

    folder = built["index"].parent
    page = built["index"].read_text()
    for kind in ("bid_accuracy-worst-set", "nil-failed-nil"):
        path = folder / "hands" / f"{kind}.txt"
        assert f'href="hands/{kind}.txt"' in page
        text = path.read_text()
        found = re.search(r"configuration (\S+), hand (\d+), seat \d+; <a href=\"hands/"
                          + kind, page)
        assert found, kind
        obj = hand_record(built["results"] / "hands", int(found.group(2)),
                          config=found.group(1))
        assert text == hand_diagram(obj)
        assert "Tricks (leader first; * wins):" in text


def _results_context(built, tmp_path):
    from spades_sim.experiment import load_results_experiment
    from spades_sim.report.model import Context
    from spades_sim.report.results import read_results

    saved = read_results(built["results"], load_results_experiment(built["results"]))
    return Context(saved.experiment, built["results"], tmp_path)


def test_configuration_frames_are_the_whole_frame_split(built, tmp_path):
    """The report reads the hands run one configuration at a time (``report.frames``): each
    configuration's frame is exactly the whole frame's rows of it, in its order."""
    from spades_sim.report.frames import COLUMNS
    from spades_sim.run import load_run

    ctx = _results_context(built, tmp_path)
    whole = load_run(built["results"] / "hands", columns=COLUMNS)
    frames = ctx.config_frames("hands")
    assert frames.names() == sorted(["classic", "aggr=1", "jokers", "three"])
    for name in frames.names():
        part = frames.frame(name)
        expected = whole[whole["config"] == name].reset_index(drop=True)
        assert list(part.columns) == list(COLUMNS)
        for frame in (part, expected):
            for column in ("config", "strategy"):
                frame[column] = frame[column].astype(str)
        pd.testing.assert_frame_equal(part, expected, check_exact=True)


def test_per_configuration_tables_equal_the_whole_frame_tables(built, tmp_path):
    """Every analysis the report computes one configuration at a time gives exactly (values,
    order, types) the table of the whole frame; and so do the paired effects, computed one
    configuration and its baseline at a time."""
    from spades_sim.analysis.bids import bid_accuracy, bid_calibration, tricks_minus_bid
    from spades_sim.analysis.effects import paired_effects
    from spades_sim.analysis.nil import nil_by_feature, nil_by_partner_bid, nil_success
    from spades_sim.report import sections
    from spades_sim.report.frames import COLUMNS
    from spades_sim.run import load_run

    ctx = _results_context(built, tmp_path)
    whole = load_run(built["results"] / "hands", columns=COLUMNS)
    analyses = {
        "accuracy": bid_accuracy, "spread": tricks_minus_bid,
        "calibration": lambda frame: bid_calibration(frame, feature="high_cards"),
        "success": nil_success, "by_spades": lambda frame: nil_by_feature(frame),
        "by_partner": nil_by_partner_bid}
    found = ctx.per_config("hands", analyses)
    for key, function in analyses.items():
        pd.testing.assert_frame_equal(found[key], function(whole), check_exact=True, obj=key)
    partnership = ["classic", "aggr=1", "jokers"]
    part = whole[whole["config"].isin(partnership)]
    part = part.assign(config=part["config"].astype(str).astype("category"))
    expected = paired_effects(part, "classic")
    streamed, = sections._paired_effects(ctx, [(partnership, "classic")])
    # The whole frame here has no cards: the identical deals are the stored cards' alone
    # (test_deal_identity_is_measured_from_the_stored_cards).
    identical = ["identical_deals", "identical_deal_rate"]
    assert expected[identical].isna().all().all() and streamed[identical].notna().all().all()
    pd.testing.assert_frame_equal(streamed.drop(columns=identical),
                                  expected.drop(columns=identical), check_exact=True,
                                  check_categorical=False)
    assert list(streamed["config"].cat.categories) == list(expected["config"].cat.categories)


def test_report_prints_a_line_per_section_unless_quiet(built, tmp_path, capsys, monkeypatch):
    """With the figures drawn in a helper process (a large report's way), the progress lines,
    and the same figures byte for byte."""
    from spades_sim.report import page

    monkeypatch.setattr(page, "FIGURE_PROCESSES_FROM", 0)
    made, start = [], page._figure_processes
    monkeypatch.setattr(page, "_figure_processes", lambda: made.append(start()) or made[-1])
    assert main(["report", str(built["results"]), "--reports", str(tmp_path)]) == 0
    assert len(made) == 1 and (made[0] is not None or (os.cpu_count() or 1) < 2)
    err = capsys.readouterr().err.strip().splitlines()
    assert [line.split(" (")[0] for line in err] == [
        *(f"spades-sim: report: section {number} of {len(SECTIONS)}: {name}"
          for number, name in enumerate(SECTIONS, 1)),
        "spades-sim: report: figures", f"spades-sim: report: written {tmp_path / 'tiny'}"]
    figures = sorted((tmp_path / "tiny").glob("*.svg"))
    assert len(figures) >= 8
    for path in figures:
        assert path.read_bytes() == (built["index"].parent / path.name).read_bytes(), path.name
    assert main(["report", str(built["results"]), "--reports", str(tmp_path), "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_deal_identity_is_measured_from_the_stored_cards(built):
    """The paired table counts the hands dealt identical cards from the stored cards: all of
    them for the configuration dealt by the baseline's rules, none for the jokers deck; the
    setup states the measured counts."""
    paired = pd.read_csv(built["index"].parent / "variant_effects-paired.csv")
    rows = paired.drop_duplicates("config").set_index("config")
    assert rows.loc["aggr=1", "identical_deals"] == rows.loc["aggr=1", "n"]
    assert rows.loc["jokers", "identical_deals"] == 0
    text = built["index"].read_text()
    assert "paired hands (0.0%) dealt identical cards" in text


class _Headings(HTMLParser):
    """The page's h1 and h2 headings in order, as (tag, id)."""

    def __init__(self):
        super().__init__()
        self.headings = []

    def handle_starttag(self, tag, attrs):
        if tag in ("h1", "h2"):
            self.headings.append((tag, dict(attrs).get("id")))


def test_the_summary_is_the_first_section_and_the_setup_the_last(built):
    """The answer first: right after the title, the summary (its ranked findings and the table
    of what each configuration changes); the setup and the runs' metadata at the end."""
    parser = _Headings()
    parser.feed(built["index"].read_text())
    tags = [tag for tag, _ in parser.headings]
    ids = [name for _, name in parser.headings]
    assert tags[0] == "h1" and ids[1] == "summary"
    assert ids[-2:] == ["setup", "metadata"]
    assert ids.index("headline") > max(ids.index(name) for name in SECTIONS)
    text = built["index"].read_text()
    summary = text[text.index('id="summary"'):text.index("<nav>")]
    assert "What each configuration changes" in summary
    assert "target 300 (baseline 500): points that end the game" in summary
    table = pd.read_csv(built["index"].parent / "summary.csv")
    assert 1 <= len(table) <= 8 and list(table["rank"]) == list(range(1, len(table) + 1))
    assert summary.count("<li>") == len(table)
    assert not (table["low"] <= 0).to_numpy() @ (table["high"] >= 0).to_numpy()
    assert table["mode"].str.match(r"(self-play|head to head), ").all()
    assert (table["n"] > 0).all()


def test_tables_lead_with_their_answer_columns(built):
    """In the page (not the CSV) a table's names and estimates come first and are marked as
    its answer columns; headers may wrap at underscores; rows on too few cases are grey."""
    text = built["index"].read_text()
    start = text.index("<h3>Bid accuracy by configuration")
    table = text[start:text.index("</table>", start)]
    headers = re.findall(r"<th( class=\"answer\")?>(.*?)</th>", table)
    names = [name.replace("<wbr>", "") for _, name in headers]
    marked = [name for name, (answer, _) in zip(names, headers) if answer]
    assert names[:2] == ["config", "strategy"] and names.index("n") > names.index(
        "exact_rate (95% CI)")
    assert marked == [n for n in names if n in ("config", "strategy") or n.endswith("(95% CI)")]
    assert [n for n in names if n.endswith("(95% CI)")] == names[2:len(marked)]
    assert "exact_<wbr>rate" in table
    csv = pd.read_csv(built["index"].parent / "bid_accuracy-accuracy.csv")
    assert list(csv.columns[:4]) == ["config", "strategy", "n", "exact"]  # the CSV keeps order
    few = csv["n"] < 30
    assert table.count('<tr class="few">') == int(few.sum())


def test_example_hands_from_the_sections_own_pass(built, tmp_path):
    """The examples picked in a section's own pass over the configurations (example_picks)
    are the ones the examples' own pass finds: the same diagrams."""
    from spades_sim.report.examples import add_example_hands, example_picks

    kinds = ("worst-set", "failed-nil", "made-blind-nil")
    ctx = _context(built, tmp_path)
    mode = ctx.any_mode()
    picks = ctx.per_config(mode, {"picks": lambda frame: example_picks(frame, kinds)})["picks"]
    own = report_model.Section("demo", "Own pass", "")
    add_example_hands(ctx, own, kinds)
    shared = report_model.Section("demo", "Shared pass", "")
    add_example_hands(ctx, shared, kinds, picks=picks)
    assert own.notes and [str(n) for n in own.notes] == [str(n) for n in shared.notes]


def test_planned_analyses_ride_the_first_pass(built, tmp_path):
    """An analysis planned for a later section is computed in the first pass over the
    configurations and handed over later without another pass: the same table."""
    ctx = _context(built, tmp_path)
    mode = ctx.any_mode()
    calls = []

    def sizes(frame):
        calls.append(1)
        return pd.DataFrame({"config": [str(frame["config"].iloc[0])], "rows": [len(frame)]})

    ctx.plan(mode, {"later:sizes": sizes})
    first = ctx.per_config(mode, {"now:sizes": sizes})
    passes = len(calls)
    later = ctx.per_config(mode, {"later:sizes": sizes})
    assert len(calls) == passes and passes == 2 * len(first["now:sizes"])
    pd.testing.assert_frame_equal(later["later:sizes"], first["now:sizes"])


def test_nil_bids_with_cards_are_the_whole_frames(tmp_path):
    """The nil bids with their dealt cards kept as the runs are read (ConfigFrames.nil_bids,
    what the facts section reads) are the whole run's frame cut to them, row for row, in a
    run of partnership and cutthroat tables played with its cards."""
    from spades_sim.cli import main
    from spades_sim.report.frames import ConfigFrames
    from spades_sim.run import load_run

    path = tmp_path / "cards.toml"
    path.write_text('name = "cards"\nseed = 4\nhands = 400\nchunk_size = 150\ncards = true\n'
                    'analyses = ["facts"]\n'
                    '[[config]]\nname = "pairs"\nrules = "classic"\nstrategy = "nil-happy"\n'
                    '[[config]]\nname = "three"\nrules = "cutthroat"\nstrategy = "nil-happy"\n')
    assert main(["run", str(path), "--out", str(tmp_path / "results"), "--reports",
                 str(tmp_path / "reports"), "--quiet"]) == 0
    folder = tmp_path / "results" / "hands"
    columns = ["config", "duplicate", "game_id", "hand_id", "nil", "tricks"]
    whole = load_run(folder, columns=[*columns, "cards"])
    frames = ConfigFrames(folder, nil_cards=True)
    for name in ("pairs", "three"):
        expected = whole.loc[(whole["config"] == name).to_numpy()
                             & whole["nil"].to_numpy(dtype=bool)].reset_index(drop=True)
        found = frames.nil_bids(name, columns)
        assert len(found) > 20
        assert found["config"].tolist() == [name] * len(found)
        for column in columns[1:] + ["cards"]:
            assert found[column].tolist() == expected[column].tolist(), column
    assert ConfigFrames(folder).nil_bids("pairs", columns) is None
    assert (tmp_path / "reports" / "cards" / "facts-nil-by-cards.csv").exists()
