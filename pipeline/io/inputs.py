"""Finding and opening input files (the ingest stage's): folders walked (hidden, temporary and
unreadable files named in a warning), gzip opened, UTF-16 and byte-order marks transcoded to UTF-8
on the fly."""

from __future__ import annotations

import codecs
import errno
import gzip
import io
import os
import zlib
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

_SNIFF_BYTES = 1 << 16
STREAM_ERRORS = (EOFError, OSError, zlib.error)  # what reading a (gzipped) file may raise partway


class InputError(RuntimeError):
    """An input named does not exist."""


def _walk(folder: Path, warn: Callable[[Path, str], None]) -> list[Path]:
    """Regular files under ``folder`` (hidden ones skipped), following links to folders once each;
    a folder that cannot be read, a dangling link, a link loop or anything that is not a regular
    file is named through ``warn`` instead of being skipped without a word."""
    found: list[Path] = []
    visited: set[str] = set()
    stack = [folder]
    while stack:
        current = stack.pop()
        try:
            real = os.path.realpath(current, strict=True)
        except OSError as exc:
            warn(current, f"cannot be followed ({exc.strerror or exc}); skipped")
            continue
        if real in visited:
            warn(current, "a link back to a folder already read (a loop); skipped")
            continue
        visited.add(real)
        try:
            entries = sorted(os.scandir(current), key=lambda e: e.name)
        except OSError as exc:
            warn(current, f"folder cannot be read ({exc.strerror or exc}); skipped")
            continue
        for entry in entries:
            path = Path(entry.path)
            if entry.name.startswith("."):
                continue
            try:
                if entry.is_dir():
                    stack.append(path)
                elif entry.is_file():
                    found.append(path)
                elif entry.is_symlink():
                    target = os.readlink(entry.path)
                    warn(path, f"a link to {target!r}, which does not exist or loops; skipped")
                else:
                    warn(path, "not a regular file (a device, socket or pipe); skipped")
            except OSError as exc:
                looped = exc.errno == errno.ELOOP
                warn(path, "a link that loops; skipped" if looped else f"cannot be read ({exc.strerror or exc}); skipped")
    return sorted(found)


def list_inputs(inputs: list[Path], warn: Callable[[Path, str], None]) -> list[Path]:
    """Files named, and files under folders named (recursively, hidden files skipped).

    In the order named, each folder's files sorted; a file reached twice (named and inside a folder
    named, or two overlapping folders) is read once. What a folder holds that cannot be read (see
    ``_walk``) is named through ``warn`` (the ingest stage logs it).
    """
    files: list[Path] = []
    seen: set[Path] = set()
    for path in inputs:
        if path.is_dir():
            found = _walk(path, warn)
        elif path.is_file():
            found = [path]
        else:
            raise InputError(f"{path}: no such file or folder")
        for file in found:
            if (key := file.resolve()) not in seen:
                seen.add(key)
                files.append(file)
    return files


@dataclass
class Opened:
    stream: BinaryIO  # what readers read: the file, or its decompressed content
    raw: BinaryIO  # the file itself
    compressed: bool


class _Transcoded(io.RawIOBase):
    """A text stream in another encoding (UTF-16 with its byte-order mark, or UTF-8 with one) read
    as UTF-8 bytes without the mark, so every reader sees what it expects. Characters that cannot
    be decoded become U+FFFD; only rewinding to the start is supported."""

    def __init__(self, source: BinaryIO, encoding: str) -> None:
        super().__init__()
        self._source, self._encoding = source, encoding
        self.seek(0)

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, pos: int, whence: int = 0) -> int:
        if (pos, whence) != (0, 0):
            raise io.UnsupportedOperation("a transcoded stream can only be rewound")
        self._source.seek(0)
        self._decoder = codecs.getincrementaldecoder(self._encoding)(errors="replace")
        self._pending, self._done, self._position = b"", False, 0
        return 0

    def tell(self) -> int:
        return self._position

    def readinto(self, buffer) -> int:  # noqa: ANN001 - a writable buffer
        while not self._pending and not self._done:
            chunk = self._source.read(1 << 16)
            self._done = not chunk
            self._pending = self._decoder.decode(chunk, final=self._done).encode("utf-8")
        n = min(len(buffer), len(self._pending))
        buffer[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        self._position += n
        return n


BYTE_ORDER_MARKS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


def open_input(path: Path, stack: ExitStack) -> Opened:
    raw = stack.enter_context(path.open("rb"))
    compressed = raw.read(2) == b"\x1f\x8b"
    raw.seek(0)
    stream: BinaryIO = stack.enter_context(gzip.GzipFile(fileobj=raw)) if compressed else raw
    start = stream.read(4)
    stream.seek(0)
    for mark, encoding in BYTE_ORDER_MARKS:
        if start.startswith(mark) and not (mark == codecs.BOM_UTF16_LE and start.startswith(b"\xff\xfe\x00\x00")):
            stream = io.BufferedReader(_Transcoded(stream, encoding), 1 << 16)
            break
    return Opened(stream, raw, compressed)


def read_head(stream: BinaryIO) -> bytes:
    """Up to ``_SNIFF_BYTES`` from the start of ``stream``, then rewind it.

    A gzip file cut short may break within those bytes: what was decompressed before the break is
    still returned, so the format is detected and the reader keeps the records before the break.
    """
    parts: list[bytes] = []
    size = 0
    try:
        while size < _SNIFF_BYTES and (part := stream.read1(_SNIFF_BYTES - size)):
            parts.append(part)
            size += len(part)
    except STREAM_ERRORS:
        if not parts:
            raise
    stream.seek(0)
    return b"".join(parts)
