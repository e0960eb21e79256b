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

from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

from kernelbook import macros, page, paths, store


@event_priority(100)  # before the macros plugin, which reads the primary machine
def on_config(config: Any, **kwargs: Any) -> Any:
    try:
        page.check_build()
    except (paths.BadSetting, page.MeasureError, store.StoreError, FileNotFoundError) as e:
        raise PluginError(f"kernelbook: {e}") from None
    return config


def on_pre_page(page_obj: Any, **kwargs: Any) -> Any:
    page.begin_page()
    return page_obj


def on_page_content(html: str, **kwargs: Any) -> str:
    return page.warning(page.shown()) + macros.flag_box() + html
