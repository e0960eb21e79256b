"""What the MkDocs hooks (hooks.py) do, for a build that runs no hooks: Zensical's.

Listed in mkdocs.yml's markdown_extensions, so both builds load it. Under MkDocs it does nothing (mkdocs-macros has
rendered the page before Markdown sees it, and the hooks do the rest). Under Zensical, whose macros extension renders
the page as a Markdown preprocessor ("macros", priority 35), it:

- checks the build's settings and results before the first page (page.check_build), and stops the build with the
  same one line; then holds the store (each result file read once) until a results folder changes;
- starts each page: the results it shows, its guards, its Markdown (the guards name its paragraphs), and fenced code
  wrapped in {% raw %} so that Jinja never templates code (mkdocs-macros' on_pre_page_macros does this under MkDocs);
- once the macros have rendered, shows a fact inside inline code as its bare text (on_post_page_macros);
- ends each page with what hooks.on_page_content adds: the stale-result warning and the flag box at the top, the
  page's provenance line at the foot; and leaves out Pygments' spans around names and spaces, as hooks.on_post_page
  does.
"""

from __future__ import annotations

import contextlib
from typing import Any
from xml.etree import ElementTree as etree

from markdown import Extension, Markdown
from markdown.postprocessors import Postprocessor
from markdown.preprocessors import Preprocessor
from markdown.treeprocessors import Treeprocessor

from kernelbook import buildcache, macros, page, store

_held = contextlib.ExitStack()
_stamp: list[tuple] = []  # the results folders as they looked when the store was last held
_build = page.Build(files=False)  # the state of Zensical's build: figures and downloads inline, no hook writes files


def _read_afresh_if_changed() -> None:
    """Zensical renders every page in one process (and `zensical serve` goes on rendering in it): the store is held,
    each result file read once, while the results folders look as they did at the first page; when a file changes,
    the build's checks run again and everything is read afresh, as a new MkDocs build does."""
    now = store.stamp()
    if _stamp == [now]:
        return
    _held.close()
    _stamp.clear()
    page.check_build()  # raises with the build's one line, as hooks.on_config does
    buildcache.enable(False)  # Zensical keeps its own cache, which does not track results/: none of ours
    macros.forget()
    _held.enter_context(store.held())
    _stamp.append(now)


def _zensical(md: Markdown) -> Any:
    """The page Zensical is rendering, or None under MkDocs (no macros preprocessor in this Markdown) and in the
    Markdown that markdown-exec makes for a block's output (it points at the page's as `_original_md`)."""
    if "macros" not in md.preprocessors or hasattr(md, "_original_md"):
        return None
    from zensical.extensions.context import ContextPreprocessor

    context = ContextPreprocessor.from_markdown(md)
    return context.page if context else None


class _Begin(Preprocessor):
    def run(self, lines: list[str]) -> list[str]:
        pg = _zensical(self.md)
        if pg is None:
            return lines
        _read_afresh_if_changed()
        text = "\n".join(lines)
        page.begin_page(pg.url, files=False, build=_build)
        buildcache.restart_ids()
        macros.begin(pg.path, text)
        return macros.protect_code(text).split("\n")


class _Rendered(Preprocessor):
    """Right after Zensical's macros: a fact inside inline code as its bare text (on_post_page_macros under MkDocs)."""

    def run(self, lines: list[str]) -> list[str]:
        if _zensical(self.md) is None:
            return lines
        return macros.finish("\n".join(lines)).split("\n")


class _End(Treeprocessor):
    """Once per page, on its tree (postprocessors also run on each heading's text): every block has run by now."""

    def run(self, root: Any) -> None:
        if _zensical(self.md) is None:
            return
        shown = list(_build.shown.values())
        foot = page.page_provenance(shown) + page.notebook_link(_build.url)
        for where, html in ((0, page.warning(shown) + macros.flag_box()), (len(root), foot)):
            if html:
                block = etree.Element("p")
                block.text = self.md.htmlStash.store(html)
                root.insert(where, block)


class _Plain(Postprocessor):
    """The page's final HTML without Pygments' spans around names and spaces (hooks.on_post_page under MkDocs)."""

    def run(self, text: str) -> str:
        return text if _zensical(self.md) is None else page.plain_code(text)


class KernelbookExtension(Extension):
    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 - Markdown's name
        md.registerExtension(self)
        md.preprocessors.register(_Begin(md), "kernelbook_begin", 36)  # right before Zensical's macros (35)
        md.preprocessors.register(_Rendered(md), "kernelbook_rendered", 34.9)  # right after them
        md.treeprocessors.register(_End(md), "kernelbook_end", 0)  # after the other tree processors
        md.postprocessors.register(_Plain(md), "kernelbook_plain", 1)  # after the raw HTML (code) is put back (30)


def makeExtension(**kwargs: Any) -> KernelbookExtension:  # noqa: N802 - Markdown's name
    return KernelbookExtension(**kwargs)
