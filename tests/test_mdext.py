"""kernelbook.mdext: under MkDocs (no Zensical macros preprocessor) the extension leaves a page as it is; the hooks
do its work there (tests/test_zensical.py builds with Zensical)."""

from __future__ import annotations

import markdown

from kernelbook import mdext


def test_under_mkdocs_the_extension_changes_nothing():
    text = 'Some {{ f.x }} text.\n\n```python\nprint("{{ not templated }}")\n```\n'
    plain = markdown.Markdown(extensions=["fenced_code"]).convert(text)
    assert markdown.Markdown(extensions=["fenced_code", mdext.makeExtension()]).convert(text) == plain


def test_a_block_output_is_not_a_page():
    md = markdown.Markdown(extensions=[mdext.makeExtension()])
    md._original_md = markdown.Markdown()  # what markdown-exec marks its inner Markdown with
    assert mdext._zensical(md) is None
