from kernelbook import page

cg = page.result("torch_compile.codegen").data
prof = page.result("torch_compile.mlp_profile").data["by_tokens"]
ct = page.result("torch_compile.compile_time").data
rc = {c["tokens"]: c for c in page.result("torch_compile.recompiles").data["calls"]}
modes = page.result("torch_compile.modes").data
lap = {n: page.result(f"torch_compile.{n}", "nvidia-geforce-rtx-4060-laptop-gpu").data
       for n in ("codegen", "mlp_profile", "compile_time", "recompiles", "modes")}


def compare(h200: float, laptop: float, unit: str, digits: int = 1) -> str:
    """'3.1 s, 1.2× the laptop's 2.5 s' / 'about the same as' / '2.0× less than'."""
    ratio = h200 / laptop
    if 0.8 <= ratio <= 1.25:
        word = "about the same as"
    elif ratio > 1:
        word = f"{ratio:.1f}×"
    else:
        word = f"{1 / ratio:.1f}× less than"
    return f"{page.num(h200, digits)} {unit}, {word} the laptop's {page.num(laptop, digits)} {unit}"


n_kernels = cg["add_rmsnorm"]["summary"]["kernel_count"]
one, big = prof["1"], prof["2048"]
laptop_mid_us = (lap["mlp_profile"]["saved_us_1token_low"] + lap["mlp_profile"]["saved_us_1token_high"]) / 2
cold = ct["add_rmsnorm"]["cold"]["first_call_s"]
lines = [
    f"- **Fusion:** {n_kernels} generated kernel{'s' if n_kernels != 1 else ''} for add + RMSNorm, as on the laptop "
    f"({lap['codegen']['add_rmsnorm_kernels']})." if n_kernels == lap["codegen"]["add_rmsnorm_kernels"] else
    f"- **Fusion:** {n_kernels} generated kernels for add + RMSNorm, where the laptop got "
    f"{lap['codegen']['add_rmsnorm_kernels']}.",
    f"- **One token:** compiling saved {compare(one['saved_us'], laptop_mid_us, 'µs')} "
    "(the middle of its range) of GPU time per call.",
    f"- **2,048 tokens:** the saving is {page.pct(big['saved_us'] / big['eager']['busy_us'], 1)} of the eager GPU "
    f"time, against the laptop's {lap['mlp_profile']['saved_pct_2048']}%.",
    f"- **Cold compile of add + RMSNorm:** {compare(cold, lap['compile_time']['add_rmsnorm_cold_s'], 's', 2)}.",
    f"- **Recompile at 2 tokens:** {compare(rc[2]['seconds'], lap['recompiles']['recompile_s'], 's', 2)}.",
    f"- **Big-GPU check:** {modes['sm_count']} SMs against {modes['threshold']['min_sms']} wanted: "
    f"{'passes here' if modes['is_big_gpu'] else 'fails here too'}, where the laptop's {lap['modes']['sm_count']} "
    "failed.",
]
mix = page.result("decode.six_ways").data["kernel_mix"]
ro, ma = mix["compile_reduce_overhead"], mix["compile_max_autotune"]
outside = {("attention (SDPA)" if "sdpa" in k["name"] or "flash" in k["name"] else
            "matmuls with a bias (cuBLAS)" if "bias" in k["name"] else "other library kernels")
           for k in ma["top"] if not k["name"].startswith("triton_")}
bias = sum(k["count"] for k in ma["top"] if "bias" in k["name"] and not k["name"].startswith("triton_"))
templates = sum(k["count"] for k in ma["top"] if k["name"].startswith("triton_tem_"))
lines.append(f"- **Decode step under max-autotune:** {ma['triton']} Triton kernels and {ma['other']} others per step, "
             f"against {ro['triton']} and {ro['other']} under reduce-overhead; among its busiest kernels, those left "
             f"outside Triton are {', '.join(sorted(outside)) or 'none'}. {bias} matrix products with a bias stayed "
             f"with cuBLAS, where the laptop kept all {lap['modes']['decode_projections_on_cublas']}: this GPU passes "
             f"the big-GPU check, so max-autotune also tried Triton matmul templates, and {templates} template "
             "kernels (`triton_tem_*`) run in each step.")
print("\n".join(lines))
