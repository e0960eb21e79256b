from kernelbook import page

r = page.result("memory_bound.eager_bytes")
article = page.result("memory_bound.eager_bytes", "nvidia-geforce-rtx-4060-laptop-gpu").data
gbps = r.data["copy"]["gbps"]
norm = r.data["chains"]["add_rmsnorm"]
ks = norm["kernels"]
big = [k for k in ks if k["bytes_per_elem"] >= 1]
small = [k for k in ks if k["bytes_per_elem"] < 1]
big_ratio = sum(k["us"] for k in big) / sum(k["predicted_us"] for k in big)
small_us = sum(k["us"] for k in small)
measured_ms = norm["bench"]["median"]
ratio = measured_ms / (norm["predicted_us"] / 1e3)

print(
    f"The {len(big)} kernels that stream the whole tensor took {page.num(big_ratio, 2)} times what their bytes "
    f"predict at the copy rate, so bandwidth sets their pace"
    + (" almost exactly" if abs(big_ratio - 1) < 0.15 else "")
    + f". The {len(small)} kernels that touch one value per row move next to nothing yet still cost "
    f"{page.num(small_us, 1)} µs between them: a kernel has a fixed price however little it does. Timed as a "
    f"whole, the chain took {page.num(measured_ms, 3)} ms against {page.num(norm['predicted_us'] / 1e3, 3)} ms "
    f"predicted ({page.num(ratio, 2)}×). The article made the same prediction on its laptop: "
    f"{article['add_rmsnorm_bytes_per_elem']} bytes per element at {article['bandwidth_gbps_assumed']} GB/s, "
    f"{article['add_rmsnorm_predicted_ms']} ms, and {article['add_rmsnorm_fused_predicted_ms']} ms for "
    f"{article['add_rmsnorm_fused_bytes_per_elem']} bytes. Here the fused kernel's "
    f"{page.num(norm['fused_bytes_per_elem'], 0)} bytes per element would take "
    f"{page.num(norm['fused_predicted_us'] / 1e3, 3)} ms at {page.num(gbps, 0)} GB/s: that is the time the next "
    f"chapter's hand-written kernel has to reach."
)
