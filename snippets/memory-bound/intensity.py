from kernelbook import page

r = page.result("memory_bound.eager_bytes")
m = page.result("machine.ceilings")
laptop = page.result("machine.ceilings", "nvidia-geforce-rtx-4060-laptop-gpu").data
article = page.result("memory_bound.eager_bytes", "nvidia-geforce-rtx-4060-laptop-gpu").data
si = r.data["swiglu_intensity"]
ridge = m.data["ridge_flop_per_byte"]

print(page.table(
    ["SwiGLU activation, silu(g) · u", page.machine_label(r), "RTX 4060 Laptop (article)"],
    [
        ["FLOP per element (" + ", ".join(si["flop_steps"]) + ")", si["flop_per_elem"],
         article["swiglu_flop_per_elem"]],
        ["bytes per element, fused (read g, u; write out)", page.num(si["fused_bytes_per_elem"], 0),
         article["swiglu_fused_bytes_per_elem"]],
        ["arithmetic intensity, fused (FLOP/byte)", page.num(si["fused_flop_per_byte"], 2),
         article["swiglu_flop_per_byte"]],
        ["arithmetic intensity, eager's two kernels (FLOP/byte)", page.num(si["eager_flop_per_byte"], 2), "—"],
        ["ridge point, measured (FLOP/byte)", page.num(ridge, 0), page.num(laptop["ridge_flop_per_byte"], 0)],
        ["ridge ÷ fused intensity", f"{ridge / si['fused_flop_per_byte']:,.0f}×",
         f"{laptop['ridge_flop_per_byte'] / article['swiglu_flop_per_byte']:,.0f}×"],
    ],
))
print(page.provenance(r))
print(page.provenance(m))
