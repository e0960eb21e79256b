from kernelbook import page

r = page.result("fusing_by_hand.versions")
laptop = page.result("fusing_by_hand.versions", "nvidia-geforce-rtx-4060-laptop-gpu").data
v = {(x["op"], x["key"]): x for x in r.data["versions"]}
norm_t, sw_t = v[("add_rmsnorm", "triton")], v[("swiglu", "triton")]
cut = 1 - sw_t["time"]["median"] / v[("swiglu", "eager")]["time"]["median"]

print(
    f"On the {page.machine_label(r)}, the hand-written Triton kernel runs the residual add and RMSNorm "
    f"**{page.num(norm_t['speedup'], 1)} times faster** than the Qwen2 code in eager PyTorch "
    f"({page.num(norm_t['time']['median'], 3)} ms against {page.num(v[('add_rmsnorm', 'eager')]['time']['median'], 3)}"
    f" ms at {r.data['shape'][0]:,} × {r.data['shape'][1]:,} bf16), and the fused SwiGLU takes "
    f"**{page.pct(cut)} off** eager's time. The article's laptop measured {laptop['add_rmsnorm_speedup']}× and "
    f"{page.pct(laptop['swiglu_time_cut'])}."
)
