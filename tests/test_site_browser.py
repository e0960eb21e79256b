"""The built site in a real browser: every page loads in headless Chromium with no traceback or error box, every
table has rows and every figure renders. Runs when KERNELBOOK_SITE_DIR names a built site (.ci/run sets it);
screenshots go to artifacts/screenshots/."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

SITE = os.environ.get("KERNELBOOK_SITE_DIR")
CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")
SHOTS = Path(__file__).resolve().parents[1] / "artifacts" / "screenshots"

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not SITE, reason="set KERNELBOOK_SITE_DIR to a built site (.ci/run does)")]


def pages() -> list[str]:
    root = Path(SITE or ".")
    out = sorted(str(p.parent.relative_to(root)) for p in root.rglob("index.html"))
    return [p for p in out if not p.startswith(("search", "assets"))]


@pytest.fixture(scope="module")
def server():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                             "--directory", SITE], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(50):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.1)
    yield f"http://127.0.0.1:{port}"
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture(scope="module")
def browser():
    if not (CHROMIUM and DRIVER):
        pytest.fail("Debian's chromium and chromium-driver are needed (apt-get install chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--window-size=1280,1600"):
        opts.add_argument(flag)
    drv = webdriver.Chrome(service=Service(DRIVER), options=opts)
    yield drv
    drv.quit()


def test_site_has_the_chapters():
    assert {"machine", "decode", "allocator"} <= set(pages())


@pytest.mark.parametrize("page", pages())
def test_page_renders(page, server, browser):
    from selenium.webdriver.common.by import By

    browser.get(f"{server}/{'' if page == '.' else page + '/'}")
    body = browser.find_element(By.TAG_NAME, "article").text
    SHOTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(SHOTS / f"{page.replace('/', '_').replace('.', 'home')}.png"))
    assert "Traceback" not in body, f"{page}: a code block raised"
    assert not browser.find_elements(By.CSS_SELECTOR, ".admonition.danger"), f"{page}: a stale-result warning"
    for t in browser.find_elements(By.CSS_SELECTOR, "article table"):
        assert t.find_elements(By.CSS_SELECTOR, "tbody tr"), f"{page}: a table without rows"
    browser.execute_script("document.querySelectorAll('article details').forEach(d => d.open = true)")
    for img in browser.find_elements(By.CSS_SELECTOR, "img.kb-figure"):  # lazy: opened, scrolled to, then loaded
        browser.execute_script("arguments[0].scrollIntoView()", img)
        ok = False
        for _ in range(50):
            ok = browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", img)
            if ok:
                break
            time.sleep(0.1)
        assert ok, f"{page}: figure '{img.get_attribute('alt')}' did not render"
    wide = browser.execute_script("""
        const art = document.querySelector('article');
        return Array.from(art.querySelectorAll('table')).filter(t => {
            const box = t.closest('.md-typeset__scrollwrap') || t.parentElement;
            return t.scrollWidth > box.clientWidth + 1 || t.getBoundingClientRect().width > art.clientWidth + 1;
        }).map(t => Array.from(t.querySelectorAll('th')).map(h => h.innerText).join(' | '));""")
    assert not wide, f"{page}: tables wider than the page at 1280 px: {wide}"


def _targets(root: Path) -> dict[str, set[str]]:
    """Every page of the built site and the ids it holds: {path under the site: ids}."""
    import re

    return {str(p.relative_to(root)): set(re.findall(r'\bid="([^"]+)"', p.read_text(errors="replace")))
            for p in root.rglob("*.html")}


def test_every_internal_link_lands(server):
    """Each link of each page to the site itself (pages, headings, figures, downloads) reaches something."""
    import re
    from html import unescape
    from urllib.parse import urljoin, urlsplit

    root = Path(SITE)
    ids = _targets(root)
    broken = []
    for html_file in sorted(root.rglob("*.html")):
        rel = html_file.relative_to(root)
        if rel.parts[0] in ("search", "assets") or rel.name == "404.html":
            continue
        base = "/" + str(rel).replace("index.html", "")
        for href in set(re.findall(r'<(?:a|img|link|script)\b[^>]*?\b(?:href|src)="([^"]+)"', html_file.read_text())):
            href = unescape(href)
            if re.match(r"^(?:[a-z]+:|//)", href):  # another site, data:, mailto:
                continue
            url = urlsplit(urljoin(base, href))
            target = url.path.lstrip("/")
            target = target + "index.html" if target.endswith("/") or not target else target
            if not (root / target).is_file():
                broken.append(f"{rel}: {href}")
            elif url.fragment and target.endswith(".html") and url.fragment not in ids.get(target, set()):
                broken.append(f"{rel}: {href} (no such heading)")
    assert not broken, f"{len(broken)} internal links land nowhere: {broken[:20]}"
