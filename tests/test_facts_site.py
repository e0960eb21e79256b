"""One number, one source, on the built site (issue 45): every value a page shows names its fact, and a fact reads
the same wherever it appears; the pages' template stays small and their prose is written for the data."""

from __future__ import annotations

import collections
import html
import re
from pathlib import Path

import jinja_stats
import pytest

from kernelbook import macros

ROOT = Path(__file__).resolve().parents[1]
FACT = re.compile(r'<span class="kb-fact" data-fact="([^"]+)"(?: title="([^"]*)")?>(.*?)</span>', re.S)
PAGES = sorted((ROOT / "docs").glob("*.md"))
TEMPLATE_SHARE = 0.10  # at most a tenth of the pages' prose is template (issue 45)


def site_facts(site: Path) -> dict[str, set[tuple[str, str]]]:
    """Every fact element of the built pages (notebooks aside): name -> {(text, page)}."""
    seen: dict[str, set[tuple[str, str]]] = collections.defaultdict(set)
    for path in sorted(site.rglob("*.html")):
        rel = str(path.relative_to(site))
        if rel.startswith("notebooks/"):
            continue
        for m in FACT.finditer(path.read_text()):
            seen[m[1]].add((html.unescape(m[3]), rel))
    return seen


def twice(seen: dict[str, set[tuple[str, str]]]) -> dict[str, list[tuple[str, str]]]:
    """The facts that render as two texts or more: each with where."""
    return {k: sorted(v) for k, v in seen.items() if len({text for text, _ in v}) > 1}


@pytest.mark.slow  # reads the built site (.ci/run builds it once)
def test_one_fact_reads_the_same_everywhere_on_the_site(built_site):
    seen = site_facts(built_site)
    assert len(seen) > 300, "the built pages carry too few fact elements: is the site built from these sources?"
    assert not twice(seen), "facts that render with two texts: " + "; ".join(
        f"{k}: " + ", ".join(f"{t!r} on {p}" for t, p in v) for k, v in twice(seen).items())


def test_the_check_catches_a_fact_shown_two_ways(tmp_path):
    page = tmp_path / "a" / "index.html"
    page.parent.mkdir()
    page.write_text('<span class="kb-fact" data-fact="decode.best_ms" title="t">3.21</span> and '
                    '<span class="kb-fact" data-fact="decode.best_ms">3.36</span>')
    assert list(twice(site_facts(tmp_path))) == ["decode.best_ms"]
    page.write_text('<span class="kb-fact" data-fact="decode.best_ms">3.21</span>' * 2)
    assert not twice(site_facts(tmp_path))


@pytest.mark.slow  # reads the built site (.ci/run builds it once)
def test_every_fact_element_says_how_it_was_obtained(built_site):
    untitled = {m[1] for p in built_site.rglob("*.html") for m in FACT.finditer(p.read_text()) if not m[2]}
    assert not untitled, sorted(untitled)[:20]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_no_number_in_the_prose_is_formatted_without_its_fact(page):
    macros.anonymous.clear()
    macros.render(page.read_text(), macros.chapter_of(page.name), src=page.name)
    assert not macros.anonymous, f"numbers with no fact behind them (arithmetic in the page?): {macros.anonymous}"


def test_the_pages_are_written_for_the_data_not_for_every_case():
    """Issue 45's budget: at most 60 conditionals site-wide (a conditional only where the primary machine's runs take
    both sides), and at most a tenth of the prose is template (TEMPLATE_SHARE): sentences, not lists of figures."""
    pages = jinja_stats.site()
    template, prose, conditionals = (sum(x[i] for x in pages.values()) for i in range(3))
    assert conditionals <= 60, {k: v[2] for k, v in pages.items() if v[2]}
    assert template / prose <= TEMPLATE_SHARE, f"{template / prose:.1%} of the prose is template"


# the quantities issue 45 found reading differently from page to page: each is now one fact, shown on every page
# that names it (and test_one_fact_reads_the_same_everywhere_on_the_site holds it to one text)
SHARED = {
    "decode.best_ms": ("decode", "decode-far", "", "machines"),  # the six ways' best step
    "decode.dyn_ms": ("decode", "machines"),  # the eager step, default cache
    "decode.static_ms": ("decode", "", "takeaways"),  # the eager step, static cache: the headline's
    "machine.eager_us": ("machine", "decode", "machines"),  # what one launch costs
    "machine.matmul_tflops": ("machine", "", "machines"),
    "fusing_by_hand.norm_speedup": ("fusing-by-hand", "", "machines"),
}


@pytest.mark.slow
@pytest.mark.parametrize("fact", SHARED)
def test_a_quantity_that_several_pages_show_is_one_fact_on_each(built_site, fact):
    for page in SHARED[fact]:
        html_text = (built_site / page / "index.html").read_text()
        assert f'data-fact="{fact}"' in html_text, f"{page or 'index'} does not show {fact} as that fact"


# Markdown a page has only in its source, at the start of a line (a snippet's code, shown in its Code tab, may
# print such text from inside a string)
SOURCE_LEAKS = re.compile(r'^[ \t]*(```python exec="on"|--8<-- "|\?\?\?\+? \w|!!! \w|=== "|\{\{|\{%)', re.M)


@pytest.mark.slow  # reads the built site (.ci/run builds it once)
def test_no_page_shows_its_own_source_markup(built_site):
    """A continuation line that loses its indent inside a fold ends the fold: what follows renders as literal source
    (a code block quoting its exec fence), and the strict build does not notice. Seen on decode-far."""
    leaks = {}
    for page in sorted(built_site.glob("**/index.html")):
        if page.relative_to(built_site).parts[0] == "notebooks":  # code cells quote snippets: test_notebooks.py
            continue
        text = html.unescape(re.sub(r"<[^>]+>", "", re.sub(r"<script.*?</script>", "", page.read_text(), flags=re.S)))
        found = sorted(set(SOURCE_LEAKS.findall(text)))
        if found:
            leaks[str(page.relative_to(built_site))] = found
    assert not leaks, leaks
