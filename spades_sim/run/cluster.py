"""What a run's workers share, wherever they run: the connection to a Dask scheduler, and the
kernels compiled once before the workers start (in a short-lived process on this machine, or on
each Dask worker before its first chunk: ``dask_warm.py``). Runs (``execute.py``) and tunings
(``tuning/workers.py``) use these alike.
"""

from __future__ import annotations

import subprocess
import sys

from ..core.errors import RunError
from ..core.rules import preset
from .memory import play_chunk
from .spec import RunSpec, make_config

#: Seconds to wait for a Dask scheduler given by address before giving up with a RunError.
DASK_CONNECT_TIMEOUT = 10


def connect_scheduler(scheduler: str):
    """A Dask client of the scheduler at ``scheduler``, or a one-line ``RunError`` (a bad
    address, or no scheduler answering within DASK_CONNECT_TIMEOUT seconds)."""
    try:
        from dask.distributed import Client
    except ImportError:
        raise RunError("backend dask needs dask[distributed]: pip install 'spades_sim[dask]'")
    if not isinstance(scheduler, str) or not scheduler.strip():
        raise RunError(f"scheduler {scheduler!r}: expected an address such as tcp://host:8786")
    try:
        return Client(scheduler, timeout=DASK_CONNECT_TIMEOUT)
    except Exception as error:  # a bad address (ValueError), no answer (OSError), ...
        text = " ".join(str(error).split()) or type(error).__name__
        raise RunError(f"scheduler {scheduler!r}: cannot connect ({text}); expected the address "
                       f"of a running Dask scheduler, such as tcp://host:8786")


def kernel_needs(spec: RunSpec) -> tuple[bool, bool, bool]:
    """``(games, search, par)``: which entry kernels the run plays (:func:`warm_kernels`)."""
    search = any(strategy.kind.name == "mc" for config in spec.configs
                 for strategy in config.strategies)
    return spec.games_mode, search, bool(spec.par)


def warm_dask_workers(client, needs) -> None:
    """Load the run's kernels on every Dask worker before any chunk is submitted: one worker
    first (on a numba cache shared by the workers, it alone compiles what the cache lacks),
    then every worker through the :class:`~spades_sim.run.dask_warm.WarmKernels` plug-in,
    which also warms any worker that joins later."""
    from .dask_warm import WarmKernels

    workers = list(client.scheduler_info().get("workers", {}))
    if workers:
        client.run(warm_kernels, *needs, workers=workers[:1])
    client.register_plugin(WarmKernels(*needs))


def warm_kernels(games: bool = False, search: bool = False, par: bool = False) -> None:
    """Compile the entry kernel of hands (or of ``games``), and with ``search`` the one that
    plays ``mc`` seats too, and with ``par`` the double-dummy solver's, or load them from
    numba's disk cache, with a tiny run."""
    rules = preset("classic", max_hands=1)
    units = {"n_games": 1} if games else {"n_hands": 1}
    configs = [make_config("warm", rules, ["random"])]
    if search:
        configs.append(make_config("warm-search", rules, ["mc:samples=1"]))
    play_chunk(RunSpec(tuple(configs), 0, chunk_size=1, **units), 0)
    if par:
        from ..game.par import warm

        warm()


def announce_kernels(games: bool, search: bool = False, par: bool = False) -> None:
    """The one-line compile notice of each kernel a run needs that numba's cache lacks
    (``engine/toolchain.py``)."""
    from ..core.strategies import STRATEGY_MC
    from ..engine import calls
    from ..engine.toolchain import SOLVER_COMPILE, announce_compile

    kernel = calls.games_kernel if games else calls.hands_kernel
    calls.announce(kernel(()))
    if search:
        calls.announce(kernel((STRATEGY_MC,)))
    if par:
        announce_compile(*SOLVER_COMPILE)


def warm_in_subprocess(games: bool, search: bool = False, par: bool = False) -> None:
    """Fill numba's disk cache from a short-lived process before the workers start: compiling
    takes several hundred MiB per process, which workers compiling at once would all hold (a
    10-million-hand run with two workers stays under 1 GiB only this way), and the workers then
    merely load the compiled kernels."""
    announce_kernels(games, search, par)  # (the subprocess compiles; this one says so)
    done = subprocess.run([sys.executable, "-c", "from spades_sim.run.cluster import "
                           f"warm_kernels; warm_kernels(games={bool(games)}, "
                           f"search={bool(search)}, par={bool(par)})"], check=False,
                          timeout=1800, capture_output=True, text=True)
    if done.returncode != 0:
        # Not fatal: each worker then compiles (or loads) its own kernels.
        lines = done.stderr.strip().splitlines() or ["no message"]
        print(f"spades-sim: the kernels' warm-up failed ({lines[-1]}); each worker compiles "
              "its own", file=sys.stderr)
