"""Reading files a user's folder holds (run metadata, chunk files, summaries, experiment copies)
safely: only regular files, and never more than a bound.

A run folder is shared and may be tampered with: a chunk that is a symbolic link to
``/dev/zero`` would be read forever, and a FIFO in place of ``meta.json`` blocks whoever opens
it. :func:`read_regular` opens without blocking, checks that what it opened is a regular file
of at most ``limit`` bytes, and reads exactly its size.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

#: Bounds of the small files of a run or results folder (bytes).
MAX_META_BYTES = 256 << 20  # meta.json: up to 100,000 listed chunks of about 80 bytes each
MAX_TEXT_BYTES = 64 << 20  # experiment.toml, tournament.json, tuning state


def _kind(mode: int) -> str:
    """What a non-regular file is, in words.

    >>> _kind(stat.S_IFIFO)
    'a FIFO'
    """
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def read_regular(path, limit: int, error: type[Exception], stamp: list | None = None) -> bytes:
    """The bytes of the regular file at ``path`` (a symbolic link to one is followed), read
    without blocking and at most ``limit`` of them; ``error`` (an exception class taking one
    line) otherwise: a FIFO, a device, a directory, or a file larger than ``limit``.
    ``FileNotFoundError`` passes through (the caller says what a missing file means); other
    ``OSError`` s too. ``stamp``: a list that gets the file's ``(inode, modification time in
    ns, size)`` appended, taken from the file read."""
    path = Path(path)
    # O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise error(f"{path}: refused: it is {_kind(info.st_mode)}, not a regular file")
        size = info.st_size
        if stamp is not None:
            stamp.append((info.st_ino, info.st_mtime_ns, info.st_size))
        if size > limit:
            raise error(f"{path}: refused: {size:,} bytes, more than the {limit:,} such a file "
                        f"can hold")
        chunks, left = [], size
        while left > 0:
            block = os.read(fd, min(left, 1 << 26))
            if not block:
                break  # (it shrank meanwhile: what there is)
            chunks.append(block)
            left -= len(block)
        return b"".join(chunks)
    finally:
        os.close(fd)
