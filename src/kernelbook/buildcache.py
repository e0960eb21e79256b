"""A writer's loop: what a build computes from stored results and code alone, kept on disk between builds.

Two things cost most of a build and change only when the results or the code do: each chapter's facts under the one
rule (kernelbook.factbook) and the output of each executed snippet (markdown-exec). Both are kept in the user's
cache folder (`~/.cache/kernelbook/<checkout>/`, or under $XDG_CACHE_HOME; never inside the working tree, where a
pull request could plant an entry), keyed by one digest of everything they can read:

    every file under src/kernelbook/ and snippets/, pyproject.toml, mkdocs.yml, every file of each results folder
    the KERNELBOOK_* settings, and the versions of Python and of the packages that render (torch, matplotlib, ...)

so a changed result, a changed line of code or another machine makes a new key and nothing old is served; an edit of
a page's prose changes none of them, so the page re-renders from the cache. The first build under a new key shares
its work with a forked helper on a second core (kernelbook.prefill), which fills the cache from the last page
backwards. The cache is used by site builds only (hooks.py turns it on), never by the tests or the CLI.
KERNELBOOK_CACHE=0 turns it off; deleting the folder is always safe.

Beside it, kernelbook.contentcache keeps, for every process, tests and CLI included, a result file's schema verdict,
keyed by the hash of the file's bytes and of the schema versions and the code that decide it, so it cannot go stale.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import re
import sys
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any, TypeVar

from kernelbook import contentcache, factbook, page, paths, read

T = TypeVar("T")
PACKAGES = ("torch", "triton", "transformers", "matplotlib", "numpy", "markdown", "markdown-exec", "mkdocs",
            "mkdocs-macros-plugin", "pymdown-extensions", "jinja2")
_on = False
_digest: str | None = None


def folder() -> Path:
    """This checkout's cache: in the user's cache folder, outside the working tree, one folder per checkout."""
    return contentcache.base() / hashlib.sha256(str(paths.root().resolve()).encode()).hexdigest()[:16]


_config: Path | None = None  # the build's config file, when it is not mkdocs.yml


_loaded: dict[Path, str] = {}  # the package's code as this process first built with it, by checkout
_moved = False


def _hash(files: list[Path]) -> str:
    h = hashlib.sha256()
    for p in files:
        h.update(str(p).encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def enable(on: bool = True, config: str | os.PathLike | None = None) -> None:
    """A site build starts (hooks.on_config, with the build's config file): use the cache unless KERNELBOOK_CACHE=0,
    and read the inputs afresh. Not while the package's code differs from the code this process started with
    (`mkdocs serve` keeps its modules: a value it computed now would be kept under the new code's key)."""
    global _on, _digest, _config, _moved
    code = _hash(sorted((paths.root() / "src" / "kernelbook").rglob("*.py")))
    _moved = _loaded.setdefault(paths.root().resolve(), code) != code
    _on = on and os.environ.get("KERNELBOOK_CACHE", "1") != "0" and not _moved
    _digest, _config = None, Path(config) if config else None
    factbook.keep_with(cached)  # each chapter's facts: computed once per set of inputs (cached is a no-op when off)


def code_moved() -> bool:
    """Had the package's code changed on disk, when this build started, since this process first built the site?"""
    return _moved


def enabled() -> bool:
    return _on


def _files() -> list[Path]:
    root = paths.root()
    out = [root / "pyproject.toml", _config or root / "mkdocs.yml"]  # the Markdown settings shape a block's HTML
    for d in (root / "src" / "kernelbook", root / "snippets", *paths.results_dirs(must_exist=False)):
        if d.is_dir():
            out += sorted(p for p in d.rglob("*") if p.is_file() and not p.is_symlink()  # a link is never read
                          and "__pycache__" not in p.parts)
    return out


def digest() -> str:
    """One hash of every input a cached value can depend on (see the module's docstring), once per build."""
    global _digest
    if _digest is None:
        h = hashlib.sha256(_hash(_files()).encode())
        for k in sorted(os.environ):
            if k.startswith("KERNELBOOK_") and k != "KERNELBOOK_HELPER":  # who renders a page changes no byte of it
                h.update(f"{k}={os.environ[k]}\0".encode())
        h.update(sys.version.encode())
        for name in PACKAGES:
            try:
                h.update(f"{name}={metadata.version(name)}\0".encode())
            except metadata.PackageNotFoundError:
                pass
        _digest = h.hexdigest()[:24]
    return _digest


def seen() -> bool:
    """Has a build with these inputs run to its end (built())? Then the cache holds what this one will ask for."""
    return _on and (folder() / "built" / digest()).is_file()


def built() -> None:
    if _on:
        (folder() / "built").mkdir(parents=True, exist_ok=True)
        (folder() / "built" / digest()).touch()


def cached(kind: str, key: str, compute: Callable[[], T], keep: Callable[[T], bool] = lambda _: True) -> T:
    """compute(), or what it returned in an earlier build with the same inputs (only while enabled; a value that
    `keep` refuses is not stored)."""
    if not _on:
        return compute()
    name = hashlib.sha256(f"{kind}\0{key}\0{digest()}".encode()).hexdigest()[:32]
    path = folder() / kind / f"{name}.pickle"
    if path.is_file():
        try:
            return pickle.loads(path.read_bytes())
        except Exception:  # noqa: BLE001 - a torn or old entry is computed again
            pass
    value = compute()
    if not keep(value):
        return value
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_bytes(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
    tmp.replace(path)
    return value


def prune(keep: int = 400, keep_content: int = 5000) -> None:
    """Keep the newest `keep` entries of each kind, and the newest `keep_content` content verdicts."""
    for d, pattern, n in [*((d, "*.pickle", keep) for d in folder().glob("*")), (folder() / "built", "*", 20),
                          *((d, "*.json", keep_content) for d in contentcache.folder().glob("*"))]:
        entries = sorted(d.glob(pattern), key=lambda p: p.stat().st_mtime, reverse=True)
        for p in entries[n:]:
            p.unlink(missing_ok=True)


def cached_exec(fmt: Callable[..., str], build: Callable[[], page.Build] = page.current) -> Callable[..., str]:
    """markdown-exec's formatter for Python, kept on disk: the HTML a block printed, the results it showed (the
    page's stale warning and provenance line count them) and the files it wrote (figures, downloads), by the block's
    code and options and the page it is on (relative links). `build()` is the Build the page is rendered into."""

    def formatter(source: str, language: str, css_class: str, options: dict[str, Any], md: Any,
                  **kwargs: Any) -> str:
        if not _on:
            return fmt(source, language, css_class, options, md, **kwargs)
        b = build()
        key = repr((source, language, css_class, sorted(options.items()), sorted(kwargs.items()), b.url))

        ran = []

        def run() -> tuple[str, list[Any], dict[str, bytes], int]:
            ran.append(True)
            shown_before, assets_before, count = set(b.shown), set(b.assets), block_ids()
            out = fmt(source, language, css_class, options, md, **kwargs)
            shown = [r for k, r in b.shown.items() if k not in shown_before]
            return out, shown, {k: v for k, v in b.assets.items() if k not in assets_before}, block_ids() - count

        # a block that prints headings hands them to the page's table of contents as it runs: it is not kept
        out, shown, assets, ids = cached("exec", key, run, keep=lambda v: not re.search(r"<h[1-6]\b", v[0]))
        for r in shown:
            read.note(r)
        b.assets.update(assets)
        if not ran:  # a kept block took its share of the exec-N-- id prefixes: later blocks keep theirs
            block_ids(block_ids() + ids)
        return out

    formatter.kb_cached = True  # type: ignore[attr-defined]
    return formatter


def restart_ids() -> None:
    """markdown-exec numbers the ids inside block outputs (exec-N--) across the whole build; a page starts again at
    1, so a page reads the same whichever pages were built before it, and by which process (kernelbook.prefill)."""
    block_ids(0)


def block_ids(set_to: int | None = None) -> int:
    """How many blocks markdown-exec has numbered (`MarkdownConverter.counter`, its public converter's documented
    counter of exec-N-- id prefixes); `set_to` sets it first. The one place that reaches into markdown-exec
    (tests/test_buildcache.py fails when it moves); another markdown-exec without it: 0, and ids may then differ
    between a cold and a warm build, numbers do not."""
    try:
        from markdown_exec import MarkdownConverter
    except ImportError:
        return 0
    if not hasattr(MarkdownConverter, "counter"):
        return 0
    if set_to is not None:
        MarkdownConverter.counter = set_to
    return MarkdownConverter.counter
