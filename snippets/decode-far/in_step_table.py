from kernelbook import page
from kernelbook.chapters.decode_far import report as far_report

r = page.result("decode_far.ladder")
d = r.data
print(page.table(
    ["step", "site", "configs tried", "config alone", "config in the step", "µs / step, config alone",
     "µs / step, chosen"],
    [[d["labels"][x["step"]], f"`{x['site']}`", x["candidates"], " × ".join(map(str, x["alone"])),
      " × ".join(map(str, x["best"])) + ("" if x["best"] != x["alone"] else " (same)"),
      "—" if x["alone_us"] is None else page.num(x["alone_us"], 1), page.num(x["best_us"], 1)]
     for x in far_report.in_step_rows(d)],
    align="llrllrr", name="decode-far-in-step"))
print(page.provenance(r))
