import statistics

from kernelbook import across, page
from kernelbook.chapters.decode.figures import most
from kernelbook.decode import report

r = page.result("decode.six_ways")
runs = across.datas("decode.six_ways")  # every run of the current code: each figure is their median
per_run = [report.summaries(x) for x in runs]
noisiest, widest = most(runs, lambda s: s["noise_pct"]), most(runs, lambda s: s["spread"])


def noise(name: str) -> str:  # the median of the runs' noise, marked noisy where any run stayed noisy
    pcts = [s[name]["noise_pct"] for s in per_run]
    if None in pcts:
        return "—"
    pct = page.fact("decode", "noisiest_pct") if name == noisiest else page.num(statistics.median(pcts), 1)
    return f"{pct}%" + ("" if all(s[name]["quiet"] for s in per_run) else " noisy")


def spread(name: str) -> str:  # the median of the runs' spreads: half the range of the round medians
    if name == widest:
        return "±" + page.fact("decode", "widest_spread")
    return f"±{page.num(50 * statistics.median(s[name]['spread'] for s in per_run), 1)}%"


rows = []
for n in per_run[-1]:
    rows.append([per_run[-1][n]["label"], noise(n), spread(n)])
print(page.table(["variant", "noise", "spread"], rows, name="decode-six-ways-noise"))
print(page.provenance(r))
