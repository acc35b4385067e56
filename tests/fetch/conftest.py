"""Fixtures of the fetch tests: a local stand-in for arXiv (see fake_arxiv.py)."""

from __future__ import annotations

import pytest
from pytest_httpserver import HTTPServer

from .fake_arxiv import FakeArxiv, seed_entries


@pytest.fixture
def arxiv():
    """A FakeArxiv serving the seed entries on a fresh threaded server (so a stalled answer does
    not hold up the retry that follows it)."""
    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    server.start()
    try:
        yield FakeArxiv(server, seed_entries())
    finally:
        server.clear()
        if server.is_running():
            server.stop()
