"""Locks of a run folder: one writer per share of the chunks (``.writer-I-of-N.lock``), short
locks for ``meta.json`` and start-up, whether a writer is still alive, and the removal of the
temporaries no live writer owns. ``flock`` on small files in the folder.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import socket
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import RunError
from .folder import (
    LOCK_WAIT,
    META,
    META_LOCK,
    START_LOCK,
    TMP_RE,
    WRITER_LOCK,
    WRITER_RE,
    chunk_path,
    legacy_chunk_path,
    short_reason,
)
from .spec import RunSpec, shard_chunks

# ``flock`` on small files in the run folder. A holder removes its lock file before releasing it,
# and a process that has just locked a lock file checks that the name still leads to the file it
# locked (else it retries), so removing never lets two holders in. A lock file left by a killed
# process is not locked (the kernel releases a dead process's locks): the next one takes it.

def _acquire(path: Path, wait: float) -> int | None:
    """An fd holding an exclusive ``flock`` on ``path`` (created if needed), or None when it is
    still held by another after ``wait`` seconds."""
    deadline = time.monotonic() + wait
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as error:
            raise RunError(f"{path}: cannot create a lock file: {short_reason(error)}")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.01)
            continue
        except OSError as error:
            os.close(fd)
            if error.errno in (errno.ESTALE, errno.ENOENT) and time.monotonic() < deadline:
                time.sleep(0.01)  # removed by its holder meanwhile (NFS): take the new one
                continue
            raise RunError(f"{path}: cannot lock ({short_reason(error)}); the run folder must "
                           f"be on a file system with file locks")
        try:
            same = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            return fd
        os.close(fd)  # its holder removed it meanwhile: take the new one


def _release(fd: int, path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
    os.close(fd)


@contextmanager
def file_lock(path: Path, wait: float = LOCK_WAIT):
    fd = _acquire(path, wait)
    if fd is None:
        raise RunError(f"{path}: locked by another process for more than {wait:.0f} s; is a "
                       f"process stuck? (remove the file if no run is going)")
    try:
        yield
    finally:
        _release(fd, path)


@contextmanager
def hold_lock(path: Path, what: str):
    """Hold the lock file ``path`` (with this process's pid, host and start time in it) for a
    long job, or raise a ``RunError`` naming its live holder: ``<what> is being written by pid
    42 on host since ...``."""
    path = Path(path)
    fd = _acquire(path, wait=0.0)
    if fd is None:
        try:
            holder = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        except OSError:
            info = {}
        else:
            info = _lock_info(holder)
            os.close(holder)
        who = (f"pid {info['pid']} on {info['host']}" if "pid" in info and "host" in info
               else "another process")
        since = f" since {info['started']}" if "started" in info else ""
        raise RunError(f"{what} is being written by {who}{since}; wait for it to finish, or "
                       f"stop it and run the command again to resume")
    try:
        info = {"pid": os.getpid(), "host": socket.gethostname(),
                "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        os.pwrite(fd, json.dumps(info).encode(), 0)
        yield
    finally:
        _release(fd, path)


def _lock_info(fd: int) -> dict:
    try:
        info = json.loads(os.pread(fd, 65536, 0) or b"{}")
    except (OSError, ValueError):
        return {}
    return info if isinstance(info, dict) else {}


@dataclass(frozen=True)
class Writer:
    """The process writing one share of a run: its lock file and its token. Workers get it with
    each chunk and stop when the lock is no longer held with this token (the writer died)."""

    token: str
    lock_name: str

    @property
    def suffix(self) -> str:
        """Temporary files of this writer's processes end in ``.<suffix>.tmp``."""
        return f"{self.token}.{os.getpid()}"


def writer_alive(out: Path, writer: Writer) -> bool:
    """Whether ``writer`` still holds its lock (from any process, on any machine that sees the
    folder): a worker checks it before playing a chunk and before placing its file."""
    try:
        fd = os.open(Path(out) / writer.lock_name, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:  # held: by our writer, if the token is still ours
        alive = _lock_info(fd).get("token") == writer.token
    except OSError as error:  # removed meanwhile (NFS), or no locks here: nothing to go by
        alive = error.errno not in (errno.ESTALE, errno.ENOENT)
    else:
        alive = False  # nobody holds it: the writer is gone
    os.close(fd)
    return alive


def _share_text(shard) -> str:
    index, count = shard
    return "the whole run" if count == 1 else f"shard {index}/{count}"


def started_text(info: dict) -> str:
    """``the run is being written by pid 42 on host since ... (the whole run)``."""
    shard = info.get("shard") or [1, 1]
    who = (f"pid {info['pid']} on {info['host']}" if "pid" in info and "host" in info
           else "another process")
    since = f" since {info['started']}" if "started" in info else ""
    try:
        share = _share_text(shard)
    except (TypeError, ValueError):
        share = "a share of it"
    return f"the run is being written by {who}{since} ({share})"


def live_writers(out) -> list[dict]:
    """The lock information of every writer that holds its lock in ``out`` (read only: a
    reader removes nothing)."""
    live = []
    try:
        names = sorted(os.listdir(out))
    except OSError:
        return live
    for name in names:
        if not WRITER_RE.fullmatch(name):
            continue
        state, info = _probe(Path(out) / name, os.O_RDONLY | os.O_NONBLOCK)
        if state == "held":
            live.append(info)
    return live


def _probe(path: Path, flags: int, remove_free: bool = False) -> tuple[str, dict | None]:
    """Whether someone holds the lock file at ``path``: ``("held", info)``, ``("free", None)``
    when nobody does, or ``("unknown", None)`` when the file cannot be opened or tested. With
    ``remove_free`` a free lock file is removed while the shared lock is still held, so no
    writer can take it between the test and the removal."""
    try:
        fd = os.open(path, flags)
    except OSError:
        return "unknown", None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return "held", _lock_info(fd)
    except OSError:
        return "unknown", None
    else:
        if remove_free:
            try:
                os.unlink(path)
            except OSError:
                pass
        return "free", None
    finally:
        os.close(fd)


def _busy(out: Path, info: dict) -> RunError:
    shard = info.get("shard") or [1, 1]
    who = (f"pid {info['pid']} on {info['host']}" if "pid" in info and "host" in info
           else "another process")
    since = f" since {info['started']}" if "started" in info else ""
    return RunError(f"{out} is being written by {who}{since} ({_share_text(shard)}); wait for "
                    f"it to finish, or stop it and run the command again to resume")


def _live_writers(out: Path, exclude: str) -> list[dict]:
    """The lock information of every other writer that holds its lock; lock files nobody holds
    are removed."""
    live = []
    for path in sorted(out.glob(".writer-*-of-*.lock")):
        if path.name == exclude or not WRITER_RE.fullmatch(path.name):
            continue
        state, info = _probe(path, os.O_RDONLY, remove_free=True)
        if state == "held":
            live.append(info)
    return live


#: The shares held with ``share=True`` in this process (lock path -> Writer): claiming one again
#: gives the same writer (an experiment holds its runs' locks while it writes their meta.json
#: and its copy of the file, then plays them through the calls that claim each run).
_HELD: dict = {}


@contextmanager
def claim_share(out: Path, spec: RunSpec, shard: tuple[int, int] | None, share: bool = False):
    """Hold the lock of ``shard``'s share of the run in ``out`` (a ``Writer``), or raise a
    ``RunError`` naming the live writer (pid, host) of the same chunks. On entry, removes the
    temporaries that no live writer owns, and moves the share's chunk files of the older
    layout (beside meta.json) into ``data/``. Nothing else is written before the lock is held:
    a refused writer leaves the folder as it was. With ``share``, a later claim of the same
    share in this process, while this one holds it, gets the same writer."""
    out = Path(out)
    shares = tuple(shard) if shard is not None else (1, 1)
    lock_name = WRITER_LOCK.format(*shares)
    path = out / lock_name
    key = str(path.resolve())
    if key in _HELD:
        yield _HELD[key]
        return
    writer = Writer(uuid.uuid4().hex, lock_name)
    with file_lock(out / START_LOCK):
        others = _live_writers(out, exclude=lock_name)
        # A moment's wait: a worker of a dead writer may be probing the stale lock file.
        fd = _acquire(path, wait=1.0)
        if fd is None:
            try:
                holder = os.open(path, os.O_RDONLY)
            except OSError:
                info = {}
            else:
                info = _lock_info(holder)
                os.close(holder)
            raise _busy(out, info)
        try:
            mine = set(shard_chunks(spec, shard))
            for info in others:
                other = info.get("shard") or [1, 1]
                try:
                    theirs = shard_chunks(spec, (int(other[0]), int(other[1])))
                except (TypeError, ValueError, IndexError, ZeroDivisionError):
                    theirs = mine  # unreadable: assume it overlaps
                if mine.intersection(theirs):
                    raise _busy(out, info)
            info = {"pid": os.getpid(), "host": socket.gethostname(),
                    "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                    "shard": list(shares), "token": writer.token}
            try:
                os.ftruncate(fd, 0)
                os.pwrite(fd, json.dumps(info).encode(), 0)
            except OSError as error:
                raise RunError(f"{path}: cannot write: {short_reason(error)}")
            _remove_temporaries(out, {writer.token} | {o.get("token") for o in others})
            _move_legacy_chunks(out, mine)
        except BaseException:
            _release(fd, path)
            raise
    if share:
        _HELD[key] = writer
    try:
        yield writer
    finally:
        if share:
            _HELD.pop(key, None)
        try:
            _remove_temporaries(out, set(), only={writer.token})
        except OSError:  # the folder went away: nothing to tidy
            pass
        _release(fd, path)


def _move_legacy_chunks(out: Path, chunks) -> None:
    """Move ``chunks``' files of the older layout (beside meta.json) into ``data/``, where
    there is no file of that chunk yet (the same bytes: meta.json's checksums still hold)."""
    for chunk in chunks:
        old, new = legacy_chunk_path(out, chunk), chunk_path(out, chunk)
        if not os.path.lexists(old) or os.path.lexists(new):
            continue
        try:
            new.parent.mkdir(exist_ok=True)
            os.replace(old, new)
        except OSError as error:
            raise RunError(f"{old}: cannot move it into {new.parent}: {short_reason(error)}")


def _remove_temporaries(out: Path, live: set, only: set | None = None) -> None:
    """Remove chunk temporaries whose writer token is not in ``live`` (or, with ``only``, those
    whose token is in ``only``), and every meta.json temporary (they exist only while the
    meta.json lock is held, which this takes)."""
    names = [p.name for p in out.iterdir()]
    for name in names:
        match = TMP_RE.fullmatch(name)
        if not match or match.group(1) == META:
            continue
        token = match.group(2).split(".")[0]
        if (token in only) if only is not None else (token not in live):
            (out / name).unlink(missing_ok=True)
    if only is None and any((m := TMP_RE.fullmatch(n)) and m.group(1) == META for n in names):
        with file_lock(out / META_LOCK):
            for name in names:
                match = TMP_RE.fullmatch(name)
                if match and match.group(1) == META:
                    (out / name).unlink(missing_ok=True)


