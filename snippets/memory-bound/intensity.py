from kernelbook import page
from kernelbook.chapters.memory_bound.facts import facts

r = page.result("memory_bound.eager_bytes")
m = page.result("machine.ceilings")
article = page.result("memory_bound.eager_bytes", "nvidia-geforce-rtx-4060-laptop-gpu").data
f = facts()
si = r.data["swiglu_intensity"]

print(page.table(
    ["SwiGLU activation, silu(g) · u", f.gpu, "RTX 4060 Laptop (article)"],
    [
        ["FLOP per element (" + ", ".join(si["flop_steps"]) + ")", si["flop_per_elem"],
         article["swiglu_flop_per_elem"]],
        ["fused bytes per element: g, u, out", page.num(si["fused_bytes_per_elem"], 0),
         article["swiglu_fused_bytes_per_elem"]],
        ["arithmetic intensity, fused (FLOP/byte)", page.num(si["fused_flop_per_byte"], 2),
         article["swiglu_flop_per_byte"]],
        ["arithmetic intensity, eager's two kernels (FLOP/byte)", page.num(si["eager_flop_per_byte"], 2), "—"],
        # the prose's figures (each the median over the runs): their facts
        ["ridge point, matmul ÷ copy (FLOP/byte)", page.fact("machine", "ridge"),
         page.fact("memory_bound", "laptop_ridge")],
        ["ridge ÷ fused intensity", page.fact("memory_bound", "ridge_over_intensity") + "×",
         page.fact("memory_bound", "laptop_ridge_over_intensity") + "×"],
    ],
))
print(page.provenance(r))
print(page.provenance(m))
