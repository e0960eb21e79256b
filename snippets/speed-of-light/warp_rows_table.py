from kernelbook import page
from kernelbook.chapters.speed_of_light import figures, report

r = page.result("speed_of_light.designs")
runs = page.fresh_runs(r.experiment)
m = figures.merged([x.data for x in runs])  # each configuration's time: the median over the runs (figures.merged)

rows = []
for s in m["shapes"]:
    copy = s["versions"]["copy"]["ms"]
    rounds = s["finalist_rounds"].get("warp_rows", {})  # the configurations timed in the rounds
    picked = str(tuple(s["configs"].get("warp_rows", ())))
    for c, k in s["warp_rows_kernels"].items():  # c: '(rows per program,)', one warp per row
        warps = int(c.strip("(,)"))
        share = page.pct_down(copy / rounds[c]["ms"]) if "ms" in rounds.get(c, {}) else "—"
        rows.append([figures.shape_text(s), warps, k["registers"], page.num(k["local_bytes"], 0), k["barriers"],
                     f"{share}{' (picked)' if c == picked else ''}"])
print(report.folded("Warp per row: every configuration it ran", report.table(
    ["rows × hidden", "warps (rows) per program", "registers per thread", "spilled, B per thread", "bar.sync in PTX",
     "of copy, in the rounds"], rows, "lrrrrr", "sol-warp-rows")
    + report.runs_note(runs, newest=False)))
print(page.provenance(r))
