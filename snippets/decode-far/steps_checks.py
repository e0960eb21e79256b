from kernelbook import across, page
from kernelbook.chapters.decode_far import report as far_report

r = page.result("decode_far.ladder")
runs = across.datas("decode_far.ladder") or [r.data]  # every fresh run of the current code
rows = far_report.median_waterfall(runs)


checked = far_report.check_cell  # a step's check as a cell, on both tables


table = page.table(
    ["rung", "spread", "host ms", "tokens/s", "max rel. error, check"],
    [[s["label"], f"±{page.num(50 * s['spread'], 1)}%", page.num(s["host_ms"], 3), page.num(s["tok_s"], 0),
      checked(s)] for s in rows],
    align="lrrrl", name="decode-far-steps-checks")
print(table.split('\n<p class="kb-downloads">')[0])  # the steps table's download holds these columns too
print(page.provenance(r))
