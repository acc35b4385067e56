"""All disk I/O for tables: validate on the way in and out, write atomically, carry fingerprints.

Every parquet file written here carries, in its key-value metadata, the fingerprint of the stage run
that produced it (``paper_trends.fingerprint``), so a stage can tell whether its outputs are current.
Writes go to a temporary file in the same folder that is then ``os.replace``-d over the target: a
crash never leaves half a table behind.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

import pandas as pd
import pandera.pandas as pa
import pyarrow as pyarrow_
import pyarrow.parquet as pq

FINGERPRINT_KEY = b"paper_trends.fingerprint"


class TableError(RuntimeError):
    """A table on disk is missing, unreadable or does not match its schema."""


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


def _validate(df: pd.DataFrame, model: type[pa.DataFrameModel], where: Path) -> pd.DataFrame:
    try:
        return model.validate(df, lazy=True)
    except (pa.errors.SchemaError, pa.errors.SchemaErrors) as exc:
        summary = str(exc).strip().splitlines()
        raise TableError(f"{where}: does not match schema {model.__name__}: {' '.join(summary[:12])}") from exc


def _arrow(df: pd.DataFrame, schema: pyarrow_.Schema | None = None) -> pyarrow_.Table:
    table = pyarrow_.Table.from_pandas(df, preserve_index=False, schema=schema)
    # pandas' own metadata names list columns by a dtype string that pandas cannot read back
    # ("list<element: string>[pyarrow]"); without it, plain pd.read_parquet works on every table
    metadata = {k: v for k, v in (table.schema.metadata or {}).items() if k != b"pandas"}
    return table.replace_schema_metadata(metadata or None)


def _with_fingerprint(table: pyarrow_.Table, fingerprint: str | None) -> pyarrow_.Table:
    if fingerprint is None:
        return table
    return table.replace_schema_metadata({**(table.schema.metadata or {}), FINGERPRINT_KEY: fingerprint.encode()})


def write_table(
    df: pd.DataFrame,
    path: Path,
    model: type[pa.DataFrameModel],
    *,
    fingerprint: str | None = None,
) -> pd.DataFrame:
    """Validate ``df`` against ``model`` and write it atomically; returns the validated frame."""
    validated = _validate(df, model, path)
    table = _with_fingerprint(_arrow(validated), fingerprint)
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp)
    return validated


def write_batches(
    batches: Iterable[pd.DataFrame],
    path: Path,
    model: type[pa.DataFrameModel],
    *,
    fingerprint: str | None = None,
) -> int:
    """Stream validated batches into one parquet file (bounded memory); returns the row count.

    Uniqueness constraints of ``model`` are checked within each batch, not across batches.
    """
    from pipeline.schemas import empty

    rows = 0
    arrow_schema = _with_fingerprint(_arrow(empty(model)), fingerprint).schema
    with atomic_path(path) as tmp:
        with pq.ParquetWriter(tmp, arrow_schema) as writer:
            for batch in batches:
                if batch.empty:
                    continue
                validated = _validate(batch, model, path)
                writer.write_table(_arrow(validated, arrow_schema))
                rows += len(validated)
    return rows


def write_json(obj: dict, path: Path) -> None:
    """Write a small JSON record (run records, stage summaries) atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(json.dumps(obj, indent=2, default=str) + "\n", encoding="utf-8")


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


def read_json(path: Path) -> dict:
    """Read a JSON record written by ``write_json``; an empty dict if there is none."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}


def _list_as_arrow(arrow_type: pyarrow_.DataType) -> pd.ArrowDtype | None:
    return pd.ArrowDtype(arrow_type) if pyarrow_.types.is_list(arrow_type) else None


def read_table(path: Path, model: type[pa.DataFrameModel], columns: list[str] | None = None) -> pd.DataFrame:
    """Read a table and validate it against ``model`` (all columns, or the subset named)."""
    if not path.exists():
        raise TableError(f"{path}: not found; run the stage that writes it first")
    try:
        table = pq.read_table(path, columns=columns)
    except (OSError, pyarrow_.ArrowInvalid) as exc:
        raise TableError(f"{path}: unreadable parquet file: {exc}") from exc
    df = table.to_pandas(types_mapper=_list_as_arrow)
    if columns is not None:
        schema = model.to_schema().select_columns(columns)
        try:
            return schema.validate(df, lazy=True)
        except (pa.errors.SchemaError, pa.errors.SchemaErrors) as exc:
            raise TableError(f"{path}: does not match schema {model.__name__}: {exc}") from exc
    return _validate(df, model, path)


def read_fingerprint(path: Path) -> str | None:
    """The fingerprint stored in a table's metadata, or None (missing file, foreign file)."""
    try:
        metadata = pq.read_schema(path).metadata or {}
    except (OSError, pyarrow_.ArrowInvalid):
        return None
    value = metadata.get(FINGERPRINT_KEY)
    return value.decode() if value is not None else None


