import html
import re

from kernelbook import macros, page, store
from kernelbook.chapters.claims import ledger
from kernelbook.chapters.claims.verdicts import NUMBER, VARIES, describe
from kernelbook.chapters.torch_compile.facts import DECODE_FIELDS

machines = ledger.measured_machines()
records = ledger.published()
judged = {m: ledger.judged_on(m) for m in machines}
LAP_RIDGE = records["machine.ceilings"]["ridge_flop_per_byte"]
LAP_SWIGLU = records["memory_bound.eager_bytes"]["swiglu_flop_per_byte"]
labels = {m: page.machine_label(page.result("machine.ceilings", m)) for m in machines}


def href(md):  # MkDocs leaves the links an exec block prints as they are: point at the built page
    return f"../{md.removesuffix('.md')}/"


def breakable(text):  # long names (kernels, settings) may wrap after an underscore, so the table fits the column
    return re.sub(r"\S{16,}", lambda m: re.sub(r"([_=/:]|\.(?=[a-z]))", r"\1<wbr>", m.group()), text)


def test_of(row):
    if row.kind == "documented":  # not tested by us: what the project's own source says, cited
        return page.Markup("not tested; see ") + page.link(breakable(row.source), row.url)
    if row.kind == "unmeasured":
        return f"to measure: {breakable(row.measure_by)}"
    return breakable(describe(row, records))


def cold_range(f, m):  # the decode step's cold compile, fastest mode to slowest, as the torch-compile table shows each
    raw = macros.raw_facts("torch_compile", m)
    cold = {p + "_cold_s": getattr(raw, p + "_cold_s") for p in DECODE_FIELDS.values()}
    cold = {k: x for k, x in cold.items() if x is not None}
    return f"{f('torch_compile', min(cold, key=cold.get))}–{f('torch_compile', max(cold, key=cold.get))} s"


# Rows whose figure a chapter shows too: the cell prints the chapter's facts (the median over the runs, with the
# same hover text as on that chapter's page), so the ledger and the chapter read alike. The verdict stays the
# ledger's, decided run by run.
SHOWN = {
    "part4-idle": lambda f, m: f("decode", "dyn_idle_share"),
    "ridge": lambda f, m: f"{f('machine', 'ridge_over_swiglu')}× (ridge {f('machine', 'ridge')} over copy; "
                          f"SwiGLU {f('machine', 'swiglu_flop_per_byte')})",
    "laptop-roofline": lambda f, m: f"{f('machine', 'matmul_tflops')} TFLOP/s, {f('machine', 'read_gbps')} GB/s read",
    "laptop-copy": lambda f, m: f"{f('machine', 'copy_gbps')} GB/s copy",
    "copy-below-read": lambda f, m: f"{f('machine', 'copy_gbps')} vs {f('machine', 'read_gbps')} GB/s",
    "bytes-predict-time": lambda f, m: f"{f('memory_bound', 'norm_measured_ms')} ms for "
                                       f"{f('memory_bound', 'norm_predicted_ms')} "
                                       f"({f('memory_bound', 'norm_over_predicted')})",
    "bytes-predict-swiglu": lambda f, m: f"{f('memory_bound', 'swiglu_measured_ms')} ms for "
                                         f"{f('memory_bound', 'swiglu_predicted_ms')} "
                                         f"({f('memory_bound', 'swiglu_over_predicted')})",
    "saved-1": lambda f, m: f"{f('torch_compile', 'one_saved_us')} µs",
    "saved-2048": lambda f, m: f("torch_compile", "big_saved_share"),
    "speedup": lambda f, m: f("fusing_by_hand", "norm_speedup"),
    "launch-cost": lambda f, m: f"{f('machine', 'host_us')} µs",
    "launch-over-kernel": lambda f, m: f"{f('machine', 'host_us')} vs {f('torch_compile', 'eager_kernel_us_low')}–"
                                       f"{f('torch_compile', 'eager_kernel_us_high')} µs",
    "launch": lambda f, m: f("machine", "launch_speedup"),
    "static-slower": lambda f, m: f"{f('decode', 'static_ms')} vs {f('decode', 'dyn_ms')} ms",
    "graph-pays": lambda f, m: f"{f('decode', 'graph_ms')} vs {f('decode', 'dyn_ms')} ms",
    "graph-step": lambda f, m: f"{f('decode', 'graph_speedup')} ({f('decode', 'static_ms')} → "
                               f"{f('decode', 'graph_ms')} ms)",
    "graph-host": lambda f, m: f"{f('decode', 'graph_host_ms')} ms",
    "capture-time": lambda f, m: f"{f('decode', 'capture_s')} s",
    "graph-busy": lambda f, m: f"idle {f('decode', 'graph_idle_share')}",
    "default-idle": lambda f, m: f("decode", "cd_idle_share"),
    "default-mode": lambda f, m: f"{f('decode', 'cd_ms')} vs {f('decode', 'graph_ms')} ms",
    "ro-beats-graph": lambda f, m: f"{f('decode', 'ro_ms')} vs {f('decode', 'graph_ms')} ms",
    "ro-step": lambda f, m: f"{f('decode', 'ro_ms')} ms",
    "ro-gain": lambda f, m: f"{f('decode', 'ro_graph_diff_ms')} ms",
    "fusion-gpu-saved": lambda f, m: f"{f('decode', 'fusion_cut_busy_ms')} ms",
    "ma-compile": lambda f, m: f"{f('torch_compile', 'decode_ma_cold_s')} s",  # as torch-compile's table shows it
    "decode-cold": cold_range,
    "default-host": lambda f, m: f"{f('decode', 'cd_host_ms')} ms",
    "default-step": lambda f, m: f"{f('decode', 'cd_ms')} ms",
    "ma-beats-ro": lambda f, m: f"{f('decode', 'ma_ms')} vs {f('decode', 'ro_ms')} ms "
                                f"({f('decode', 'ma_ro_diff_ms')} ms apart)",
    "graphs-and-fusion": lambda f, m: f"{f('decode', 'ma_speedup')} ({f('decode', 'dyn_ms')} → "
                                      f"{f('decode', 'ma_ms')} ms, max-autotune)",
    "gain-is-fusion": lambda f, m: f"{f('decode', 'ro_graph_diff_ms')} of {f('decode', 'fusion_cut_busy_ms')} ms",
    "floor-eager": lambda f, m: f("decode", "dyn_floor_share"),
    "same-bandwidth": lambda f, m: f"{f('fusing_by_hand', 'share_low')}–{f('fusing_by_hand', 'share_high')}",
    "expandable-cost": lambda f, m: f"{f('allocator', 'grow_expandable_us')} vs {f('allocator', 'grow_default_us')} µs",
    "prefill-launch-hidden": lambda f, m: f"{f('real_world', 'prefill_gpu_us')} µs GPU; host "
                                          f"{f('real_world', 'prefill_launch_us')} µs (its launches, unprofiled) to "
                                          f"{f('real_world', 'prefill_host_us')} µs (under the profiler, which "
                                          "inflates host time)",
    "laptop-floor": lambda f, m: f"{f('decode', 'floor_ms')} ms, {f('decode', 'ceiling_tok_s')} tok/s",
}
LAPTOP = {  # the laptop's ridge: the article's, over its DRAM read, and the one the chapters use, over its copy
    "ridge": lambda j: f"{page.num(LAP_RIDGE / LAP_SWIGLU, 0)}× (ridge {page.num(LAP_RIDGE, 0)} over DRAM read; "
                       f"SwiGLU {LAP_SWIGLU}) · over copy: "
                       f"{page.fact('memory_bound', 'laptop_ridge_over_intensity')}× "
                       f"(ridge {page.fact('machine', 'laptop_ridge')})",
}


def when(run, time=False):  # a run's id, '20261201T160457Z', as its UTC start: its date, and with time its hour
    day = f"{run[:4]}-{run[4:6]}-{run[6:8]}"
    return f"{day} {run[9:11]}:{run[11:13]} UTC" if time else day


def how(j):
    """The hover of a figure the ledger reads itself: the runs it comes from; where they vary, each run's verdict."""
    if j.verdict == VARIES:
        return "each run's figure, oldest first: " + "; ".join(
            f"{r.figure} in the run of {when(r.run, True)}, {r.verdict}" + (f" (its median: {r.leans})" if r.leans
                                                                            else "") for r in j.readings)
    runs = j.deciding
    days = " to ".join(dict.fromkeys((when(runs[0].run), when(runs[-1].run))))
    if len(runs) == 1:
        return f"one run, {when(runs[0].run, True)}"
    if len({r.figure for r in runs}) == 1:
        return f"the same in {'both' if len(runs) == 2 else f'all {len(runs)}'} runs, {days}"
    several = len(NUMBER.findall(j.figure)) > 1
    return f"median of {len(runs)} runs, {days}" + (": each number its own median over them" if several else "")


def hover(text, title):
    return page.Markup(f'<span class="kb-fact" title="{html.escape(title, quote=True)}">{page.cell(text)}</span>')


def figure(j, m):
    """The figure in machine m's column: the median over the runs the verdict rests on (the ledger's), printed as
    the chapter's own fact where a chapter shows it and every run agreed, so both pages read alike; where the runs
    vary, each run's figure, oldest first. Its hover says which runs it comes from."""
    if not j.readings or j.figure in ("", "—"):
        return breakable(j.figure)
    own = hover(breakable(j.figure), how(j))
    if j.row.id not in SHOWN or j.verdict == VARIES:
        return own
    try:
        shown = SHOWN[j.row.id](lambda chapter, name: str(getattr(macros.facts(chapter, m), name)), m)
    except (FileNotFoundError, store.StoreError, AttributeError):
        return own
    if len(j.deciding) == j.runs or re.sub(r"<[^>]+>", "", shown) == j.figure:
        return shown
    return page.Markup(f"{own}; every run: {page.cell(shown)}")


def runs(j):  # how many runs the verdict rests on, of how many
    if not j.readings or j.row.kind == "documented":
        return "—"
    return str(j.runs) if len(j.deciding) == j.runs else f"{len(j.deciding)} of {j.runs}"


def short(label):  # a column head: the GPU without its memory, 'H100 80GB HBM3' -> 'H100'
    return re.sub(r"\s+\d+\s*GB\b.*$", "", label)


def cell(j, m, differs):  # one GPU's column: the verdict (bold where the GPUs differ), its figure, the runs behind it
    verdict = page.link(j.verdict, href(j.row.page))
    if j.row.kind == "documented":  # by whom: 'documented in vLLM docs', the cited source's name before its colon
        verdict += f" in {j.row.source.partition(':')[0]}"
    parts = [page.Markup(f"**{verdict}**") if differs else verdict]
    shown = figure(j, m)
    if shown not in ("", "—"):
        parts.append(page.cell(shown))
    n = runs(j)
    if n != "—":
        parts.append(page.Markup(f"<small>{page.text(n)} run{'s' * (n != '1')}</small>"))
    return page.lines(parts)


heads = {m: short(labels[m]) for m in machines}  # the full labels where two short ones would read alike
if len(set(heads.values())) < len(heads):
    heads = labels
mine = {m: {j.row.id: j for j in judged[m]} for m in machines}  # each GPU's judgement of each row
differ = set(ledger.differing({r.id: {m: mine[m][r.id].verdict for m in machines} for r in ledger.ROWS}))
full_heads = ["the article says", "judged by", "RTX 4060 Laptop (article)"]
for k, m in enumerate(machines):  # the downloads: every column apart, the primary's plainly, another's named after it
    full_heads += [labels[m], "verdict", "runs"] if k == 0 else [labels[m], f"verdict ({labels[m]})",
                                                                 f"runs ({labels[m]})"]
full_heads += ["verdicts differ"] * (len(machines) > 1)
parts = ledger.by_part(judged[machines[0]])


def show(part):
    """One part of the article: its rows' table (the page writes the part's heading above it)."""
    i, rows = {p: (i, rows) for i, (p, rows) in enumerate(parts)}[part]  # a part the ledger lacks: a KeyError
    table, full = [], []
    for j in rows:
        laptop = LAPTOP[j.row.id](j) if j.row.id in LAPTOP else breakable(j.laptop)
        mark = page.Markup('<strong title="the verdict differs between the GPUs">≠</strong> ' if j.row.id in differ
                           else "")
        cells = [mark + page.cell(breakable(j.row.claim)), test_of(j.row), laptop]
        whole = [j.row.claim, test_of(j.row), laptop]
        for m in machines:
            there = mine[m][j.row.id]
            cells.append(cell(there, m, j.row.id in differ))
            whole += [figure(there, m), there.verdict, runs(there)]
        table.append(cells)
        full.append(whole + ["yes" if j.row.id in differ else "no"] * (len(machines) > 1))
    print(page.table(["the article says", "judged by", "RTX 4060 Laptop (article)", *heads.values()], table,
                     align="lll" + "l" * len(machines), name=f"claims-{i + 1}", full=(full_heads, full)))
