from kernelbook import across, page
from kernelbook.chapters.decode_far import report as far_report

r = page.result("decode_far.ladder")
runs = across.datas("decode_far.ladder") or [r.data]  # every fresh run of the current code
fit = far_report.median_layer_fit(runs)
print(page.table(
    ["layers", "µs per step", "± spread", "on the line, µs", "off the line, µs"],
    [[str(x["layers"]), page.num(x["us"], 1), page.num(x["spread_us"], 1), page.num(x["line_us"], 1),
      page.num(x["us"] - x["line_us"], 1)] for x in (fit["rows"] if fit else [])],
    align="rrrrr", name="decode-far-layer-fit"))
print(page.provenance(r))
