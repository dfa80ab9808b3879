"""Shared fixtures. Kernels compile once per session (and load from numba's cache after); the
large ones compile in parallel at the start (``prewarm.py``).

``pytest --co`` (collection only) compiles nothing: it skips the warm-up, and since some engine
modules compile their kernels when imported (kernels declared with a signature), it imports
them with numba's JIT off. That must happen before numba is first imported, so it is decided
here, from the command line, rather than in a hook.
"""

import os
import subprocess
import sys
import time
from pathlib import Path

# The command's one-line notices (a kernel compiling for the first time) would land in the
# standard error that tests compare line for line, whenever a test is the first to need a kernel.
os.environ["SPADES_SIM_NOTICES"] = "0"

COLLECT_ONLY = any(arg in ("--co", "--collect-only") for arg in sys.argv[1:])
if COLLECT_ONLY:
    os.environ["NUMBA_DISABLE_JIT"] = "1"

import numpy as np  # noqa: E402 (after the JIT switch above)
import pytest  # noqa: E402

from spades_sim.core.rules import preset  # noqa: E402
from spades_sim.engine.scoring import score_hand_nb  # noqa: E402


def pytest_sessionstart(session):
    """Compile the large kernels in parallel processes (``prewarm.py``) before any test runs;
    ``SPADES_SIM_NO_PREWARM=1`` skips it. A group that fails here fails again, with its
    message, in the tests that use it."""
    if os.environ.get("SPADES_SIM_NO_PREWARM") or hasattr(session.config, "workerinput") \
            or session.config.option.collectonly:
        return  # (under pytest-xdist the controller compiles before the workers start)
    from prewarm import GROUPS

    script = Path(__file__).resolve().parent / "prewarm.py"
    pending = list(GROUPS)
    running = []
    started = time.perf_counter()
    while pending or running:
        while pending and len(running) < max(os.cpu_count() or 1, 1):
            running.append(subprocess.Popen([sys.executable, str(script), pending.pop(0)],
                                            stdout=subprocess.DEVNULL,
                                            stderr=subprocess.DEVNULL))
        running[0].wait()
        running = [process for process in running if process.poll() is None]
    elapsed = time.perf_counter() - started
    if elapsed > 10:
        print(f"\nkernels compiled in parallel before the tests: {elapsed:.0f} s")


def engine_score(rules, bids, blind, tricks, bags_before):
    """Per-side ``(deltas, bags_after)`` from the engine's scoring kernel."""
    players = rules.players
    pad = [0] * (4 - players)
    delta = np.zeros(4, np.int64)
    bags_after = np.zeros(4, np.int64)
    score_hand_nb(
        rules.kernel_tuple(),
        np.array(list(bids) + pad, np.int64),
        np.array([int(b) for b in blind] + pad, np.int64),
        np.array(list(tricks) + pad, np.int64),
        np.array(list(bags_before) + [0] * (4 - len(bags_before)), np.int64),
        delta,
        bags_after,
    )
    n_sides = rules.n_sides
    return [int(v) for v in delta[:n_sides]], [int(v) for v in bags_after[:n_sides]]


@pytest.fixture(scope="session")
def classic():
    return preset("classic")
