from kernelbook import across, page
from kernelbook.chapters.speed_of_light import figures, report

r = page.result("speed_of_light.add_rmsnorm")
runs = page.fresh_runs(r.experiment)
m = figures.merged([x.data for x in runs])  # each shape's times: the median over the runs (figures.merged)
newest = {figures.shape_text(s): s for s in r.data["shapes"]}  # the bar: the newest run's verdict, as in the prose
RIVALS = ["compiled", "liger", "rms_norm"]
OURS = ["one_row", "copy_tiled", "ours_heuristic"]  # our own variants, and the copy cut to the kernel's programs


def config(c: list) -> str:  # (rows per program, warps, h stored late, weight loaded first)
    return f"{c[0]} × {c[1]}, {report.row_order(c)}"


def copy_cell(s: dict) -> str:  # the copy's time across the runs, with the widest run's noise
    same = [t["versions"]["copy"] for x in runs for t in x.data["shapes"]
            if figures.shape_text(t) == figures.shape_text(s)]
    return across.cell(across.of(same), 2, 1e3)


def share(v: dict, key: str) -> str:
    return report.share_cell(v[key]) if key in v else "—"


heads = ["rows × hidden", "MiB moved", "timed by", "copy GB/s", "copy µs (noise)", "ours GB/s",
         "ours (of copy)", "ours: rows/program × warps, order (newest run)",
         *[f"{figures.LABELS[o]} (of copy)" for o in RIVALS + OURS], "bar (newest run)"]
rows = []
for s in m["shapes"]:
    v = s["versions"]
    rows.append([figures.shape_text(s), page.num(s["bytes"] / 2**20, 1), s["timing"], page.num(v["copy"]["gbps"], 0),
                 copy_cell(s), page.num(v["ours"]["gbps"], 0), share(v, "ours"), config(s["best_config"]),
                 *[share(v, o) for o in RIVALS + OURS],
                 report.goal_cell(figures.goal(newest[figures.shape_text(s)], r.experiment)) if figures.big(s) else ""])
col = {h: i for i, h in enumerate(heads)}


def pick(names: list[str]) -> list[list[str]]:
    return [[row[col[h]] for h in names] for row in rows]


SHOWN = ["rows × hidden", "ours (of copy)", *[f"{figures.LABELS[o]} (of copy)" for o in RIVALS], "bar (newest run)"]
print(report.table(["rows × hidden", "ours, %", "torch.compile, %", "Liger-Kernel, %", "F.rms_norm, %", "bar"],
                   pick(SHOWN), "lrrrrc", "sol-add-rmsnorm", full=(heads, rows)))
print(report.runs_note(runs))
TIMING = ["rows × hidden", "MiB moved", "copy GB/s", "copy µs (noise)",
          "ours: rows/program × warps, order (newest run)"]
print(report.folded("Timing and configuration, by shape", report.table(
    ["rows × hidden", "MiB", "copy GB/s", "copy µs (noise)", "ours: rows × warps, order"], pick(TIMING), "lrrrl",
    "sol-add-rmsnorm-timing")))
VARIANTS = ["rows × hidden", "ours (of copy)", *[f"{figures.LABELS[o]} (of copy)" for o in OURS]]
print(report.folded("Our other variants, by shape", report.table(
    ["rows × hidden", "ours, %", "one-row, %", "copy in kernel-sized programs, %", "heuristic launch, %"],
    pick(VARIANTS), "lrrrr", "sol-add-rmsnorm-variants")))
print(page.provenance(r))
