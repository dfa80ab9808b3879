"""The engine's unsafe tricks stay in ``engine/unsafe.py``; the kernels' own uses of them are
safe; importing the engine changes nothing global in the user's process (numba's cache folder,
the allocator); numba's version is checked."""

import ast
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from spades_sim.core.errors import SpadesError
from spades_sim.core.rules import preset
from spades_sim.core.strategies import seat_strategies
from spades_sim.engine.toolchain import NUMBA_SUPPORTED, check_versions
from spades_sim.run import simulate_hands

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "spades_sim"

#: What only ``engine/unsafe.py`` may use: numba's code generation and raw memory.
UNSAFE_NAMES = {"intrinsic", "cgutils", "carray", "farray", "inttoptr", "declare_intrinsic",
                "get_null_value"}


def _unsafe_uses(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found = set()
    for node in ast.walk(tree):
        name = node.id if isinstance(node, ast.Name) else \
            node.attr if isinstance(node, ast.Attribute) else None
        if name in UNSAFE_NAMES:
            found.add(name)
        if isinstance(node, ast.alias) and node.name.split(".")[-1] in UNSAFE_NAMES:
            found.add(node.name)
        if isinstance(node, ast.Attribute) and node.attr == "data" and \
                isinstance(node.value, ast.Attribute) and node.value.attr == "ctypes":
            found.add("ctypes.data")
    return found


def test_unsafe_tricks_live_in_one_module():
    offenders = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PACKAGE / "engine" / "unsafe.py":
            continue
        uses = _unsafe_uses(path)
        if uses:
            offenders[str(path.relative_to(ROOT))] = sorted(uses)
    assert offenders == {}
    assert _unsafe_uses(PACKAGE / "engine" / "unsafe.py") >= {"intrinsic", "carray"}


def test_every_unsafe_trick_states_its_rule():
    text = (PACKAGE / "engine" / "unsafe.py").read_text()
    doc = ast.get_docstring(ast.parse(text))
    for trick in ("borrow_nb", "keep_nb", "address_nb", "view_nb", "prefetch_nb", "ctpop_nb",
                  "pdep_raw_nb", "mul128_fold_nb"):
        assert f"``{trick}``" in doc, trick
    assert doc.count("Rule:") >= 4


def test_the_memo_is_read_through_one_owner(classic):
    """The heuristic's bids read the memo through borrowed views of one buffer; a kernel call
    that reuses the memo for 3,000 hands gives the bids of calls that start it empty (a view
    that outlived its buffer would read other data)."""
    strategies = seat_strategies(["heuristic"], 4)
    whole = simulate_hands(classic, strategies, 3000, 5)
    pieces = [simulate_hands(classic, strategies, 300, 5, first_hand_id=first).hands
              for first in range(0, 3000, 300)]
    assert np.array_equal(whole.hands.bids, np.concatenate([p.bids for p in pieces]))
    assert np.array_equal(whole.hands.score_delta,
                          np.concatenate([p.score_delta for p in pieces]))


def test_the_solver_batch_kernel_is_private():
    from spades_sim.engine import dd

    assert "_solve_deals_nb" not in dd.__all__ and not hasattr(dd, "solve_deals_nb")
    with pytest.raises(SpadesError, match=r"hands\[0\]"):
        dd.solve_deals(preset("classic"), np.full((1, 4), 7, dtype=np.int64), np.zeros(1, int))


# -- numba's version --------------------------------------------------------------------------

def test_numba_versions_outside_the_pin_are_refused():
    low, high = NUMBA_SUPPORTED
    check_versions(f"{low[0]}.{low[1]}.0")
    check_versions(f"{high[0]}.{high[1] - 1}.9")
    for version in (f"{low[0]}.{low[1] - 1}.2", f"{high[0]}.{high[1]}.0",
                    f"{high[0]}.{high[1]}.0rc1", "1.0.0"):
        with pytest.raises(SpadesError, match=f"numba {re.escape(version)} is not supported"):
            check_versions(version)


def test_the_installed_numba_is_supported_and_pinned_alike():
    import numba

    check_versions(numba.__version__)
    pyproject = (ROOT / "pyproject.toml").read_text()
    low, high = NUMBA_SUPPORTED
    assert f'"numba>={low[0]}.{low[1]},<{high[0]}.{high[1]}"' in pyproject
    assert re.search(r'"llvmlite[^"]*<\d+\.\d+"', pyproject)


# -- no side effects on the user's process ----------------------------------------------------

def _fresh(code: str, tmp_path: Path, own_cache: bool = False) -> str:
    """Standard output of ``code`` in a fresh interpreter; with ``own_cache`` the toolkit's
    kernels cache under ``tmp_path/xdg`` (and compile there)."""
    environment = dict(os.environ)
    if own_cache:
        environment.pop("NUMBA_CACHE_DIR", None)
        environment["XDG_CACHE_HOME"] = str(tmp_path / "xdg")
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=tmp_path,
                            env=environment, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_a_users_cached_function_caches_where_numba_puts_it(tmp_path):
    """A user's ``@njit(cache=True)`` function caches where numba puts it; the toolkit's
    kernels cache in their own folder, with a notice before the first compile of one the cache
    lacks."""
    (tmp_path / "user_module.py").write_text(textwrap.dedent("""
        from numba import njit

        @njit(cache=True)
        def twice(x):
            return 2 * x
    """))
    out = _fresh("""
        import sys
        sys.path.insert(0, ".")
        from numba.core import config
        import spades_sim.engine
        from spades_sim.engine.bits import pext_loop_nb
        from spades_sim.engine import toolchain
        import user_module
        said = []
        toolchain.set_compile_notice(said.append)
        toolchain.announce_compile("the bit loop", "a second", "bits.py", "pext_loop_nb")
        toolchain.announce_compile("the bit loop", "a second", "bits.py", "pext_loop_nb")
        assert said == ["compiling the bit loop once (a second); later runs load it from "
                        "numba's cache"], said
        assert not toolchain.kernel_cached("bits.py", "pext_loop_nb")
        assert user_module.twice(21) == 42
        assert pext_loop_nb(0b1010, 0b1110) == 0b101
        assert toolchain.kernel_cached("bits.py", "pext_loop_nb")
        assert not toolchain.kernel_cached("bits.py", "no_such_kernel")
        print(repr(config.CACHE_DIR))
        print(toolchain.cache_dir())
    """, tmp_path, own_cache=True)
    numba_dir, toolkit_dir = out.splitlines()
    assert numba_dir == "''"  # (numba's global setting untouched)
    assert list((tmp_path / "__pycache__").glob("user_module.twice-*.nbi"))
    assert toolkit_dir.startswith(str(tmp_path / "xdg" / "spades_sim" / "numba-"))
    toolkit_files = [p.name for p in Path(toolkit_dir).rglob("*.nbi")]
    assert any(name.startswith("bits.") for name in toolkit_files)
    assert not any("user_module" in name for name in toolkit_files)


def test_library_calls_leave_the_allocator_alone(tmp_path):
    """``simulate`` from Python tunes no allocator setting in the caller's process; the
    command line does (it owns its process)."""
    out = _fresh("""
        import spades_sim
        from spades_sim.run import heap
        from spades_sim.core.rules import preset
        from spades_sim.core.strategies import seat_strategies
        frame = spades_sim.simulate([("c", preset("classic"), seat_strategies(["random"], 4))],
                                    n_hands=50, seed=1)
        assert len(frame) == 200
        print(heap._kept)
        from spades_sim.cli import main
        assert main(["simulate", "--hands", "20", "--seed", "1", "--out", "run"]) == 0
        print("kept:", heap._kept is not None)
    """, tmp_path)
    assert out.splitlines()[0] == "None" and out.splitlines()[-1] == "kept: True"
