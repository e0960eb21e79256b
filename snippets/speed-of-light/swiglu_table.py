from kernelbook import across, page
from kernelbook.chapters.speed_of_light import facts, report

r = page.result("speed_of_light.swiglu")
runs = page.fresh_runs(r.experiment)
m = facts.merged([x.data for x in runs])  # each shape's times: the median over the runs (facts.merged)
newest = {facts.shape_text(s): s for s in r.data["shapes"]}  # the goal: the newest run's verdict, as in the prose
OTHERS = ["chapter", "compiled", "liger", "eager"]


def copy_cell(s: dict) -> str:  # the copy's time across the runs, with the widest run's noise
    same = [t["versions"]["copy"] for x in runs for t in x.data["shapes"] if facts.shape_text(t) == facts.shape_text(s)]
    return across.cell(across.of(same), 2, 1e3)


rows = []
for s in m["shapes"]:
    v = s["versions"]
    best = v["ours"]
    rows.append([facts.shape_text(s), page.num(s["bytes"] / 2**20, 1), s["timing"],
                 page.num(v["copy"]["gbps"], 0), copy_cell(s),
                 f"{page.num(best['gbps'], 0)} ({report.share_cell(best)})",
                 report.swiglu_config(s["best_config"]),
                 *[report.share_cell(v[o]) if o in v else "—" for o in OTHERS],
                 report.goal_cell(facts.goal(newest[facts.shape_text(s)], r.experiment)) if facts.big(s) else ""])
print(page.table(["rows × width", "MiB moved", "timed by", "copy GB/s", "copy µs (noise)",
                  "best kernel GB/s (of copy)",
                  "block × warps, divide (newest run)", *[f"{facts.LABELS[o]} (of copy)" for o in OTHERS],
                  "goal (newest run)"], rows,
                 align="l" + "r" * 10 + "c", name="sol-swiglu"))
print(report.runs_note(runs))
print(page.provenance(r))
