from kernelbook import page
from kernelbook.chapters.memory_bound.facts import LABELS

r = page.result("memory_bound.eager_bytes")


def over(measured: float, predicted: float) -> str:
    return f"{measured / predicted:,.3f}×"  # three places: 1.102× is outside a 10% band, 1.10× would not say so


def kernel_rows(chain: dict) -> list[list[str]]:
    out = []
    for i, k in enumerate(chain["kernels"], 1):
        out.append([i, f"`{k['op'].removeprefix('aten::')}`", f"`{k['kernel_short']}`",
                    " ".join(k["inputs"]) + " → " + " ".join(k["outputs"]),
                    page.num(k["read_per_elem"], 3), page.num(k["written_per_elem"], 3),
                    page.num(k["us"], 1), page.num(k["predicted_us"], 1), over(k["us"], k["predicted_us"])])
    out.append(["", "**total**", f"**{chain['count']} kernels**", "",
                page.num(sum(k["read_per_elem"] for k in chain["kernels"]), 2),
                page.num(sum(k["written_per_elem"] for k in chain["kernels"]), 2),
                f"**{page.num(chain['busy_us'], 0)}**", f"**{page.num(chain['predicted_us'], 0)}**",
                f"**{over(chain['busy_us'], chain['predicted_us'])}**"])
    return out


headers = ["#", "ATen op", "kernel", "tensors read → written", "read B/elem", "written B/elem",
           "measured µs", "µs at copy rate", "× copy-rate time"]
for key, chain in r.data["chains"].items():
    print(f"**{LABELS[key]}**\n")
    print(page.table(headers, kernel_rows(chain), align="rlllrrrrr"))
print(page.provenance(r))
