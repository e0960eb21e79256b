from kernelbook import across, page
from kernelbook.chapters.speed_of_light import figures, report

r = page.result("speed_of_light.swiglu")
runs = page.fresh_runs(r.experiment)
m = figures.merged([x.data for x in runs])  # each shape's times: the median over the runs (figures.merged)
newest = {figures.shape_text(s): s for s in r.data["shapes"]}  # the bar: the newest run's verdict, as in the prose
OTHERS = ["chapter", "compiled", "liger", "eager"]


def copy_cell(s: dict) -> str:  # the copy's time across the runs, with the widest run's noise
    same = [t["versions"]["copy"] for x in runs for t in x.data["shapes"]
            if figures.shape_text(t) == figures.shape_text(s)]
    return across.cell(across.of(same), 2, 1e3)


heads = ["rows × width", "MiB moved", "timed by", "copy GB/s", "copy µs (noise)", "ours GB/s", "ours (of copy)",
         "ours: block × warps, divide (newest run)", *[f"{figures.LABELS[o]} (of copy)" for o in OTHERS],
         "bar (newest run)"]
rows = []
for s in m["shapes"]:
    v = s["versions"]
    rows.append([figures.shape_text(s), page.num(s["bytes"] / 2**20, 1), s["timing"], page.num(v["copy"]["gbps"], 0),
                 copy_cell(s), page.num(v["ours"]["gbps"], 0), report.share_cell(v["ours"]),
                 report.swiglu_config(s["best_config"]),
                 *[report.share_cell(v[o]) if o in v else "—" for o in OTHERS],
                 report.goal_cell(figures.goal(newest[figures.shape_text(s)], r.experiment)) if figures.big(s) else ""])
col = {h: i for i, h in enumerate(heads)}


def pick(names: list[str]) -> list[list[str]]:
    return [[row[col[h]] for h in names] for row in rows]


SHOWN = ["rows × width", "ours (of copy)", *[f"{figures.LABELS[o]} (of copy)" for o in OTHERS[:-1]], "bar (newest run)"]
print(report.table(["rows × width", "ours, %", "chapter's launch, %", "torch.compile, %", "Liger-Kernel, %", "bar"],
                   pick(SHOWN), "lrrrrc", "sol-swiglu", full=(heads, rows)))
print(report.runs_note(runs))
DETAIL = ["rows × width", "MiB moved", "copy GB/s", "copy µs (noise)", "ours: block × warps, divide (newest run)",
          "eager (of copy)"]
print(report.folded("Timing, configuration and eager, by shape", report.table(
    ["rows × width", "MiB", "copy GB/s", "copy µs (noise)", "ours: block × warps, divide", "eager, %"],
    pick(DETAIL), "lrrrlr", "sol-swiglu-detail")))
print(page.provenance(r))
