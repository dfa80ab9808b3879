"""The engine's contract with numba: the versions it supports and where its kernels cache.

**Versions.** The engine builds on a few numba internals (its own intrinsics in ``unsafe.py``,
first-class function pointers in ``plugin.py``, the cache locator below), which may change in
any minor release. ``pyproject.toml`` pins numba and llvmlite below their next minor release,
and :func:`check_versions` refuses, with one line, a numba outside :data:`NUMBA_SUPPORTED`
(installed around the pin, for instance by hand), instead of failing later with a compiler
traceback.

**The cache.** numba's on-disk cache (``cache=True``) is keyed by the source file of each *entry*
function only, so an edit to a helper in another file would leave a stale compiled kernel in
use. To rule that out, the toolkit's kernels cache in a folder named by a hash of every engine
source file (and of the core modules the kernels take constants from): any such edit (or an
upgrade) starts from a fresh cache. :func:`install_cache_locator` puts that folder in place for
the toolkit's own source files alone, with a cache locator that answers only for them: a user's
own ``@njit(cache=True)`` functions cache wherever numba would put them, and numba's global
``config.CACHE_DIR`` is left as the user set it. The double-dummy solver (the ``dd`` package) is
left out of that hash, since no kernel of the hand loop calls it: its kernels cache in a
subfolder named by the hash of its own sources (:func:`cache_dir_for`), so an edit to one of its
modules recompiles the solver alone.

**Compile notices.** A kernel's first compile on an empty cache takes from seconds to minutes.
:func:`announce_compile` says so in one line before it starts, through ``core/notices.py``
(the command line asks for notices and prints them on standard error; a library caller hears
nothing unless it asks).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ..core import notices
from ..core.errors import SpadesError
from ..core.version import SOLVER_PACKAGE, engine_hash, solver_hash

#: The numba releases the engine is built and tested for: ``(lowest, first unsupported)``;
#: the same bounds as ``pyproject.toml``'s pin.
NUMBA_SUPPORTED = ((0, 59), (0, 69))

#: The toolkit's sources: every file below this folder caches in :func:`cache_dir`.
PACKAGE_DIR = Path(__file__).resolve().parent.parent


def _release(version: str) -> tuple[int, int]:
    """``(major, minor)`` of a version string such as ``0.68.1`` or ``0.69.0rc1``."""
    parts = version.split(".")
    return int(parts[0]), int("".join(ch for ch in parts[1] if ch.isdigit()) or 0)


def check_versions(version: str | None = None) -> None:
    """Raise :class:`SpadesError` when numba's ``version`` (the installed one by default) is
    outside :data:`NUMBA_SUPPORTED`."""
    if version is None:
        import numba

        version = numba.__version__
    low, high = NUMBA_SUPPORTED
    if not low <= _release(version) < high:
        wanted = f"numba>={low[0]}.{low[1]},<{high[0]}.{high[1]}"
        raise SpadesError(f"numba {version} is not supported by spades_sim's engine: install "
                          f"'{wanted}' (pip install '{wanted}')")


def cache_dir() -> str:
    """The folder of the toolkit's compiled kernels: ``numba-<engine hash>`` under
    ``$NUMBA_CACHE_DIR``, else under ``$XDG_CACHE_HOME/spades_sim`` (``~/.cache/spades_sim``)."""
    root = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "spades_sim"
    )
    return os.path.join(root, "numba-" + engine_hash())


#: The solver's package folder: its files cache apart (:func:`cache_dir_for`).
SOLVER_DIR = Path(__file__).resolve().parent / SOLVER_PACKAGE


def cache_dir_for(py_file) -> str:
    """The cache folder of one toolkit source file: :func:`cache_dir`, and for the solver's
    files its subfolder ``dd-<solver hash>`` (the solver's kernels inline helpers from its
    other modules, which numba's check of the entry function's own file would miss)."""
    if Path(py_file).resolve().parent == SOLVER_DIR:
        return os.path.join(cache_dir(), f"{SOLVER_PACKAGE}-{solver_hash()}")
    return cache_dir()


def install_cache_locator() -> None:
    """Have numba cache the toolkit's kernels in :func:`cache_dir` and nothing else there
    (once per process)."""
    from numba.core import caching

    # (both named with a leading underscore before numba 0.61)
    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl
    base = getattr(caching, "UserProvidedCacheLocator", None) \
        or caching._UserProvidedCacheLocator

    class ToolkitCacheLocator(base):
        """numba's locator for a given cache folder, for the toolkit's own files only."""

        _spades_sim = True

        def __init__(self, py_func, py_file):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = os.path.join(cache_dir_for(py_file),
                                            self.get_suitable_cache_subpath(py_file))

        @classmethod
        def from_function(cls, py_func, py_file):
            try:
                inside = Path(py_file).resolve().is_relative_to(PACKAGE_DIR)
            except (OSError, ValueError):
                return None
            if not inside or not os.path.exists(py_file):
                return None
            locator = cls(py_func, py_file)
            try:
                locator.ensure_cache_path()
            except OSError:  # (not writable: numba's next locator is tried)
                return None
            return locator

    if not any(getattr(cls, "_spades_sim", False) for cls in impl._locator_classes):
        impl._locator_classes = [ToolkitCacheLocator, *impl._locator_classes]


_announced: set = set()

#: The double-dummy solver's compile notice (its kernels compile when ``dd`` is imported).
SOLVER_COMPILE = ("the double-dummy solver", "about a minute", "dd/search.py", "search_nb")


def set_compile_notice(callback) -> None:
    """Have :func:`announce_compile` call ``callback(text)`` (``None``: say nothing); the same
    as ``core.notices.set_notice``."""
    notices.set_notice(callback)


def kernel_cached(source: str, function: str) -> bool:
    """Whether numba's disk cache holds a compiled ``function`` of ``engine/<source>`` (its
    index file, ``<module>.<function>-<line>.pyXY.nbi``, under :func:`cache_dir`)."""
    from numba.core import caching

    locator = caching._CacheLocator
    path = PACKAGE_DIR / "engine" / source
    folder = Path(cache_dir_for(path)) / locator.get_suitable_cache_subpath(str(path))
    tag = f"py{sys.version_info.major}{sys.version_info.minor}"
    return any(folder.glob(f"{path.stem}.{function}-*.{tag}.nbi"))


def announce_compile(what: str, duration: str, source: str, function: str) -> None:
    """One line, once a process, before ``function`` of ``engine/<source>`` compiles on an
    empty cache: ``compiling WHAT once (DURATION); later runs load it from the cache``."""
    key = (source, function)
    if not notices.listening() or key in _announced:
        return
    _announced.add(key)
    if not kernel_cached(source, function):
        notices.notice(f"compiling {what} once ({duration}); later runs load it from numba's "
                       f"cache")
