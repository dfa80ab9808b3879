"""Runs that scale: chunked, seeded, resumable runs written as a Parquet dataset.

A run is a :class:`RunSpec`: one or more configurations (rules and one strategy per seat), a
seed, a number of hands (or whole games) and a chunk size. The run is split into fixed-size
chunks; chunk ``c`` draws its two stream keys from ``SeedSequence(seed).spawn(...)[c]`` (that
is, ``SeedSequence(seed, spawn_key=(c,))``), one for dealing and one for play, and every
configuration in the chunk is played from those same keys: the configurations see identical deals
(common random numbers), so their differences are paired. With ``duplicate`` each configuration
also plays every deal a second time with the strategies moved one seat to the left (the
partnerships swap cards), so card luck cancels. Results depend on the seed and the chunk size
only: not on the number of workers, the backend or the shard.

On disk (``--out DIR``): ``meta.json`` (seed, chunk size, configurations, versions, commit) and one
Parquet file per chunk, ``chunk-000123.parquet``, written to a temporary name and renamed, in the
tidy schema of ``analysis.frames.TIDY_COLUMNS`` (one row per hand, seat and configuration).
Re-running the same spec into the same directory skips the finished chunks (a truncated or
corrupt chunk file is detected and played again); a different spec is refused.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from . import __version__
from .analysis.frames import TIDY_COLUMNS, tidy_frame
from .engine_hash import engine_hash
from .rules import Rules, rules_from_spec
from .strategies import Strategy, parse_strategy

META = "meta.json"
CHUNK_PATTERN = "chunk-{:06d}.parquet"
FORMAT_VERSION = 1


class RunError(ValueError):
    """A bad run specification or a directory that holds another run (one-line message)."""


@dataclass(frozen=True)
class Config:
    """One configuration of a run: a name, the rules and one strategy per seat."""

    name: str
    rules: Rules
    strategies: tuple[Strategy, ...]

    def to_dict(self) -> dict:
        return {"name": self.name, "rules": self.rules.to_spec(),
                "strategies": [s.spec() for s in self.strategies]}

    @classmethod
    def from_dict(cls, data: dict) -> Config:
        rules = rules_from_spec(data["rules"])
        return cls(data["name"], rules, tuple(parse_strategy(s) for s in data["strategies"]))


def make_config(name: str, rules: Rules, strategies) -> Config:
    """A configuration, with one strategy for every seat or one per seat."""
    strategies = [parse_strategy(s) for s in strategies]
    if len(strategies) == 1:
        strategies = strategies * rules.players
    if len(strategies) != rules.players:
        raise RunError(f"configuration {name}: {len(strategies)} strategies for "
                       f"{rules.players} players")
    return Config(name, rules, tuple(strategies))


def parse_config(text: str) -> Config:
    """A configuration from ``NAME=rules=PRESET;rule=FIELD=VALUE;strategy=SPEC;...``.

    ``rules`` defaults to classic and ``strategy`` to heuristic; ``rule`` and ``strategy`` may
    repeat (one strategy for every seat, or one per seat).

    >>> config = parse_config("bold=rules=simple;rule=target=300;strategy=heuristic:aggression=1")
    >>> config.name, config.rules.target, str(config.strategies[0])
    ('bold', 300, 'heuristic:aggression=1')
    """
    from .rules import build_rules

    name, sep, rest = text.partition("=")
    if not sep or not name.strip():
        raise RunError(f"configuration {text!r}: expected NAME=rules=PRESET;strategy=SPEC;...")
    preset_name, overrides, strategies = "classic", [], []
    for item in filter(None, (part.strip() for part in rest.split(";"))):
        key, sep, value = item.partition("=")
        if not sep or key not in ("rules", "rule", "strategy"):
            raise RunError(f"configuration {name}: {item!r} is not rules=PRESET, "
                           f"rule=FIELD=VALUE or strategy=SPEC")
        if key == "rules":
            preset_name = value
        elif key == "rule":
            overrides.append(value)
        else:
            strategies.append(value)
    rules = build_rules(preset_name, overrides)
    return make_config(name.strip(), rules, strategies or ["heuristic"])


@dataclass(frozen=True)
class RunSpec:
    """What a run plays. Exactly one of ``n_hands`` and ``n_games`` is set."""

    configs: tuple[Config, ...]
    seed: int
    n_hands: int | None = None
    n_games: int | None = None
    chunk_size: int = 100_000
    duplicate: bool = False
    extra: dict = field(default_factory=dict, compare=False)

    def __post_init__(self):
        if not self.configs:
            raise RunError("a run needs at least one configuration")
        names = [c.name for c in self.configs]
        if len(set(names)) != len(names):
            raise RunError(f"configuration names repeat: {', '.join(names)}")
        if (self.n_hands is None) == (self.n_games is None):
            raise RunError("give either a number of hands or a number of games")
        if self.units < 1:
            raise RunError(f"{self.unit_name}: {self.units} is not at least 1")
        if self.chunk_size < 1:
            raise RunError(f"chunk size: {self.chunk_size} is not at least 1")
        if self.duplicate and any(c.rules.players != 4 or not c.rules.partnership
                                  for c in self.configs):
            raise RunError("duplicate mode needs four players in partnerships")
        if isinstance(self.seed, bool) or not isinstance(self.seed, (int, np.integer)) \
                or self.seed < 0:
            raise RunError(f"seed {self.seed!r}: expected an integer >= 0")

    @property
    def games_mode(self) -> bool:
        return self.n_games is not None

    @property
    def units(self) -> int:
        return self.n_games if self.games_mode else self.n_hands

    @property
    def unit_name(self) -> str:
        return "games" if self.games_mode else "hands"

    @property
    def n_chunks(self) -> int:
        return -(-self.units // self.chunk_size)

    def chunk_range(self, chunk: int) -> tuple[int, int]:
        """``(first unit, count)`` of a chunk."""
        first = chunk * self.chunk_size
        return first, min(self.chunk_size, self.units - first)

    def identity(self) -> dict:
        """Everything the results depend on (a directory holds one identity only)."""
        return {
            "format": FORMAT_VERSION,
            "seed": int(self.seed),
            "unit": self.unit_name,
            "units": int(self.units),
            "chunk_size": int(self.chunk_size),
            "duplicate": bool(self.duplicate),
            "configs": [c.to_dict() for c in self.configs],
            # Results also depend on the engine: resuming after an engine change is refused.
            "engine": engine_hash(),
        }

    @classmethod
    def from_identity(cls, data: dict) -> RunSpec:
        """The spec a run directory was made with (whatever engine made it)."""
        units = {"n_" + data["unit"]: data["units"]}
        return cls(tuple(Config.from_dict(c) for c in data["configs"]), data["seed"],
                   chunk_size=data["chunk_size"], duplicate=data["duplicate"], **units)


def chunk_keys(seed: int, chunk: int) -> tuple[np.uint64, np.uint64]:
    """The deal-stream and play-stream keys of a chunk: child ``chunk`` of
    ``SeedSequence(seed)``, two 64-bit words."""
    child = np.random.SeedSequence(int(seed), spawn_key=(int(chunk),))
    deal_key, play_key = child.generate_state(2, dtype=np.uint64)
    return np.uint64(deal_key), np.uint64(play_key)


def _rotated(strategies: tuple, shift: int) -> tuple:
    """Strategies moved ``shift`` seats: seat ``s`` gets the strategy of seat ``s + shift``."""
    return tuple(strategies[(seat + shift) % len(strategies)] for seat in range(len(strategies)))


def play_chunk(spec: RunSpec, chunk: int) -> pd.DataFrame:
    """Play one chunk of every configuration; the tidy frame of its hands."""
    # Imported here: the parent of a parallel run never needs numba (less memory).
    from .api import _games_piece, _hands_piece, _kernel_strategies

    keys = chunk_keys(spec.seed, chunk)
    first, count = spec.chunk_range(chunk)
    frames = []
    for config in spec.configs:
        for duplicate in ((False, True) if spec.duplicate else (False,)):
            strategies = _rotated(config.strategies, 1 if duplicate else 0)
            kinds, params = _kernel_strategies(strategies, config.rules)
            rules_tuple = config.rules.kernel_tuple()
            if spec.games_mode:
                hands, games = _games_piece(rules_tuple, config.rules.hand_cap, kinds, params,
                                            keys, first, count, False)
                # In games, hand_id numbers the hands within their game: (game_id, hand_id).
                starts = np.r_[True, hands.game_id[1:] != hands.game_id[:-1]]
                index = np.arange(len(starts))
                hands.hand_id[:] = index - np.maximum.accumulate(np.where(starts, index, 0))
            else:
                hands = _hands_piece(rules_tuple, kinds, params, keys, first, count, False)
                games = None
            frame = tidy_frame(hands, config.rules, strategies, config=config.name,
                               duplicate=duplicate, chunk=chunk, games=games)
            if duplicate:
                # Seats keep their strategies' home seats: the rotated copy's seat s played
                # seat s + 1's strategy; record the strategy's own seat so pairs line up.
                frame["seat"] = ((frame["seat"].astype(np.int16) + 1) % 4).astype(np.int8)
                frame["side"] = (frame["seat"] % 2).astype(np.int8)
                frame["dealer"] = ((frame["dealer"].astype(np.int16) + 1) % 4).astype(np.int8)
                winner = frame["game_winner"]  # the physical side w holds home side 1 - w
                frame["game_winner"] = np.where(winner >= 0, 1 - winner, winner).astype(np.int8)
                frame = frame.sort_values(["game_id", "hand_id", "seat"], kind="stable",
                                          ignore_index=True)
            frames.append(frame)
    frame = pd.concat(frames, ignore_index=True)
    for column in ("config", "rules", "strategy"):
        frame[column] = frame[column].astype("category")
    return frame[list(TIDY_COLUMNS)]


# -- the dataset on disk --------------------------------------------------------------------------
def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                              cwd=Path(__file__).parent, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def _versions() -> dict:
    import numba
    import pyarrow

    return {"spades_sim": __version__, "python": platform.python_version(),
            "numpy": np.__version__, "pandas": pd.__version__, "numba": numba.__version__,
            "pyarrow": pyarrow.__version__}


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def prepare_dir(spec: RunSpec, out: Path) -> None:
    """Create ``out`` with the run's ``meta.json``, or check that it holds this very run."""
    out.mkdir(parents=True, exist_ok=True)
    meta_path = out / META
    identity = spec.identity()
    if meta_path.exists():
        try:
            existing = json.loads(meta_path.read_text())["identity"]
        except (OSError, ValueError, KeyError, TypeError):
            raise RunError(f"{meta_path}: unreadable run metadata; use another --out")
        if existing != identity:
            differing = sorted(key for key in identity if existing.get(key) != identity[key])
            raise RunError(f"{out} holds another run (it differs in {', '.join(differing)}); "
                           f"use another --out")
        return
    meta = {"identity": identity, "versions": _versions(), "commit": _commit(),
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "columns": list(TIDY_COLUMNS), **spec.extra}
    _write_atomic(meta_path, json.dumps(meta, indent=2).encode())


def expected_rows(spec: RunSpec, chunk: int) -> int | None:
    """Rows a finished chunk file holds (None in games mode: game lengths vary)."""
    if spec.games_mode:
        return None
    _, count = spec.chunk_range(chunk)
    copies = 2 if spec.duplicate else 1
    return sum(count * c.rules.players * copies for c in spec.configs)


def chunk_done(spec: RunSpec, out: Path, chunk: int) -> bool:
    """Whether the chunk's file exists and is a complete Parquet file of the right size."""
    import pyarrow.parquet as pq

    path = out / CHUNK_PATTERN.format(chunk)
    if not path.exists():
        return False
    try:
        # A full read with page checksums: damage inside the data is caught, not only a
        # truncated footer.
        table = pq.read_table(path, page_checksum_verification=True)
    except Exception:  # truncated or corrupt: play it again
        return False
    rows = expected_rows(spec, chunk)
    return rows is None or table.num_rows == rows


def write_chunk(spec: RunSpec, out: Path, chunk: int) -> int:
    """Play a chunk and write its file atomically; returns the units played."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    frame = play_chunk(spec, chunk)
    table = pa.Table.from_pandas(frame, preserve_index=False)
    path = out / CHUNK_PATTERN.format(chunk)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    pq.write_table(table, tmp, compression="zstd", write_page_checksum=True)
    os.replace(tmp, path)
    return spec.chunk_range(chunk)[1]


def shard_chunks(spec: RunSpec, shard: tuple[int, int] | None) -> list[int]:
    """The chunks of shard ``(i, n)`` (1-based ``i``): every ``n``-th chunk from ``i - 1``."""
    chunks = range(spec.n_chunks)
    if shard is None:
        return list(chunks)
    index, count = shard
    return [c for c in chunks if c % count == index - 1]


def parse_shard(text: str) -> tuple[int, int]:
    """Parse ``I/N``.

    >>> parse_shard("2/3")
    (2, 3)
    """
    try:
        index, count = (int(part) for part in text.split("/"))
    except ValueError:
        raise RunError(f"shard {text!r}: expected I/N, such as 1/4")
    if not 1 <= index <= count:
        raise RunError(f"shard {text!r}: I must be between 1 and N")
    return index, count


class Progress:
    """A one-line progress bar on stderr (hands done, rate, time left); silent when stderr is
    not a terminal or when ``quiet``."""

    def __init__(self, total: int, unit: str, done: int = 0, quiet: bool = False):
        self.total, self.unit, self.done = total, unit, done
        self.start_done = done
        self.started = time.monotonic()
        self.enabled = not quiet and sys.stderr.isatty()
        self.show()

    def advance(self, count: int) -> None:
        self.done += count
        self.show()

    def show(self) -> None:
        if not self.enabled:
            return
        elapsed = time.monotonic() - self.started
        rate = (self.done - self.start_done) / elapsed if elapsed > 0 else 0.0
        left = (self.total - self.done) / rate if rate > 0 else float("nan")
        width = 30
        filled = int(width * self.done / self.total) if self.total else width
        eta = f"{left / 60:.1f} min left" if left == left else "--"
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done:,}/"
                         f"{self.total:,} {self.unit}  {rate:,.0f}/s  {eta}   ")
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")
            sys.stderr.flush()


def execute(spec: RunSpec, out, *, jobs: int = 1, backend: str = "loky",
            scheduler: str | None = None, shard: tuple[int, int] | None = None,
            quiet: bool = False) -> dict:
    """Play the run's missing chunks (of ``shard`` when given) into ``out``.

    ``backend``: ``loky`` (joblib processes on this machine, ``jobs`` of them) or ``dask``
    (the chunks become tasks on the Dask cluster at ``scheduler``, through joblib's Dask
    backend; ``scheduler=None`` starts a local cluster). Returns a summary dict.
    """
    out = Path(out).resolve()  # workers may run elsewhere (another directory, a Dask node)
    prepare_dir(spec, out)
    mine = shard_chunks(spec, shard)
    pending = [c for c in mine if not chunk_done(spec, out, c)]
    for chunk in pending:  # temporary files a killed run left behind (this shard's only)
        for stale in out.glob(f".{CHUNK_PATTERN.format(chunk)}.*.tmp"):
            stale.unlink(missing_ok=True)
    total_units = sum(spec.chunk_range(c)[1] for c in mine)
    done_units = total_units - sum(spec.chunk_range(c)[1] for c in pending)
    warmup = time.perf_counter()
    if backend == "loky" and jobs > 1 and len(pending) > 1:
        search = any(strategy.kind.name == "mc" for config in spec.configs
                     for strategy in config.strategies)
        _warm_in_subprocess(spec.games_mode, search)
    warmup = time.perf_counter() - warmup
    progress = Progress(total_units, spec.unit_name, done_units, quiet)
    started = time.perf_counter()
    try:
        if pending:
            _run_chunks(spec, out, pending, jobs, backend, scheduler, progress)
    finally:
        progress.close()
    seconds = time.perf_counter() - started
    played = sum(spec.chunk_range(c)[1] for c in pending)
    return {"out": str(out), "chunks": len(mine), "played_chunks": len(pending),
            "skipped_chunks": len(mine) - len(pending), "units": played,
            "seconds": seconds, "rate": played / seconds if seconds > 0 else 0.0,
            "warmup_seconds": warmup}


def warm_kernels(games: bool = False, search: bool = False) -> None:
    """Compile the entry kernel of hands (or of ``games``), and with ``search`` the one that
    plays ``mc`` seats too, or load them from numba's disk cache, with a tiny run."""
    from .rules import preset

    rules = preset("classic", max_hands=1)
    units = {"n_games": 1} if games else {"n_hands": 1}
    configs = [make_config("warm", rules, ["random"])]
    if search:
        configs.append(make_config("warm-search", rules, ["mc:samples=1"]))
    play_chunk(RunSpec(tuple(configs), 0, chunk_size=1, **units), 0)


def _warm_in_subprocess(games: bool, search: bool = False) -> None:
    """Fill numba's disk cache from a short-lived process before the workers start: compiling
    takes several hundred MiB per process, which workers compiling at once would all hold (a
    10-million-hand run with two workers stays under 1 GiB only this way), and the workers then
    merely load the compiled kernels."""
    subprocess.run([sys.executable, "-c", "from spades_sim.runner import warm_kernels; "
                    f"warm_kernels(games={bool(games)}, search={bool(search)})"], check=False,
                   timeout=1800)


def _run_chunks(spec, out, pending, jobs, backend, scheduler, progress) -> None:
    from joblib import Parallel, delayed, parallel_config

    if backend == "loky" and jobs == 1:
        for chunk in pending:
            progress.advance(write_chunk(spec, out, chunk))
        return
    tasks = (delayed(write_chunk)(spec, out, chunk) for chunk in pending)
    if backend == "loky":
        with parallel_config(backend="loky", n_jobs=jobs):
            for count in Parallel(return_as="generator_unordered")(tasks):
                progress.advance(count)
        return
    if backend != "dask":
        raise RunError(f"backend {backend!r}: expected loky or dask")
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise RunError("backend dask needs dask[distributed]: pip install 'spades_sim[dask]'")
    cluster = None
    if scheduler is None:
        cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True)
        client = Client(cluster)
    else:
        client = Client(scheduler)
    try:
        with parallel_config(backend="dask", n_jobs=-1):
            for count in Parallel(return_as="generator_unordered")(tasks):
                progress.advance(count)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


# -- reading runs back ---------------------------------------------------------------------------
def read_meta(out) -> dict:
    path = Path(out) / META
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise RunError(f"{out}: no {META}; not a run directory")
    except (OSError, ValueError):
        raise RunError(f"{path}: unreadable run metadata")


def load_run(out, columns=None) -> pd.DataFrame:
    """The run's finished chunks as one pandas DataFrame (or only ``columns``).

    Chunk files are read in chunk order; a corrupt or unfinished chunk is skipped with a warning
    on stderr (``spades-sim status`` lists them).
    """
    import pyarrow.parquet as pq

    out = Path(out)
    meta = read_meta(out)
    spec = RunSpec.from_identity(meta["identity"])
    tables = []
    for chunk in range(spec.n_chunks):
        path = out / CHUNK_PATTERN.format(chunk)
        if not chunk_done(spec, out, chunk):
            if path.exists():
                print(f"spades-sim: skipping {path.name}: incomplete or corrupt", file=sys.stderr)
            continue
        tables.append(pq.read_table(path, columns=list(columns) if columns else None,
                                    page_checksum_verification=True))
    if not tables:
        return pd.DataFrame(columns=list(columns) if columns else list(TIDY_COLUMNS))
    import pyarrow as pa

    return pa.concat_tables(tables, promote_options="permissive").to_pandas()


def run_status(out) -> dict:
    """Progress of a run directory: chunks done, missing and corrupt, units done."""
    out = Path(out)
    meta = read_meta(out)
    spec = RunSpec.from_identity(meta["identity"])
    done, corrupt, missing = [], [], []
    for chunk in range(spec.n_chunks):
        path = out / CHUNK_PATTERN.format(chunk)
        if chunk_done(spec, out, chunk):
            done.append(chunk)
        elif path.exists():
            corrupt.append(chunk)
        else:
            missing.append(chunk)
    units_done = sum(spec.chunk_range(c)[1] for c in done)
    return {"out": str(out), "seed": spec.seed, "unit": spec.unit_name, "units": spec.units,
            "units_done": units_done, "chunk_size": spec.chunk_size, "chunks": spec.n_chunks,
            "done": len(done), "missing": missing, "corrupt": corrupt,
            "configs": [c.name for c in spec.configs], "complete": len(done) == spec.n_chunks}


def simulate(configs, *, n_hands: int | None = None, n_games: int | None = None, seed: int = 0,
             chunk_size: int = 100_000, duplicate: bool = False, jobs: int = 1) -> pd.DataFrame:
    """A small run straight to a DataFrame (same numbers as the same spec written to disk).

    ``configs``: a list of :class:`Config` (or ``(name, rules, strategies)`` tuples).
    """
    configs = tuple(c if isinstance(c, Config) else make_config(*c) for c in configs)
    spec = RunSpec(configs, seed, n_hands=n_hands, n_games=n_games, chunk_size=chunk_size,
                   duplicate=duplicate)
    if jobs == 1:
        frames = [play_chunk(spec, chunk) for chunk in range(spec.n_chunks)]
    else:
        from joblib import Parallel, delayed

        frames = Parallel(n_jobs=jobs)(delayed(play_chunk)(spec, c) for c in range(spec.n_chunks))
    frame = pd.concat(frames, ignore_index=True)
    for column in ("config", "rules", "strategy"):
        frame[column] = frame[column].astype("category")
    return frame
