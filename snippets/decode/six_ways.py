import statistics

from kernelbook import across, page
from kernelbook.chapters.decode.figures import step_summary
from kernelbook.decode import report

r = page.result("decode.six_ways")
d = r.data
runs = across.datas("decode.six_ways")  # every run of the current code: each figure is their median
per_run = [report.summaries(x) for x in runs]
lap = page.result("decode.six_ways", report.LAPTOP).data["variants"]
floor = statistics.median(x["floor_ms"] for x in runs)
best = report.best_valid(d)

# the cells the prose quotes: the fact itself, the same median in the same text (chapters/decode/facts.py)
FACTS = {
    "eager_dynamic": {"step": "dyn_ms", "kernels": "dyn_kernels", "busy": "dyn_busy_ms", "idle": "dyn_idle_share",
                      "floor": "dyn_floor_share"},
    "eager_static": {"step": "static_ms", "kernels": "static_kernels", "busy": "static_busy_ms",
                     "idle": "static_idle_share", "host": "static_host_ms"},
    "cuda_graph": {"step": "graph_ms", "kernels": "graph_kernels", "busy": "graph_busy_ms", "idle": "graph_idle_share",
                   "host": "graph_host_ms"},
    "compile_default": {"step": "cd_ms", "kernels": "cd_kernels", "busy": "cd_busy_ms", "idle": "cd_idle_share",
                        "host": "cd_host_ms"},
    "compile_reduce_overhead": {"step": "ro_ms"},
    "compile_max_autotune": {"step": "ma_ms"},
}
if best:
    FACTS[best["name"]] = {"kernels": "best_kernels", "busy": "best_busy_ms", "tok_s": "best_tok_s",
                           "floor": "best_floor_share", **FACTS[best["name"]]}


def med(name: str, key: str) -> float:
    return statistics.median(s[name][key] for s in per_run)


def cell(name: str, column: str, text: str) -> str:
    field = FACTS.get(name, {}).get(column)
    return page.fact("decode", field) if field else text


def kernels(name: str) -> str:
    k = statistics.median_low(s[name]["kernels"] for s in per_run)
    mixes = [m for x in runs if (m := report.kernel_mix(x, name))]
    triton = statistics.median_low(m["triton"] for m in mixes) if mixes else 0
    n = cell(name, "kernels", page.num(k, 0))
    if not triton:
        return n
    t = page.fact("decode", "cd_triton") if name == "compile_default" else page.num(triton, 0)
    return f"{n} ({t} Triton)"


def laptop(name: str, key: str, digits: int) -> str:
    v = lap.get(name, {}).get(key)
    return "—" if v is None else page.num(v, digits)


shown, full = [], []  # on screen: six columns; in the download: every column
for n in per_run[-1]:
    a = across.of([step_summary(x, n) for x in runs])
    step_ms, busy = a.median, med(n, "busy_ms")  # the row's other columns are computed from these medians
    note = across.runs_note(a, 2)  # ' (runs a–b)' where the runs lie further apart than their spread
    step = cell(n, "step", page.num(step_ms, 2))
    step = page.lines([step, note.strip()]) if note else step  # the runs' range on a line of its own
    valid = all(s[n]["valid"] for s in per_run)
    step = step if valid else f"~~{step}~~ failed check"
    row = [per_run[-1][n]["label"], step, cell(n, "kernels", page.num(statistics.median_low(
               s[n]["kernels"] for s in per_run), 0)), cell(n, "busy", page.num(busy, 2)),
           cell(n, "host", page.num(med(n, "host_ms"), 2)), laptop(n, "step_ms", 1)]
    shown.append(row)
    full.append([row[0], step.replace("<br>", " "), *row[2:], cell(n, "idle", page.pct(max(0.0, 1 - busy / step_ms))),
                 cell(n, "tok_s", page.num(1e3 / step_ms, 0)),
                 cell(n, "floor", page.pct(floor / step_ms)), kernels(n), laptop(n, "kernels", 0)])
HEADS = ["variant", "step ms", "kernels", "GPU busy ms", "host ms", "laptop step ms"]
table = page.table(HEADS, shown, name="decode-six-ways")
print(table.split('\n<p class="kb-downloads">')[0])  # the download below holds every column, not only these
print(page.downloads([*HEADS, "GPU idle", "tokens/s", "of floor",
                      "kernels (Triton)", "laptop kernels"], full, "decode-six-ways"))
print(page.provenance(r))
