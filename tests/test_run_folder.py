"""The run folder as a dataset and under concurrent writers and readers: the chunk files in
``data/`` that any Parquet reader opens (pandas, pyarrow.dataset, DuckDB, polars), the older
layout still read, nothing written by a refused writer, a reader never falsely refusing a chunk
its writer has just placed, a run that has started but has no meta.json yet, and special files
(FIFOs, links to /dev/zero) refused in one line without a hang. Runs are a few hundred hands."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from spades_sim.cli import main
from spades_sim.core.errors import RunError
from spades_sim.core.rules import preset
from spades_sim.run import RunSpec, execute, load_run, make_config, run_status
from spades_sim.run import dataset as dataset_module
from spades_sim.run.folder import CHUNK_NAME, CHUNK_PATTERN, META
from spades_sim.run.layout import stored_schema, tidy_from_stored
from spades_sim.run.locks import claim_share


def spec(**changes) -> RunSpec:
    """Two configurations, 700 hands in chunks of 200: four chunks, the last one short."""
    configs = (make_config("classic", preset("classic"), ["heuristic"]),
               make_config("wild", preset("classic"), ["random"]))
    return RunSpec(**{"configs": configs, "seed": 5, "n_hands": 700, "chunk_size": 200,
                      **changes})


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    out = tmp_path_factory.mktemp("finished") / "run"
    execute(spec(), out, quiet=True)
    return out


@pytest.fixture
def run(finished, tmp_path):
    out = tmp_path / "run"
    shutil.copytree(finished, out)
    return out


def snapshot(folder) -> dict:
    """Every file under ``folder`` (its path: its bytes, or what it is)."""
    found = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = Path(root) / name
            rel = str(path.relative_to(folder))
            if path.is_symlink() or not path.is_file():
                found[rel] = "dir" if path.is_dir() else "special"
            else:
                found[rel] = path.read_bytes()
    return found


@contextmanager
def time_limit(seconds: int):
    """Fail (not hang) when the block takes longer than ``seconds``."""
    def expired(*_):
        raise TimeoutError(f"took more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


# -- any Parquet reader opens a finished run ------------------------------------------------------
def _as_stored(table: pa.Table, run: RunSpec) -> pa.Table:
    """A reader's table as the run's stored schema (its dictionary columns encoded again: some
    readers give them as plain strings), ordered as the run writes its rows."""
    schema = stored_schema(run.stored_types)
    columns = []
    for field in schema:
        column = table.column(field.name)
        if pa.types.is_dictionary(field.type):
            if pa.types.is_dictionary(column.type):
                column = column.cast(pa.string())
            column = pc.dictionary_encode(column.cast(pa.string()).combine_chunks())
            column = column.cast(field.type)
        else:
            column = column.cast(field.type)
        columns.append(column)
    stored = pa.Table.from_arrays(columns, schema=schema)
    keys = pa.table({"config": stored.column("config").cast(pa.string()),
                     "hand_id": stored.column("hand_id")})
    order = pc.sort_indices(keys, [("config", "ascending"), ("hand_id", "ascending")])
    return stored.take(order)


def _plain(frame: pd.DataFrame) -> pd.DataFrame:
    frame = frame.copy()
    for name in frame.columns:
        if isinstance(frame[name].dtype, pd.CategoricalDtype):
            frame[name] = frame[name].astype(str)
    return frame.sort_values(["hand_id", "config", "seat"], ignore_index=True)


def _readers(data: Path) -> dict:
    import duckdb
    import polars
    import pyarrow.dataset

    return {
        "pandas": lambda: pa.Table.from_pandas(pd.read_parquet(data), preserve_index=False),
        "pyarrow.dataset": lambda: pyarrow.dataset.dataset(data).to_table(),
        "duckdb": lambda: duckdb.sql(f"SELECT * FROM read_parquet('{data}/*.parquet')").arrow(),
        "polars": lambda: polars.scan_parquet(f"{data}/*.parquet").collect().to_arrow(),
    }


def test_every_parquet_reader_opens_a_finished_run(finished):
    data = finished / "data"
    assert sorted(p.name for p in finished.iterdir()) == ["data", META]
    assert sorted(p.name for p in data.iterdir()) == [CHUNK_NAME.format(c) for c in range(4)]
    run = spec()
    expected = _plain(load_run(finished))
    for name, read in _readers(data).items():
        table = read()
        if not isinstance(table, pa.Table):  # (duckdb: a record batch reader in new releases)
            table = table.read_all()
        assert table.num_rows == 700 * 2, name  # one stored row per hand and configuration
        assert set(run.stored_types) <= set(table.column_names), name
        frame = _plain(tidy_from_stored(_as_stored(table, run), run))
        pd.testing.assert_frame_equal(frame, expected, check_dtype=False, obj=name)


def test_the_older_layout_is_read_and_moved_by_the_next_writer(run, finished):
    expected = load_run(finished)
    for path in sorted((run / "data").iterdir()):  # chunks beside meta.json, as before
        path.rename(run / path.name)
    (run / "data").rmdir()
    pd.testing.assert_frame_equal(load_run(run), expected)
    status = run_status(run)
    assert status["complete"] and status["layout"] == "legacy"
    execute(spec(), run, quiet=True)  # plays nothing; moves the chunks into data/
    assert sorted(p.name for p in run.iterdir()) == ["data", META]
    assert snapshot(run / "data") == snapshot(finished / "data")
    assert run_status(run)["layout"] == "data"
    pd.testing.assert_frame_equal(load_run(run), expected)


# -- a refused writer writes nothing --------------------------------------------------------------
@pytest.mark.parametrize("changes, shard", [
    ({"n_hands": 300}, None),  # a smaller size: must not shrink the run
    ({"n_hands": 900}, None),  # a larger one: must not grow it either
    ({}, (2, 3)),  # a shard of the run being written whole: must not set "shards": 3
])
def test_a_refused_second_writer_writes_nothing(run, changes, shard):
    before = snapshot(run)
    with claim_share(run, spec(), None):  # the first writer, playing the whole run
        held = snapshot(run)
        with pytest.raises(RunError, match="is being written by pid"):
            execute(spec(**changes), run, shard=shard, quiet=True)
        assert snapshot(run) == held
    assert snapshot(run) == before
    meta = json.loads((run / META).read_text())
    assert meta["size"]["units"] == 700 and meta["shards"] == 1
    assert len(load_run(run)) == 700 * 2 * 4


EXPERIMENT = """\
name = "small"
seed = 3
hands = {hands}
chunk_size = 100
analyses = ["variant_effects"]
baseline = "classic"

[[config]]
name = "classic"
rules = "classic"
"""


def test_a_refused_experiment_run_writes_nothing(tmp_path, capsys):
    from spades_sim.experiment import load_experiment, run_experiment
    from spades_sim.experiment.execute import experiment_runs

    first, second = tmp_path / "first.toml", tmp_path / "second.toml"
    first.write_text(EXPERIMENT.format(hands=200))
    second.write_text(EXPERIMENT.format(hands=100))  # edited: a smaller run
    out = tmp_path / "results"
    run_experiment(load_experiment(first), out, quiet=True)
    before = snapshot(out)
    _, hands_spec, folder = experiment_runs(load_experiment(first), out)[0]
    with claim_share(folder, hands_spec, None):  # the first `run` still playing
        with pytest.raises(RunError, match="is being written by pid"):
            run_experiment(load_experiment(second), out, quiet=True)
        assert main(["run", str(second), "--out", str(out), "--quiet", "--shard", "1/2"]) == 2
        assert capsys.readouterr().err.count("\n") == 1
    assert snapshot(out) == before  # neither experiment.toml nor meta.json changed


# -- readers of a run being written ---------------------------------------------------------------
class _LandsAfterParse:
    """``json`` for the dataset module, whose first ``loads`` of a meta.json is followed at
    once by a writer placing chunk 3 (listing it in meta.json, then renaming its file into
    place): the reader holds the listing from before the chunk landed."""

    def __init__(self, land):
        self.land, self.landed = land, False

    def loads(self, text):
        parsed = json.loads(text)
        if not self.landed and isinstance(parsed, dict) and "identity" in parsed:
            self.landed = True
            self.land()
        return parsed

    def __getattr__(self, name):
        return getattr(json, name)


def _unplace(run: Path, chunk: int) -> callable:
    """Take chunk ``chunk`` out of a finished run (file and listing); returns what puts it
    back as its writer does: meta.json first, then the file."""
    meta_bytes = (run / META).read_bytes()
    path = run / CHUNK_PATTERN.format(chunk)
    data = path.read_bytes()
    path.unlink()
    meta = json.loads(meta_bytes)
    del meta["chunks"][str(chunk)]
    (run / META).write_text(json.dumps(meta, indent=2))

    def land():
        tmp = run / f".{META}.landing.tmp"
        tmp.write_bytes(meta_bytes)
        os.replace(tmp, run / META)
        chunk_tmp = run / f".{path.name}.landing.tmp"
        chunk_tmp.write_bytes(data)
        os.replace(chunk_tmp, path)
    return land


@pytest.mark.parametrize("reader", ["load_run", "run_status"])
def test_a_chunk_landing_while_a_run_is_read_is_not_refused(run, finished, monkeypatch, reader):
    hook = _LandsAfterParse(_unplace(run, 3))
    monkeypatch.setattr(dataset_module, "json", hook)
    if reader == "load_run":
        frame = load_run(run)
        assert hook.landed
        pd.testing.assert_frame_equal(frame, load_run(finished))
    else:
        status = run_status(run)
        assert hook.landed
        assert status["complete"] and status["corrupt"] == []


def test_a_run_that_has_started_says_so(tmp_path, capsys):
    out = tmp_path / "run"
    out.mkdir()
    with claim_share(out, spec(), None):  # its writer holds the lock, meta.json not yet written
        for read in (load_run, run_status):
            with pytest.raises(RunError) as refused:
                read(out)
            message = str(refused.value)
            assert "the run is being written by pid" in message
            assert "no chunk is finished yet" in message and "not a run directory" not in message
        assert main(["status", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "no chunk is finished yet" in err
    with pytest.raises(RunError, match="not a run directory"):  # nobody writing: not a run
        load_run(out)


# -- special files: regular files only, with size bounds ------------------------------------------
def _fifo(path: Path) -> None:
    path.unlink(missing_ok=True)
    os.mkfifo(path)


def _zero(path: Path) -> None:
    path.unlink(missing_ok=True)
    path.symlink_to("/dev/zero")


@pytest.mark.parametrize("make", [_fifo, _zero], ids=["fifo", "dev-zero"])
@pytest.mark.parametrize("name", [CHUNK_PATTERN.format(1), META])
def test_special_files_are_refused_without_a_hang(run, capsys, make, name):
    make(run / name)
    with time_limit(60):
        if name == META:
            for read in (load_run, run_status):
                with pytest.raises(RunError, match="not a regular file"):
                    read(run)
        else:
            with pytest.raises(RunError, match="chunk-000001.parquet: refused: it is"):
                load_run(run)
            status = run_status(run)
            assert status["corrupt"] == [1]
            assert "not a regular file" in status["problems"][CHUNK_PATTERN.format(1)]
        assert main(["status", str(run)]) in (0, 2)
        captured = capsys.readouterr()
        assert "Traceback" not in captured.err
        assert main(["hand", str(run), "--hand", "250", "--config", "classic"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("make", [_fifo, _zero], ids=["fifo", "dev-zero"])
def test_special_files_in_a_results_folder(tmp_path, capsys, make):
    from spades_sim.experiment import load_experiment, run_experiment

    path = tmp_path / "small.toml"
    path.write_text(EXPERIMENT.format(hands=100))
    out = tmp_path / "results"
    run_experiment(load_experiment(path), out, quiet=True)
    for name in ("experiment.toml", "hands/meta.json"):
        saved = (out / name).read_bytes()
        make(out / name)
        with time_limit(60):
            for command in (["status", str(out)], ["report", str(out), "--reports",
                                                   str(tmp_path / "reports")]):
                assert main(command) == 2
                err = capsys.readouterr().err
                assert err.count("\n") == 1 and "not a regular file" in err, err
        (out / name).unlink()
        (out / name).write_bytes(saved)


def test_a_sparse_chunk_larger_than_any_chunk_is_not_read(run):
    with open(run / CHUNK_PATTERN.format(2), "r+b") as handle:
        handle.truncate(1 << 40)  # a terabyte, sparse
    status = run_status(run)
    assert status["corrupt"] == [2]
    assert "more than the" in status["problems"][CHUNK_PATTERN.format(2)]


# -- smaller ---------------------------------------------------------------------------------------
def test_an_empty_shard_is_refused(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["simulate", "--hands", "100", "--chunk-size", "50", "--quiet", "--out",
                 str(out), "--shard", ""]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "shard '': expected I/N" in err
    assert not out.exists()


def test_a_chunk_key_of_other_digits_is_one_line(run, capsys):
    meta = json.loads((run / META).read_text())
    meta["chunks"]["\u00b2"] = meta["chunks"].pop("1")
    (run / META).write_text(json.dumps(meta))
    assert main(["status", str(run)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "chunks entry '\u00b2'" in err


def test_an_interrupted_meta_json_write_leaves_no_temporary(run, monkeypatch):
    def interrupted(*_):
        raise KeyboardInterrupt

    monkeypatch.setattr(dataset_module.os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        dataset_module.write_atomic(run / META, b"{}", "x.1")
    assert not [p for p in run.iterdir() if p.name.endswith(".tmp")]


def test_status_of_a_folder_being_started_from_the_command_line(tmp_path):
    """A second process sees the started run (the lock held by this one)."""
    out = tmp_path / "run"
    out.mkdir()
    with claim_share(out, spec(), None):
        done = subprocess.run([sys.executable, "-m", "spades_sim.cli", "status", str(out)],
                              capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "no chunk is finished yet" in done.stderr
    assert done.stderr.count("\n") == 1


@pytest.mark.parametrize("stop", [signal.SIGINT, pytest.param(signal.SIGTERM,
                                                                marks=pytest.mark.slow)],
                         ids=["SIGINT", "SIGTERM"])
def test_stopping_a_two_job_run_is_one_line_and_leaves_no_temporary(tmp_path, stop):
    out = tmp_path / "run"
    process = subprocess.Popen(
        [sys.executable, "-m", "spades_sim.cli", "simulate", "--hands", "40000", "--chunk-size",
         "500", "--seed", "7", "--jobs", "2", "--quiet", "--out", str(out)],
        stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        with time_limit(240):
            while not list(out.glob("data/chunk-*")) and process.poll() is None:
                time.sleep(0.02)
        workers = subprocess.run(["pgrep", "-P", str(process.pid)], capture_output=True,
                                 text=True).stdout.split()
        os.killpg(process.pid, stop) if stop == signal.SIGINT else process.send_signal(stop)
        err = process.communicate(timeout=120)[1]
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 130, err
    assert err == "spades-sim simulate: interrupted\n"  # no joblib warning, no traceback
    assert not [p.name for p in out.iterdir() if p.name.endswith(".tmp")]
    assert run_status(out)["corrupt"] == []
    with time_limit(60):  # the workers are shut down, not left idle
        while any(os.path.exists(f"/proc/{pid}") for pid in workers):
            time.sleep(0.1)


def test_status_lists_stray_files_in_data(run, capsys):
    (run / "data" / "notes.txt").write_text("mine")
    (run / "data" / "chunk-0000001.parquet").write_bytes(b"")  # not a chunk file's name
    assert run_status(run)["stray"] == ["chunk-0000001.parquet", "notes.txt"]
    assert main(["status", str(run)]) == 0
    out = capsys.readouterr().out
    assert "stray files in" in out and "notes.txt" in out
    assert run_status(run)["complete"]


def test_a_data_path_that_is_not_a_folder_is_refused_before_writing(run):
    shutil.rmtree(run / "data")
    (run / "data").write_text("not a folder")
    before = snapshot(run)
    with pytest.raises(RunError, match="data: not a folder"):
        execute(spec(), run, quiet=True)
    assert snapshot(run) == before
