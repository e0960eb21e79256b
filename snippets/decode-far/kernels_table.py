from kernelbook import across, page
from kernelbook.chapters.decode_far import report as far_report

r = page.result("decode_far.ladder")
runs = across.datas("decode_far.ladder") or [r.data]  # every fresh run of the current code
d = r.data
last, before = far_report.kernels_shown(d)
rows = far_report.median_kernel_rows(runs, last, before) if last else []
against = any(k["us_against"] is not None for k in rows)
table = [[page.code(k['short']), far_report.written(k["name"]), k["count"], page.num(k["us"], 1),
          page.num(k["us_per_launch"], 2), *([page.num(k["us_against"], 1)] if against else [])] for k in rows]
HEADS = ["kernel", "written", "launches", "µs / step", "µs / launch"]
shown = page.table([*HEADS, *(["µs / step, no PDL"] if against else [])], table,
                   align="llrrr" + ("r" if against else ""), name="decode-far-kernels")
print(shown.split('\n<p class="kb-downloads">')[0])  # the download below names the step of the last column
print(page.downloads([*HEADS, *([f"µs / step in “{d['labels'][before]}”"] if against else [])], table,
                     "decode-far-kernels"))
print(page.provenance(r))
