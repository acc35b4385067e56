"""The formats ingest reads: one list (``config.FORMATS``), each name with its reader."""

from __future__ import annotations

import importlib
import inspect

from pipeline import config
from pipeline.ingest import formats


def test_every_format_of_the_one_list_has_its_reader_and_nothing_else_does():
    assert tuple(formats.FORMATS) == config.FORMAT_NAMES == tuple(config.FORMATS)
    for name, reader in formats.FORMATS.items():
        assert callable(reader) and list(inspect.signature(reader).parameters)[:2], name
        module, function = config.FORMATS[name].split(":")
        assert getattr(importlib.import_module(module), function) is reader
