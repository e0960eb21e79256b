from kernelbook import page

r = page.result("memory_bound.eager_bytes")
rows, hidden = r.data["shape"]


def kernel_rows(chain: dict) -> list[list[str]]:
    out = []
    for i, k in enumerate(chain["kernels"], 1):
        out.append([i, f"`{k['op'].removeprefix('aten::')}`", f"`{k['kernel_short']}`",
                    " ".join(k["inputs"]) + " → " + " ".join(k["outputs"]),
                    page.num(k["read_per_elem"], 3), page.num(k["written_per_elem"], 3),
                    page.num(k["us"], 1), page.num(k["predicted_us"], 1)])
    out.append(["", "**total**", f"**{chain['count']} kernels**", "",
                page.num(sum(k["read_per_elem"] for k in chain["kernels"]), 2),
                page.num(sum(k["written_per_elem"] for k in chain["kernels"]), 2),
                f"**{page.num(chain['busy_us'], 0)}**", f"**{page.num(chain['predicted_us'], 0)}**"])
    return out


headers = ["#", "ATen op", "kernel", "tensors read → written", "read B/elem", "written B/elem",
           "measured µs", "µs at copy rate"]
gbps = r.data["copy"]["gbps"]
print(f"Per element of the {rows:,} × {hidden:,} bf16 input; kernel times are profiler medians over 5 calls; "
      f"the last column is each kernel's bytes at the {page.num(gbps, 0)} GB/s copy measured in the same run.\n")
print("**Residual add + Qwen2RMSNorm**\n")
print(page.table(headers, kernel_rows(r.data["chains"]["add_rmsnorm"]), align="rlllrrrr"))
print("**SwiGLU: F.silu(g) * u**\n")
print(page.table(headers, kernel_rows(r.data["chains"]["swiglu"]), align="rlllrrrr"))
print(page.provenance(r))
