"""The HTML reports render in a real browser: Debian's headless Chromium (installed by .ci/run)."""

from __future__ import annotations

import shutil
import struct
import subprocess

import pytest

from pipeline import clean, config, ingest, report, topics

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        pytest.fail("chromium is not installed: `apt-get install chromium` (.ci/run does it)")
    return path


def test_weekly_report_renders_in_chromium(project, tmp_path, hash_embedder):
    cfg = config.load(project)
    ingest.run(cfg)
    clean.run(cfg)
    topics.run(cfg, embedder=hash_embedder)
    report.write_weekly(cfg, "2026-W20")
    page = cfg.paths.reports / "weekly" / "2026-W20" / "index.html"
    profile = tmp_path / "profile"
    dom = subprocess.run([chromium(), *FLAGS, f"--user-data-dir={profile}", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=120)
    assert "Research trends, 2026-W20" in dom.stdout
    assert dom.stdout.count("<img") == 4
    shot = tmp_path / "shot.png"
    subprocess.run([chromium(), *FLAGS, f"--user-data-dir={profile}", "--window-size=1200,2400",
                    f"--screenshot={shot}", page.as_uri()], capture_output=True, timeout=120)
    header = shot.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", header[16:24])
    assert (width, height) == (1200, 2400)
    assert shot.stat().st_size > 50_000  # a page with text and figures, not a blank one
