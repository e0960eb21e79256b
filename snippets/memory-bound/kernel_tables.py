import statistics

from kernelbook import across, page
from kernelbook.chapters.memory_bound.facts import LABELS

r = page.result("memory_bound.eager_bytes")
runs = across.datas("memory_bound.eager_bytes")  # every run of the current code: each time is their median


def over(measured: float, predicted: float) -> str:
    return f"{measured / predicted:,.3f}×"  # three places: 1.102× is outside a 10% band, 1.10× would not say so


def median(chains: list[dict], get) -> float:
    return statistics.median(get(c) for c in chains)


def kernel_rows(key: str) -> list[list[str]]:
    chains = [d["chains"][key] for d in runs]  # the same kernels, in the same order, in every run
    chain = r.data["chains"][key]
    if any([k["op"] for k in c["kernels"]] != [k["op"] for k in chain["kernels"]] for c in chains):
        raise ValueError(f"{key}: the runs launched different kernels; their times cannot be paired")
    out = []
    for i, k in enumerate(chain["kernels"]):
        us, predicted = (median(chains, lambda c, i=i, f=f: c["kernels"][i][f]) for f in ("us", "predicted_us"))
        out.append([i + 1, f"`{k['op'].removeprefix('aten::')}`", f"`{k['kernel_short']}`",
                    " ".join(k["inputs"]) + " → " + " ".join(k["outputs"]),
                    page.num(k["read_per_elem"], 3), page.num(k["written_per_elem"], 3),
                    page.num(us, 2), page.num(predicted, 2), over(us, predicted)])
    busy, predicted = median(chains, lambda c: c["busy_us"]), median(chains, lambda c: c["predicted_us"])
    out.append(["", "**total**", f"**{chain['count']} kernels**", "",
                page.num(sum(k["read_per_elem"] for k in chain["kernels"]), 2),
                page.num(sum(k["written_per_elem"] for k in chain["kernels"]), 2),
                f"**{page.num(busy, 0)}**", f"**{page.num(predicted, 0)}**", f"**{over(busy, predicted)}**"])
    return out


headers = ["#", "ATen op", "kernel", "tensors read → written", "read B/elem", "written B/elem",
           f"measured µs, median of {len(runs)} runs", "µs at copy rate", "× copy-rate time"]
for key in r.data["chains"]:
    print(f"**{LABELS[key]}**\n")
    print(page.table(headers, kernel_rows(key), align="rlllrrrrr"))
print(page.provenance(r))
