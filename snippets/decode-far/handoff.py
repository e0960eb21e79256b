from kernelbook import page
from kernelbook.chapters.decode_far import report as far_report

r = page.result("decode_far.ladder")
print(page.table(
    ["programs a hop", "per SM", "launch, µs a hop", "launch ± spread", "barrier, µs a hop", "barrier ± spread",
     "in order"],
    [[f"{x['programs']:,}", str(x["per_sm"]), page.num(x["launch_us"], 2), page.num(x["launch_spread_us"], 2),
      page.num(x["barrier_us"], 2), page.num(x["barrier_spread_us"], 2), "yes" if x["ordered"] else "**no**"]
     for x in far_report.handoff_rows(r.data)],
    align="rrrrrrl", name="decode-far-handoff"))
print(page.provenance(r))
