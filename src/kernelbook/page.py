"""The page API: what a markdown-exec block on the site calls to show a stored result.

    from kernelbook import page
    r = page.result("machine.ceilings")          # measured on the primary machine; measures first in measure/auto mode
    print(page.table(["what", "value"], [["copy", page.num(r.data["bandwidth"]["copy"]["gbps"], 0)]]))
    print(page.provenance(r))

KERNELBOOK_MODE picks where results come from:
  replay   read results/ only (the default without a GPU); a missing result raises, which fails a strict build
  measure  run each experiment once per build on this GPU, store it, then read it (the GPU runner)
  auto     measure what is missing or stale when a GPU is present, else replay
A stale result (its code changed since it was measured) renders with a warning box on the page and makes
`python -m kernelbook check` fail.
"""

from __future__ import annotations

import base64
import csv
import html
import io
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from kernelbook import factview, paths, read, store
from kernelbook.fmt import num, over_runs, pct, pct_down, timed  # noqa: F401 - the page API's formatting, for snippets

# what a snippet reads, from kernelbook.read: page.result("machine.ceilings"), page.fresh_runs(...), page.results(...)
result, fresh_runs, results, note, machine_label = read.result, read.fresh_runs, read.results, read.note, \
    read.machine_label
MODES, MeasureError, mode, check_settings, check_build = read.MODES, read.MeasureError, read.mode, \
    read.check_settings, read.check_build

@dataclass
class Build:
    """The state of one site build, owned by the integration that builds it (hooks.py under MkDocs, mdext.py under
    Zensical) and handed to what needs it (the page API, the build cache of rendered blocks): the page being built,
    the results it has shown so far, and the files the pages refer to."""
    url: str | None = None  # the page being built ('decode/', '' for home); None outside a site build: notebooks, tests
    files: bool = True  # figures and downloads as files (MkDocs: hooks.py writes them), else inline (Zensical)
    shown: dict[tuple[str, str, str], store.Result] = field(default_factory=dict)  # runs read on this page, in order
    assets: dict[str, bytes] = field(default_factory=dict)  # files the pages refer to: {path in site: bytes}


_build = [Build()]  # the build the page API writes into: the integration's (begin_page), or one of its own


def begin_page(url: str | None = None, files: bool = True, build: Build | None = None) -> Build:
    """A new page starts: forget which results the last one showed. `url` (the page's, 'decode/'; '' for home) says
    that a site is being built: the page names its provenance once, at its foot, and with `files` figures and
    downloads become files beside the site's pages (hooks.py writes them). Without it (a notebook) both stay inline.
    `build`: the integration's Build, which this page and those after it are built into; by default the last one."""
    b = _build[0] = build or _build[0]
    b.url, b.files, b.shown = url, files, {}
    read.start_page(b.shown)
    return b


def current() -> Build:
    """The Build the page API is writing into."""
    return _build[0]


def _asset(data: bytes, ext: str, mime: str, stem: str = "") -> str:
    """Where a page finds `data`: a file under assets/kb/ of the site, named by its content, as a URL relative to the
    page being built; outside a site build, the bytes themselves as a data: URI."""
    b = _build[0]
    if b.url is None or not b.files:
        return f"data:{mime};base64,{base64.b64encode(data).decode()}"
    import hashlib

    name = f"assets/kb/{stem + '-' if stem else ''}{hashlib.sha256(data).hexdigest()[:16]}.{ext}"
    b.assets[name] = data
    return "../" * b.url.strip("/").count("/") + ("../" if b.url.strip("/") else "") + name


def assets() -> dict[str, bytes]:
    """The files the pages built so far refer to ({path under the site: bytes}); hooks.py writes them."""
    return dict(_build[0].assets)


def shown() -> list[store.Result]:
    """The results the current page has read so far, in the order first read."""
    return list(_build[0].shown.values())


def warning(results: Iterable[store.Result]) -> str:
    """A warning box naming every stale result among `results` (empty if none): what a page shows at its top."""
    stale = [r for r in results if r.stale]
    if not stale:
        return ""
    names = " ".join(sorted({r.experiment for r in stale}))
    items = "".join(f"<li><code>{r.experiment}</code> on {r.machine}: {', '.join(r.changed)}</li>" for r in stale)
    return (f'<div class="admonition danger kb-stale"><p class="admonition-title">Stale numbers on this page</p>'
            f"<p>Some numbers below come from results whose code changed after they were measured:</p><ul>{items}"
            f"</ul><p>Re-measure with <code>python -m kernelbook run {names}</code>.</p></div>\n")




# ---- formatting ---------------------------------------------------------------------------------------------------

def table(headers: Sequence[str], rows: Iterable[Sequence[Any]], align: str | None = None,
          name: str | None = None, full: tuple[Sequence[str], Sequence[Sequence[Any]]] | None = None) -> str:
    """A Markdown table, followed by links that download its cells as CSV and JSON.

    align: one letter per column, l/r/c (default: first left, rest right). name: the downloaded files' stem
    (default: from the first header). full: (headers, rows) of the whole table, when the page shows only the
    columns that fit the screen: the downloads hold all of them."""
    headers = list(headers)
    if len(set(headers)) != len(headers):  # the JSON download keys each row on them
        raise ValueError(f"table heads repeat: {[h for h in headers if headers.count(h) > 1]}")
    rows = [list(r) for r in rows]
    align = align or "l" + "r" * (len(headers) - 1)
    if len(align) != len(headers):
        raise ValueError(f"align {align!r} has {len(align)} letters for {len(headers)} columns")
    rule = {"l": ":--", "r": "--:", "c": ":-:"}
    lines = ["| " + " | ".join(map(_cell, headers)) + " |", "| " + " | ".join(rule[a] for a in align) + " |"]
    n = 0
    for row in rows:
        cells = [_cell(c) for c in row]
        if len(cells) != len(headers):
            raise ValueError(f"row {cells} has {len(cells)} cells for {len(headers)} columns")
        lines.append("| " + " | ".join(cells) + " |")
        n += 1
    if n == 0:
        raise ValueError("a table with no rows")
    got_headers, got_rows = full if full is not None else (headers, rows)
    return "\n".join(lines) + "\n" + downloads(list(got_headers), [list(r) for r in got_rows],
                                               name or _slug(headers[0]))


class Markup(str):
    """Markup a page's code means to show (a fact's element, a <br> between lines, a code span made by code()): the
    only text a table, caption or block passes through unescaped. A plain str is text, escaped wherever the page API
    renders it, so that no string from a result, and no snippet that forgets, can put a tag on a page."""

    def __html__(self) -> str:
        return str(self)

    def __add__(self, other: Any) -> Markup:  # markup + text: the text escaped, the sum still markup
        return Markup(str(self) + str(text(other)))

    def __radd__(self, other: Any) -> Markup:
        return Markup(str(text(other)) + str(self))

    def join(self, items: Iterable[Any]) -> Markup:  # type: ignore[override]
        return Markup(str(self).join(str(text(x)) for x in items))


def text(x: Any) -> Markup:
    """x as text in HTML or Markdown: <, > and & escaped (a Dynamo reason `<built-in function print>` reads as
    written instead of vanishing as an unknown tag), and [ ] too (no link or image a result could open)."""
    if isinstance(x, Markup) or _is_markup(x):
        return Markup(str(x))
    return Markup(_unbracketed(html.escape(str(x), quote=False)))


def _unbracketed(s: str) -> str:
    return s.replace("[", "&#91;").replace("]", "&#93;")


def code(x: Any) -> Markup:
    """x, a name or a line from a result, as inline code: a Markdown code span (which escapes what it holds) whose
    backticks outnumber any run of them in x, so that none in x can end it early."""
    s = " ".join(str(x).splitlines())
    ticks = "`" * (max((len(run) for run in re.findall(r"`+", s)), default=0) + 1)
    pad = " " if s.startswith("`") or s.endswith("`") else ""
    return Markup(f"{ticks}{pad}{s}{pad}{ticks}")


def lines(items: Iterable[Any], sep: str = "<br>") -> Markup:
    """Cells' items on lines of their own (or joined by another separator made by code): each item escaped as text
    unless it is Markup."""
    return Markup(sep).join(items)


def link(label: Any, href: str) -> Markup:
    """A Markdown link made by code (a page of the site, a source the ledger cites): its label escaped as a cell is
    (a text's [ ] are entities, so a result's string never makes a link of its own)."""
    if any(c.isspace() or c in "()<>" for c in href):
        raise ValueError(f"{href!r} is no link target a page makes")
    return Markup(f"[{_html_of(label)}]({href})")


def title(x: Any) -> Markup:
    """x inside a box's quoted title (`??? note "…"`): escaped as text, its double quotes too (one would end it)."""
    return Markup(html.escape(str(x), quote=True))


def _is_markup(x: Any) -> bool:
    return isinstance(x, Markup) or hasattr(x, "__html__") or type(x).__name__ == "Fact"  # kernelbook.macros.Fact


# The few tags a table cell built by a snippet as a plain str may carry, none with attributes but a fact's element as
# kernelbook.macros.span writes it: what snippets join around figures (a line break, a code span, a fact). Every
# other < and every & that starts no entity is escaped, so a stored string (a Dynamo reason, a GPU name) is text.
CELL_TAG = re.compile(r'</?(?:br|wbr|code|em|strong|sub|sup|s)>|</span>|<span class="kb-fact" data-fact="[\w.@-]+"'
                      r'(?: title="[^"<>]*")?>')
ENTITY = re.compile(r"&(?:#\d+|#x[0-9a-fA-F]+|[A-Za-z]\w*);")


def _escape_but_cell_tags(s: str) -> str:
    out, at = [], 0
    for m in CELL_TAG.finditer(s):
        out += [_escape_loose(s[at:m.start()]), m.group()]
        at = m.end()
    return "".join([*out, _escape_loose(s[at:])])


def _escape_loose(s: str) -> str:
    """< > [ ] escaped, & too unless it starts an entity (the text of a fact's element holds &lt; already)."""
    parts = ENTITY.split(s)
    kept = ENTITY.findall(s)
    esc = [_unbracketed(html.escape(p, quote=False)) for p in parts]
    return "".join(e + (kept[i] if i < len(kept) else "") for i, e in enumerate(esc))


def _html_of(c: Any) -> str:
    return str(c) if _is_markup(c) else _escape_but_cell_tags(str(c))


def cell(c: Any) -> Markup:
    """c as a table cell shows it (escaped but for the few tags of CELL_TAG and a fact's element), as Markup to join
    with more markup made by code (page.lines, a link)."""
    return Markup(_html_of(c))


def _cell(c: Any) -> str:
    """One table cell or head as Markdown, one line, pipes kept: Markup as made by code; any other value as text,
    escaped but for the few attribute-free tags of CELL_TAG and a fact's element."""
    shown = _html_of(c)
    return shown.replace("|", "\\|").replace("\n", " ")


def code_block(body: str, lang: str = "text", indent: str = "") -> Markup:
    """A fenced code block holding body verbatim, whatever it holds: its fence is one backtick longer than any run of
    backticks in body (at least three), so a line of ``` in a stored log cannot end the block early."""
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    inner = "\n".join(indent + line for line in body.split("\n"))
    return Markup(f"{indent}{fence}{lang}\n{inner}\n{indent}{fence}")


def _text(cell: Any) -> Any:
    """A cell without its markup: '<span …>7.0×</span>' -> '7.0×'."""
    if not (isinstance(cell, str) or _is_markup(cell)):
        return cell
    shown = _html_of(cell)  # a stored '<built-in function print>' is text here, kept; only markup's tags go
    return html.unescape(re.sub(r"<[^>]+>", "", shown)) if "<" in shown or "&" in shown else shown


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40] or "table"


def downloads(headers: Sequence[str], rows: Sequence[Sequence[Any]], stem: str) -> str:
    """Two links that download the table as CSV and JSON: files beside the site's pages (inline data: URIs outside a
    site build). A cell's markup (a fact's element) is left out: the files hold its text."""
    headers, rows = [_text(h) for h in headers], [[_text(c) for c in r] for r in rows]
    buf = io.StringIO()
    csv.writer(buf).writerows([headers, *rows])
    as_json = json.dumps([dict(zip(headers, map(str, r), strict=True)) for r in rows], ensure_ascii=False, indent=1)
    link = lambda text, mime, ext: (  # noqa: E731
        f'<a class="kb-download" download="{stem}.{ext}" '
        f'href="{_asset(text.encode(), ext, mime, stem)}">{ext.upper()}</a>')
    return f'\n<p class="kb-downloads">Download this table: {link(buf.getvalue(), "text/csv", "csv")} · ' \
           f'{link(as_json, "application/json", "json")}</p>\n'


# Pygments wraps every name and every run of spaces in a span; both themes (Material's, Zensical's) draw names in the
# code's own colour (--md-code-hl-name-color is --md-code-fg-color) and spaces in none, so the spans only weigh: a
# fifth of a page that shows kernels. They go (hooks.on_post_page, mdext under Zensical); every other token keeps
# its colour.
PLAIN_TOKEN = re.compile(r'<span class="(?:n|w)">([^<]*)</span>')


def plain_code(html: str) -> str:
    return PLAIN_TOKEN.sub(r"\1", html)


DENSE, RASTER_DPI = 500, 200  # a collection of more shapes is drawn as an image inside the SVG, at this resolution


def figure(fig: Any, alt: str, caption: bool = False) -> str:
    """A matplotlib figure as an SVG image (HTML, safe inside Markdown): a file beside the site's pages, loaded
    lazily, with its width and height so the page does not jump (inline outside a site build); with caption, `alt`
    is shown under it as the figure's caption too."""
    import html

    import matplotlib.pyplot as plt

    for ax in fig.axes:  # thousands of shapes (a profiled step's kernels) weigh less as pixels; axes, text: vector
        for c in ax.collections:
            if len(c.get_paths()) > DENSE:
                c.set_rasterized(True)
    buf = io.BytesIO()
    with plt.rc_context({"svg.hashsalt": "kernelbook"}):  # the same figure, the same bytes: ids not random
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None}, dpi=RASTER_DPI)
    plt.close(fig)
    svg = buf.getvalue()
    size = re.search(rb'<svg[^>]*\bwidth="([\d.]+)pt"[^>]*\bheight="([\d.]+)pt"', svg)
    wh = f' width="{round(float(size[1]) * 4 / 3)}" height="{round(float(size[2]) * 4 / 3)}"' if size else ""
    img = (f'<img class="kb-figure" alt="{html.escape(alt)}"{wh} loading="lazy" '
           f'src="{_asset(svg, "svg", "image/svg+xml")}">')
    if caption:
        return f'\n<figure class="kb-figure">{img}<figcaption>{html.escape(alt)}.</figcaption></figure>\n'
    return f"\n{img}\n"


def fact(chapter: str, name: str) -> str:
    """A chapter's fact as a table cell: the same text and element (its name, how it was obtained) as in the
    prose, so that a headline figure reads alike in both (kernelbook.macros)."""
    return Markup(getattr(factview.facts(chapter), name))


def provenance(res: store.Result) -> str:
    """One line under a table or figure: where and when its numbers came from, and a warning box if stale. In a site
    build the page says it once, at its foot (page_provenance): here only a stale result still speaks."""
    note(res)
    if _build[0].url is not None and not res.stale:
        return ""
    p = res.provenance
    esc = lambda x: html.escape(str(x))  # noqa: E731 - every stored string is text, never markup
    if res.published:
        return f'\n<p class="kb-provenance">Published figures: {esc(p.get("source", "?"))}.</p>\n'
    v = p.get("versions") or {}
    git = p.get("git") or {}
    commit = str(git.get("commit") or "unknown")[:8] + (" (dirty)" if git.get("dirty") else "")
    smi = p.get("smi_start") or {}
    clocks = f"SM {smi.get('clocks.sm', '?')} MHz, mem {smi.get('clocks.mem', '?')} MHz at start" if smi else ""
    parts = [f"Measured on {p.get('gpu', res.machine)} ({p.get('sm_count', '?')} SMs, driver {p.get('driver', '?')})",
             f"torch {v.get('torch')}, triton {v.get('triton')}, CUDA {v.get('cuda')}, transformers "
             f"{v.get('transformers')}", clocks, f"{str(p.get('started_utc', '?'))[:10]}", f"commit {commit}",
             f"code {str(p.get('code_hash', '?'))[:8]}"]
    line = f'\n<p class="kb-provenance">{" · ".join(esc(x) for x in parts if x)}</p>\n'
    if res.stale:
        line += (f'\n!!! danger "Stale result: {esc(res.experiment)}"\n    The code behind these numbers changed after '
                 f"they were measured ({esc(', '.join(res.changed))}). Re-measure on {esc(res.machine)} with "
                 f"`python -m kernelbook run {res.experiment}`.\n")
    return line


def _runs_of(rs: Sequence[store.Result]) -> str:
    """The runs a page read, by experiment: "one run each of 5 experiments", "9 runs of 4 experiments"."""
    n, k = len(rs), len({r.experiment for r in rs})
    if n == k:
        return "one run of 1 experiment" if n == 1 else f"one run each of {k} experiments"
    return f"{n} runs of {k} experiment{'s' if k > 1 else ''}"


def page_provenance(results: Iterable[store.Result]) -> str:
    """The one line a page ends with: for the build's machine, the GPU, the software, the days and the commits of the
    runs read; published figures by their source. Another GPU's column (the machines page, the ledger) is named by
    its head, so two builds of one page (MkDocs, Zensical) end alike whichever facts read that GPU's runs first."""
    mine: dict[str, list[store.Result]] = {}
    unique = {r.path: r for r in results}.values()  # a run read by several facts is one run
    for r in unique:  # the build's machine, and the article's published figures: a column of another GPU says whose
        if r.machine == paths.primary_machine() or r.published:
            mine.setdefault(r.machine, []).append(r)
    lines = []
    for machine, rs in sorted(mine.items(), key=lambda kv: (kv[0] != paths.primary_machine(), kv[0])):
        if all(r.published for r in rs):
            titles = sorted({m[1] for r in rs if (m := re.search(r"“([^”]+)”", str(r.provenance.get("source"))))})
            gpu = rs[0].provenance.get("gpu") or machine
            lines.append(html.escape(f"Published figures: {'; '.join(f'“{x}”' for x in titles) or '?'}, "
                                     f"on an {gpu}."))
            continue
        rs = [r for r in rs if not r.published]
        p = rs[0].provenance
        pick = lambda f, rs=rs: sorted({str(f(r.provenance)) for r in rs})  # noqa: E731
        soft = [f"{label} {', '.join(pick(lambda q, k=k: q.get('versions', {}).get(k)))}"
                for k, label in (("torch", "torch"), ("triton", "triton"), ("cuda", "CUDA"),
                                 ("transformers", "transformers"))]
        days = pick(lambda q: str(q.get("started_utc", "?"))[:10])
        commits = pick(lambda q: (q.get("git", {}).get("commit") or "unknown")[:8])
        lines.append(html.escape(
            f"Measured on {p.get('gpu', machine)} ({p.get('sm_count', '?')} SMs, driver "
            f"{', '.join(pick(lambda q: q.get('driver', '?')))}) · {', '.join(soft)} · "
            f"{_runs_of(rs)}, {days[0] if len(days) == 1 else days[0] + ' to ' + days[-1]}, at commit"
            f"{'s' if len(commits) > 1 else ''} {', '.join(commits)}"))
    return "".join(f'<p class="kb-provenance kb-page-provenance">{x}</p>\n' for x in lines)


def notebook_link(url: str | None) -> str:
    """Under a chapter's page ('decode/'), the link to its notebook (docs/notebooks/decode.ipynb), which re-runs the
    chapter on the reader's GPU: the same file under MkDocs (mkdocs-jupyter keeps the source) and Zensical."""
    stem = (url or "").strip("/")
    if not stem or "/" in stem or not (paths.root() / "docs" / "notebooks" / f"{stem}.ipynb").is_file():
        return ""
    return (f'<p class="kb-provenance kb-notebook">Run this chapter on your GPU: <a href="../notebooks/{stem}.ipynb" '
            f'download>{stem}.ipynb</a></p>\n')
