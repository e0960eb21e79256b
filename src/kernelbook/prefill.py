"""A cold site build on two cores: a forked helper renders pages from the last one backwards while the build goes
forwards from the first, and the build takes what the helper rendered from the build cache, as a warm build does.

A cold build (nothing kept for these inputs: a fresh clone, a changed result or line of code) spends most of its
time on what the cache keeps (kernelbook.buildcache: each chapter's facts, each block's output; mkdocs-jupyter's
rendered notebooks), and MkDocs renders one page after another on one core. So, when the cache is on, has not yet
seen a build with these inputs, the build replays stored results (it measures nothing) and the machine has a second
core, the build forks a helper once the pages are known (hooks.on_nav). It renders pages as MkDocs does
(`_populate_page`), last first, and keeps nothing but the cache's entries; the build then renders every page itself,
in its order, those the helper did from the cache.

Each page is rendered by one of the two. A byte per page, in memory they share, says whose it is, and is changed
under a lock: the build takes the next page unless the helper has it, and then waits for it; the helper takes the
last page nobody has. A page the helper could not render, or a helper that died, leaves the page to the build, which
renders it itself and reports what went wrong. The helper logs and prints nothing (the build says everything once)
and leaves by os._exit, so no exit handler of the build's (a served site's temporary folder) runs in it.

The pages come out byte for byte as a build without the helper makes them (tests/test_prefill.py): markdown-exec
numbers its blocks' ids from each page's start (buildcache.restart_ids), not across the build.
"""

from __future__ import annotations

import logging
import mmap
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

FREE, BUILD, HELPER, DONE, FAILED = range(5)  # whose a page is, one byte each


def _nothing(since: float) -> None:
    pass


class _Shared:
    def __init__(self, uris: Sequence[str], leftover: Callable[[float], None]) -> None:
        self.index = {u: i for i, u in enumerate(uris)}
        self.state = mmap.mmap(-1, max(len(uris), 1))  # anonymous and shared: the fork keeps it in both
        self.lock = multiprocessing.get_context("fork").Lock()
        self.pid = 0
        self.started = time.time()
        self.leftover = leftover


_shared: _Shared | None = None
_in_helper = False


def wanted() -> bool:
    """Would a helper help, safely? A build that replays stored results (one that may measure would run two
    experiments on the GPU at once), a second core, a fork, and no other thread (`mkdocs serve` rebuilds in a thread
    beside its server's: a fork there could copy a lock another thread holds)."""
    from kernelbook import page

    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    return (cores > 1 and hasattr(os, "fork") and threading.active_count() == 1
            and os.environ.get("KERNELBOOK_HELPER", "1") != "0" and page.mode() == "replay")


def start(pages: Sequence[Any], render: Callable[[Any], None], leftover: Callable[[float], None] = _nothing) -> None:
    """Fork the helper for `pages` (in the build's order; `render(page)` renders one as the build would).
    `leftover(since)` tidies what a helper killed in the middle of a page may have left (called by
    the build, with the time the helper started)."""
    global _shared
    finish()
    shared = _Shared([p.file.src_uri for p in pages], leftover)
    pid = os.fork()
    if pid == 0:  # the helper
        code = 1
        try:
            _help(shared, pages, render)
            code = 0
        finally:
            os._exit(code)
    shared.pid = pid
    _shared = shared


def _help(shared: _Shared, pages: Sequence[Any], render: Callable[[Any], None]) -> None:
    global _in_helper, _shared
    _in_helper, _shared = True, None
    logging.disable(logging.CRITICAL)  # the build reports every page once, itself: nothing logged or printed here
    quiet = os.open(os.devnull, os.O_WRONLY)  # what the build had not yet flushed when it forked goes there too
    for fd in (1, 2):
        os.dup2(quiet, fd)
    while True:
        with shared.lock:
            free = [i for i in range(len(pages)) if shared.state[i] == FREE]
            if not free:
                return
            i = free[-1]
            shared.state[i] = HELPER
        try:
            render(pages[i])
            shared.state[i] = DONE
        except BaseException:  # noqa: BLE001 - the build renders the page again and says what broke
            shared.state[i] = FAILED


def claim(uri: str) -> str:
    """The build is about to render the page `uri`: returns once it may, and who rendered it first ('build' when it
    renders it itself, 'helper' when the helper has, 'none' without a helper)."""
    s = _shared
    if _in_helper or s is None or uri not in s.index:
        return "none"
    i = s.index[uri]
    with s.lock:
        if s.state[i] == FREE:
            s.state[i] = BUILD
            return "build"
    while s.state[i] == HELPER:
        if not _alive(s):
            with s.lock:
                if s.state[i] == HELPER:
                    s.state[i] = FAILED
            s.leftover(s.started)
            break
        time.sleep(0.01)
    return "helper" if s.state[i] == DONE else "build"


def _alive(s: _Shared) -> bool:
    try:
        pid, _ = os.waitpid(s.pid, os.WNOHANG)
    except ChildProcessError:
        return False
    if pid:
        s.pid = 0
        return False
    return True


def finish() -> tuple[int, int]:
    """The build has ended (or stopped): the helper is waited for. Returns how many of how many pages it rendered."""
    global _shared
    s, _shared = _shared, None
    if s is None or _in_helper:
        return 0, 0
    with s.lock:  # nothing left for it to take
        for i in range(len(s.index)):
            if s.state[i] == FREE:
                s.state[i] = BUILD
    if s.pid:
        try:
            os.waitpid(s.pid, 0)
        except ChildProcessError:
            pass
    return sum(s.state[i] == DONE for i in range(len(s.index))), len(s.index)


def stop() -> None:
    """The build failed: the helper is stopped where it is (what it kept in the cache is complete, entry by entry)."""
    s = _shared
    if s is not None and not _in_helper and s.pid:
        import signal

        try:
            os.kill(s.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        s.leftover(s.started)
    finish()


def jupyter_leftover(cache_dir: str | os.PathLike | None) -> Callable[[float], None]:
    """mkdocs-jupyter writes a rendered notebook straight to its file: one the helper was writing when it died is
    removed (any written since it started: they are rendered again). Without mkdocs-jupyter, nothing."""
    if cache_dir is None:
        return _nothing

    def tidy(since: float) -> None:
        for p in Path(cache_dir).glob("*.json"):
            if p.stat().st_mtime >= since - 1:
                p.unlink(missing_ok=True)
    return tidy
