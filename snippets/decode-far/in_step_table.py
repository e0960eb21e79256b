from kernelbook import across, page
from kernelbook.chapters.decode_far import report as far_report

r = page.result("decode_far.ladder")
runs = across.datas("decode_far.ladder") or [r.data]  # every fresh run of the current code
d = r.data
rows = far_report.median_in_step_rows(runs)
HEADS = ["rung", "site", "config alone", "config in the step", "µs / step, alone", "µs / step, chosen"]


def shown(x: dict) -> list:
    return [d["labels"][x["step"]], page.code(x['site']), " × ".join(map(str, x["alone"])),
            " × ".join(map(str, x["best"])) + ("" if x["best"] != x["alone"] else " (same)")
            + ("" if x["agree"] else " †"),
            "—" if x["alone_us"] is None else page.num(x["alone_us"], 1), page.num(x["best_us"], 1)]


table = page.table(HEADS, [shown(x) for x in rows], align="llllrr", name="decode-far-in-step")
print(table.split('\n<p class="kb-downloads">')[0])  # the download below holds every column, not only these
print(page.downloads([*HEADS, "configs tried"], [[*shown(x), x["candidates"]] for x in rows], "decode-far-in-step"))
print(page.provenance(r))
