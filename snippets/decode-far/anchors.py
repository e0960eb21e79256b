from kernelbook import across, page
from kernelbook.chapters.decode_far import report as far_report

r = page.result("decode_far.ladder")
runs = across.datas("decode_far.ladder") or [r.data]  # every fresh run of the current code


def tbps_range(x):
    return "" if x["tbps_low"] is None else f"{page.num(x['tbps_low'], 2)}–{page.num(x['tbps_high'], 2)}"


print(page.table(
    ["step", "model", "timed as", "weights, GB", "µs a step", "TB/s of weights", "rounds' TB/s, every run",
     "of the copy"],
    [[x["who"], x["model"], x["kind"], page.num(x["weight_gb"], 3), page.num(x["step_us"], 1),
      page.num(x["tbps"], 2), tbps_range(x), page.pct(x["copy_share"], 1)]
     for x in far_report.median_anchor_rows(runs)],
    align="lllrrrrr", name="decode-far-anchors"))
print(page.provenance(r))
