from kernelbook import across, page
from kernelbook.chapters.decode_far import facts as far_facts
from kernelbook.chapters.decode_far import report as far_report

r = page.result("decode_far.ladder")
runs = across.datas("decode_far.ladder") or [r.data]  # every fresh run of the current code
fit = far_report.median_layer_fit(runs)  # the line through the medians below: the one the page states
rows = fit["rows"] if fit else []
once, per = (fit["once_us"], fit["per_layer_us"]) if fit else (None, None)
print(page.table(
    ["layers", "µs per step", "±, µs", "on the line, µs", "off the line, µs"],
    [[str(x["layers"]), page.num(x["us"], 1), page.num(x["spread_us"], 1),
      page.num(far_facts.on_line(once, per, x["layers"]), 1),
      page.num(far_facts.off_line(once, per, x["layers"], x["us"]), 1)] for x in rows],
    align="rrrrr", name="decode-far-layer-fit"))
print(page.provenance(r))
