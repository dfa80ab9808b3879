"""Where the double-dummy solver's kernels cache, and the hash that names the folder.

The solver's entry kernels inline helpers from the package's other modules, and numba checks
only the entry function's own file before it loads a cached kernel: the folder is named by a
hash of every module of the package, so an edit to any of them compiles afresh.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from spades_sim.core import version
from spades_sim.engine import toolchain

SOLVER = Path(version.PACKAGE_ROOT) / "engine" / "dd"


def test_the_solver_hash_covers_every_module_of_the_package():
    digest = hashlib.sha256()
    for path in sorted(SOLVER.glob("*.py")):
        digest.update(f"dd/{path.name}".encode() + path.read_bytes())
    assert version.solver_hash() == digest.hexdigest()[:16]
    assert {"search.py", "table.py", "bounds.py", "ordering.py", "layout.py"} \
        <= {path.name for path in SOLVER.glob("*.py")}


def test_solver_modules_cache_in_a_folder_named_by_the_solver_hash():
    base = toolchain.cache_dir()
    for name in ("search.py", "drivers.py", "table.py"):
        folder = toolchain.cache_dir_for(SOLVER / name)
        assert folder == str(Path(base) / f"dd-{version.solver_hash()}")
    assert toolchain.cache_dir_for(SOLVER.parent / "bits.py") == base


def test_the_compile_notice_finds_the_solver_in_its_folder():
    from spades_sim.engine import dd  # noqa: F401 (compiles or loads the kernels)

    _, _, source, function = toolchain.SOLVER_COMPILE
    assert toolchain.kernel_cached(source, function)
    assert not toolchain.kernel_cached(source, "no_such_kernel")
