"""The package's layers import only downward, and the pure layers never load numba.

Checked from the source (every ``import`` statement of every module, at any depth), so a new
file or a new import that breaks the layering fails here at once.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "spades_sim"

# Each top-level part of the package and its layer: a module may import its own part and the
# parts of lower layers only. Parts in one layer never import each other (the twin checks the
# engine, so it must not share code with it).
LAYERS = {
    "core": 0,
    "engine": 1,
    "reference": 1,
    "game": 2,
    "run": 3,
    "analysis": 3,
    "env": 3,
    "evaluate": 4,
    "experiment": 5,
    "tuning": 5,
    "report": 6,
    "handlog": 7,
    "bench": 7,
    "cli": 8,
}


def _part(module: str) -> str:
    """The top-level part of a dotted module name under ``spades_sim`` ('' for the package)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE.parent).with_suffix("")
        names = list(relative.parts)
        is_package = names[-1] == "__init__"
        if is_package:
            names = names[:-1]
        yield path, ".".join(names), is_package


def _imports(path: Path, module: str, is_package: bool):
    """Every ``spades_sim`` module the file imports, with its line."""
    tree = ast.parse(path.read_text(), str(path))
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "spades_sim":
                    yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "spades_sim":
                continue
            if target == "spades_sim" or (node.level and not node.module):
                # ``from . import x`` / ``from .. import x``: the names are modules or attributes
                for alias in node.names:
                    yield f"{target}.{alias.name}", node.lineno
            else:
                yield target, node.lineno


def test_every_part_has_a_layer():
    parts = {_part(module) for _, module, _ in _modules()} - {""}
    assert parts <= set(LAYERS), f"give these a layer in LAYERS: {sorted(parts - set(LAYERS))}"


def test_layers_import_only_downward():
    wrong = []
    for path, module, is_package in _modules():
        own = _part(module)
        for target, line in _imports(path, module, is_package):
            other = _part(target)
            if other in ("", "__version__", own):  # the package root holds only the version
                continue
            if other not in LAYERS:
                continue
            if own == "" or LAYERS[other] < LAYERS[own]:
                continue
            wrong.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {own or 'spades_sim'} "
                         f"(layer {LAYERS.get(own, '-')}) imports {target} "
                         f"(layer {LAYERS[other]})")
    assert not wrong, "imports that go up or sideways:\n" + "\n".join(wrong)


def test_the_package_root_imports_nothing_eagerly():
    root = PACKAGE / "__init__.py"
    assert set(_imports(root, "spades_sim", True)) == set()
    result = subprocess.run([sys.executable, "-c", "import sys, spades_sim; print(sorted(m for m "
                             "in sys.modules if m.startswith(('spades_sim.', 'numba', "
                             "'pandas'))))"], capture_output=True, text=True, timeout=120,
                            check=True)
    assert result.stdout.strip() == "[]", result.stdout


@pytest.mark.parametrize("module", ["spades_sim.core", "spades_sim.reference", "spades_sim.game",
                                    "spades_sim.core.rules", "spades_sim.handlog"])
def test_pure_layers_leave_numba_out(module):
    code = (f"import sys, {module}, spades_sim.core.strategies, spades_sim.core.schema; "
            "print(sorted(m for m in ('numba', 'llvmlite', 'pandas', 'joblib') "
            "if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120, check=True)
    assert result.stdout.strip() == "[]", result.stdout


def test_the_checker_sees_relative_imports(tmp_path):
    # A smoke test of the checker itself: it must resolve ``from ..engine import x``.
    path = PACKAGE / "reference" / "hand.py"
    targets = {target for target, _ in _imports(path, "spades_sim.reference.hand", False)}
    assert "spades_sim.core.rules" in targets
    assert "spades_sim.reference.search" in targets


def test_no_private_name_is_imported_from_another_module():
    """What two modules share is public in one of them: no ``from .x import _name``."""
    private = []
    for path, _, _ in _modules():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        private.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: "
                                       f"{alias.name}")
    assert private == []


def test_no_production_module_imports_the_twin():
    """The reference twin is the tests' oracle: only the twin itself (and the tests) import it,
    at any depth (a function's own ``import`` too), so it never becomes production code."""
    wrong = []
    for path, module, is_package in _modules():
        if _part(module) == "reference":
            continue
        for target, line in _imports(path, module, is_package):
            if _part(target) == "reference":
                wrong.append(f"{path.relative_to(PACKAGE.parent)}:{line}: imports {target}")
    assert not wrong, "production modules that import the twin:\n" + "\n".join(wrong)


def test_the_twin_checker_sees_a_function_level_import(tmp_path):
    # The checker itself: an import inside a function body is found too.
    package = tmp_path / "spades_sim" / "game"
    package.mkdir(parents=True)
    path = package / "x.py"
    path.write_text("def f():\n    from ..reference.search import mc_card\n    return mc_card\n")
    targets = {target for target, _ in _imports(path, "spades_sim.game.x", False)}
    assert "spades_sim.reference.search" in targets


# -- the double-dummy solver package (engine/dd) ------------------------------------------------

SOLVER = PACKAGE / "engine" / "dd"


def test_the_solver_is_a_leaf_of_the_engine():
    """No engine module outside ``engine/dd`` imports the solver: its sources are left out of
    the engine's hash (``core/version.py``), which names the hand loop's kernel cache."""
    wrong = []
    for path, module, is_package in _modules():
        if not module.startswith("spades_sim.engine.") or path.is_relative_to(SOLVER):
            continue
        for target, line in _imports(path, module, is_package):
            if target == "spades_sim.engine.dd" or target.startswith("spades_sim.engine.dd."):
                wrong.append(f"{path.relative_to(PACKAGE.parent)}:{line}: imports {target}")
    assert wrong == []


@pytest.mark.parametrize("path", sorted(SOLVER.glob("*.py")), ids=lambda path: path.name)
def test_solver_modules_stay_small(path):
    assert len(path.read_text().splitlines()) <= 400, f"{path.name}: split it by job"


def _literal_columns(path: Path):
    """Two-index subscripts of a kernel module whose column is a bare number or starts with
    one (``moves[ply, 38]``, ``tt[row, 4 + suit]``), with their lines. The holdings row is
    indexed by seat (``moves[HANDS_ROW, 1]``), so it is left out."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if not isinstance(node, ast.Subscript) or not isinstance(node.slice, ast.Tuple) \
                or len(node.slice.elts) != 2:
            continue
        row, column = node.slice.elts
        if isinstance(row, ast.Name) and row.id == "HANDS_ROW":
            continue
        leftmost = column
        while isinstance(leftmost, ast.BinOp):
            leftmost = leftmost.left
        if isinstance(leftmost, ast.Constant) and isinstance(leftmost.value, int):
            yield node.lineno, ast.unparse(node)


def test_the_checker_finds_raw_columns(tmp_path):
    source = tmp_path / "kernel.py"
    source.write_text("x = moves[ply, 38]\ny = tt[row, 4 + suit]\nz = moves[ply, MOVE_COUNT]\n"
                      "w = moves[HANDS_ROW, 1]\nv = moves[CTX_ROW, CTX_CUTS + 2 * lead]\n")
    assert [line for line, _ in _literal_columns(source)] == [1, 2]


@pytest.mark.parametrize("path", sorted(SOLVER.glob("*.py")), ids=lambda path: path.name)
def test_solver_kernels_index_their_tables_by_named_columns(path):
    if "@njit" not in path.read_text():
        pytest.skip("no kernel")
    raw = [f"{path.name}:{line}: {text}" for line, text in _literal_columns(path)]
    assert raw == [], "name the column in engine/dd/layout.py:\n" + "\n".join(raw)
