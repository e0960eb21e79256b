from kernelbook import page
from kernelbook.chapters.speed_of_light import facts, report

r = page.result("speed_of_light.designs")
runs = page.fresh_runs(r.experiment)
m = facts.merged([x.data for x in runs])  # each shape's times: the median over the runs (facts.merged)
DESIGNS = ["row_kernel", "persistent", "split_row", "warp_rows"]


def n(count: int, what: str) -> str:
    return f"{count} {what}{'' if count == 1 else 's'}"


def config(design: str, c: list[int]) -> str:
    return {"row_kernel": lambda: f"{n(c[0], 'row')} × {n(c[1], 'warp')}, {report.row_order(c)}",
            "persistent": lambda: f"{n(c[0], 'row')} × {n(c[1], 'warp')}, {c[2]}/SM",
            "split_row": lambda: f"{c[0]} programs/row × {n(c[1], 'warp')}",
            "warp_rows": lambda: n(c[0], "warp")}[design]()


def cell(s: dict, design: str) -> str:
    if design in s["not_run"]:
        return "not run"
    v = s["versions"][design]
    return "fails" if "error" in v else f"{page.pct_down(v['share_of_copy'])} ({config(design, s['configs'][design])})"


rows = [[facts.shape_text(s), page.num(s["versions"]["copy"]["gbps"], 0),
         *[cell(s, d) for d in DESIGNS]] for s in m["shapes"]]
print(page.table(["rows × hidden", "copy GB/s",
                  *[f"{facts.LABELS[d]} (of copy; configuration, newest run)" for d in DESIGNS]], rows,
                 align="lrrrrr", name="sol-designs"))
print(report.runs_note(runs))
print(page.provenance(r))
