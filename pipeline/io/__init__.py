"""All disk I/O goes through here: tables (``tables.py``: validated, fingerprinted), JSON records,
text, arrays, figures and raw pages (``files.py``), atomic writes (``atomic.py``) and the input
files ingest reads (``inputs.py``). Stage logic takes and returns data, so it can be tested without
a disk."""

from __future__ import annotations

from pipeline.io.atomic import atomic_folder, atomic_path, link_tree, restore_folder, write_new_file
from pipeline.io.files import (
    FigureDrawing,
    list_files,
    read_array,
    read_arrays,
    read_bytes,
    read_json,
    read_shard,
    read_text,
    remove_files,
    remove_tree,
    touch_files,
    unused_files,
    write_array,
    write_arrays,
    write_figures,
    write_json,
    write_text,
)
from pipeline.io.tables import (
    FINGERPRINT_KEY,
    TableError,
    read_fingerprint,
    read_frame,
    read_table,
    table_columns,
    write_batches,
    write_frame,
    write_table,
)

__all__ = ["FINGERPRINT_KEY", "FigureDrawing", "TableError", "atomic_folder", "atomic_path", "link_tree", "list_files", "read_array",
           "remove_files", "remove_tree", "read_arrays", "read_bytes", "read_fingerprint", "read_frame", "read_json",
           "read_shard", "read_table", "read_text", "table_columns",
           "restore_folder", "write_array", "write_arrays", "write_batches", "write_figures", "write_frame",
           "write_json", "write_new_file", "write_table", "write_text"]
