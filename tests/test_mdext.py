"""kernelbook.mdext: under MkDocs (no Zensical macros preprocessor) the extension leaves a page as it is; the hooks
do its work there (tests/test_zensical.py and tests/test_site_from_a_stranger.py build with Zensical)."""

from __future__ import annotations

import json

import markdown

from kernelbook import mdext, store


def test_under_mkdocs_the_extension_changes_nothing():
    text = 'Some {{ f.x }} text.\n\n```python\nprint("{{ not templated }}")\n```\n'
    plain = markdown.Markdown(extensions=["fenced_code"]).convert(text)
    assert markdown.Markdown(extensions=["fenced_code", mdext.makeExtension()]).convert(text) == plain


def test_a_block_output_is_not_a_page():
    md = markdown.Markdown(extensions=[mdext.makeExtension()])
    md._original_md = markdown.Markdown()  # what markdown-exec marks its inner Markdown with
    assert mdext._zensical(md) is None


def test_under_zensical_the_store_is_held_until_a_result_changes(fixture_results):
    """Zensical renders every page in one process, and `zensical serve` goes on in it: each file is read once while
    the results folders look the same, and afresh once one changes."""
    try:
        mdext._read_afresh_if_changed()
        first = store.load("machine.ceilings")
        mdext._read_afresh_if_changed()
        assert store.load("machine.ceilings") is first
        rec = json.loads(first.path.read_text())
        rec["provenance"]["note"] = "edited while serving"
        first.path.write_text(json.dumps(rec))
        mdext._read_afresh_if_changed()
        again = store.load("machine.ceilings")
        assert again is not first and again.record["provenance"]["note"] == "edited while serving"
    finally:
        mdext._held.close()
        mdext._stamp.clear()
