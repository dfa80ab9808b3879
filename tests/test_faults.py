"""Fault injection for runs on disk: every chunk in a run folder must be the chunk the run says.

Chunks are corrupted, swapped, truncated, edited and forged; meta.json is given every bad shape,
edited and deleted; runs are killed with SIGKILL at seeded random moments and resumed; two writers
start on one folder; the parent of the workers is killed alone; the disk fills up; Dask is given
bad scheduler addresses. In every case the damage is found (``status`` shows it with why,
``load_run`` refuses it in one line, a resume plays it again, byte for byte) and every error is
one line, never a traceback or a hang. Runs are a few hundred hands so each test takes seconds.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from spades_sim.cli import main
from spades_sim.core.errors import RunError
from spades_sim.core.limits import MAX_CHUNK_SIZE, MAX_CHUNKS, MAX_SEED, MAX_UNITS
from spades_sim.core.rules import preset
from spades_sim.core.schema import TIDY_COLUMNS, TIDY_TYPES
from spades_sim.run import RunSpec, execute, load_run, make_config, run_status
from spades_sim.run.folder import CHUNK_NAME, CHUNK_PATTERN, META
from spades_sim.run.locks import claim_share
from spades_sim.run.memory import play_chunk_stored
from spades_sim.run.provenance import (
    KEY_CHUNK,
    KEY_ROWS,
    KEY_RUN,
    file_checksum,
    schema_problem,
)

execute_module = importlib.import_module("spades_sim.run.execute")
cluster_module = importlib.import_module("spades_sim.run.cluster")

MIXED = ["heuristic", "random", "heuristic:aggression=1", "random:bid_max=6"]
THREE = CHUNK_PATTERN.format(3)


def spec(**changes) -> RunSpec:
    """Two configurations, 1,300 hands in chunks of 300: five chunks, the last one short."""
    configs = (make_config("classic", preset("classic"), ["heuristic"]),
               make_config("mixed", preset("classic"), MIXED))
    return RunSpec(**{"configs": configs, "seed": 11, "n_hands": 1300, "chunk_size": 300,
                      **changes})


def cli_spec(hands: int, chunk_size: int, seed: int) -> RunSpec:
    """The run ``spades-sim simulate`` plays with default rules and strategy."""
    return RunSpec((make_config("classic", preset("classic"), ["heuristic"]),), seed,
                   n_hands=hands, chunk_size=chunk_size)


def cli_args(hands: int, chunk_size: int, seed: int, out, *more) -> list[str]:
    return ["simulate", "--hands", str(hands), "--chunk-size", str(chunk_size), "--seed",
            str(seed), "--quiet", "--out", str(out), *more]


def spawn(args) -> subprocess.Popen:
    """``spades-sim ARGS`` in its own process group."""
    return subprocess.Popen([sys.executable, "-m", "spades_sim.cli", *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait(timeout=60)


def wait_for(condition, timeout=120.0, what="a condition"):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.005)


def chunk_files(out) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(Path(out).glob("data/chunk-*.parquet"))}


def temporaries(out) -> list[str]:
    return sorted(p.name for p in Path(out).iterdir() if p.name.endswith(".tmp"))


def meta_of(out) -> dict:
    return json.loads((Path(out) / META).read_text())


def write_meta(out, meta) -> None:
    (Path(out) / META).write_text(json.dumps(meta, indent=2))


def rehash(meta) -> dict:
    """meta.json with its identity_sha256 made to fit its (edited) identity."""
    text = json.dumps(meta["identity"], sort_keys=True, separators=(",", ":"))
    meta["identity_sha256"] = hashlib.sha256(text.encode()).hexdigest()
    return meta


def one_line(text: str) -> str:
    assert text.count("\n") <= 1 and "Traceback" not in text, text
    return text


def assert_same_files(out, reference) -> None:
    assert chunk_files(out) == chunk_files(reference)
    assert meta_of(out)["chunks"] == meta_of(reference)["chunks"]
    assert temporaries(out) == []


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("reference")
    assert execute(spec(), out, quiet=True)["played_chunks"] == 5
    return out


@pytest.fixture(scope="module")
def other_seed(tmp_path_factory):
    out = tmp_path_factory.mktemp("other-seed")
    execute(spec(seed=12), out, quiet=True)
    return out


@pytest.fixture
def run(reference, tmp_path):
    """A copy of the reference run to damage."""
    out = tmp_path / "run"
    shutil.copytree(reference, out)
    return out


# -- provenance ------------------------------------------------------------------------------------
def test_every_chunk_carries_its_provenance(reference):
    meta = meta_of(reference)
    canonical = json.dumps(spec().identity(), sort_keys=True, separators=(",", ":"))
    run_hash = hashlib.sha256(canonical.encode()).hexdigest()
    assert meta["identity_sha256"] == run_hash == spec().identity_hash()
    assert sorted(meta["chunks"], key=int) == ["0", "1", "2", "3", "4"]
    for chunk in range(5):
        path = reference / CHUNK_PATTERN.format(chunk)
        kv = pq.ParquetFile(path).metadata.metadata
        table = pq.read_table(path)
        assert kv[KEY_RUN].decode() == run_hash
        assert kv[KEY_CHUNK].decode() == str(chunk)
        # one row per hand and configuration (run/layout.py)
        assert int(kv[KEY_ROWS]) == table.num_rows == (300 if chunk < 4 else 100) * 2
        # meta.json lists the SHA-256 of the file's bytes
        assert hashlib.sha256(path.read_bytes()).hexdigest() == meta["chunks"][str(chunk)]
        assert file_checksum(path.read_bytes()) == meta["chunks"][str(chunk)]
        assert schema_problem(table, spec().stored_types) is None
    # The file holds the table as played.
    assert pq.read_table(reference / CHUNK_PATTERN.format(2)).equals(play_chunk_stored(spec(), 2))
    assert tuple(TIDY_TYPES) == TIDY_COLUMNS


# -- damaged chunks --------------------------------------------------------------------------------
def _rewrite(path, change) -> None:
    """Rewrite a chunk file through ``change(table) -> table``, keeping its metadata."""
    table = pq.read_table(path)
    changed = change(table)
    pq.write_table(changed.replace_schema_metadata(table.schema.metadata), path)


def _edit_values(table):
    deltas = table.column("score_delta_0").to_pylist()
    deltas[0] += 10
    return table.set_column(table.schema.get_field_index("score_delta_0"), "score_delta_0",
                            pa.array(deltas, table.schema.field("score_delta_0").type))


def _truncate(out, other):
    path = out / THREE
    path.write_bytes(path.read_bytes()[:5000])


def _swap(out, other):
    shutil.copyfile(out / CHUNK_PATTERN.format(4), out / THREE)


def _other_seed(out, other):
    shutil.copyfile(other / THREE, out / THREE)


def _edited(out, other):
    _rewrite(out / THREE, _edit_values)


def _one_column(out, other):
    rows = pq.read_metadata(out / THREE).num_rows
    pq.write_table(pa.table({"hand_id": pa.array(range(rows), pa.int64())}), out / THREE)


def _one_column_with_provenance(out, other):
    _rewrite(out / THREE, lambda table: table.select(["hand_id"]))


def _float_scores(out, other):
    _rewrite(out / THREE, lambda table: table.set_column(
        table.schema.get_field_index("score_delta_0"), "score_delta_0",
        pc.cast(table.column("score_delta_0"), pa.float64())))


def _rows_dropped(out, other):
    _rewrite(out / THREE, lambda table: table.slice(0, 100))


def _unlisted(out, other):
    meta = meta_of(out)
    del meta["chunks"]["3"]
    write_meta(out, meta)


def _listed_otherwise(out, other):
    meta = meta_of(out)
    meta["chunks"]["3"] = "0" * 64
    write_meta(out, meta)


@pytest.mark.parametrize("damage, why", [
    (_truncate, "unreadable"),
    (_swap, "it is chunk 4 of this run, not chunk 3"),
    (_other_seed, "it belongs to another run"),
    (_edited, "its bytes do not match the checksum meta.json lists for it"),
    (_one_column, "it carries no chunk provenance"),
    (_one_column_with_provenance, "no column 'config'"),
    (_float_scores, "column score_delta_0 is double, the run schema has int64"),
    (_rows_dropped, "it holds 100 rows, its own metadata says 600"),
    (_unlisted, "it is not listed as finished in meta.json"),
    (_listed_otherwise, "its bytes do not match the checksum meta.json lists for it"),
], ids=lambda value: value.__name__.strip("_") if callable(value) else None)
def test_a_chunk_that_does_not_belong_is_found(run, reference, other_seed, capsys, damage,
                                               why):
    damage(run, other_seed)
    status = run_status(run)
    assert status["corrupt"] == [3] and status["done"] == 4 and not status["complete"]
    assert why in status["problems"][THREE]
    one_line(status["problems"][THREE])
    assert main(["status", str(run)]) == 0
    assert "played again on resume): [3]" in capsys.readouterr().out
    if why == "unreadable":  # a file that cannot be read whole is skipped, as a missing one
        frame = load_run(run, columns=["chunk"])
        assert sorted(set(frame["chunk"])) == [0, 1, 2, 4]
        assert f"skipping {THREE}" in capsys.readouterr().err
    else:
        with pytest.raises(RunError) as refused:
            load_run(run)
        message = one_line(str(refused.value))
        assert str(run / THREE) in message and why in message
    summary = execute(spec(), run, quiet=True)
    assert summary["played_chunks"] == 1 and summary["skipped_chunks"] == 4
    assert_same_files(run, reference)
    assert run_status(run)["complete"]


# -- meta.json -------------------------------------------------------------------------------------
def _set(path, value):
    """A change to meta.json: ``path`` is a tuple of keys; value ``...`` deletes the key."""
    def change(meta):
        target = meta
        for key in path[:-1]:
            target = target[key]
        if value is ...:
            del target[path[-1]]
        else:
            target[path[-1]] = value
        return meta
    return change


BAD_META = {
    "list": ("[]", "expected a JSON object, found a list"),
    "null": ("null", "found null"),
    "empty-object": ("{}", "no 'identity'"),
    "empty-file": ("", "not JSON"),
    "truncated": ('{"identity": {"seed": 1', "not JSON"),
    "identity-string": (_set(("identity",), "seed 11"), "identity is a string"),
    "unknown-unit": (_set(("identity", "unit"), "rounds"), "neither hands nor games"),
    "no-configs": (_set(("identity", "configs"), []), "identity.configs is empty"),
    "no-seed": (_set(("identity", "seed"), ...), "identity has no 'seed'"),
    "no-chunks": (_set(("chunks",), ...), "no 'chunks'"),
    "no-hash": (_set(("identity_sha256",), ...), "no 'identity_sha256'"),
    "seed-string": (_set(("identity", "seed"), "11"), "identity.seed is a string"),
    "units-float": (_set(("size", "units"), 1300.5), "size.units is a number"),
    "no-size": (_set(("size",), ...), "no 'size'"),
    "duplicate-string": (_set(("identity", "duplicate"), "no"), "identity.duplicate is a"),
    "configs-object": (_set(("identity", "configs"), {}), "identity.configs is an object"),
    "chunks-list": (_set(("chunks",), []), "chunks is a list"),
    "chunks-entry": (_set(("chunks", "0"), 7), "chunks entry '0'"),
    "old-format": (_set(("identity", "format"), 1), "run folder of format 1"),
    "edited-identity": (_set(("identity", "seed"), 12), "does not match identity_sha256"),
    "config-not-object": (lambda m: rehash(_set(("identity", "configs"), ["x"])(m)),
                          "configuration 'x'"),
    "bad-strategy": (lambda m: rehash(_set(("identity", "configs", 0, "strategies"),
                                           ["nope"] * 4)(m)), "nope"),
    "bad-rules": (lambda m: rehash(_set(("identity", "configs", 0, "rules"), 7)(m)),
                  "neither a preset name nor an object"),
    "huge-units": (lambda m: rehash(_set(("size", "units"), 10**30)(m)),
                   f"is more than {MAX_UNITS:,}"),
    "tiny-chunks": (lambda m: rehash(_set(("size", "units"), MAX_UNITS)(
        _set(("identity", "chunk_size"), 1)(m))), f"more than {MAX_CHUNKS:,}"),
}


@pytest.mark.parametrize("name", list(BAD_META))
def test_meta_json_of_the_wrong_shape_is_one_line_everywhere(run, capsys, name):
    damage, fragment = BAD_META[name]
    text = damage if isinstance(damage, str) else json.dumps(damage(meta_of(run)))
    (run / META).write_text(text)
    before = {**chunk_files(run), META: (run / META).read_bytes()}
    for attempt in (run_status, load_run, lambda out: execute(spec(), out, quiet=True)):
        with pytest.raises(RunError) as error:
            attempt(run)
        message = one_line(str(error.value))
        assert fragment in message and str(run / META) in message, message
    assert main(["status", str(run)]) == 2
    err = one_line(capsys.readouterr().err)
    assert err.startswith("spades-sim status: error: ") and fragment in err
    assert main([*cli_args(1300, 300, 11, run)]) == 2
    one_line(capsys.readouterr().err)
    assert {**chunk_files(run), META: (run / META).read_bytes()} == before  # nothing rewritten


def test_an_edited_identity_that_fits_its_hash_disowns_every_chunk(run):
    meta = rehash(_set(("identity", "seed"), 12)(meta_of(run)))
    write_meta(run, meta)
    status = run_status(run)
    assert status["corrupt"] == [0, 1, 2, 3, 4] and status["seed"] == 12
    assert all("belongs to another run" in why for why in status["problems"].values())
    with pytest.raises(RunError, match="chunk-000000.parquet: refused: it belongs to another"):
        load_run(run)
    with pytest.raises(RunError, match="holds another run .it differs in seed"):
        execute(spec(), run, quiet=True)


def test_chunks_without_meta_json_are_never_adopted(run, capsys):
    (run / META).unlink()
    before = chunk_files(run)
    for other in (spec(seed=12), spec()):
        with pytest.raises(RunError) as refused:
            execute(other, run, quiet=True)
        message = one_line(str(refused.value))
        assert "holds chunks of an unknown run (5 chunk files but no meta.json)" in message
        assert "use another --out" in message
    assert main(cli_args(1300, 300, 12, run)) == 2
    assert "holds chunks of an unknown run" in one_line(capsys.readouterr().err)
    assert chunk_files(run) == before and not (run / META).exists()
    for read in (run_status, load_run):
        with pytest.raises(RunError, match="no meta.json; not a run directory"):
            read(run)


# -- sizes -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("changes, fragment", [
    ({"n_hands": MAX_UNITS + 1}, f"hands: {MAX_UNITS + 1:,} is more than {MAX_UNITS:,}"),
    ({"n_hands": None, "n_games": MAX_UNITS + 1}, "games: "),
    ({"chunk_size": MAX_CHUNK_SIZE + 1}, f"is more than {MAX_CHUNK_SIZE:,}"),
    ({"seed": MAX_SEED + 1}, "below 2**128"),
    ({"n_hands": 10**9, "chunk_size": 1000}, f"more than {MAX_CHUNKS:,}; use a larger chunk"),
    ({"n_hands": 1300.0}, "is not an integer"),
    ({"chunk_size": True}, "is not an integer"),
    ({"duplicate": "yes"}, "duplicate: 'yes' is not true or false"),
])
def test_sizes_are_bounded(changes, fragment):
    with pytest.raises(RunError) as error:
        spec(**changes)
    assert fragment in one_line(str(error.value))


def test_sizes_are_refused_before_anything_is_written(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(cli_args(MAX_UNITS * 10, 300, 1, out)) == 2
    assert "is more than" in one_line(capsys.readouterr().err)
    assert main(cli_args(1000, MAX_CHUNK_SIZE + 1, 1, out)) == 2
    assert f"{MAX_CHUNK_SIZE:,}" in one_line(capsys.readouterr().err)
    assert not out.exists()


def test_jobs_are_capped_at_the_chunks_to_play(tmp_path, capsys, monkeypatch):
    out = tmp_path / "run"
    started = time.monotonic()
    # (the command line refuses more than MAX_JOBS; up to it, the workers started are capped)
    assert main(cli_args(300, 300, 3, out, "--jobs", "4096", "--json")) == 0
    assert json.loads(capsys.readouterr().out)["played_chunks"] == 1
    assert time.monotonic() - started < 30
    seen = []
    original = execute_module._run_chunks

    def recording(tasks, jobs, backend, client):
        seen.append((len(tasks), jobs))
        return original(tasks, 1, backend, client)  # the cap is what is checked here

    monkeypatch.setattr(execute_module, "_run_chunks", recording)
    execute(spec(), tmp_path / "capped", jobs=100_000, quiet=True)
    assert seen == [(5, 5)]
    with pytest.raises(RunError, match="jobs: 0 is not a positive integer"):
        execute(spec(), tmp_path / "zero", jobs=0, quiet=True)
    assert not (tmp_path / "zero").exists()


# -- temporaries and writers -----------------------------------------------------------------------
def test_stale_temporaries_go_and_a_live_writers_stay(run, reference, capsys):
    (run / CHUNK_PATTERN.format(1)).unlink()
    dead = [f".{CHUNK_NAME.format(1)}.0123456789abcdef.4242.tmp",
            f".{CHUNK_NAME.format(1)}.999999.tmp",  # an older version's name
            f".{META}.0123456789abcdef.4242.tmp"]
    for name in dead:
        (run / name).write_bytes(b"half written")
    with claim_share(run, spec(), (1, 2)) as writer:  # a live writer of chunks 0, 2, 4
        live = f".{CHUNK_NAME.format(0)}.{writer.suffix}.tmp"
        (run / live).write_bytes(b"being written")
        assert run_status(run)["missing"] == [1]
        # Its chunks are taken; the other share is free and cleans only dead temporaries.
        for shard in (None, (1, 2)):
            with pytest.raises(RunError) as busy:
                execute(spec(), run, shard=shard, quiet=True)
            message = one_line(str(busy.value))
            assert f"is being written by pid {os.getpid()} on {socket.gethostname()}" in message
            assert "(shard 1/2)" in message
        summary = execute(spec(), run, shard=(2, 2), quiet=True)
        assert summary["played_chunks"] == 1
        assert temporaries(run) == [live]
    assert temporaries(run) == []  # a writer removes its own temporaries when it ends
    assert_same_files(run, reference)
    assert not list(run.glob(".*.lock"))


def test_two_writers_of_the_same_chunks(tmp_path, capsys):
    out = tmp_path / "run"
    writer = spawn(cli_args(600000, 300, 5, out, "--shard", "1/2"))  # (killed below)
    try:
        lock = out / ".writer-1-of-2.lock"
        wait_for(lambda: lock.exists() and b"token" in lock.read_bytes(), what="the writer")
        expected = f"is being written by pid {writer.pid} on {socket.gethostname()}"
        for shard in (None, (1, 2)):
            with pytest.raises(RunError) as busy:
                execute(cli_spec(600000, 300, 5), out, shard=shard, quiet=True)
            assert expected in one_line(str(busy.value))
        assert main(cli_args(600000, 300, 5, out)) == 2
        err = one_line(capsys.readouterr().err)
        assert err.startswith("spades-sim simulate: error: ") and expected in err
        assert writer.poll() is None, "the first writer finished too soon for the test"
    finally:
        kill_group(writer)
    status = run_status(out)  # killed part way: whatever it finished is whole and listed
    assert status["corrupt"] == [] and status["done"] > 0


def test_shards_write_one_folder_at_once(tmp_path):
    out = tmp_path / "run"
    shards = [spawn(cli_args(6000, 300, 8, out, "--shard", f"{i}/2")) for i in (1, 2)]
    for process in shards:
        assert process.wait(timeout=300) == 0, process.stderr.read()
    status = run_status(out)
    assert status["complete"] and status["problems"] == {}
    assert sorted(meta_of(out)["chunks"], key=int) == [str(c) for c in range(20)]
    whole = tmp_path / "whole"
    execute(cli_spec(6000, 300, 8), whole, quiet=True)
    assert_same_files(out, whole)


# -- kills -----------------------------------------------------------------------------------------
def test_runs_killed_at_random_moments_resume_byte_for_byte(tmp_path):
    out = tmp_path / "run"
    args = cli_args(12000, 300, 9, out)
    rng = random.Random(20240917)
    done = 0
    for jobs in (2, 1, 1):
        # A seeded point: a few chunks into this start, then a moment into the next chunk
        # (playing it, writing its file, listing it in meta.json or renaming it).
        target = done + rng.randint(1, 6)
        process = spawn([*args, "--jobs", str(jobs)])
        try:
            wait_for(lambda p=process, t=target: len(chunk_files(out)) >= t
                     or p.poll() is not None, what="progress")
            time.sleep(rng.uniform(0.0, 0.04))
        finally:
            kill_group(process)
        assert process.returncode == -signal.SIGKILL, "the run ended before it was killed"
        status = run_status(out)
        assert status["corrupt"] == [], status["problems"]
        assert target <= status["done"] < 40
        done = status["done"]
        load_run(out, columns=["chunk"])  # never refuses what a kill left
    summary = execute(cli_spec(12000, 300, 9), out, quiet=True)
    assert summary["played_chunks"] + summary["skipped_chunks"] == 40
    whole = tmp_path / "whole"
    execute(cli_spec(12000, 300, 9), whole, quiet=True)
    assert_same_files(out, whole)
    assert not list(out.glob(".*.lock"))


def test_workers_stop_when_their_parent_dies(tmp_path):
    out = tmp_path / "run"
    process = spawn(cli_args(900_000, 30_000, 4, out, "--jobs", "2"))
    try:
        wait_for(lambda: any(out.glob("data/chunk-*")) or process.poll() is not None,
                 timeout=240, what="a first chunk")
        assert process.poll() is None
        os.kill(process.pid, signal.SIGKILL)  # the parent only: its workers live on
        process.wait(timeout=60)
        time.sleep(0.2)
        finished = set(chunk_files(out))
        time.sleep(2.0)  # a worker that kept going would write a chunk every 0.3 s or so
        assert set(chunk_files(out)) == finished
        # Left as temporaries (of the dead writer) at most: the chunks the workers had written
        # just before the parent died, which it never placed, one per worker (a worker that
        # finds its writer gone once it has written a file removes it), and the meta.json the
        # parent was writing when it was killed.
        left = temporaries(out)
        chunks = [name for name in left if name.startswith(".chunk-")]
        metas = [name for name in left if name.startswith(".meta.json.")]
        assert len(chunks) <= 2 and len(metas) <= 1 and len(chunks) + len(metas) == len(left)
        assert not {name.split(".")[1] for name in chunks} & {n.split(".")[0] for n in finished}
    finally:
        kill_group(process)
    status = run_status(out)
    assert status["corrupt"] == [] and 0 < status["done"] < 30
    execute(cli_spec(900_000, 30_000, 4), out, jobs=2, quiet=True)  # removes them, and ends
    assert temporaries(out) == [] and run_status(out)["complete"]


# -- a full disk -----------------------------------------------------------------------------------
@pytest.fixture
def small_disk(tmp_path):
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(disk)],
                             capture_output=True)
    if mounted.returncode != 0:
        pytest.skip("cannot mount a small tmpfs here (needs root)")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def test_a_full_disk_fails_in_one_line_and_resumes(small_disk, reference, capsys):
    out = small_disk / "run"
    filler = small_disk / "filler"
    stats = os.statvfs(small_disk)
    filler.write_bytes(b"\0" * (stats.f_bavail * stats.f_frsize - 80 * 1024))
    args = ["simulate", "--hands", "1300", "--chunk-size", "300", "--seed", "11", "--quiet",
            "--config", "classic=strategy=heuristic",
            "--config", "mixed=" + ";".join(f"strategy={s}" for s in MIXED), "--out", str(out)]
    assert main(args) == 2
    err = one_line(capsys.readouterr().err)
    assert "No space left on device" in err and "cannot write" in err
    assert temporaries(out) == []
    status = run_status(out)
    assert status["corrupt"] == [] and 0 < status["done"] < 5
    assert main(args) == 2  # the next start, with the disk still full
    capsys.readouterr()
    assert temporaries(out) == []
    filler.unlink()
    assert main(args) == 0
    assert_same_files(out, reference)


# -- Dask ------------------------------------------------------------------------------------------
def test_bad_dask_schedulers_are_one_line(tmp_path, capsys, monkeypatch):
    pytest.importorskip("distributed")
    out = tmp_path / "run"
    with pytest.raises(RunError) as bad:
        execute(spec(), out, backend="dask", scheduler="not an address", quiet=True)
    assert "scheduler 'not an address': cannot connect" in one_line(str(bad.value))
    monkeypatch.setattr(cluster_module, "DASK_CONNECT_TIMEOUT", 1)
    started = time.monotonic()
    with pytest.raises(RunError) as unreachable:
        execute(spec(), out, backend="dask", scheduler="tcp://127.0.0.1:9", quiet=True)
    assert "cannot connect" in one_line(str(unreachable.value))
    assert time.monotonic() - started < 15
    assert main(cli_args(1300, 300, 11, out, "--backend", "dask", "--scheduler",
                         "not an address")) == 2
    err = one_line(capsys.readouterr().err)
    assert err.startswith("spades-sim simulate: error: scheduler 'not an address'")
    assert not out.exists()
