from kernelbook import page

r = page.result("machine.ceilings")
launch = r.data["launch"]
laptop = page.result("machine.ceilings", "nvidia-geforce-rtx-4060-laptop-gpu").data

print(page.table(
    [f"{launch['launches']:,} one-element add_ kernels", page.machine_label(r), "RTX 4060 Laptop (article)"],
    [
        ["eager, µs per launch (CUDA events)", page.num(launch["eager_us_per_launch"], 2), "—"],
        ["CUDA graph replay, µs per kernel", page.num(launch["graph_us_per_launch"], 2), "—"],
        ["graph speedup", f"{launch['speedup']:.1f}×",
         f"{laptop['graph_speedup_low']}–{laptop['graph_speedup_high']}×"],
        ["host time to enqueue one launch, µs", page.num(launch["host_enqueue_us"]["median"], 2),
         page.num(laptop["launch_host_us"], 1)],
    ],
))
print(page.provenance(r))
