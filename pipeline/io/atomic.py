"""Writing whole or not at all: a temporary file or folder beside the target, swapped in on success;
raw files never replaced; a folder moved aside by a killed swap put back."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _umask()


@contextlib.contextmanager
def atomic_path(path: Path) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success it replaces ``path``, on error it goes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp makes it private; the result gets normal permissions
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


@contextlib.contextmanager
def atomic_folder(folder: Path) -> Iterator[Path]:
    """Yield a temporary folder beside ``folder``; on success it takes ``folder``'s place (the old one,
    if any, is removed after the swap), on error it goes: a reader never sees a half-written folder."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    restore_folder(folder)
    tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", suffix=".tmp", dir=folder.parent))
    old = folder.parent / f".{folder.name}.old-{os.getpid()}"
    try:
        yield tmp
        os.chmod(tmp, 0o777 & ~_UMASK)
        if folder.exists():
            os.replace(folder, old)
        os.replace(tmp, folder)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if folder.exists():  # the old folder goes only once the new one is in place
            shutil.rmtree(old, ignore_errors=True)


def restore_folder(folder: Path) -> None:
    """Put back the previous ``folder`` when a process was killed between moving it aside and moving
    its replacement in (``atomic_folder``), so the folder is never simply gone."""
    if folder.exists():
        return
    left = sorted(folder.parent.glob(f".{folder.name}.old-*"), key=lambda p: p.stat().st_mtime)
    if left:
        os.replace(left[-1], folder)


def write_new_file(data: bytes, path: Path) -> bool:
    """Write ``data`` to ``path`` atomically, never replacing a file already there (raw is immutable).

    The bytes go to a temporary file beside ``path``, which is then hard-linked into place: the
    link fails if ``path`` exists, so a repeated write cannot clobber it, and a crash leaves either
    nothing or the whole file. Returns False (and writes nothing) if ``path`` existed.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~_UMASK)
        try:
            os.link(tmp, path)
        except FileExistsError:
            return False
        except OSError:  # a file system without hard links: check, then rename (not race-free)
            if path.exists():
                return False
            os.replace(tmp, path)
        return True
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def link_tree(source: Path, target: Path) -> None:
    """A copy of folder ``source`` at ``target`` made of hard links (no bytes copied)."""
    shutil.copytree(source, target, copy_function=os.link)
