import statistics

from kernelbook import across, page
from kernelbook.chapters.memory_bound.facts import LABELS

r = page.result("memory_bound.eager_bytes")
runs = across.datas("memory_bound.eager_bytes")  # every run of the current code: each figure is their median
short = {"add_rmsnorm": "norm", "swiglu": "swiglu"}  # the prose's facts: memory_bound.<short>_<figure>


def median(key: str, get) -> float:
    return statistics.median(get(d["chains"][key]) for d in runs)


rows = []
for key, c in r.data["chains"].items():
    s = short[key]
    measured_ms = median(key, lambda c: c["bench"]["median"])
    spread = median(key, lambda c: c["bench"]["spread_pct"] / 2)  # half the rounds' range, the median run's
    rows.append([LABELS[key], c["count"], page.num(c["bytes_per_elem"], 2),
                 page.fact("memory_bound", f"{s}_predicted_ms"),
                 f"{page.fact('memory_bound', f'{s}_measured_ms')} ±{spread:.1f}%",
                 page.fact("memory_bound", f"{s}_over_predicted"),
                 page.fact("memory_bound", f"{s}_share_of_copy"),
                 page.num(median(key, lambda c: c["busy_us"] / 1e3), 3),
                 page.num(c["bytes"] / measured_ms / 1e6, 0),  # from the measured ms shown, as is "of copy"
                 page.num(c["fused_bytes_per_elem"], 2),
                 page.fact("memory_bound", "norm_fused_predicted_ms") if key == "add_rmsnorm"
                 else page.num(median(key, lambda c: c["fused_predicted_us"] / 1e3), 3),
                 c["bench"]["n"], page.fact("memory_bound", "copy_gbps")])
headers = ["eager chain", "kernels", "B/elem", "predicted ms", "measured ms", "÷ predicted", "of copy speed",
           "kernel time sum, ms", "GB/s moved", "fused B/elem", "fused predicted ms",
           "do_bench rounds", "copy GB/s"]
SHOWN = [0, 2, 3, 4, 5, 6]  # on screen; the download has every column
shown = page.table([headers[i] for i in SHOWN], [[row[i] for i in SHOWN] for row in rows])
print(shown.partition('\n<p class="kb-downloads">')[0])
print(page.downloads(headers, rows, "eager-chains"))
print(page.provenance(r))
