from kernelbook import across, page
from kernelbook.chapters.decode_far import report as far_report
from kernelbook.chapters.decode_far.facts import LABELS

r = page.result("decode_far.ladder")
runs = across.datas("decode_far.ladder") or [r.data]  # every fresh run of the current code
rows = far_report.median_launch_cost_rows(runs)
print(page.table(
    ["call", "computes", "cost in the step, µs", "per", "weights read, MiB", "those bytes at copy speed, µs",
     "copy speed / cost"],
    [[f"`{x['call']}`", LABELS.get(x["call"], "—"), page.num(x["us"], 2), x["per"],
      "—" if not x["bytes"] else page.num(x["bytes"] / 2**20, 1),
      "—" if not x["bytes"] else page.num(x["copy_us"], 2),
      "—" if x["share"] is None else page.pct(x["share"])] for x in rows],
    align="llrlrrr", name="decode-far-launch-costs"))
print(page.provenance(r))
