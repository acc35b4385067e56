"""Tables: validated against their schema on the way in and out, each parquet file carrying in its
key-value metadata the fingerprint of the stage run that wrote it (``paper_trends.fingerprint``), so
a stage can tell whether its outputs are current."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd
import pandera.pandas as pa
import pyarrow as pyarrow_
import pyarrow.parquet as pq


from pipeline.io.atomic import atomic_path

FINGERPRINT_KEY = b"paper_trends.fingerprint"


class TableError(RuntimeError):
    """A table on disk is missing, unreadable or does not match its schema."""


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


def table_columns(path: Path) -> list[str]:
    """The columns a table holds (read from its footer alone); none for a missing or unreadable file."""
    try:
        return list(pq.read_schema(path).names)
    except (OSError, pyarrow_.ArrowInvalid):
        return []


def read_fingerprint(path: Path) -> str | None:
    """The fingerprint stored in a table's metadata, or None (missing file, foreign file)."""
    try:
        metadata = pq.read_schema(path).metadata or {}
    except (OSError, pyarrow_.ArrowInvalid):
        return None
    value = metadata.get(FINGERPRINT_KEY)
    return value.decode() if value is not None else None


def write_frame(df: pd.DataFrame, path: Path) -> None:
    """A plain parquet file without a schema (the model folder's copy of every paper's theme)."""
    with atomic_path(path) as tmp:
        df.to_parquet(tmp, index=False)


def read_frame(path: Path) -> pd.DataFrame:
    """A plain parquet file written by ``write_frame``."""
    try:
        return pd.read_parquet(path)
    except (OSError, ValueError) as exc:
        raise TableError(f"{path}: not a readable parquet file ({exc}); delete it and it is rebuilt") from None
