"""A cold build's helper (kernelbook.prefill): every page is rendered by exactly one of the two processes, the build
waits for a page the helper holds and renders itself what the helper could not; the pages come out byte for byte as a
build without the helper makes them."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from kernelbook import buildcache, prefill
from kernelbook import page as kb_page

ROOT = Path(__file__).resolve().parents[1]


def _pages(n: int) -> list[SimpleNamespace]:
    return [SimpleNamespace(file=SimpleNamespace(src_uri=f"p{i}.md")) for i in range(n)]


def _helper_log(path: Path) -> list[str]:
    return path.read_text().split() if path.exists() else []


def _render_into(log: Path, slow: float = 0.05, fail: str | None = None, die: str | None = None):
    def render(page):
        uri = page.file.src_uri
        if uri == die:
            os._exit(9)  # killed in the middle of a page
        time.sleep(slow)
        if uri == fail:
            raise RuntimeError("a block raised")
        with open(log, "a") as fh:  # written once the page is whole: the build may read it when claim returns
            fh.write(uri + "\n")
    return render


@pytest.fixture(autouse=True)
def _no_helper_left():
    yield
    prefill.stop()


def test_each_page_is_rendered_once_the_helper_from_the_end(tmp_path):
    log, pages = tmp_path / "helper.log", _pages(8)
    prefill.start(pages, _render_into(log))
    claims = {}
    for p in pages:  # the build, forwards, as slowly as the helper
        claims[p.file.src_uri] = who = prefill.claim(p.file.src_uri)
        if who == "helper":
            assert p.file.src_uri in _helper_log(log)  # a helper's page is whole before the build goes on
        else:
            time.sleep(0.05)
    helped, total = prefill.finish()
    by_helper = _helper_log(log)
    assert sorted(by_helper) == sorted(u for u, who in claims.items() if who == "helper")  # each once, by one
    assert by_helper[0] == "p7.md" and "p0.md" not in by_helper and (helped, total) == (len(by_helper), 8)
    assert 0 < len(by_helper) < 8 and set(claims.values()) == {"build", "helper"}


def test_a_page_the_helper_could_not_render_is_the_builds(tmp_path):
    log, pages = tmp_path / "helper.log", _pages(4)
    prefill.start(pages, _render_into(log, fail="p3.md"))
    time.sleep(0.5)  # the helper has been through every page by now
    assert prefill.claim("p3.md") == "build"
    assert prefill.claim("p2.md") == "helper" and "p3.md" not in _helper_log(log)
    prefill.finish()


def test_a_helper_killed_in_a_page_leaves_it_to_the_build_and_tidies(tmp_path):
    log, pages, tidied = tmp_path / "helper.log", _pages(4), []
    before = time.time()
    prefill.start(pages, _render_into(log, die="p2.md"), leftover=tidied.append)
    time.sleep(0.3)
    assert [prefill.claim(p.file.src_uri) for p in pages] == ["build", "build", "build", "helper"]
    assert len(tidied) == 1 and before <= tidied[0] <= before + 0.3  # all it wrote since it started: tidied
    prefill.finish()


def test_stop_ends_a_helper_in_the_middle_of_a_page(tmp_path):
    log, pages = tmp_path / "helper.log", _pages(2)
    prefill.start(pages, _render_into(log, slow=60))
    t = time.monotonic()
    prefill.stop()
    assert time.monotonic() - t < 10 and _helper_log(log) == []


def test_without_a_helper_every_claim_is_nobodys():
    assert prefill.claim("index.md") == "none" and prefill.finish() == (0, 0)


def test_a_helper_is_wanted_on_two_cores_in_one_thread_unless_switched_off(monkeypatch):
    monkeypatch.setattr(threading, "active_count", lambda: 1)
    monkeypatch.setattr(os, "sched_getaffinity", lambda _: {0, 1})
    monkeypatch.delenv("KERNELBOOK_HELPER", raising=False)
    monkeypatch.setattr(kb_page, "mode", lambda: "replay")
    assert prefill.wanted()
    for measuring in ("measure", "auto"):  # a build that may run an experiment: never two on the GPU at once
        monkeypatch.setattr(kb_page, "mode", lambda m=measuring: m)
        assert not prefill.wanted()
    monkeypatch.setattr(kb_page, "mode", lambda: "replay")
    monkeypatch.setenv("KERNELBOOK_HELPER", "0")
    assert not prefill.wanted()
    monkeypatch.delenv("KERNELBOOK_HELPER")
    monkeypatch.setattr(os, "sched_getaffinity", lambda _: {0})  # one core: nothing to share
    assert not prefill.wanted()
    monkeypatch.setattr(os, "sched_getaffinity", lambda _: {0, 1})
    monkeypatch.setattr(threading, "active_count", lambda: 3)  # `mkdocs serve` rebuilding beside its server
    assert not prefill.wanted()


def test_a_build_marks_its_inputs_seen_and_a_new_input_is_unseen(tmp_path, monkeypatch):
    for part in ("src/kernelbook", "snippets"):
        shutil.copytree(ROOT / part, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__"))
    for f in ("pyproject.toml", "mkdocs.yml"):
        shutil.copy(ROOT / f, tmp_path / f)
    (tmp_path / "results").mkdir()
    monkeypatch.setenv("KERNELBOOK_ROOT", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("KERNELBOOK_RESULTS", raising=False)
    try:
        buildcache.enable()
        assert not buildcache.seen()
        buildcache.built()
        assert buildcache.seen()
        (tmp_path / "snippets" / "new.py").write_text("print(1)\n")
        buildcache.enable()
        assert not buildcache.seen()
    finally:
        buildcache.enable(False)


PAGES = ["machine.md", "memory-bound.md", "stability.md"]  # stability.md's blocks carry ids (exec-N--)


def _site(out: Path) -> Path:
    """The site's config with three chapters and one notebook, its plugins and hooks (cache on)."""
    loader = type("Loader", (yaml.SafeLoader,), {})
    loader.add_constructor("!ENV", lambda lo, node: lo.construct_sequence(node)[-1])
    cfg = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=loader)  # noqa: S506 - a SafeLoader
    if (out / "mkdocs.yml").exists():  # built before: the same site again
        return out / "mkdocs.yml"
    docs = out / "docs"
    (docs / "notebooks").mkdir(parents=True)
    for page in PAGES:
        shutil.copy(ROOT / "docs" / page, docs / page)
    shutil.copy(ROOT / "docs" / "notebooks" / "machine.ipynb", docs / "notebooks" / "machine.ipynb")
    os.symlink(ROOT / "docs" / "assets", docs / "assets")
    cfg.update(docs_dir=str(docs), site_dir=str(out / "site"), strict=True,
               hooks=[str(ROOT / h) for h in cfg.get("hooks", [])], nav=[*PAGES, "notebooks/machine.ipynb"])
    cfg.pop("watch", None)
    cfg["validation"] = {"links": {"not_found": "ignore", "anchors": "ignore", "unrecognized_links": "ignore"}}
    (out / "mkdocs.yml").write_text(yaml.safe_dump(cfg))
    return out / "mkdocs.yml"


def _build(out: Path, helper: bool) -> tuple[dict[str, str], str]:
    config = _site(out)
    env = dict(os.environ, KERNELBOOK_MODE="replay", NO_MKDOCS_2_WARNING="1", XDG_CACHE_HOME=str(out / "cache"),
               KERNELBOOK_HELPER="1" if helper else "0")
    env.pop("KERNELBOOK_RESULTS", None)
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-f", str(config)], cwd=ROOT, env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    site = out / "site"
    pages = {str(p.relative_to(site)): p.read_text().replace(str(out), "OUT") for p in site.rglob("*.html")}
    return pages, done.stderr.replace(str(out), "OUT")


@pytest.mark.slow
@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="a helper needs a second core")
def test_a_cold_build_with_the_helper_makes_the_pages_a_build_without_it_makes(tmp_path):
    alone, said_alone = _build(tmp_path / "alone", helper=False)
    helped, said = _build(tmp_path / "helped", helper=True)
    assert re.search(r"a second process rendered [1-9]\d* of 4 pages", said), said[-2000:]
    assert "second process" not in said_alone
    assert helped == alone and len(alone) >= 4
    for page in ("stability/index.html",):  # ids start again on each page: whoever renders it, they read the same
        ids = re.findall(r'id="exec-(\d+)--', alone[page])
        assert ids and min(map(int, ids)) == 1
    warm, said_warm = _build(tmp_path / "helped", helper=True)  # the same inputs again: a warm build, no helper
    assert warm == alone and "second process" not in said_warm


def test_what_a_killed_helper_may_have_half_written_for_mkdocs_jupyter_is_removed(tmp_path):
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text("{}")
    os.utime(old, (time.time() - 600, time.time() - 600))
    new.write_text('{"content": "<p')  # torn
    prefill.jupyter_leftover(tmp_path)(time.time() - 60)
    assert old.exists() and not new.exists()
    prefill.jupyter_leftover(None)(0.0)  # no mkdocs-jupyter: nothing to tidy
