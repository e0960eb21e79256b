from kernelbook import page
from kernelbook.chapters.speed_of_light import figures, report

r = page.result("speed_of_light.designs")
runs = page.fresh_runs(r.experiment)
m = figures.merged([x.data for x in runs])  # each shape's times: the median over the runs (figures.merged)
DESIGNS = ["row_kernel", "persistent", "split_row", "warp_rows"]


def n(count: int, what: str) -> str:
    return f"{count} {what}{'' if count == 1 else 's'}"


def config(design: str, c: list[int]) -> str:
    return {"row_kernel": lambda: f"{n(c[0], 'row')} × {n(c[1], 'warp')}, {report.row_order(c)}",
            "persistent": lambda: f"{n(c[0], 'row')} × {n(c[1], 'warp')}, {c[2]}/SM",
            "split_row": lambda: f"{c[0]} programs/row × {n(c[1], 'warp')}",
            "warp_rows": lambda: n(c[0], "warp")}[design]()


def share(s: dict, design: str) -> str:
    if design in s["not_run"]:
        return "not run"
    v = s["versions"][design]
    return "fails" if "error" in v else page.pct_down(v["share_of_copy"])


def configured(s: dict, design: str) -> str:
    return "not run" if design in s["not_run"] else config(design, s["configs"][design])


heads = ["rows × hidden", "copy GB/s", *[f"{figures.LABELS[d]} (of copy)" for d in DESIGNS],
         *[f"{figures.LABELS[d]}: configuration (newest run)" for d in DESIGNS]]
rows = [[figures.shape_text(s), page.num(s["versions"]["copy"]["gbps"], 0), *[share(s, d) for d in DESIGNS],
         *[configured(s, d) for d in DESIGNS]] for s in m["shapes"]]
print(report.table(["rows × hidden", "copy GB/s", *[f"{figures.LABELS[d]}, %" for d in DESIGNS]],
                   [row[:2 + len(DESIGNS)] for row in rows], "lrrrrr", "sol-designs", full=(heads, rows)))
print(report.runs_note(runs))
print(report.folded("Each design's configuration, by shape", report.table(
    ["rows × hidden", *[figures.LABELS[d] for d in DESIGNS]], [[row[0], *row[2 + len(DESIGNS):]] for row in rows],
    "lllll", "sol-designs-configurations")))
print(page.provenance(r))
