from kernelbook import across, page
from kernelbook.chapters.decode_far import report as far_report
from kernelbook.chapters.decode_far.facts import LABELS

r = page.result("decode_far.ladder")
runs = across.datas("decode_far.ladder") or [r.data]  # every fresh run of the current code
t = far_report.median_timeline_rows(runs)
rows = t["rows"] if t else []
HEADS = ["launch", "starts, µs", "ends, µs", "after the end ahead, µs", "weights at copy speed, µs", "past them, µs"]


def shown(x: dict) -> list:
    return [page.code(x['launch']), page.num(x["start_us"], 2), page.num(x["end_us"], 2), page.num(x["after_us"], 2),
            "—" if x["copy_us"] is None else page.num(x["copy_us"], 2),
            "—" if x["over_us"] is None else page.num(x["over_us"], 2)]


table = page.table(HEADS, [shown(x) for x in rows], align="lrrrrr", name="decode-far-timeline")
print(table.split('\n<p class="kb-downloads">')[0])  # the download below holds every column, not only these
print(page.downloads([*HEADS, "computes", "end ±, µs"],
                     [[*shown(x), LABELS.get(x["launch"], "—"), page.num(x["spread_us"], 2)] for x in rows],
                     "decode-far-timeline"))
print(page.provenance(r))
