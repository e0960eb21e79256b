from kernelbook import page

r = page.result("memory_bound.eager_bytes")
laptop = page.result("memory_bound.eager_bytes", "nvidia-geforce-rtx-4060-laptop-gpu").data
norm, sw = r.data["chains"]["add_rmsnorm"], r.data["chains"]["swiglu"]
ratio = norm["bytes_per_elem"] / norm["fused_bytes_per_elem"]

print(
    f"On the {page.machine_label(r)}, the residual add and Hugging Face's Qwen2RMSNorm launch **{norm['count']} "
    f"kernels** that together read and write **{page.num(norm['bytes_per_elem'], 1)} bytes per element**; one "
    f"fused kernel would move {page.num(norm['fused_bytes_per_elem'], 1)}, {page.num(ratio, 1)} times fewer. The "
    f"article's laptop counted {laptop['add_rmsnorm_kernels']} kernels and {laptop['add_rmsnorm_bytes_per_elem']} "
    f"against {laptop['add_rmsnorm_fused_bytes_per_elem']} bytes"
    + (", the same chain." if norm["count"] == laptop["add_rmsnorm_kernels"] else ", a different chain.")
    + f" SwiGLU's activation runs as {sw['count']} kernels and {page.num(sw['bytes_per_elem'], 0)} bytes per "
    f"element against {page.num(sw['fused_bytes_per_elem'], 0)} fused."
)
