from kernelbook import page

h200 = page.result("machine.ceilings")
laptop = page.result("machine.ceilings", "nvidia-geforce-rtx-4060-laptop-gpu").data
bw, mm = h200.data["bandwidth"], h200.data["matmul"]


def spread(s: dict) -> str:
    return f"±{s['spread_pct'] / 2:.1f}%"


print(page.table(
    ["ceiling", page.machine_label(h200), "spread over rounds", "RTX 4060 Laptop (article)"],
    [
        ["copy, read + write (GB/s)", page.num(bw["copy"]["gbps"], 0), spread(bw["copy"]),
         page.num(laptop["copy_gbps"], 0)],
        ["read only (GB/s)", page.num(bw["read"]["gbps"], 0), spread(bw["read"]), "—"],
        ["write only (GB/s)", page.num(bw["write"]["gbps"], 0), spread(bw["write"]), "—"],
        ["bf16 matmul (TFLOP/s)", page.num(mm["tflops"], 0), spread(mm), page.num(laptop["bf16_tflops"], 1)],
        ["ridge point (FLOP per byte)", page.num(h200.data["ridge_flop_per_byte"], 0), "",
         page.num(laptop["ridge_flop_per_byte"], 0)],
    ],
))
print(page.provenance(h200))
