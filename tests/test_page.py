"""The page API: tables, figures, provenance lines, replay-mode errors."""

from __future__ import annotations

import base64
import json
import re

import pytest
from conftest import run_file

from kernelbook import page


def test_table_renders_markdown_and_escapes_pipes():
    md = page.table(["a", "b"], [["x|y", 1.5], ["z", 2]])
    lines = md.strip().splitlines()
    assert lines[0] == "| a | b |" and lines[1] == "| :-- | --: |"
    assert lines[2] == "| x\\|y | 1.5 |"


def test_table_offers_its_cells_as_csv_and_json():
    md = page.table(["kernel", "µs"], [["add", 1.5], ["mul", 2]], name="k")
    links = dict(re.findall(r'download="k\.(\w+)" href="data:[^;]+;base64,([^"]+)"', md))
    assert base64.b64decode(links["csv"]).decode().splitlines() == ["kernel,µs", "add,1.5", "mul,2"]
    assert json.loads(base64.b64decode(links["json"])) == [{"kernel": "add", "µs": "1.5"}, {"kernel": "mul", "µs": "2"}]


def test_table_refuses_empty_or_ragged():
    with pytest.raises(ValueError, match="no rows"):
        page.table(["a"], [])
    with pytest.raises(ValueError, match="2 cells for 1 columns"):
        page.table(["a"], [[1, 2]])
    with pytest.raises(ValueError, match="heads repeat"):
        page.table(["a", "b", "a"], [[1, 2, 3]])


def test_num_and_pct():
    assert page.num(12345.678, 1) == "12,345.7"
    assert page.num(None) == "—"
    assert page.num(-0.04, 1) == "0.0" and page.num(-0.06, 1) == "-0.1" and page.num(-0.4, 0) == "0"
    assert page.num(3, 0, "ms") == "3 ms"
    assert page.pct(0.9123) == "91%"


def test_pct_down_never_rounds_a_share_up_to_a_goal():
    assert page.pct_down(0.97997) == "97.9%" and page.pct(0.97997, 1) == "98.0%"
    assert page.pct_down(0.981) == "98.1%"  # 98.1 is 98.09999… in binary: not floored to 98.0
    assert page.pct_down(0.97997, 2) == "97.99%" and page.pct_down(1.00701) == "100.7%"
    assert page.pct_down(None) == "—"


def test_num_down_never_rounds_up_past_an_at_least():
    from kernelbook import fmt

    assert fmt.num_down(1.67) == "1.6" and fmt.num(1.67) == "1.7"
    assert fmt.num_down(1.7) == "1.7"  # 1.7 is 1.6999… in binary: not floored to 1.6
    assert fmt.num_down(1234.56, 0) == "1,234" and fmt.num_down(None) == "—"


def test_figure_is_one_inline_svg_line():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    html = page.figure(fig, 'a "line"')
    assert html.count("\n") == 2 and 'alt="a &quot;line&quot;"' in html
    svg = base64.b64decode(html.split("base64,")[1].split('"')[0])
    assert svg.lstrip().startswith(b"<?xml") and b"<svg" in svg


def test_provenance_line_and_stale_box(fixture_results):
    res = page.result("machine.ceilings")
    assert res.stale  # fixtures never match the code's hash
    line = page.provenance(res)
    assert "Measured on NVIDIA H200 (132 SMs" in line and "commit 0000000f" in line
    assert '!!! danger "Stale result: machine.ceilings"' in line and "python -m kernelbook run machine.ceilings" in line


def test_published_provenance_cites_its_source(fixture_results):
    res = page.result("machine.ceilings", "nvidia-geforce-rtx-4060-laptop-gpu")
    assert res.published and "Published figures" in page.provenance(res)


def test_replay_missing_result_raises(fixture_results):
    (run_file(fixture_results, "machine.ceilings")).unlink()
    with pytest.raises(FileNotFoundError, match="python -m kernelbook run machine.ceilings"):
        page.result("machine.ceilings")


def test_bad_mode_is_refused(monkeypatch):
    monkeypatch.setenv("KERNELBOOK_MODE", "sometimes")
    with pytest.raises(ValueError, match="KERNELBOOK_MODE"):
        page.mode()


def test_results_lists_primary_first(fixture_results):
    out = page.results("machine.ceilings")
    assert list(out)[0] == "nvidia-h200"
    assert "nvidia-geforce-rtx-4060-laptop-gpu" in out


def test_table_refuses_an_align_string_of_the_wrong_length():
    with pytest.raises(ValueError, match="3 letters for 2 columns"):
        page.table(["a", "b"], [[1, 2]], align="lrr")


def test_fresh_runs_are_every_run_of_the_current_code(fixture_results):
    import json

    from conftest import run_file

    from kernelbook import store

    first = run_file(fixture_results, "machine.ceilings")
    rec = json.loads(first.read_text())
    rec["provenance"]["source_hashes"] = store.file_hashes(["src/kernelbook/timing.py"])
    first.write_text(json.dumps(rec))
    later = first.with_name("20260102T000000Z.json")  # each run named by its start, as the store checks
    rec["data"]["launch"]["speedup"] = 6.0
    rec["provenance"]["started_utc"] = "2026-01-02T00:00:00+00:00"
    later.write_text(json.dumps(rec))
    older = first.with_name("20251231T000000Z.json")  # a run of other code: history, not a run of this code
    rec["provenance"]["started_utc"] = "2025-12-31T00:00:00+00:00"
    rec["provenance"]["source_hashes"] = {"src/kernelbook/timing.py": "0" * 16}
    older.write_text(json.dumps(rec))
    runs = page.fresh_runs("machine.ceilings")
    assert [r.path.name for r in runs] == [first.name, later.name] and runs[-1].data["launch"]["speedup"] == 6.0
    assert page.fresh_runs("machine.ceilings", "nvidia-geforce-rtx-4060-laptop-gpu")[0].published


def test_a_figure_with_a_caption_shows_it_under_the_image():
    import matplotlib.pyplot as plt

    fig, _ = plt.subplots()
    html = page.figure(fig, "bytes <moved> per element", caption=True)
    assert html.strip().startswith('<figure class="kb-figure"><img class="kb-figure" alt="bytes &lt;moved&gt;')
    assert html.strip().endswith("<figcaption>bytes &lt;moved&gt; per element.</figcaption></figure>")


@pytest.mark.parametrize("spans", [page.DENSE, page.DENSE + 1])
def test_a_collection_of_thousands_of_shapes_is_drawn_as_pixels_and_the_rest_stays_vector(spans):
    """A profiled step's kernels (4,290 rectangles: 835 KB of SVG) weigh less as an image inside the figure; a
    figure of fewer shapes, the axes and the text stay vector."""
    import base64

    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.broken_barh([(i, 0.5) for i in range(spans)], (0, 1))
    ax.set_title("kernels")
    svg = base64.b64decode(page.figure(fig, "spans").split("base64,")[1].split('"')[0])
    dense = spans > page.DENSE
    assert (b"<image" in svg) is dense and (svg.count(b"<path") > spans) is not dense
    assert b'id="text_' in svg  # the title: vector either way


def test_in_a_site_build_figures_and_downloads_are_files_beside_the_page():
    """Issue 46: a page carries no base64 figure or table; each is a file named by its content, found from the
    page's folder, and a figure says its size and loads lazily."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    try:
        page.begin_page("decode/")
        img = page.figure(fig, "a line")
        tab = page.table(["what", "ms"], [["a", 1.0]])
        home = (page.begin_page(""), page.downloads(["x"], [[1]], "x"))[1]
        files = page.assets()
    finally:
        page.begin_page()
    src = re.search(r'src="([^"]+)"', img)[1]
    assert "base64" not in img + tab and src.startswith("../assets/kb/") and src.endswith(".svg")
    assert 'loading="lazy"' in img and re.search(r'width="\d+" height="\d+"', img)
    assert files[src.removeprefix("../")].lstrip().startswith(b"<?xml")
    csv = re.search(r'href="([^"]+\.csv)"', tab)[1]
    assert csv.startswith("../assets/kb/what-") and files[csv.removeprefix("../")] == b"what,ms\r\na,1.0\r\n"
    assert re.search(r'href="assets/kb/x-[0-9a-f]{16}\.csv"', home)  # home sits at the site's root
    assert "base64," in page.downloads(["x"], [[1]], "x")  # outside a build (a notebook) they stay inline


def test_in_a_site_build_the_page_names_its_provenance_once(monkeypatch):
    monkeypatch.setenv("KERNELBOOK_MODE", "replay")  # the committed results, fresh
    try:
        page.begin_page("machine/")
        blocks = page.provenance(page.result("machine.ceilings")), page.provenance(page.result("decode.six_ways"))
        foot = page.page_provenance(page.shown())
    finally:
        page.begin_page()
    assert all("Measured on" not in b for b in blocks)  # no line per block ...
    assert foot.count('class="kb-provenance kb-page-provenance"') == 1  # ... one for the page's machine
    assert "NVIDIA H200 (132 SMs" in foot and " at commit" in foot
    assert re.search(r"(\d+ runs of 2 experiments|one run each of 2 experiments), 2026-", foot), foot


def test_the_foot_counts_runs_by_experiment():
    """A footer's "21 runs" read as 21 repeats beside a page that says "one run so far": it names the experiments."""
    run = lambda e: type("R", (), {"experiment": e})()  # noqa: E731
    assert page._runs_of([run("a")]) == "one run of 1 experiment"
    assert page._runs_of([run("a"), run("b")]) == "one run each of 2 experiments"
    assert page._runs_of([run("a"), run("a"), run("b")]) == "3 runs of 2 experiments"
    assert page._runs_of([run("a"), run("a")]) == "2 runs of 1 experiment"


def test_a_table_that_shows_some_columns_downloads_all_of_them():
    out = page.table(["what", "ms"], [["a", 1.0]], full=(["what", "ms", "noise"], [["a", 1.0, "±1%"]]))
    assert "| what | ms |" in out and "noise" not in out.split("kb-downloads")[0]
    csv = base64.b64decode(re.search(r'href="data:text/csv;base64,([^"]+)"', out)[1]).decode()
    assert csv.splitlines() == ["what,ms,noise", "a,1.0,±1%"]


# ---- stored text is escaped by construction (issue 58) ------------------------------------------------------------

def test_a_cell_from_a_result_is_text_and_markup_from_code_is_kept():
    reason = "Dynamo does not know how to trace <built-in function print> [x](javascript:f())"
    md = page.table(["what", "reason"], [[page.code("f<x>"), reason]])
    line = md.splitlines()[2]
    assert "&lt;built-in function print&gt;" in line and "&#91;x&#93;(javascript:f())" in line and "<built" not in line
    assert "`f<x>`" in line  # a code span: Markdown escapes what it holds
    assert "<br>" in page.table(["a"], [[page.lines(["one", "<two>"])]]).splitlines()[2]
    assert "&lt;two&gt;" in page.table(["a"], [[page.lines(["one", "<two>"])]]).splitlines()[2]


def test_code_outlasts_any_backtick_inside():
    assert page.code("a``b") == "```a``b```" and page.code("`x") == "`` `x ``"
    block = page.code_block("log\n```\n<img src=1 onerror=f()>", indent="  ")
    assert block.splitlines()[0] == "  ````text" and block.splitlines()[-1] == "  ````"


def test_markup_joined_with_text_escapes_the_text():
    assert page.code("x") + " <b>" == "`x` &lt;b&gt;" and isinstance(page.code("x") + "y", page.Markup)
    assert page.text("<i>") + page.code("y") == "&lt;i&gt;`y`"


def test_a_link_is_made_by_code_only():
    assert page.link("<b>", "../machine/") == "[&lt;b&gt;](../machine/)"
    with pytest.raises(ValueError, match="no link target"):
        page.link("x", "javascript:f() (y)")
