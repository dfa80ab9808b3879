"""Each shipped report, rendered in a real browser (headless Chromium from the system packages,
driven through chromedriver): every image loads and has a size, every local link and anchor
resolves, and the page logs no error (a script error or a resource that failed to load).

The browser is optional on a developer's machine (the test is skipped without it) and required
in CI: `.ci/run` installs Debian's ``chromium`` and ``chromium-driver`` and sets
``SPADES_SIM_BROWSER=required``, which turns the skip into a failure.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import tempfile
import threading
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]
REPORTS = sorted((ROOT / "reports").glob("*/index.html"))
CHROMIUM = os.environ.get("SPADES_SIM_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("SPADES_SIM_CHROMEDRIVER", "/usr/bin/chromedriver")

# What the page reports of itself once loaded: broken images (not complete, or no natural size)
# and every link's target.
PAGE_STATE = """
const images = Array.from(document.images).map(i => ({
    src: i.getAttribute('src'), ok: i.complete && i.naturalWidth > 0 && i.naturalHeight > 0}));
const links = Array.from(document.querySelectorAll('a[href]')).map(a => a.getAttribute('href'));
const ids = Array.from(document.querySelectorAll('[id]')).map(e => e.id);
return {images: images, links: links, ids: ids, errors: window.__errors || []};
"""
# Installed before any of the page's own scripts run: uncaught errors are kept for the check.
CATCH_ERRORS = """
window.__errors = [];
window.addEventListener('error', e => window.__errors.push(e.target === window
    ? 'script error: ' + e.message
    : 'failed to load: ' + (e.target.src || e.target.href || e.target.tagName)), true);
window.addEventListener('unhandledrejection', e => window.__errors.push(String(e.reason)));
"""


def _browser_missing() -> str | None:
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not Path(p).exists()]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("the selenium package")
    if not missing:
        return None
    return "no headless browser: " + ", ".join(missing) + " missing"


@pytest.fixture(scope="module")
def server():
    """The repository served over HTTP on a free loopback port (a report's links are relative,
    so they resolve as they would for a reader)."""
    handler = functools.partial(_QuietHandler, directory=str(ROOT))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep the test's output clean
        pass


@pytest.fixture(scope="module")
def browser():
    reason = _browser_missing()
    if reason:
        if os.environ.get("SPADES_SIM_BROWSER") == "required":
            pytest.fail(reason + " (SPADES_SIM_BROWSER=required)")
        pytest.skip(reason)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="spades-sim-chromium-")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                 f"--user-data-dir={profile}", "--window-size=1280,900"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": CATCH_ERRORS})
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as error:
        return error.code


def test_shipped_reports_exist():
    names = sorted(p.parent.name for p in REPORTS)
    assert names == ["bidding", "nil", "par", "variants"]


@pytest.mark.parametrize("page", REPORTS, ids=lambda p: p.parent.name)
def test_report_renders_in_a_browser(page, server, browser):
    url = urljoin(server, page.relative_to(ROOT).as_posix())
    browser.get(url)
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, 60).until(  # the whole page parsed and every image settled
        lambda d: d.execute_script("return document.readyState === 'complete' && "
                                   "Array.from(document.images).every(i => i.complete)"))
    state = browser.execute_script(PAGE_STATE)
    logged = [entry["message"] for entry in browser.get_log("browser")
              if entry["level"] in ("SEVERE", "ERROR")]
    problems = list(state["errors"])
    problems += [f"console: {m}" for m in logged]
    assert state["images"], "a report has figures"
    problems += [f"broken image: {i['src']}" for i in state["images"] if not i["ok"]]
    ids = set(state["ids"])
    for href in state["links"]:
        target = urljoin(url, href)
        parts = urlsplit(target)
        if parts.scheme not in ("http", "https") or parts.netloc != urlsplit(url).netloc:
            continue  # an outside address: not fetched (the test machine has no network)
        if parts.fragment and target.split("#")[0] == url.split("#")[0]:
            if parts.fragment not in ids:
                problems.append(f"broken anchor: {href}")
            continue
        if _status(target.split("#")[0]) != 200:
            problems.append(f"broken link: {href}")
    assert not problems, f"{page.relative_to(ROOT)}:\n" + "\n".join(problems)
