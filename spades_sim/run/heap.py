"""Keep a chunk-playing process's freed memory for its next chunk.

Every chunk allocates the same large arrays again: the record arrays the kernel fills (about
16 MB for 100,000 hands), the stored columns, the Arrow table and the Parquet writer's buffers.
glibc's allocator serves arrays of more than 128 KiB from fresh ``mmap`` pages and gives them
back on ``free``, so each chunk pays some 6,000 page faults, each zeroing a page: about 12 ms of
a 100,000-hand chunk whose kernel takes 55 ms. With :func:`keep_heap`, arrays up to
:data:`MMAP_THRESHOLD` come from the heap and up to :data:`TRIM_THRESHOLD` of freed heap stays
with the process, so the next chunk reuses the pages it already has. The process keeps about
one chunk's working set between chunks, the size it had at its peak anyway.

It is a tuning of the C allocator (``mallopt``), on Linux with glibc only; elsewhere it does
nothing. Results never depend on it. It changes the whole process, so the toolkit applies it
only to processes it owns: the ``spades-sim`` command's (``cli``) and the worker processes that
play chunks (:func:`keep_heap_in_worker`), never a Python session that merely calls
:func:`spades_sim.simulate`.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import sys

#: Arrays up to this size come from the heap (glibc's ceiling for the setting on 64 bits).
MMAP_THRESHOLD = 32 << 20
#: Freed memory at the top of the heap kept up to this size instead of given back.
TRIM_THRESHOLD = 256 << 20
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # (glibc's malloc.h)

_kept: bool | None = None


def keep_heap() -> bool:
    """Tune this process's allocator once (see the module docstring); whether it took."""
    global _kept
    if _kept is None:
        _kept = _mallopt()
    return _kept


def keep_heap_in_worker() -> bool:
    """:func:`keep_heap` in a worker process (a child process: joblib's or Dask's), nothing in
    the process the user started; whether it took."""
    if multiprocessing.parent_process() is None:
        return False
    return keep_heap()


def _mallopt() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc (musl has no mallopt)
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and \
        bool(mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))
