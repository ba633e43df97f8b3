"""The documentation's tables read in the theme: every column of every table of every
page within the page's width (the theme's one-line cells showed a wide table's first
column only), in headless Chromium."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OVERFLOW = """JSON.stringify([...document.querySelectorAll('.rst-content table')].flatMap(t => {
  const box = document.querySelector('.rst-content').getBoundingClientRect();
  const last = t.rows[0].cells[t.rows[0].cells.length - 1].getBoundingClientRect();
  return last.right > box.right + 4 ? [t.rows[0].cells[0].textContent.trim()] : [];
}))"""


@pytest.mark.slow  # a page a second or so
def test_every_column_of_every_table_is_on_the_page(tmp_path, chromium):
    pytest.importorskip("mkdocs", reason="mkdocs (the dev extra) builds the docs")
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-q", "--site-dir", str(site)],
        cwd=ROOT,
        check=True,
        timeout=300,
    )
    chromium.call(  # a laptop's window
        "Emulation.setDeviceMetricsOverride",
        width=1280,
        height=800,
        deviceScaleFactor=1,
        mobile=False,
    )
    pages = sorted(site.glob("**/index.html"))
    assert len(pages) > 20
    wide = {}
    for page in pages:
        chromium.open(page.as_uri())
        tables = chromium.evaluate("document.querySelectorAll('.rst-content table').length")
        overflowing = chromium.evaluate(OVERFLOW)
        if tables and overflowing != "[]":
            wide[str(page.relative_to(site))] = overflowing
    assert not wide, wide
    chromium.open((site / "reproducing" / "index.html").as_uri())
    assert chromium.evaluate("document.querySelectorAll('.rst-content table').length") >= 5
