from kernelbook import across, page
from kernelbook.chapters.decode_far import report as far_report

r = page.result("decode_far.ladder")
runs = across.datas("decode_far.ladder") or [r.data]  # every fresh run of the current code
rows = far_report.median_handoff_rows(runs)
HEADS = ["programs a hop", "per SM", "launch, µs a hop", "barrier, µs a hop", "in order"]


def shown(x: dict) -> list:
    return [f"{x['programs']:,}", str(x["per_sm"]), page.num(x["launch_us"], 2), page.num(x["barrier_us"], 2),
            "yes" if x["ordered"] else "**no**"]


table = page.table(HEADS, [shown(x) for x in rows], align="rrrrl", name="decode-far-handoff")
print(table.split('\n<p class="kb-downloads">')[0])  # the download below holds every column, not only these
print(page.downloads([*HEADS, "launch ±", "barrier ±"],
                     [[*shown(x), page.num(x["launch_spread_us"], 2), page.num(x["barrier_spread_us"], 2)]
                      for x in rows], "decode-far-handoff"))
print(page.provenance(r))
