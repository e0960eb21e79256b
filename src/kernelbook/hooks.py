"""MkDocs hooks: a build that cannot show true numbers stops at once, with one line; every page that shows a stale
result says so at its top.

Before anything renders, the settings (KERNELBOOK_MODE, KERNELBOOK_MACHINE, KERNELBOOK_RESULTS) are checked, measure
mode must have the primary machine's GPU, and a build that replays must find a readable result of every experiment
(page.check_build): a bad one stops the build with its message instead of a traceback in every block.

The page API counts every result a page reads (exec blocks through `page.result`, inline fields through the
chapter's facts, macros.py). After the page's Markdown has become HTML, and so after every exec block has run, the
warning for the stale ones goes in front of its content.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import re
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

from kernelbook import buildcache, macros, paths, prefill, store
from kernelbook import page as kb_page

_held = contextlib.ExitStack()  # a build reads each result file once (store.held), from its start to its end
log = logging.getLogger("mkdocs.plugins.kernelbook")
_dirty: list[bool] = []  # `mkdocs serve --dirty`: only the pages whose Markdown changed are built again
_inputs: list[str] = []  # the key of everything else a page shows (buildcache.digest), at the last build
_build = [kb_page.Build()]  # this build's state: the page being built, the results it showed, the files it wrote


def _not_the_dirty_warning(record: logging.LogRecord) -> bool:
    return not record.getMessage().startswith("A 'dirty' build is being performed")


def on_startup(command: str, dirty: bool, **kwargs: Any) -> None:
    """A writer's loop, `mkdocs serve --dirty`: what MkDocs warns of does not happen here (on_files), so its warning,
    which a strict build would stop at, is dropped and one line says what a save rebuilds."""
    _dirty[:] = [dirty]
    if dirty:
        logging.getLogger("mkdocs.commands.build").addFilter(_not_the_dirty_warning)
        log.info("kernelbook: --dirty: a save rebuilds the pages it changed; a changed result, snippet, setting or "
                 "mkdocs.yml rebuilds every page")


@event_priority(100)  # before the macros plugin, which reads the primary machine
def on_config(config: Any, **kwargs: Any) -> Any:
    _build[0] = kb_page.Build()  # a new build (`mkdocs serve` rebuilds in one process)
    buildcache.enable(config=config.config_file_path)  # facts and block outputs kept between builds (buildcache)
    jupyter = config["plugins"].get("mkdocs-jupyter")
    if jupyter is not None:  # its rendered notebooks, by default in .cache/ inside the working tree: beside ours
        jupyter.config["cache_dir"] = str(buildcache.folder() / "mkdocs-jupyter")
    if buildcache.code_moved():
        log.warning("kernelbook: the code under src/kernelbook/ changed since `mkdocs serve` started, which still "
                    "runs the old code: stop it and start it again to see what the new code shows")
    _held.close()  # a serve rebuild, or a build that stopped half-way: read everything afresh
    _held.enter_context(store.held())
    _check(results=False)  # the settings; the results once the pages are known (on_nav), beside the helper
    return config


def _check(results: bool) -> None:
    try:
        kb_page.check_build(results)
    except (paths.BadSetting, kb_page.MeasureError, store.StoreError, FileNotFoundError) as e:
        raise PluginError(f"kernelbook: {e}") from None


def on_pre_build(config: Any, **kwargs: Any) -> None:
    """markdown-exec added its fences in its own on_config: its Python formatter now goes through the cache."""
    for fence in config["mdx_configs"].get("pymdownx.superfences", {}).get("custom_fences", []):
        if fence.get("name") in ("python", "py") and not getattr(fence["format"], "kb_cached", False):
            fence["format"] = buildcache.cached_exec(fence["format"], lambda: _build[0])


def on_files(files: Any, config: Any, **kwargs: Any) -> Any:
    """Under --dirty MkDocs builds only the pages whose Markdown is newer than their HTML. When anything else a page
    can show has changed since the last build (the build cache's key: every result, snippet and source file, the
    settings, mkdocs.yml), every page's HTML is removed first, so every page is built again: a dirty build never
    shows an old number."""
    if _dirty and _dirty[0]:
        now = buildcache.digest()
        if _inputs and _inputs[0] != now:
            for f in files.documentation_pages():
                Path(f.abs_dest_path).unlink(missing_ok=True)
        _inputs[:] = [now]
    return files


@event_priority(-100)  # the pages are final
def on_nav(nav: Any, config: Any, files: Any, **kwargs: Any) -> Any:
    """Before any page renders, every result the build shows is read and checked (page.check_build): a bad one stops
    the build with its one line. A cold build (the cache has not seen these inputs) on two cores first starts a
    helper, which renders pages from the last one backwards into the cache while this build checks the results and
    goes forwards (kernelbook.prefill)."""
    dirty = bool(_dirty and _dirty[0])  # then MkDocs renders only the pages whose HTML is older than their source
    if buildcache.enabled() and not buildcache.seen() and prefill.wanted():
        try:
            from mkdocs.commands.build import _populate_page
        except ImportError:  # another MkDocs: one core
            _populate_page = None
        if _populate_page is not None:
            jupyter = config["plugins"].get("mkdocs-jupyter")
            prefill.start([f.page for f in files.documentation_pages()
                           if f.page is not None and (not dirty or f.is_modified())],
                          lambda p: _populate_page(p, config, files),
                          prefill.jupyter_leftover(jupyter.config["cache_dir"] if jupyter else None))
    _check(results=True)
    return nav


def on_pre_page(page_obj: Any, **kwargs: Any) -> Any:
    prefill.claim(page_obj.file.src_uri)  # waits while the helper renders this page
    kb_page.begin_page(page_obj.url, build=_build[0])
    buildcache.restart_ids()
    return page_obj


def on_build_error(**kwargs: Any) -> None:
    prefill.stop()


def on_page_content(html: str, page: Any, **kwargs: Any) -> str:
    if "Traceback (most recent call last)" in html:  # markdown-exec printed a block's exception into the page
        raise PluginError(f"kernelbook: {page.file.src_uri}: an executed block raised; its traceback is on the page")
    shown = kb_page.shown()
    return (kb_page.warning(shown) + macros.flag_box() + html + kb_page.page_provenance(shown)
            + kb_page.notebook_link(page.url))


@event_priority(100)  # before the search plugin indexes the page
def on_page_context(context: Any, page: Any, **kwargs: Any) -> Any:
    """A notebook holds its chapter's sentences and code again: the search finds them once, on the chapter (and
    indexing the notebooks' HTML took 1.3 s of a cold build)."""
    if page.file.src_uri.endswith(".ipynb"):
        page.meta["search"] = {**(page.meta.get("search") or {}), "exclude": True}
    return context


BIG_STYLE = re.compile(r"<style[^>]*>([^<]{20000,})</style>")  # mkdocs-jupyter's half-megabyte of Jupyter CSS


def _shared_style(css: str, depth: str) -> str:
    """A notebook page's big stylesheet as one file that every notebook page links (and a browser caches)."""
    name = f"assets/kb/jupyter-{hashlib.sha256(css.encode()).hexdigest()[:16]}.css"
    _build[0].assets[name] = css.encode()
    return f'<link rel="stylesheet" href="{depth}{name}">'


NOTEBOOK_LINK = re.compile(r'href="\.\./([\w-]+)\.md(#[\w-]*)?"')


def on_post_page(output: str, page: Any, config: Any, **kwargs: Any) -> str:
    """The figures and downloads the page refers to, written beside it (page.figure, page.downloads). A notebook's
    links to the chapters (`../decode.md`, right inside Jupyter) point at the chapters' pages of the site."""
    if page.file.src_uri.endswith(".ipynb"):
        depth = "../" * (page.url.strip("/").count("/") + 1)
        output = NOTEBOOK_LINK.sub(lambda m: f'href="{depth}{m[1]}/{m[2] or ""}"', output)
        output = output.replace('src="../assets/', f'src="{depth}assets/')  # the chapter's images, from the site root
        output = BIG_STYLE.sub(lambda m: _shared_style(m[1], depth), output)
    output = kb_page.plain_code(output)
    site = Path(config["site_dir"])
    for name, data in _build[0].assets.items():
        path = site / name
        if not path.is_file():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    return output


@event_priority(50)  # before mkdocs-jupyter's, which drops from its cache every notebook this build did not render
def on_post_build(config: Any, **kwargs: Any) -> None:
    """Each notebook as a file too, at notebooks/<chapter>.ipynb, where the chapters link to it (page.notebook_link):
    mkdocs-jupyter renders it as a page and keeps its source one folder down; Zensical copies it there itself. A dirty
    build renders no notebook it has not changed: mkdocs-jupyter would then drop them all from its cache, and the next
    `mkdocs serve` render them again (10 s); they are kept."""
    jupyter = config["plugins"].get("mkdocs-jupyter")
    used = getattr(jupyter, "_used_cache_paths", None)
    if _dirty and _dirty[0] and isinstance(used, set):
        used.update(Path(jupyter.config["cache_dir"]).glob("*.json"))
    site = Path(config["site_dir"]) / "notebooks"
    for nb in (Path(config["docs_dir"]) / "notebooks").glob("*.ipynb"):
        site.mkdir(parents=True, exist_ok=True)
        (site / nb.name).write_bytes(nb.read_bytes())
    helped, pages = prefill.finish()
    if helped:
        log.info(f"kernelbook: a second process rendered {helped} of {pages} pages into the build cache")
    buildcache.built()
    buildcache.prune()
    _held.close()
