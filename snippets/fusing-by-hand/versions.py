from kernelbook import page

r = page.result("fusing_by_hand.versions")
laptop = page.result("fusing_by_hand.versions", "nvidia-geforce-rtx-4060-laptop-gpu").data
copy = r.data["copy"]
labels = {("add_rmsnorm", "eager"): "add + RMSNorm: eager, as Qwen2 writes it",
          ("add_rmsnorm", "rms_norm"): "add + RMSNorm: eager with F.rms_norm",
          ("add_rmsnorm", "triton"): "add + RMSNorm: Triton, by hand",
          ("add_rmsnorm", "compiled"): "add + RMSNorm: torch.compile",
          ("swiglu", "eager"): "SwiGLU: eager", ("swiglu", "triton"): "SwiGLU: Triton, by hand",
          ("swiglu", "compiled"): "SwiGLU: torch.compile"}
article = {("add_rmsnorm", "eager"):
           f"{laptop['add_rmsnorm_eager_ms']} ms, {laptop['add_rmsnorm_eager_kernels']} kernels",
           ("add_rmsnorm", "rms_norm"): f"{laptop['rms_norm_kernels']} kernel for the norm",
           ("add_rmsnorm", "triton"): f"{laptop['add_rmsnorm_triton_ms']} ms, {laptop['add_rmsnorm_speedup']}×",
           ("swiglu", "triton"): f"−{page.pct(laptop['swiglu_time_cut'])} time"}
rows = []
for v in r.data["versions"]:
    t = v["time"]
    rows.append([labels[(v["op"], v["key"])], v["kernels"], f"{page.num(t['median'], 3)} ±{t['spread_pct'] / 2:.1f}%",
                 f"{page.num(v['speedup'], 2)}×", page.num(v["bytes_per_elem"], 1),
                 page.num(v["effective_gbps"], 0), page.num(v["actual_gbps"], 0), page.pct(v["share_of_copy"]),
                 article.get((v["op"], v["key"]), "—")])
print(page.table(["version", "kernels", "ms (median of 3 rounds ± half spread)", "speedup over eager",
                  "B/elem moved", "effective GB/s", "actual GB/s", "of copy", "RTX 4060 Laptop (article)"], rows))
print(f"\nEffective GB/s divides the fused bytes ({page.num(r.data['versions'][0]['fused_bytes_per_elem'], 0)} B/elem "
      f"for add + RMSNorm, {page.num(r.data['versions'][-1]['fused_bytes_per_elem'], 0)} for SwiGLU) by the time; "
      f"actual GB/s divides the bytes that version moved (— where more than one kernel ran that could not be "
      f"counted from outside). The copy ceiling, measured in the same process: {page.num(copy['gbps'], 0)} GB/s. "
      f"First-call compile time: {page.num(r.data['compile_s']['add_rmsnorm'], 1)} s for add + RMSNorm, "
      f"{page.num(r.data['compile_s']['swiglu'], 1)} s for SwiGLU, Inductor's caches off.\n")
print(page.provenance(r))
