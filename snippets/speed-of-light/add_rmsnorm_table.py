from kernelbook import page
from kernelbook.chapters.speed_of_light import facts, report

r = page.result("speed_of_light.add_rmsnorm")
OTHERS = ["one_row", "compiled", "rms_norm", "liger"]


def config(c: list) -> str:  # (rows per program, warps, h stored late, weight loaded first)
    return f"{c[0]} × {c[1]}, {report.row_order(c)}"


rows = []
for s in r.data["shapes"]:
    v = s["versions"]
    best = v["ours"]
    rows.append([
        facts.shape_text(s), page.num(s["bytes"] / 2**20, 1), s["timing"],
        page.num(v["copy"]["gbps"], 0), page.timed(v["copy"], 2, 1e3),
        f"{page.num(best['gbps'], 0)} ({report.share_cell(best)})", config(s["best_config"]),
        report.share_cell(v["copy_tiled"]),
        report.share_cell(v["ours_heuristic"]),
        *[report.share_cell(v[o]) if o in v else "—" for o in OTHERS],
        report.goal_cell(facts.goal(s, r.experiment)) if facts.big(s) else "",
    ])
print(page.table(["rows × hidden", "MiB moved", "timed by", "copy GB/s", "copy µs (noise)",
                  "best kernel GB/s (of copy)",
                  "rows/program × warps, order", "copy, programs that size (of copy)", "heuristic (of copy)",
                  *[f"{facts.LABELS[o]} (of copy)" for o in OTHERS], "goal"], rows,
                 align="l" + "r" * 12 + "c", name="sol-add-rmsnorm"))
print(page.provenance(r))
