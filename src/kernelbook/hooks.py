"""MkDocs hooks: every page that shows a stale result says so at its top.

The page API counts every result a page reads (exec blocks through `page.result`, inline fields through the
chapter's facts, macros.py). After the page's Markdown has become HTML, and so after every exec block has run, the
warning for the stale ones goes in front of its content.
"""

from __future__ import annotations

from typing import Any

from kernelbook import page


def on_pre_page(page_obj: Any, **kwargs: Any) -> Any:
    page.begin_page()
    return page_obj


def on_page_content(html: str, **kwargs: Any) -> str:
    return page.warning(page.shown()) + html
