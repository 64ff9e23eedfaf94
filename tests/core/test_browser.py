"""The designer's report in a real browser (issue 16): headless Chromium loads report.html and
every chart in it is decoded and shown at a visible size.

Skipped, saying why, where no Chromium is installed; `.ci/run` installs Debian's `chromium`
package when it is missing, so CI runs it.  The flags are those headless Chromium needs on a
machine with no network and no display (no sandbox as root, no GPU, no background networking).
"""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from tests.core.test_report_content import run_tables

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
BROWSER = next((b for b in map(shutil.which, BROWSERS) if b), None)
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars")

# Appended to a copy of the report (the report itself has no script): after the page has loaded,
# record for every picture whether it decoded and how large it is drawn.
PROBE = """<script>
window.addEventListener('load', () => {
  const seen = [...document.images].map(img => {
    const r = img.getBoundingClientRect(), s = getComputedStyle(img);
    return {alt: img.alt, complete: img.complete, natural: img.naturalWidth, width: r.width, height: r.height,
            shown: s.display !== 'none' && s.visibility !== 'hidden' && s.opacity !== '0'};
  });
  document.body.setAttribute('data-probe', JSON.stringify({title: document.title, images: seen,
                                                           width: document.documentElement.scrollWidth}));
});
</script>"""

pytestmark = pytest.mark.skipif(BROWSER is None, reason="no Chromium installed (`apt-get install chromium`; "
                                                        ".ci/run installs it on CI)")


def browse(page, tmp_path, *args: str) -> subprocess.CompletedProcess:
    profile = tmp_path / "profile"  # a new, empty profile every time
    return subprocess.run([BROWSER, *FLAGS, f"--user-data-dir={profile}", *args, page.as_uri()],
                          capture_output=True, text=True, timeout=120, check=True)


def test_report_loads_in_chromium_with_every_chart_visible(tmp_path):
    from reports.html_report import chart_list, write_report

    sit, games, turns, losses, summary = run_tables("pb-01", 3)
    assert write_report(games, turns, losses, summary, tmp_path, sit) == {}
    html = (tmp_path / "report.html").read_text()
    probe = tmp_path / "probe.html"
    probe.write_text(html.replace("</body>", PROBE + "</body>"))
    dom = browse(probe, tmp_path, "--window-size=1100,900", "--virtual-time-budget=5000", "--dump-dom").stdout
    start = dom.index("data-probe=\"") + len("data-probe=\"")
    found = json.loads(dom[start:dom.index('"', start)].replace("&quot;", '"').replace("&amp;", "&"))
    assert found["title"].startswith("Situation 1 (pb-01)")
    images = found["images"]
    # every chart, the loss map drawn one board at a time (three boards)
    assert len(images) == len(chart_list(summary)) - 1 + 3
    for img in images:
        assert img["complete"] and img["natural"] > 0, img
        assert img["shown"] and img["width"] >= 300 and img["height"] >= 100, img
    assert found["width"] <= 1100  # nothing wider than the window: no sideways scrolling
    # and a screenshot of the page is not blank
    shot = tmp_path / "report.png"
    browse(tmp_path / "report.html", tmp_path, "--window-size=1100,3000", f"--screenshot={shot}")
    from PIL import Image

    colours = Image.open(shot).convert("L").getextrema()
    assert colours[0] < 100 < colours[1]
