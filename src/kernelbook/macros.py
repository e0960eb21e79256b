"""The Markdown side of the page API: mkdocs-macros fills each page's inline fields from its chapter's facts.

A page writes its sentences in Markdown for the primary machine's data, takes every number and verdict inside them
from the facts, and names above a paragraph the guards it rests on (kernelbook.guards):

    {{ holds("fused_faster") }}
    Fusion made add + RMSNorm **{{ f.add_rmsnorm_speedup | times }}** faster than eager.

`f` is the page's own chapter (docs/fusing-by-hand.md -> kernelbook.chapters.fusing_by_hand.facts) under the one
rule (kernelbook.factbook: each figure the median over the fresh runs of the current code); `facts("decode")` is
any other chapter's. Every value renders inside an element that names its fact and says on hover how it was
obtained:

    <span class="kb-fact" data-fact="fusing_by_hand.norm_speedup" title="median of 3 runs, …">7.0×</span>

A field renders in its chapter's format (`FORMATS` in its facts module) unless a filter says otherwise; a closed
choice of words is a filter too: `{{ f.versus | pick(faster="faster than", level="level with") }}`.
Each chapter's facts are computed once per build and count as shown on every page that uses them, so a stale result
behind an inline field puts the warning on that page too (hooks.py). Fenced code is wrapped in `{% raw %}` before
rendering: code blocks written in a page are never templated, and code included with `--8<--` or printed by exec
blocks is added after this step, so it never is either.

mkdocs-macros loads this module by `module_name` (mkdocs.yml) and calls `on_pre_page_macros` before each page;
Zensical's macros extension calls `define_env(env)` once per page with `env.page` set, and never that hook: both
paths set the page's `f` here.
"""

from __future__ import annotations

import html
import math
import re
import sys
from typing import Any

from kernelbook import factview, fmt, guards, paths, store

# a chapter's facts as named values (kernelbook.factview), under the names the pages, notebooks and tests use here
Fact, FactsView, PageFacts, plain, span = factview.Fact, factview.FactsView, factview.PageFacts, factview.plain, \
    factview.span
facts, raw_facts, forget, chapter_of, has_facts = factview.facts, factview.raw_facts, factview.forget, \
    factview.chapter_of, factview.has_facts

FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[^\n]*\n.*?^(?P=indent)(?P=fence)[ \t]*$",
                   re.M | re.S)
# the page being rendered: its source path, chapter and Markdown (the guards name its paragraphs), and the guards
# that do not hold on this machine (the page's top box lists them)
_page: dict[str, Any] = {"src": "", "chapter": "", "markdown": "", "failed": []}
anonymous: list[str] = []  # numbers a filter formatted without a fact behind them (tests/test_facts_site.py)


FACT_IN_CODE = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)
FACT_ELEMENT = re.compile(r'<span class="kb-fact"[^>]*>(.*?)</span>', re.S)


def unwrap_in_code(markdown: str) -> str:
    """A fact inside inline code (`xnumel = {{ f.xnumel }}`) as its bare text: code shows no markup."""
    return FACT_IN_CODE.sub(lambda m: m[1] + FACT_ELEMENT.sub(lambda e: html.unescape(e[1]), m[2]) + m[1], markdown)


def protect_code(markdown: str) -> str:
    """Every fenced code block wrapped in {% raw %}…{% endraw %}, so that Jinja leaves it as written."""
    return FENCE.sub(lambda m: "{% raw %}" + m.group(0) + "{% endraw %}", markdown)


# ---- filters: how a number reads in a sentence (raw values stay in the facts) ------------------------------------

def _named(fn):
    """A formatting filter that keeps the fact's name: its text goes inside the fact's element."""
    def filt(x: Any, *args: Any, **kw: Any) -> str:
        text = fn(plain(x), *args, **kw)
        if isinstance(x, Fact):
            return span(x, text)
        if isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x):
            anonymous.append(f"{_page['src'] or '?'}: {text}")
        return text
    filt.__name__ = fn.__name__
    filt.__doc__ = fn.__doc__
    return filt


num, pct, pct_down, times, signed = map(_named, (fmt.num, fmt.pct, fmt.pct_down, fmt.times,
                                                 fmt.signed))


def s(n: Any, plural: str = "s") -> str:
    """The plural ending for a count: 'step{{ n | s }}'."""
    return "" if plain(n) == 1 else plural


def pick(x: Any, **words: str) -> str:
    """A closed choice of words by a verdict: `{{ f.stand | pick(ahead="ahead of", level="level with") }}`; the
    words carry the verdict's name. A verdict the page has no words for is an error, not a silent blank."""
    key = str(plain(x)).replace(" ", "_").replace("-", "_")
    if key not in words:
        raise KeyError(f"{getattr(x, 'name', x)!r} is {plain(x)!r}, which pick() has no words for "
                       f"(it has: {', '.join(words)})")
    return span(x, words[key]) if isinstance(x, Fact) else words[key]


FILTERS = {"num": num, "pct": pct, "pct_down": pct_down, "times": times, "signed": signed, "s": s, "pick": pick}


# ---- guards: what a paragraph or a section rests on -------------------------------------------------------------

def _guard(kind: str, names: tuple[str, ...]) -> str:
    chapter, md = _page["chapter"], _page["markdown"]
    machine = paths.primary_machine()
    outcomes = [(n, guards.evaluate(n, chapter, machine)) for n in names]
    failed = [o for _, o in outcomes if not o.holds]
    if not failed:
        return ""
    first = next(n for n, o in outcomes if not o.holds)  # as the page writes it
    where = f"docs/{_page['src']}, {'section' if kind == 'needs' else 'paragraph'} " \
            f"\"{guards.paragraph(md, first, kind)}\""
    if guards.strict(machine):
        line = f"{where}: " + "; ".join(o.what_changed() for o in failed)
        print(f"ERROR   -  kernelbook: {line}", file=sys.stderr, flush=True)  # the one line, even under -q
        raise guards.GuardError(line)
    new = [o for o in failed if o.name not in {x.name for _, x in _page["failed"]}]
    _page["failed"].extend((kind, o) for o in failed)
    here, written_for = gpu_names(machine)
    claim = html.escape(f"Written for the {written_for}: " + "; ".join(o.says for o in failed), quote=True)
    anchor = f' id="{flag_id(new[0].name)}"' if new else ""
    more = "".join(f'<a id="{flag_id(o.name)}"></a>' for o in new[1:])  # each failing guard: a link target
    gone = [o for o in failed if o.gives_way]
    if gone and kind == "holds":  # nothing to flag: the paragraph's figures were not measured, or are empty, here
        lead = "Not measured" if gone[0].absent else "Not so"
        text = html.escape(f"{lead} on the {here}: {gone[0].gives_way}. This paragraph, written for the "
                           f"{written_for}'s runs, is left out here.")
        return f'{ABSENT}{more}<span class="kb-flag kb-absent"{anchor} title="{claim}">⚑ {text}</span>{ABSENT_END}'
    text = html.escape(f"Not so on the {here}: " + "; ".join(o.in_words() for o in failed) + ".")
    if kind == "needs":
        return f'\n!!! warning "This section rests on what does not hold on the {html.escape(here)}"\n    {text}\n\n'
    return f'{more}<span class="kb-flag"{anchor} title="{claim}">⚑ {text}</span> '


ABSENT, ABSENT_END = "\ue000", "\ue001"  # around a flag that stands for its whole paragraph or list item
_ABSENT_FLAG = re.compile(ABSENT + r"(.*?)" + ABSENT_END, re.S)
_BLOCK_END = re.compile(r"\n[ \t]*\n|\n[ \t]*(?:[-*+]|\d+\.)[ \t]|\Z")
_ITEM = re.compile(r"[ \t]*(?:[-*+]|\d+\.)[ \t]+|[ \t]*")  # a list item's marker (or a line's indent), kept


def _give_way(markdown: str) -> str:
    """Each paragraph or list item that holds an absent flag, from its first line to its last, replaced by the flag
    (the list marker and indent of its first line kept)."""
    while m := _ABSENT_FLAG.search(markdown):
        start = markdown.rfind("\n\n", 0, m.start())
        start = 0 if start < 0 else start + 2
        last = None  # the item the flag sits in, not the list's first item
        for line in re.finditer(r"(?m)^[ \t]*(?:[-*+]|\d+\.)[ \t]", markdown[start:m.start()]):
            last = line
        if last is not None:
            start += last.start()
        header = re.match(r"[ \t]*(?:!!!|\?\?\?\+?)[^\n]*\n", markdown[start:m.start()])
        if header:  # an admonition's first paragraph: its title line stays, the box keeps its body
            start += header.end()
        end = _BLOCK_END.search(markdown, m.end()).start()
        lead = _ITEM.match(markdown, start)[0]
        gone = markdown[start:m.start()] + markdown[m.end():end]  # another flag's link target stays on the page
        keep = "".join(f'<a id="{i}"></a>' for i in re.findall(r'id="(kb-flag-[^"]+)"', gone))
        markdown = markdown[:start] + lead + keep + m[1] + markdown[end:]
    return markdown


def gpu_names(machine: str) -> tuple[str, str]:
    """This build's GPU and the one the pages are written for, as a reader reads them ('H100 80GB HBM3', 'H200')."""
    return store.machine_label(machine), store.machine_label(paths.pyproject_primary())


def flag_id(name: str) -> str:
    return "kb-flag-" + name.replace(".", "-").replace("_", "-")


def finish(markdown: str) -> str:
    """The page's Markdown once its fields are filled: a fact inside inline code as bare text, and a paragraph whose
    figures this machine did not measure given way to the one sentence that says so."""
    return _give_way(unwrap_in_code(markdown))


def holds(*names: str) -> str:
    """Above a paragraph: the guards it rests on. Nothing on the page when they hold (see kernelbook.guards)."""
    return _guard("holds", names)


def needs(*names: str) -> str:
    """Under a heading: the guards its whole section rests on."""
    return _guard("needs", names)


def flag_box() -> str:
    """The page's top box: each guard that does not hold on this machine, once, linked to where it is flagged: what
    the page states, then what this machine measured, or that it did not measure it (empty on the primary, where a
    failing guard stops the build)."""
    if not _page["failed"]:
        return ""
    here, written_for = gpu_names(paths.primary_machine())
    seen: dict[str, guards.Outcome] = {}
    for _, o in _page["failed"]:
        seen.setdefault(o.name, o)
    false = [o for o in seen.values() if not o.absent]
    unmeasured = [o for o in seen.values() if o.absent]

    def items(outs: list[guards.Outcome], what: str) -> str:
        return "".join(f'<li><a href="#{flag_id(o.name)}">{html.escape(_cap(o.says))}</a>: '
                       f"{html.escape(what + (o.absent or o.in_words()))}</li>" for o in outs)

    parts = []
    if false:
        parts.append(f"<p>{len(false)} statement{'s' if len(false) != 1 else ''} of this page "
                     f"do{'es' if len(false) == 1 else ''} not hold here:</p><ul>{items(false, 'here, ')}</ul>")
    if unmeasured:
        parts.append(f"<p>{len(unmeasured)} rest{'s' if len(unmeasured) == 1 else ''} on what this GPU's runs did "
                     f"not show:</p><ul>{items(unmeasured, '')}</ul>")
    return (f'<div class="admonition warning kb-flags"><p class="admonition-title">Written for the '
            f"{html.escape(written_for)}'s runs; shown with the {html.escape(here)}'s. Each is marked ⚑ where the "
            f"page makes it.</p>{''.join(parts)}</div>")


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def begin(src: str, markdown: str) -> None:
    """A page starts rendering."""
    _page.update(src=src, chapter=chapter_of(src), markdown=markdown, failed=[])


def render(markdown: str, chapter: str, machine: str | None = None, overrides: dict[str, Any] | None = None,
           src: str | None = None) -> str:
    """A page's Markdown with its fields filled, outside MkDocs, as mkdocs-macros fills them (strict: an unknown
    field is an error). The tests and the notebooks use it."""

    begin(src or f"{chapter.replace('_', '-')}.md", markdown)
    env = _jinja()
    f = FactsView(chapter, machine, overrides) if has_facts(chapter) else None
    return finish(env.from_string(protect_code(markdown)).render(
        f=f, facts=lambda c, m=None: facts(c, m or machine), holds=holds, needs=needs,
        machine=machine or paths.primary_machine()))


_env: list[Any] = []


def _jinja() -> Any:
    """One Jinja environment for every render (a new one per call costs more than the page)."""
    import jinja2

    if not _env:
        env = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
        env.filters.update(FILTERS)
        _env.append(env)
    return _env[0]




def define_env(env: Any) -> None:
    pg = getattr(env, "page", None)
    if pg is None:  # mkdocs-macros: once per build
        forget()  # a new build (mkdocs serve rebuilds in one process) reads the store again
    for name, fn in FILTERS.items():
        env.filter(fn, name)
    env.macro(facts, "facts")
    env.macro(holds, "holds")
    env.macro(needs, "needs")
    env.variables["machine"] = paths.primary_machine()
    if pg is not None:  # Zensical: once per page, with the page set
        _set_page(env)


def _set_page(env: Any) -> None:
    """The page's `f`. mkdocs-macros hands the page's Markdown here, to be protected; under Zensical the page has a
    `path` and no Markdown: kernelbook.mdext has already begun the page and protected its code."""
    file = getattr(env.page, "file", None)
    src = file.src_path if file is not None else env.page.path
    chapter = chapter_of(src)
    if file is not None:
        begin(src, env.markdown)
        env.markdown = protect_code(env.markdown)
    env.variables["f"] = FactsView(chapter) if has_facts(chapter) else None


def on_pre_page_macros(env: Any) -> None:
    _set_page(env)


def on_post_page_macros(env: Any) -> None:
    env.markdown = finish(env.markdown)
