"""A seeded fuzz of run-folder tampering: every case copies a finished run, damages it in one
to three ways drawn from its seed (special files in place of chunks or meta.json, truncated,
flipped, foreign, swapped and deleted chunks, bad meta.json values and bytes, stray files,
sparse giants, a data/ that is a file), then reads it (``run_status``, ``load_run``,
``spades-sim status``) and resumes it (``execute``), asserting:

- no traceback: every failure is a ``SpadesError`` of one line (and the command line exits 2
  with one line);
- no hang: each case runs under a time limit;
- no wrong or impossible data: a frame ``load_run`` returns holds only the reference run's
  rows, each once; ``run_status``'s counts add up, and every chunk it counts as done is the
  reference's file byte for byte;
- nothing written by a refused resume but good chunks (the reference's bytes) and their
  listing; a resume that succeeds leaves the reference's chunk files exactly.

``SPADES_SIM_FUZZ_CASES`` sets the number of cases (default 30, about ten seconds; the nightly
size is 1,000 or more); ``SPADES_SIM_FUZZ_SEED`` the first case's seed.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
from contextlib import contextmanager, redirect_stderr
from io import StringIO
from pathlib import Path

import pandas as pd
import pytest

from spades_sim.cli import main
from spades_sim.core.errors import SpadesError
from spades_sim.core.rules import preset
from spades_sim.run import RunSpec, execute, load_run, make_config, run_status
from spades_sim.run.folder import CHUNK_PATTERN, META

CASES = int(os.environ.get("SPADES_SIM_FUZZ_CASES", "30"))
FIRST_SEED = int(os.environ.get("SPADES_SIM_FUZZ_SEED", "0"))
CASE_SECONDS = 60
N_CHUNKS = 5


def spec(seed: int = 21) -> RunSpec:
    configs = (make_config("classic", preset("classic"), ["heuristic"]),
               make_config("wild", preset("classic"), ["random"]))
    return RunSpec(configs, seed, n_hands=100 * N_CHUNKS, chunk_size=100)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("fuzz")
    reference, other = root / "reference", root / "other"
    execute(spec(), reference, quiet=True)
    execute(spec(seed=22), other, quiet=True)
    frame = load_run(reference)
    chunks = {c: (reference / CHUNK_PATTERN.format(c)).read_bytes() for c in range(N_CHUNKS)}
    meta = json.loads((reference / META).read_text())
    return {"reference": reference, "other": other, "frame": frame, "chunks": chunks,
            "meta": meta}


@contextmanager
def time_limit(seconds: int):
    def expired(*_):
        raise TimeoutError(f"a case took more than {seconds} s (a hang?)")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


# -- the damage -----------------------------------------------------------------------------------
def _replace(path: Path, make) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)
    make(path)


def _chunk(out, rng) -> Path:
    return out / CHUNK_PATTERN.format(rng.randrange(N_CHUNKS))


def fifo(out, rng, runs):
    _replace(_chunk(out, rng) if rng.random() < 0.7 else out / META, os.mkfifo)


def dev_zero(out, rng, runs):
    _replace(_chunk(out, rng) if rng.random() < 0.7 else out / META,
             lambda path: path.symlink_to("/dev/zero"))


def dangling(out, rng, runs):
    _replace(_chunk(out, rng), lambda path: path.symlink_to(out / "nowhere"))


def directory(out, rng, runs):
    _replace(_chunk(out, rng) if rng.random() < 0.7 else out / META, os.mkdir)


def _small(path: Path) -> bool:
    """A regular file small enough to rewrite (not a sparse giant an earlier damage made)."""
    return path.is_file() and not path.is_symlink() and path.stat().st_size < 1 << 24


def truncate(out, rng, runs):
    path = _chunk(out, rng)
    if _small(path):
        data = path.read_bytes()
        path.write_bytes(data[:rng.randrange(len(data))])


def flip(out, rng, runs):
    path = _chunk(out, rng) if rng.random() < 0.8 else out / META
    if _small(path):
        data = bytearray(path.read_bytes())
        if data:
            where = rng.randrange(len(data))
            data[where] ^= 1 << rng.randrange(8)
            path.write_bytes(bytes(data))


def foreign(out, rng, runs):
    chunk = rng.randrange(N_CHUNKS)
    _replace(out / CHUNK_PATTERN.format(chunk),
             lambda path: shutil.copyfile(runs["other"] / CHUNK_PATTERN.format(chunk), path))


def swap(out, rng, runs):
    first, second = rng.sample(range(N_CHUNKS), 2)
    one, two = out / CHUNK_PATTERN.format(first), out / CHUNK_PATTERN.format(second)
    if _small(one) and _small(two):
        data = one.read_bytes()
        one.write_bytes(two.read_bytes())
        two.write_bytes(data)


def delete(out, rng, runs):
    path = _chunk(out, rng) if rng.random() < 0.8 else out / META
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)


VALUES = [None, -1, 0, 1, 3, 7, 2**70, 1.5, True, "x", "\u00b2", [], {}, [1], {"a": 1}, "",
          float("nan")]
PATHS = [("identity", "seed"), ("identity", "chunk_size"), ("identity", "configs"),
         ("identity", "unit"), ("identity", "format"), ("identity", "engine"),
         ("identity", "duplicate"), ("identity", "cards"), ("identity_sha256",), ("size",),
         ("size", "units"), ("size", "chunks"), ("shards",), ("chunks",), ("chunks", "1"),
         ("chunks", "\u00b2"), ("chunks", "99"), ("chunks", "-1"), ("chunks", "0"), ("identity",),
         ("columns",), ("versions",)]


def meta_value(out, rng, runs):
    path = out / META
    try:
        meta = json.loads(path.read_bytes()) if _small(path) else None
    except (ValueError, RecursionError):
        return
    if not isinstance(meta, dict):
        return
    keys = rng.choice(PATHS)
    node = meta
    for key in keys[:-1]:
        node = node.get(key) if isinstance(node, dict) else None
    if isinstance(node, dict):
        if rng.random() < 0.15:
            node.pop(keys[-1], None)
        else:
            node[keys[-1]] = rng.choice(VALUES)
    path.write_text(json.dumps(meta))


def meta_bytes(out, rng, runs):
    path = out / META
    choices = [b"", b"{", b"null", b"[]", b"{}", b"\xff\xfe", b"[" * 100000, b"{\"a\": 1}",
               path.read_bytes()[:rng.randrange(1, 400)] if _small(path) else b""]
    _replace(path, lambda p: p.write_bytes(rng.choice(choices)))


def stray(out, rng, runs):
    folder = out / "data" if (out / "data").is_dir() and rng.random() < 0.7 else out
    name = rng.choice(["notes.txt", "chunk-000001.parquet.bak", "chunk-0000001.parquet",
                       "chunk-000099.parquet", ".hidden", "_SUCCESS", "x.parquet"])
    target = folder / name
    if target.exists() or target.is_symlink():
        return
    if name.endswith(".parquet") and rng.random() < 0.5:
        shutil.copyfile(runs["other"] / CHUNK_PATTERN.format(0), target)
    else:
        target.write_bytes(rng.randbytes(rng.randrange(64)))


def sparse(out, rng, runs):
    path = _chunk(out, rng)
    if _small(path):
        with open(path, "r+b") as handle:
            handle.truncate(1 << rng.randrange(33, 41))


def data_file(out, rng, runs):
    _replace(out / "data", lambda path: path.write_bytes(b"not a folder"))


def listing(out, rng, runs):
    path = out / META
    try:
        meta = json.loads(path.read_bytes()) if _small(path) else None
    except (ValueError, RecursionError):
        return
    if isinstance(meta, dict) and isinstance(meta.get("chunks"), dict) and meta["chunks"]:
        key = rng.choice(sorted(meta["chunks"]))
        meta["chunks"][key] = rng.choice(["0" * 64, runs["meta"]["chunks"].get("0", "0" * 64)])
        path.write_text(json.dumps(meta))


DAMAGE = [fifo, dev_zero, dangling, directory, truncate, flip, foreign, swap, delete,
          meta_value, meta_bytes, stray, sparse, data_file, listing]


# -- the checks -----------------------------------------------------------------------------------
def _files(out: Path) -> dict:
    found = {}
    for root, dirs, files in os.walk(out):
        for name in dirs + files:
            path = Path(root) / name
            rel = str(path.relative_to(out))
            if path.is_symlink():
                found[rel] = ("link", os.readlink(path))
            elif path.is_dir():
                found[rel] = "dir"
            elif not path.is_file():
                found[rel] = "special"
            elif path.stat().st_size > 1 << 24:
                found[rel] = ("large", path.stat().st_size)
            else:
                found[rel] = path.read_bytes()
    return found


def _one_line(error: BaseException) -> None:
    text = str(error)
    assert isinstance(error, SpadesError), f"{type(error).__name__}: {text}"
    assert text and "\n" not in text and "Traceback" not in text, text


def _check_status(out, runs) -> None:
    try:
        status = run_status(out)
    except SpadesError as error:
        _one_line(error)
        return
    done = set(range(status["chunks"])) - set(status["missing"]) - set(status["corrupt"])
    assert len(done) == status["done"] and 0 <= status["units_done"] <= status["units"]
    for chunk in done:  # a chunk counted as done is the reference's, byte for byte
        path = out / CHUNK_PATTERN.format(chunk)
        assert path.read_bytes() == runs["chunks"][chunk], chunk


def _check_frame(out, runs) -> None:
    try:
        with redirect_stderr(StringIO()):
            frame = load_run(out)
    except SpadesError as error:
        _one_line(error)
        return
    keys = ["config", "hand_id", "seat"]
    assert not frame.duplicated(keys).any()
    reference = runs["frame"]
    merged = frame.astype({"config": str, "strategy": str, "rules": str}).merge(
        reference.astype({"config": str, "strategy": str, "rules": str}), on=keys, how="left",
        suffixes=("", "_ref"), indicator=True)
    assert (merged["_merge"] == "both").all(), "rows the run never played"
    for name in frame.columns:
        if name not in keys:
            assert (merged[name].to_numpy() == merged[f"{name}_ref"].to_numpy()).all(), name


def _check_cli(out) -> None:
    err = StringIO()
    with redirect_stderr(err), redirect_stdout_null():
        code = main(["status", str(out)])
    assert code in (0, 2), code
    if code == 2:
        assert err.getvalue().count("\n") == 1, err.getvalue()
    assert "Traceback" not in err.getvalue()


@contextmanager
def redirect_stdout_null():
    from contextlib import redirect_stdout

    with redirect_stdout(StringIO()):
        yield


def _check_resume(out, runs) -> None:
    before = _files(out)
    try:
        execute(spec(), out, quiet=True)
    except SpadesError as error:
        _one_line(error)
        after = _files(out)
        for name in set(before) | set(after):
            if before.get(name) == after.get(name):
                continue
            # a refused or failed resume may only have placed good chunks and listed them
            if name.startswith("data/chunk-"):
                chunk = int(name[len("data/chunk-"):-len(".parquet")])
                assert after.get(name) == runs["chunks"].get(chunk), name
            elif name == META:  # (only newly listed chunks, with the reference's checksums)
                meta = json.loads(after[name])
                try:
                    earlier = json.loads(before[name])
                    earlier["chunks"].items()
                except (KeyError, TypeError, ValueError, AttributeError):  # (a new run's)
                    earlier = {**meta, "chunks": {}}
                kept = ("chunks", "size", "shards")  # (the resume's own size may be set)
                assert {k: v for k, v in meta.items() if k not in kept} == \
                    {k: v for k, v in earlier.items() if k not in kept}
                assert (meta["size"], meta["shards"]) == (spec().size(), 1)
                for key, value in meta["chunks"].items():
                    if earlier["chunks"].get(key) != value:
                        assert value == runs["meta"]["chunks"].get(key), key
            else:
                assert name == "data", f"{name} changed by a failed resume"
        return
    for chunk, data in runs["chunks"].items():  # a resume that succeeds repairs the run
        assert (out / CHUNK_PATTERN.format(chunk)).read_bytes() == data, chunk
    pd.testing.assert_frame_equal(load_run(out), runs["frame"])


def run_case(seed: int, runs, root: Path) -> str:
    rng = random.Random(seed)
    out = root / f"case-{seed}"
    shutil.copytree(runs["reference"], out)
    damage = [rng.choice(DAMAGE) for _ in range(rng.randint(1, 3))]
    for harm in damage:
        try:
            harm(out, rng, runs)
        except (NotADirectoryError, FileNotFoundError):
            pass  # (an earlier damage made data/ a file: this one has nothing to damage)
    with time_limit(CASE_SECONDS):
        _check_status(out, runs)
        _check_frame(out, runs)
        _check_cli(out)
        _check_resume(out, runs)
    shutil.rmtree(out, ignore_errors=True)
    return "+".join(harm.__name__ for harm in damage)


def test_run_folder_tampering_fuzz(runs, tmp_path):
    kinds = {}
    for seed in range(FIRST_SEED, FIRST_SEED + CASES):
        try:
            name = run_case(seed, runs, tmp_path)
        except AssertionError as error:
            raise AssertionError(f"case {seed}: {error}") from error
        for part in name.split("+"):
            kinds[part] = kinds.get(part, 0) + 1
    assert sum(kinds.values()) >= CASES
    if CASES >= 200:  # (the nightly size draws every kind of damage)
        assert set(kinds) == {harm.__name__ for harm in DAMAGE}
