from kernelbook import page

r = page.result("machine.ceilings")
launch = r.data["launch"]
laptop = page.result("machine.ceilings", "nvidia-geforce-rtx-4060-laptop-gpu").data

print(page.table(
    [f"{launch['launches']:,} one-element add_ kernels (median ± noise)", page.machine_label(r),
     "RTX 4060 Laptop (article)"],
    [
        ["eager launches: µs per kernel", page.timed(launch["eager_ms"], 2, 1e3 / launch["launches"]), "—"],
        ["CUDA graph replay: µs per kernel", page.timed(launch["graph_ms"], 2, 1e3 / launch["launches"]), "—"],
        ["ratio", f"{launch['speedup']:.1f}×", f"{laptop['graph_speedup_low']}–{laptop['graph_speedup_high']}×"],
    ],
))
print(page.provenance(r))
