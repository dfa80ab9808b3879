"""Campaigns at cluster scale: an experiment played as shards of an array job (``run FILE
--shard I/N``, then ``report`` once every shard is in; ``status`` of its results folder), and
runs that grow (a larger size plays only the missing chunks, a smaller one reads the first)."""

import json

import pandas as pd
import pytest

from spades_sim.cli import main
from spades_sim.core.rules import preset
from spades_sim.run import RunSpec, execute, load_run, make_config, read_meta, run_status

EXPERIMENT = """\
name = "sharded"
seed = 3
hands = 1000
games = 6
chunk_size = 250
games_chunk_size = 2
analyses = ["variant_effects", "strategies"]
baseline = "classic"

[[config]]
name = "classic"
rules = "classic"

[[config]]
name = "bold"
rules = "classic"
strategy = "heuristic:aggression=1"

[tournament]
strategies = ["heuristic", "random"]
games = 4
chunk_size = 1
"""


def _chunk_bytes(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.glob("data/chunk-*.parquet"))}


def _csvs(folder):
    return {p.name: p.read_text() for p in sorted(folder.glob("*.csv"))}


def test_an_experiment_in_four_shards_equals_the_whole_run(tmp_path, capsys):
    path = tmp_path / "sharded.toml"
    path.write_text(EXPERIMENT)
    whole, sharded = tmp_path / "whole", tmp_path / "shards"
    for index in (1, 2, 3):
        assert main(["run", str(path), "--out", str(sharded), "--shard", f"{index}/4",
                     "--quiet"]) == 0
    out = capsys.readouterr().out
    assert f"shard 3/4 done; the report is built by spades-sim report {sharded}" in out
    assert not (tmp_path / "reports").exists()  # a shard builds no report

    # while shard 4/4 is missing: report refuses in one line naming what is missing
    assert main(["report", str(sharded), "--reports", str(tmp_path / "rs")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert f"{sharded / 'hands'}: 1 of 4 chunks missing (shards 4/4 not finished)" in err
    match = sharded / "tournament" / "0-1-heuristic-vs-random"
    assert f"{match}: 1 of 4 chunks missing (shards 4/4 not finished)" in err
    assert f"{sharded / 'games'}:" not in err  # 3 chunks: shard 4/4 has none of them
    assert not (tmp_path / "rs").exists()

    assert main(["status", str(sharded)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["hands", "3/4", "chunks,", "750/1,000", "hands;", "1", "of",
                                "4", "chunks", "missing", "(shards", "4/4", "not", "finished)"]
    assert lines[1].startswith("games ") and "3/3 chunks, 6/6 games" in lines[1]
    assert lines[2].startswith("tournament/0-1-heuristic-vs-random ") and "3/4 chunks" in lines[2]
    assert lines[-1] == f"{sharded}: incomplete"

    assert main(["run", str(path), "--out", str(sharded), "--shard", "4/4", "--quiet"]) == 0
    assert main(["status", str(sharded), "--json"]) == 0
    status = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert status["complete"] and [run["run"] for run in status["runs"]] == \
        ["hands", "games", "tournament/0-1-heuristic-vs-random"]
    assert all(run["done"] == run["chunks"] for run in status["runs"])

    # the file grows: the shards play only the new chunk (chunk 4, shard 1/4's)
    path.write_text(EXPERIMENT.replace("hands = 1000", "hands = 1100"))
    for index in (2, 3, 4):
        assert main(["run", str(path), "--out", str(sharded), "--shard", f"{index}/4",
                     "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "played 0 chunk(s)" in out and "played 1" not in out
    assert main(["report", str(sharded), "--reports", str(tmp_path / "rs")]) == 2
    assert f"{sharded / 'hands'}: 1 of 5 chunks missing (shards 1/4 not finished)" in \
        capsys.readouterr().err
    assert main(["run", str(path), "--out", str(sharded), "--shard", "1/4", "--quiet"]) == 0
    assert "hands (shard 1/4): played 1 chunk(s), skipped 1 already done; 100 hands" in \
        capsys.readouterr().out
    assert main(["report", str(sharded), "--reports", str(tmp_path / "rs")]) == 0
    assert "1,100 hands" in (tmp_path / "rs" / "sharded" / "index.html").read_text()

    # the same experiment run whole: the same runs, chunk for chunk, and the same tables
    assert main(["run", str(path), "--out", str(whole), "--reports", str(tmp_path / "rw"),
                 "--quiet"]) == 0
    for run in ("hands", "games", "tournament/0-1-heuristic-vs-random"):
        pd.testing.assert_frame_equal(load_run(sharded / run), load_run(whole / run))
        assert read_meta(sharded / run)["chunks"] == read_meta(whole / run)["chunks"]
    tables = _csvs(tmp_path / "rs" / "sharded")
    assert len(tables) >= 4 and "strategies-ratings.csv" in tables
    assert tables == _csvs(tmp_path / "rw" / "sharded")
    assert run_status(sharded / "hands")["units_done"] == 1100


def _spec(n, games=False, seed=7, chunk_size=500):
    config = make_config("c", preset("classic"), ["heuristic"])
    units = {"n_games": n} if games else {"n_hands": n}
    return RunSpec((config,), seed, chunk_size=chunk_size, **units)


@pytest.mark.parametrize("n, games, chunk_size", [
    (1000, False, 500),  # a multiple of the chunk size
    (1250, False, 500),  # a partial last chunk, replaced by a whole one
    (5, True, 4),  # games: the partial chunk 1 holds one game, a whole one four
])
def test_a_grown_run_equals_a_fresh_run_chunk_for_chunk(tmp_path, n, games, chunk_size):
    grown, fresh = tmp_path / "grown", tmp_path / "fresh"
    small = execute(_spec(n, games, chunk_size=chunk_size), grown, quiet=True)
    summary = execute(_spec(2 * n, games, chunk_size=chunk_size), grown, quiet=True)
    execute(_spec(2 * n, games, chunk_size=chunk_size), fresh, quiet=True)
    partial = n % chunk_size != 0
    assert summary["played_chunks"] == _spec(2 * n, games, chunk_size=chunk_size).n_chunks \
        - small["chunks"] + partial
    assert read_meta(grown)["chunks"] == read_meta(fresh)["chunks"]
    assert read_meta(grown)["size"] == read_meta(fresh)["size"] == \
        {"units": 2 * n, "chunks": _spec(2 * n, games, chunk_size=chunk_size).n_chunks}
    pd.testing.assert_frame_equal(load_run(grown), load_run(fresh))
    assert run_status(grown)["complete"]


def test_a_smaller_size_reads_the_first_chunks_and_deletes_nothing(tmp_path, capsys):
    big, small = tmp_path / "big", tmp_path / "small"
    execute(_spec(2500), big, quiet=True)
    files = _chunk_bytes(big)
    execute(_spec(1250), small, quiet=True)
    summary = execute(_spec(1250), big, quiet=True)  # the command again, --hands 1250
    assert summary["played_chunks"] == 0 and _chunk_bytes(big) == files
    assert read_meta(big)["size"] == {"units": 1250, "chunks": 3}
    frame = load_run(big)
    pd.testing.assert_frame_equal(frame, load_run(small))
    assert frame["hand_id"].nunique() == 1250
    status = run_status(big)
    assert status["complete"] and status["units_done"] == 1250 and status["beyond"] == [3, 4]
    assert main(["status", str(big)]) == 0
    assert "kept beyond this size (read again if the run grows): 2 chunk(s)" in \
        capsys.readouterr().out
    summary = execute(_spec(2500), big, quiet=True)  # and back: nothing to play
    assert summary["played_chunks"] == 0
    assert len(load_run(big)) == 2 * len(frame)


@pytest.mark.parametrize("change", [{"seed": 8}, {"chunk_size": 400}])
def test_another_seed_or_chunk_size_is_still_another_run(tmp_path, change):
    from spades_sim.core.errors import RunError

    execute(_spec(1000), tmp_path / "run", quiet=True)
    with pytest.raises(RunError, match=f"it differs in {next(iter(change))}"):
        execute(_spec(1000, **change), tmp_path / "run", quiet=True)


def test_games_read_at_a_smaller_size_equal_a_fresh_run(tmp_path):
    execute(_spec(10, games=True, chunk_size=4), tmp_path / "big", quiet=True)
    execute(_spec(5, games=True, chunk_size=4), tmp_path / "small", quiet=True)
    assert execute(_spec(5, games=True, chunk_size=4), tmp_path / "big",
                   quiet=True)["played_chunks"] == 0
    pd.testing.assert_frame_equal(load_run(tmp_path / "big"), load_run(tmp_path / "small"))


@pytest.mark.parametrize("script, submit, log", [
    ("slurm_array.sh", "sbatch", '--output="$LOGS/'),
    ("pbs_array.sh", "qsub", '-o "$LOGS/"'),
])
def test_the_array_scripts_create_every_folder_before_submitting(script, submit, log):
    import subprocess
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "examples" / script
    assert subprocess.run(["bash", "-n", str(path)]).returncode == 0
    text = path.read_text()
    made = text.index('mkdir -p "$OUT" "$REPORTS" "$LOGS"')
    assert made < text.index(f"$({submit} ") and log in text
    assert '"$SPADES" run "$EXPERIMENT" --out "$OUT"' in text and "--shard" in text
    assert '\\"$SPADES\\" report \\"$OUT\\" --reports \\"$REPORTS\\"' in text
    assert "afterany:$array" in text
