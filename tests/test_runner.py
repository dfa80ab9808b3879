"""Runs on disk (``spades_sim.runner``): chunked, seeded, resumable Parquet datasets.

Same seed, same bytes for any number of jobs and for the Dask backend; a run killed part way and
resumed equals an uninterrupted run; shards together equal one run; configurations in one run see
identical deals; corrupt chunk files are redone, never read; another run's directory is refused.
Chunks are a few hundred hands so the whole module takes seconds.
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

import spades_sim
from spades_sim.cli import main
from spades_sim.core.errors import RunError
from spades_sim.core.rules import preset
from spades_sim.core.schema import TIDY_COLUMNS
from spades_sim.core.seeding import stream_keys
from spades_sim.core.strategies import parse_strategy
from spades_sim.run import (
    RunSpec,
    execute,
    load_run,
    make_config,
    parse_shard,
    play_games,
    run_status,
    simulate,
    simulate_hands,
)
from spades_sim.run.folder import CHUNK_NAME, CHUNK_PATTERN, META
from spades_sim.run.frames import hand_features
from spades_sim.run.spec import shard_chunks

FEATURES = ["spades", "high_cards", "hcp", "voids", "singletons", "longest"]
MIXED = ["heuristic", "random", "heuristic:aggression=1", "random:bid_max=6"]


def cli(*args, **kwargs):
    """``spades-sim ARGS`` in a child process (the real exit status and standard error)."""
    return subprocess.run([sys.executable, "-m", "spades_sim.cli", *args], capture_output=True,
                          text=True, timeout=300, **kwargs)


def reference_spec(**changes) -> RunSpec:
    """Two configurations (all-heuristic, and mixed strategies with random players, so the play
    stream matters), 1,100 hands in chunks of 300 (the last one short)."""
    configs = (make_config("classic", preset("classic"), ["heuristic"]),
               make_config("mixed", preset("classic"), MIXED))
    fields = {"configs": configs, "seed": 11, "n_hands": 1100, "chunk_size": 300, **changes}
    return RunSpec(**fields)


def chunk_files(out) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(Path(out).glob("data/chunk-*.parquet"))}


def leftovers(out) -> list[str]:
    return sorted(p.name for p in Path(out).iterdir() if p.name.endswith(".tmp"))


def assert_same_run(a, b) -> None:
    """Byte-identical chunk files, and equal ``load_run`` frames."""
    files_a, files_b = chunk_files(a), chunk_files(b)
    assert sorted(files_a) == sorted(files_b)
    for name in files_a:
        assert files_a[name] == files_b[name], name
    pd.testing.assert_frame_equal(load_run(a), load_run(b))


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The reference run, uninterrupted, one job."""
    out = tmp_path_factory.mktemp("reference")
    summary = execute(reference_spec(), out, jobs=1, quiet=True)
    assert summary["played_chunks"] == 4 and summary["units"] == 1100
    return out


@pytest.fixture(scope="module")
def ref_frame(reference):
    return load_run(reference)


# -- seeds -----------------------------------------------------------------------------------------
def test_stream_keys_come_from_the_seed():
    child = np.random.SeedSequence(42, spawn_key=(0,))
    expected = tuple(child.generate_state(2, dtype=np.uint64))
    assert stream_keys(42) == expected
    deal, play = stream_keys(42)
    assert deal != play  # separate streams for dealing and play
    assert stream_keys(43) != stream_keys(42)


def test_results_do_not_depend_on_the_chunk_size():
    # One seeding scheme: every hand is seeded by the run's seed and its own id, so chunks of
    # any size, and the in-memory runs, play the same hands.
    config = [("c", preset("classic"), ["heuristic"])]
    whole = simulate(config, n_hands=700, seed=9, chunk_size=700).drop(columns="chunk")
    pieces = simulate(config, n_hands=700, seed=9, chunk_size=128).drop(columns="chunk")
    pd.testing.assert_frame_equal(whole, pieces)
    memory = simulate_hands(preset("classic"), [parse_strategy("heuristic")] * 4, 700, 9).frame()
    for column in ("hand_id", "bid", "tricks", "score_delta", "bags_after"):
        assert (memory[column].to_numpy() == whole[column].to_numpy()).all(), column
    games = simulate(config, n_games=30, seed=9, chunk_size=7).drop(columns="chunk")
    in_memory = play_games(preset("classic"), [parse_strategy("heuristic")] * 4, 30, 9).frame()
    for column in ("game_id", "hand_id", "tricks", "score_delta", "game_over", "game_winner"):
        assert (in_memory[column].to_numpy() == games[column].to_numpy()).all(), column


# -- the dataset: schema, meta.json, atomic files --------------------------------------------------
def test_schema_one_row_per_hand_and_seat(reference, ref_frame):
    frame = ref_frame
    assert list(frame.columns) == list(TIDY_COLUMNS)
    for name in ("config", "rules", "strategy"):
        assert isinstance(frame[name].dtype, pd.CategoricalDtype), name
    # Scores cannot overflow int64, nor bag counters int32 (core/rules.py, BOUNDS).
    for name in ("score_before", "score_delta"):
        assert frame[name].dtype == np.int64, name
    for name in ("bags_before", "bags_after"):
        assert frame[name].dtype == np.int32, name
    assert len(frame) == 1100 * 4 * 2
    assert frame.groupby(["config", "hand_id", "seat"]).size().eq(1).all()
    assert sorted(frame["hand_id"].unique()) == list(range(1100))
    assert (frame["chunk"] == frame["hand_id"] // 300).all()
    assert not frame["duplicate"].any()
    assert (frame["side"] == frame["seat"] % 2).all()
    tricks = frame.groupby(["config", "hand_id"])["tricks"].sum()
    assert (tricks == 13).all()
    # The side columns repeat the side's values: partners agree.
    side = frame.groupby(["config", "hand_id", "side"])
    for column in ("side_contract", "side_taken", "score_delta", "bags_after", "score_before"):
        assert (side[column].nunique() == 1).all(), column
    mixed = frame[frame["config"] == "mixed"]
    by_seat = mixed.groupby("seat", observed=True)["strategy"].first()
    assert [str(by_seat[s]) for s in range(4)] == [
        str(x) for x in make_config("m", preset("classic"), MIXED).strategies]


def test_meta_json_and_atomic_files(reference):
    names = sorted(p.name for p in reference.iterdir())
    assert names == sorted([META, "data"])  # (the chunks in data/, nothing else there)
    assert sorted(p.name for p in (reference / "data").iterdir()) == [
        CHUNK_NAME.format(c) for c in range(4)]
    assert leftovers(reference) == []
    meta = json.loads((reference / META).read_text())
    assert meta["identity"] == reference_spec().identity()
    assert meta["identity"]["seed"] == 11 and meta["identity"]["chunk_size"] == 300
    assert meta["columns"] == list(TIDY_COLUMNS)
    assert {"spades_sim", "numpy", "numba", "pyarrow", "pandas", "python"} <= set(meta["versions"])
    assert "commit" in meta and meta["created"].endswith("Z")
    rows = [pq.read_metadata(reference / CHUNK_PATTERN.format(c)).num_rows for c in range(4)]
    assert rows == [300 * 2, 300 * 2, 300 * 2, 200 * 2]  # one row per hand and configuration


def test_load_run_selected_columns(reference, ref_frame):
    part = load_run(reference, columns=["config", "hand_id", "seat", "score_delta"])
    pd.testing.assert_frame_equal(part, ref_frame[["config", "hand_id", "seat", "score_delta"]])
    assert spades_sim.load_run is load_run and spades_sim.simulate is simulate


# -- reproducibility: jobs, backends, the in-memory API --------------------------------------------
def test_two_jobs_give_identical_parquet(reference, tmp_path):
    summary = execute(reference_spec(), tmp_path, jobs=2, quiet=True)
    assert summary["played_chunks"] == 4
    assert_same_run(reference, tmp_path)
    assert leftovers(tmp_path) == []


def test_dask_local_cluster_gives_identical_parquet(reference, tmp_path):
    # Two worker processes (as on a real cluster: each its own interpreter, sharing this
    # machine's numba cache, already filled by the reference run): every worker loads the
    # kernels through the warm-up plug-in before its first chunk, and the chunks are the bytes
    # of the one-job run.
    distributed = pytest.importorskip("distributed")
    from spades_sim.run import dask_warm

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        summary = execute(reference_spec(), tmp_path, backend="dask",
                          scheduler=cluster.scheduler_address, quiet=True)
        with distributed.Client(cluster) as client:
            warmed = client.run(lambda: list(dask_warm.WARMED))
            tasks = client.run(lambda dask_worker: dask_worker.state.executed_count)
    assert summary["played_chunks"] == 4
    assert_same_run(reference, tmp_path)
    assert len(warmed) == 2
    assert all(runs == [(False, False, False, runs[0][3])] for runs in warmed.values()), warmed
    assert sum(tasks.values()) >= 4  # the chunks ran on the workers


def test_cli_run_equals_api_run(tmp_path):
    out = tmp_path / "cli"
    result = cli("simulate", "--hands", "700", "--chunk-size", "250", "--seed", "5", "--jobs",
                 "2", "--out", str(out), "--json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["played_chunks"] == 3 and summary["units"] == 700
    assert result.stderr == ""  # no progress bar when standard error is not a terminal
    spec = RunSpec((make_config("classic", preset("classic"), ["heuristic"]),), 5, n_hands=700,
                   chunk_size=250)
    execute(spec, tmp_path / "api", quiet=True)
    assert_same_run(out, tmp_path / "api")


def test_simulate_api_equals_the_run_on_disk(ref_frame):
    spec = reference_spec()
    frame = simulate(spec.configs, n_hands=1100, seed=11, chunk_size=300)
    pd.testing.assert_frame_equal(frame, ref_frame)
    as_tuples = [("classic", preset("classic"), ["heuristic"]),
                 ("mixed", preset("classic"), MIXED)]
    frame = simulate(as_tuples, n_hands=1100, seed=11, chunk_size=300, jobs=2)
    pd.testing.assert_frame_equal(frame, ref_frame)


def test_results_depend_on_seed_and_chunk_size(ref_frame):
    spec = reference_spec()
    other_seed = simulate(spec.configs, n_hands=1100, seed=12, chunk_size=300)
    assert not other_seed["score_delta"].equals(ref_frame["score_delta"])
    same_first_chunk = simulate(spec.configs, n_hands=300, seed=11, chunk_size=300)
    pd.testing.assert_frame_equal(
        same_first_chunk, ref_frame[ref_frame["chunk"] == 0].reset_index(drop=True),
        check_categorical=False)


# -- resume and integrity --------------------------------------------------------------------------
def _kill_part_way(command, out, at_least):
    """Start ``command``, SIGKILL its process group once ``at_least`` chunk files exist."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               start_new_session=True)
    deadline = time.monotonic() + 300
    try:
        while time.monotonic() < deadline and process.poll() is None:
            if out.exists() and len(list(out.glob("data/chunk-*.parquet"))) >= at_least:
                break
            time.sleep(0.002)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=60)
    return process


@pytest.mark.parametrize("jobs", [1, 2])
def test_killed_run_resumes_to_the_uninterrupted_result(tmp_path, jobs):
    out = tmp_path / "killed"
    args = ["simulate", "--hands", "24000", "--chunk-size", "300", "--seed", "9", "--jobs",
            str(jobs), "--out", str(out)]
    process = _kill_part_way([sys.executable, "-m", "spades_sim.cli", *args], out, at_least=3)
    assert process.returncode == -signal.SIGKILL, "the run finished before it could be killed"
    status = run_status(out)
    assert 0 < status["done"] < status["chunks"] == 80
    # Whatever the kill left behind is never read: only finished chunks load.
    partial = load_run(out, columns=["chunk", "hand_id"])
    assert len(partial) == status["units_done"] * 4
    result = cli(*args, "--json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["skipped_chunks"] >= status["done"]
    assert summary["played_chunks"] + summary["skipped_chunks"] == 80
    assert run_status(out)["complete"]
    spec = RunSpec((make_config("classic", preset("classic"), ["heuristic"]),), 9,
                   n_hands=24000, chunk_size=300)
    execute(spec, tmp_path / "whole", quiet=True)
    assert_same_run(out, tmp_path / "whole")
    again = json.loads(cli(*args, "--json").stdout)
    assert again["played_chunks"] == 0 and again["skipped_chunks"] == 80


def test_corrupt_chunk_files_are_redone_never_read(reference, tmp_path, capsys):
    out = tmp_path / "run"
    execute(reference_spec(), out, quiet=True)
    one = out / CHUNK_PATTERN.format(1)
    one.write_bytes(one.read_bytes()[: one.stat().st_size // 2])  # truncated
    (out / CHUNK_PATTERN.format(2)).write_bytes(b"PAR1 not a parquet file at all")  # garbage
    (out / CHUNK_PATTERN.format(3)).write_bytes(b"")  # empty
    status = run_status(out)
    assert status["corrupt"] == [1, 2, 3] and status["done"] == 1 and not status["complete"]
    assert main(["status", str(out)]) == 0
    assert "corrupt, foreign or unfinished chunk files (played again on resume): [1, 2, 3]" \
        in capsys.readouterr().out
    frame = load_run(out)
    assert set(frame["chunk"]) == {0} and len(frame) == 300 * 8
    warned = capsys.readouterr().err
    for chunk in (1, 2, 3):
        assert f"skipping {CHUNK_PATTERN.format(chunk)}" in warned
    summary = execute(reference_spec(), out, quiet=True)
    assert summary["played_chunks"] == 3 and summary["skipped_chunks"] == 1
    assert_same_run(out, reference)


def test_chunk_with_the_wrong_row_count_is_redone(reference, tmp_path):
    out = tmp_path / "run"
    execute(reference_spec(), out, quiet=True)
    path = out / CHUNK_PATTERN.format(0)
    table = pq.read_table(path)
    pq.write_table(table.slice(0, 100), path)  # a valid Parquet file, but not the whole chunk
    assert run_status(out)["corrupt"] == [0]
    assert execute(reference_spec(), out, quiet=True)["played_chunks"] == 1
    assert_same_run(out, reference)


def test_damaged_data_pages_are_detected(reference, tmp_path):
    out = tmp_path / "run"
    execute(reference_spec(), out, quiet=True)
    path = out / CHUNK_PATTERN.format(1)
    data = bytearray(path.read_bytes())
    for i in range(64, 2048):  # the first column chunks' pages; the footer is at the end
        data[i] ^= 0x55
    path.write_bytes(bytes(data))
    assert run_status(out)["corrupt"] == [1]


def test_resume_removes_a_killed_runs_temporary_files(tmp_path):
    out = tmp_path / "run"
    spec = reference_spec()
    execute(spec, out, quiet=True)
    (out / CHUNK_PATTERN.format(2)).unlink()
    stale = out / f".{CHUNK_NAME.format(2)}.999999.tmp"
    stale.write_bytes(b"half a chunk")
    assert run_status(out)["missing"] == [2]
    load_run(out)  # never read
    execute(spec, out, quiet=True)
    assert leftovers(out) == []


def test_relative_out_after_a_change_of_directory(tmp_path, monkeypatch):
    spec = reference_spec(n_hands=600)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    monkeypatch.chdir(tmp_path / "a")
    execute(spec, "run", jobs=2, quiet=True)  # starts (or reuses) the worker processes
    monkeypatch.chdir(tmp_path / "b")
    execute(spec, "run", jobs=2, quiet=True)
    assert run_status(tmp_path / "b" / "run")["complete"]


# -- refusing another run's directory --------------------------------------------------------------
BASE = ["simulate", "--hands", "600", "--chunk-size", "300", "--seed", "4", "--quiet"]


@pytest.mark.parametrize("change, differs", [
    (["--seed", "5"], "seed"),
    (["--rules", "simple"], "configs"),
    (["--rule", "target=300"], "configs"),
    (["--strategy", "random"], "configs"),
    (["--chunk-size", "200"], "chunk_size"),
    (["--duplicate"], "duplicate"),
])
def test_another_run_into_the_same_directory_is_refused(tmp_path, capsys, change, differs):
    out = tmp_path / "run"
    assert main([*BASE, "--out", str(out)]) == 0
    before = {**chunk_files(out), META: (out / META).read_bytes()}
    capsys.readouterr()
    assert main([*BASE, *change, "--out", str(out)]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert "holds another run" in lines[0] and differs in lines[0] and "use another --out" \
        in lines[0]
    assert captured.out == ""
    assert {**chunk_files(out), META: (out / META).read_bytes()} == before


def test_refusal_from_the_command_line_exit_status(tmp_path):
    out = tmp_path / "run"
    assert cli(*BASE, "--out", str(out)).returncode == 0
    result = cli(*BASE, "--seed", "99", "--out", str(out))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith("spades-sim simulate: error: ")
    assert "differs in seed" in result.stderr


@pytest.mark.parametrize("args, fragment", [
    (["--shard", "4/3"], "I must be between 1 and N"),
    (["--shard", "two"], "expected I/N"),
    (["--rules", "cutthroat", "--duplicate"], "duplicate mode needs four players"),
    (["--log", "x.jsonl", "--shard", "1/2"], "--log with --out does not go with --shard"),
])
def test_bad_run_options_get_one_line(tmp_path, capsys, args, fragment):
    assert main([*BASE, *args, "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and fragment in err


def test_several_rules_need_out(capsys):
    assert main(["simulate", "--hands", "10", "--rules", "classic", "--rules", "simple"]) == 2
    assert "several --rules need --out" in capsys.readouterr().err


def test_run_spec_validation():
    config = make_config("c", preset("classic"), ["heuristic"])
    with pytest.raises(RunError, match="at least one configuration"):
        RunSpec((), 1, n_hands=10)
    with pytest.raises(RunError, match="names repeat"):
        RunSpec((config, config), 1, n_hands=10)
    with pytest.raises(RunError, match="either a number of hands or a number of games"):
        RunSpec((config,), 1)
    with pytest.raises(RunError, match="either a number of hands or a number of games"):
        RunSpec((config,), 1, n_hands=10, n_games=10)
    with pytest.raises(RunError, match="chunk size"):
        RunSpec((config,), 1, n_hands=10, chunk_size=0)
    with pytest.raises(RunError, match="seed"):
        RunSpec((config,), -1, n_hands=10)
    with pytest.raises(RunError, match="3 strategies for 4 players"):
        make_config("c", preset("classic"), ["random"] * 3)
    assert parse_shard("3/8") == (3, 8)


# -- shards ----------------------------------------------------------------------------------------
def test_shards_together_equal_one_run(reference, tmp_path, capsys):
    spec = reference_spec(chunk_size=100)  # 11 chunks, shares of 4, 4 and 3
    out = tmp_path / "sharded"
    assert [shard_chunks(spec, (i, 3)) for i in (1, 2, 3)] == [
        [0, 3, 6, 9], [1, 4, 7, 10], [2, 5, 8]]
    finished = set()
    for index in (2, 3, 1):
        summary = execute(spec, out, jobs=1, shard=(index, 3), quiet=True)
        assert summary["played_chunks"] == len(shard_chunks(spec, (index, 3)))
        finished |= set(shard_chunks(spec, (index, 3)))
        status = run_status(out)
        assert status["missing"] == sorted(set(range(11)) - finished)
    assert status["complete"]
    whole = tmp_path / "whole"
    execute(spec, whole, quiet=True)
    assert_same_run(out, whole)


def test_shards_from_the_command_line(tmp_path, capsys):
    out = tmp_path / "sharded"
    args = ["simulate", "--hands", "1000", "--chunk-size", "100", "--seed", "2", "--quiet",
            "--out", str(out)]
    for index in (1, 2, 3):
        assert main([*args, "--shard", f"{index}/3", "--json"]) == 0
        summary = json.loads(capsys.readouterr().out)
        assert summary["chunks"] == (4, 3, 3)[index - 1]
    assert main([*args, "--json"]) == 0  # the unsharded command finds everything done
    assert json.loads(capsys.readouterr().out)["played_chunks"] == 0
    whole = tmp_path / "whole"
    assert main(["simulate", "--hands", "1000", "--chunk-size", "100", "--seed", "2", "--quiet",
                 "--out", str(whole)]) == 0
    assert_same_run(out, whole)


# -- common random numbers -------------------------------------------------------------------------
def test_configurations_see_identical_deals():
    configs = [make_config(name, preset(name), ["heuristic"])
               for name in ("classic", "simple", "tournament", "openspiel")]
    configs.append(make_config("random-play", preset("classic"), ["random"]))
    configs.append(make_config("mixed", preset("classic"), MIXED))
    frame = simulate(configs, n_hands=900, seed=21, chunk_size=250)
    keyed = frame.set_index(["config", "hand_id", "seat"]).sort_index()
    base = keyed.loc["classic", ["dealer", *FEATURES]]
    for config in configs[1:]:
        other = keyed.loc[config.name, ["dealer", *FEATURES]]
        pd.testing.assert_frame_equal(other, base, obj=config.name)
    # The play differs, so the comparison is not vacuous.
    assert not keyed.loc["random-play", "tricks"].equals(keyed.loc["classic", "tricks"])


def test_features_describe_the_dealt_hands():
    # Sanity of the common-deal check: the features are of real 13-card hands.
    frame = simulate([make_config("c", preset("classic"), ["heuristic"])], n_hands=300, seed=3,
                     chunk_size=300)
    per_hand = frame.groupby("hand_id")
    assert (per_hand["spades"].sum() == 13).all()
    assert (per_hand["hcp"].sum() == 40).all()  # 4 aces, 4 kings, 4 queens, 4 jacks
    assert (per_hand["high_cards"].sum() == 12).all()
    assert (frame["longest"] >= 4).all()
    full = hand_features(np.array([(1 << 52) - 1]))
    assert full["spades"][0] == 13 and full["hcp"][0] == 40


def test_a_configuration_compared_with_itself_differs_by_zero():
    twin = [make_config(name, preset("classic"), MIXED) for name in ("a", "b")]
    frame = simulate(twin, n_hands=1000, seed=8, chunk_size=300)
    a = frame[frame["config"] == "a"].reset_index(drop=True)
    b = frame[frame["config"] == "b"].reset_index(drop=True)
    difference = a["score_delta"].astype(np.int64) - b["score_delta"].astype(np.int64)
    assert (difference == 0).all()
    per_hand = (a.groupby("hand_id")["score_delta"].sum()
                - b.groupby("hand_id")["score_delta"].sum())
    assert (per_hand == 0).all() and len(per_hand) == 1000
    rest = [c for c in TIDY_COLUMNS if c != "config"]
    pd.testing.assert_frame_equal(a[rest], b[rest])


# -- duplicate mode --------------------------------------------------------------------------------
def test_duplicate_mode_swaps_the_partnerships_cards(tmp_path):
    config = make_config("mixed", preset("classic"), MIXED)
    spec = RunSpec((config,), 6, n_hands=700, chunk_size=300, duplicate=True)
    out = tmp_path / "dup"
    execute(spec, out, quiet=True)
    frame = load_run(out)
    assert len(frame) == 700 * 4 * 2
    first = frame[~frame["duplicate"]].set_index(["hand_id", "seat"]).sort_index()
    copy = frame[frame["duplicate"]].set_index(["hand_id", "seat"]).sort_index()
    assert first.index.equals(copy.index)
    # Each strategy keeps its seat label (and so its side) in both copies ...
    assert (first["strategy"].astype(str) == copy["strategy"].astype(str)).all()
    assert (copy["side"] == copy.index.get_level_values("seat") % 2).all()
    # ... and in the copy it holds the cards the seat to its right held in the first play:
    # the partnerships swap hands.
    shifted = first[FEATURES].rename(
        index=lambda seat: (seat + 1) % 4, level="seat").sort_index()
    pd.testing.assert_frame_equal(copy[FEATURES], shifted)
    assert not copy[FEATURES].equals(first[FEATURES])
    tricks = frame.groupby(["duplicate", "hand_id"])["tricks"].sum()
    assert (tricks == 13).all()
    # The same run through the command line and the in-memory API.
    same = simulate([config], n_hands=700, seed=6, chunk_size=300, duplicate=True)
    pd.testing.assert_frame_equal(same, frame)


def test_duplicate_from_the_command_line(tmp_path, capsys):
    out = tmp_path / "dup"
    assert main(["simulate", "--hands", "400", "--chunk-size", "200", "--seed", "3",
                 "--duplicate", "--quiet", "--out", str(out)]) == 0
    frame = load_run(out)
    assert frame["duplicate"].sum() == 400 * 4 and len(frame) == 400 * 8
    assert json.loads((out / META).read_text())["identity"]["duplicate"] is True


# -- status and progress ---------------------------------------------------------------------------
def test_status_text_and_json(tmp_path, capsys):
    out = tmp_path / "run"
    args = ["simulate", "--hands", "1000", "--chunk-size", "250", "--seed", "1", "--quiet",
            "--rules", "classic", "--rules", "simple", "--out", str(out)]
    assert main([*args, "--shard", "1/2"]) == 0
    capsys.readouterr()
    assert main(["status", str(out)]) == 0
    text = capsys.readouterr().out
    assert "500/1,000 hands (50.0%), 2/4 chunks of 250; seed 1" in text
    assert "configurations: classic, simple" in text
    assert "missing chunks: [1, 3]" in text
    # the other shard's chunks are missing: say so, and how to play them (not "resume")
    assert ("incomplete: the chunks of shard 2/2 are missing: run the same command with "
            "--shard 2/2, or without --shard to play every missing chunk") in text
    assert main(["status", str(out), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status == {"out": str(out), "seed": 1, "unit": "hands", "units": 1000,
                      "units_done": 500, "chunk_size": 250, "chunks": 4, "done": 2,
                      "missing": [1, 3], "corrupt": [], "problems": {},
                      "configs": ["classic", "simple"], "complete": False, "shards": 2,
                      "beyond": [], "layout": "data", "stray": []}
    assert main(args) == 0
    capsys.readouterr()
    assert main(["status", str(out)]) == 0
    text = capsys.readouterr().out
    assert text.strip().endswith("complete") and "incomplete" not in text
    assert "missing" not in text


def test_status_of_a_directory_that_is_not_a_run(tmp_path, capsys):
    assert main(["status", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a run directory" in err


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_bar_on_a_terminal_plain_lines_in_logs(tmp_path, monkeypatch, capsys):
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    args = ["simulate", "--hands", "600", "--chunk-size", "200", "--seed", "1"]
    assert main([*args, "--out", str(tmp_path / "a")]) == 0
    bar = terminal.getvalue()  # tqdm's bar
    assert "\r" in bar and "600/600 hands" in bar and "0/600 hands" in bar
    assert bar.endswith("\n")
    quiet = _Terminal()
    monkeypatch.setattr(sys, "stderr", quiet)
    assert main([*args, "--quiet", "--out", str(tmp_path / "b")]) == 0
    assert quiet.getvalue() == ""
    pipe = io.StringIO()  # not a terminal: a short run writes nothing
    monkeypatch.setattr(sys, "stderr", pipe)
    assert main([*args, "--out", str(tmp_path / "c")]) == 0
    assert pipe.getvalue() == ""
    # A long one writes a plain line every LOG_SECONDS (here every chunk), no carriage return.
    monkeypatch.setattr(sys.modules["spades_sim.run.execute"], "LOG_SECONDS", 0.0)
    log = io.StringIO()
    monkeypatch.setattr(sys, "stderr", log)
    assert main([*args, "--out", str(tmp_path / "d")]) == 0
    lines = log.getvalue().splitlines()
    assert "\r" not in log.getvalue() and len(lines) == 3
    assert lines[0].startswith("spades-sim: 200/600 hands (33%)")
    assert lines[-1].startswith("spades-sim: 600/600 hands (100%)") and "left" in lines[-1]


# -- games -----------------------------------------------------------------------------------------
def test_games_mode_writes_and_resumes(tmp_path, capsys):
    out = tmp_path / "games"
    args = ["games", "--games", "50", "--chunk-size", "20", "--seed", "7", "--quiet",
            "--out", str(out), "--json"]
    assert main(args) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["chunks"] == 3 and summary["units"] == 50
    frame = load_run(out)
    assert list(frame.columns) == list(TIDY_COLUMNS)
    assert sorted(frame["game_id"].unique()) == list(range(50))
    assert (frame["chunk"] == frame["game_id"] // 20).all()
    first_hands = frame[frame["hand_id"] == 0]
    assert (first_hands["score_before"] == 0).all() and (first_hands["bags_before"] == 0).all()
    # hand_id numbers the hands within each game: 0, 1, 2, ... without gaps.
    per_game = frame.groupby("game_id")["hand_id"].agg(["min", "max", "nunique"])
    assert (per_game["min"] == 0).all() and (per_game["max"] + 1 == per_game["nunique"]).all()
    status = run_status(out)
    assert status["unit"] == "games" and status["complete"]
    before = chunk_files(out)
    (out / CHUNK_PATTERN.format(1)).unlink()
    assert main(args) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["played_chunks"] == 1 and summary["skipped_chunks"] == 2
    assert chunk_files(out) == before
    same = simulate([make_config("classic", preset("classic"), ["heuristic"])], n_games=50,
                    seed=7, chunk_size=20)
    pd.testing.assert_frame_equal(same, frame)


def test_games_mode_marks_each_games_end_and_winner():
    rules = preset("classic", target=300)
    frame = simulate([make_config("c", rules, ["heuristic"])], n_games=30, seed=4,
                     chunk_size=30)
    last = frame[frame["game_over"] & (frame["seat"] == 0)].sort_values("game_id")
    assert len(last) == 30
    assert (frame.loc[~frame["game_over"], "game_winner"] == -1).all()
    finals = (last["score_before"] + last["score_delta"]).to_numpy()
    other = frame[frame["game_over"] & (frame["seat"] == 1)].sort_values("game_id")
    other_finals = (other["score_before"] + other["score_delta"]).to_numpy()
    expected = [0 if a > b else 1 if b > a else -1 for a, b in zip(finals, other_finals)]
    assert last["game_winner"].tolist() == expected


def test_log_and_out_play_the_same_hands(tmp_path):
    # One seeding scheme from the command line: the hands summarised, logged with --log and
    # written with --out by the same command are the same hands.
    args = ["simulate", "--rules", "classic", "--strategy", "heuristic", "--hands", "1500",
            "--seed", "7", "--quiet"]
    log = tmp_path / "hands.jsonl"
    assert main([*args, "--log", str(log)]) == 0
    assert main([*args, "--out", str(tmp_path / "run"), "--chunk-size", "400"]) == 0
    frame = load_run(tmp_path / "run").sort_values(["hand_id", "seat"])
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [line["hand_id"] for line in lines] == list(range(1500))
    tricks = frame["tricks"].to_numpy().reshape(-1, 4)
    assert tricks.tolist() == [line["tricks"] for line in lines]
    scores = frame[frame["seat"] < 2]["score_delta"].to_numpy().reshape(-1, 2)
    assert scores.tolist() == [line["score_delta"] for line in lines]
    bids = frame["bid"].to_numpy().reshape(-1, 4)
    assert bids.tolist() == [line["bids"] for line in lines]


def test_every_user_error_is_a_spades_error():
    from spades_sim.core import errors

    kinds = [value for value in vars(errors).values()
             if isinstance(value, type) and issubclass(value, Exception)]
    assert len(kinds) >= 8
    assert all(issubclass(kind, errors.SpadesError) for kind in kinds)
    assert issubclass(errors.SpadesError, ValueError)


def test_a_failed_warm_up_is_one_line_and_not_fatal(monkeypatch, capsys):
    # The warm-up runs in a subprocess before the workers start; if it fails, the run goes on
    # (each worker compiles its own kernels) with a one-line note instead of a traceback.
    from spades_sim.run import cluster

    monkeypatch.setattr(cluster.sys, "executable", "/bin/false")
    cluster.warm_in_subprocess(False, par=True)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "warm-up failed" in err
