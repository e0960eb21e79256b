from kernelbook import across, page
from kernelbook.chapters.decode_far import report as far_report

r = page.result("decode_far.ladder")
runs = across.datas("decode_far.ladder") or [r.data]  # every fresh run of the current code
print(page.table(
    ["programs a hop", "per SM", "launch, µs a hop", "launch ± spread", "barrier, µs a hop", "barrier ± spread",
     "in order"],
    [[f"{x['programs']:,}", str(x["per_sm"]), page.num(x["launch_us"], 2), page.num(x["launch_spread_us"], 2),
      page.num(x["barrier_us"], 2), page.num(x["barrier_spread_us"], 2), "yes" if x["ordered"] else "**no**"]
     for x in far_report.median_handoff_rows(runs)],
    align="rrrrrrl", name="decode-far-handoff"))
print(page.provenance(r))
