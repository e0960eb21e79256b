import statistics

from kernelbook import across, page
from kernelbook.chapters.memory_bound.facts import LABELS

r = page.result("memory_bound.eager_bytes")
runs = across.datas("memory_bound.eager_bytes")  # every run of the current code: each time is their median
HEADERS = ["#", "ATen op", "kernel", "tensors read → written", "read B/elem", "written B/elem", "µs",
           "µs at copy rate", "÷ copy time", "profiler calls"]  # the download's columns
SHOWN = ["ATen op", "kernel", "B/elem in + out", "µs", "÷ copy time"]  # on screen, rows in launch order


def over(measured: float, predicted: float) -> str:
    return f"{measured / predicted:,.3f}×"  # three places: 1.102× is outside a 10% band, 1.10× would not say so


def median(chains: list[dict], get) -> float:
    return statistics.median(get(c) for c in chains)


def moved(read: float, written: float) -> str:  # whole bytes where a kernel streams the tensor
    return " + ".join(page.num(x, 0 if x >= 1 else 3) for x in (read, written))


def kernel_rows(key: str) -> tuple[list[list], list[list]]:
    """(the download's rows, the screen's rows)"""
    chains = [d["chains"][key] for d in runs]  # the same kernels, in the same order, in every run
    chain = r.data["chains"][key]
    if any([k["op"] for k in c["kernels"]] != [k["op"] for k in chain["kernels"]] for c in chains):
        raise ValueError(f"{key}: kernels differ between runs")
    full, shown = [], []
    for i, k in enumerate(chain["kernels"]):
        us, predicted = (median(chains, lambda c, i=i, f=f: c["kernels"][i][f]) for f in ("us", "predicted_us"))
        op, name = page.code(k['op'].removeprefix('aten::')), page.code(k['kernel_short'].removeprefix('at::native::'))
        full.append([i + 1, op, name, " ".join(k["inputs"]) + " → " + " ".join(k["outputs"]),
                     page.num(k["read_per_elem"], 3), page.num(k["written_per_elem"], 3),
                     page.num(us, 2), page.num(predicted, 2), over(us, predicted), chain["profile"]["calls"]])
        shown.append([op, name, moved(k["read_per_elem"], k["written_per_elem"]), page.num(us, 2),
                      over(us, predicted)])
    busy, predicted = median(chains, lambda c: c["busy_us"]), median(chains, lambda c: c["predicted_us"])
    read, written = (sum(k[f] for k in chain["kernels"]) for f in ("read_per_elem", "written_per_elem"))
    total = ["**total**", f"**{chain['count']} kernels**"]
    full.append(["", *total, "", page.num(read, 2), page.num(written, 2), f"**{page.num(busy, 0)}**",
                 f"**{page.num(predicted, 0)}**", f"**{over(busy, predicted)}**", ""])
    shown.append([*total, moved(read, written), f"**{page.num(busy, 0)}**", f"**{over(busy, predicted)}**"])
    return full, shown


for key in r.data["chains"]:
    full, shown = kernel_rows(key)
    x = r.data["chains"][key]["kernels"][0]["inputs"][-1]  # the input, as the first kernel read it
    print(f"**{LABELS[key]}** · input {page.code(x)}\n")
    print(page.table(SHOWN, shown, align="llrrr").partition('\n<p class="kb-downloads">')[0])
    print(page.downloads(HEADERS, full, f"kernels-{key}"))
print(page.provenance(r))
