from kernelbook import across, page
from kernelbook.chapters.machine import facts as machine

r = page.result("machine.ceilings")
runs = across.datas("machine.ceilings")  # every run of the current code: each figure is their median, as on the
launch = r.data["launch"]  # machine page, whose facts the prose beside this table quotes
laptop = page.result("machine.ceilings", "nvidia-geforce-rtx-4060-laptop-gpu").data
ratio = across.of([machine.graph_speedup(d) for d in runs])

print(page.table(
    [f"{launch['launches']:,} one-element add_ kernels (median ± noise)", page.machine_label(r),
     "RTX 4060 Laptop (article)"],
    [
        ["eager launches: µs per kernel", across.cell(across.of([machine.eager_launch(d) for d in runs]), 2), "—"],
        ["CUDA graph replay: µs per kernel", across.cell(across.of([machine.graph_launch(d) for d in runs]), 2), "—"],
        ["ratio", page.fact("machine", "launch_speedup") + across.runs_note(ratio, 1),
         f"{laptop['graph_speedup_low']}–{laptop['graph_speedup_high']}×"],
    ],
))
print(page.provenance(r))
