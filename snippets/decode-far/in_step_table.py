from kernelbook import across, page
from kernelbook.chapters.decode_far import report as far_report

r = page.result("decode_far.ladder")
runs = across.datas("decode_far.ladder") or [r.data]  # every fresh run of the current code
d = r.data
rows = far_report.median_in_step_rows(runs)
print(page.table(
    ["step", "site", "configs tried", "config alone", "config in the step", "µs / step, config alone",
     "µs / step, chosen"],
    [[d["labels"][x["step"]], f"`{x['site']}`", x["candidates"], " × ".join(map(str, x["alone"])),
      " × ".join(map(str, x["best"])) + ("" if x["best"] != x["alone"] else " (same)")
      + ("" if x["agree"] else " †"),
      "—" if x["alone_us"] is None else page.num(x["alone_us"], 1), page.num(x["best_us"], 1)]
     for x in rows],
    align="llrllrr", name="decode-far-in-step"))
print(page.provenance(r))
