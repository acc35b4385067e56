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
    drawn = list((page.parent / "figures").glob("*.png"))
    assert len(drawn) >= 3 and dom.stdout.count("<img") == len(drawn)  # every figure drawn is shown, none empty
    assert "The week in numbers" in dom.stdout and "What moved" in dom.stdout
    shot = tmp_path / "shot.png"
    subprocess.run([chromium(), *FLAGS, f"--user-data-dir={profile}", "--window-size=1200,2400",
                    f"--screenshot={shot}", page.as_uri()], capture_output=True, timeout=120)
    header = shot.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", header[16:24])
    assert (width, height) == (1200, 2400)
    assert shot.stat().st_size > 50_000  # a page with text and figures, not a blank one


def _open_map(page_path, profile):
    from tests.cdp import Page

    page = Page(profile, width=1200, height=800)
    page.open(page_path.as_uri(), "document.body && document.body.dataset.ready === '1'")
    return page


def _type(page, text: str) -> None:
    """Type ``text`` into the map's search box and wait for the results."""
    import json
    import time

    page.evaluate(f"(() => {{ const s = document.getElementById('search'); s.value = {json.dumps(text)};"
                  " s.dispatchEvent(new Event('input')); })()")
    time.sleep(0.5)


def _painted(page) -> int:
    """Pixels of the map's canvas that are not blank."""
    return page.evaluate("""(() => { const c = document.getElementById('map');
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; let n = 0;
        for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++; return n; })()""")


def test_survey_map_works_offline_hover_and_search(project, tmp_path, hash_embedder):
    import time

    import pandas as pd

    chromium()
    cfg = config.load(project)
    ingest.run(cfg)
    clean.run(cfg)
    topics.run(cfg, embedder=hash_embedder)
    report.write_survey(cfg)
    folder = next((cfg.paths.reports / "survey").iterdir())
    assert 'href="map.html"' in (folder / "index.html").read_text()
    papers = pd.read_parquet(cfg.paths.processed / "papers.parquet")
    known = papers.sort_values("paper_id").iloc[3]
    word = max(known["title"].split(), key=len)
    page = _open_map(folder / "map.html", tmp_path / "profile")
    try:
        assert page.evaluate("window.paperMap.size") == len(papers)
        assert _painted(page) > 2_000  # points, regions and names drawn on the canvas
        # search: type a word of the title as a reader would
        _type(page, word)
        found = page.evaluate("[...document.querySelectorAll('#results li')].map(li => li.textContent)")
        assert known["title"] in found
        assert "match" in page.evaluate("document.getElementById('count').textContent")
        # hover: the mouse over the paper's point shows its title and authors
        index = page.evaluate(f"window.paperMap.indexOf({known['paper_id']!r})")
        x, y = page.evaluate(f"window.paperMap.focus({index}), window.paperMap.screen({index})")
        page.mouse(x, y)
        time.sleep(0.2)
        tip = page.evaluate("document.getElementById('tip').textContent")
        assert known["title"] in tip and known["authors"][0] in tip
        # switching every theme off empties the canvas but the regions' names
        page.evaluate("document.getElementById('none').click()")
        assert _painted(page) < 100
        assert all(url.startswith("file://") for url in page.requests), page.requests
        assert len(page.requests) == 1
    finally:
        page.close()


def test_map_shows_hostile_text_as_text(tmp_path):
    import time

    import numpy as np
    import pandas as pd

    from pipeline.report.landscape.explore import map_data, map_html

    chromium()
    hostile = '</script><img src=x onerror="window.pwned=1"><b>Bold</b> & splatting'
    papers = pd.DataFrame({
        "paper_id": ["2501.00001", "2501.00002"], "title": [hostile, "A quiet paper"],
        "authors": [["<i>Mallory</i>"], ["Alice"]], "week": ["2025-W02", "2025-W02"],
        "url": ["https://arxiv.org/abs/2501.00001", None],
    })
    html = map_html(map_data(papers, np.array([[0.0, 0.0], [1.0, 1.0]]), np.array([0, 0]),
                             {0: '<script>alert(1)</script>'}, {0: (0, "<u>Area</u>")}, title="<t>", subtitle="s"))
    assert html.count("</script>") == 2  # the data's own "</script>" is escaped
    path = tmp_path / "map.html"
    path.write_text(html, encoding="utf-8")
    page = _open_map(path, tmp_path / "profile")
    try:
        _type(page, "splatting")
        assert page.evaluate("[...document.querySelectorAll('#results li')].map(li => li.textContent)") == [hostile]
        x, y = page.evaluate("window.paperMap.screen(0)")
        page.mouse(x, y)
        time.sleep(0.2)
        assert hostile in page.evaluate("document.getElementById('tip').textContent")
        assert "<i>Mallory</i>" in page.evaluate("document.getElementById('tip').textContent")
        assert page.evaluate("document.querySelectorAll('img, b, i, u, t').length") == 0
        assert page.evaluate("window.pwned === undefined")
        assert "<script>alert(1)</script>" in page.evaluate("document.getElementById('legend').textContent")
        assert page.evaluate("document.getElementById('title').textContent") == "<t>"
        assert len(page.requests) == 1
    finally:
        page.close()


def test_every_theme_of_two_percent_is_named_at_the_first_zoom_even_when_crowded(tmp_path):
    """Six themes whose papers' middles lie almost on one spot, and a small one there too: at the
    first zoom of a 1400 x 1000 page each large theme's name finds a place near its middle."""
    import numpy as np
    import pandas as pd

    from pipeline.report.landscape.explore import map_data, map_html
    from tests.cdp import Page

    chromium()
    rng = np.random.default_rng(0)
    sizes = [40, 35, 30, 25, 20, 15, 1]  # the last: under 2 % of the 166 papers
    topics = np.repeat(np.arange(len(sizes)), sizes)
    xy = np.vstack([rng.normal(scale=0.02, size=(n, 2)) for n in sizes])
    xy = np.vstack([xy, [[-10.0, -10.0], [10.0, 10.0]]])  # two far papers give the map its extent
    topics = np.concatenate([topics, [-1, -1]])
    n = len(topics)
    papers = pd.DataFrame({"paper_id": [f"2501.{i:05d}" for i in range(n)], "title": [f"Paper {i}" for i in range(n)],
                           "authors": [["A"]] * n, "week": ["2025-W02"] * n, "url": [None] * n})
    labels = {t: f"Theme number {t} of the field" for t in range(len(sizes))}
    html = map_html(map_data(papers, xy, topics, labels, {t: (0, "Area") for t in labels}, title="t", subtitle="s"))
    path = tmp_path / "map.html"
    path.write_text(html, encoding="utf-8")
    page = Page(tmp_path / "profile", width=1400, height=1000)
    try:
        page.open(path.as_uri(), "document.body && document.body.dataset.ready === '1'")
        named = set(page.evaluate("window.paperMap.named()"))
    finally:
        page.close()
    assert {labels[t] for t in range(6)} <= named
