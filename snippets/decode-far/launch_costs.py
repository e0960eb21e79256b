from kernelbook import across, page
from kernelbook.chapters.decode_far import report as far_report
from kernelbook.chapters.decode_far.facts import COST_DIGITS, LABELS

r = page.result("decode_far.ladder")
runs = across.datas("decode_far.ladder") or [r.data]  # every fresh run of the current code
rows = far_report.median_launch_cost_rows(runs)
HEADS = ["call", "per", "cost in the step, µs", "weights, MiB", "at copy speed, µs", "copy speed / cost"]


def shown(x: dict) -> list:
    return [page.code(x['call']), x["per"], page.num(x["us"], COST_DIGITS),  # the digits the sums add
            "—" if not x["bytes"] else page.num(x["bytes"] / 2**20, 1),
            "—" if not x["bytes"] else page.num(x["copy_us"], 2),
            "—" if x["share"] is None else page.pct_down(x["share"], 0)]


table = page.table(HEADS, [shown(x) for x in rows], align="llrrrr", name="decode-far-launch-costs")
print(table.split('\n<p class="kb-downloads">')[0])  # the download below holds every column, not only these
print(page.downloads([*HEADS, "computes"], [[*shown(x), LABELS.get(x["call"], "—")] for x in rows],
                     "decode-far-launch-costs"))
print(page.provenance(r))
