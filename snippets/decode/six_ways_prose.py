from kernelbook import page
from kernelbook.decode import report

d = page.result("decode.six_ways").data
laptop = page.result("decode.six_ways", report.LAPTOP).data
lap = laptop["variants"]
s = report.summaries(d)
dyn, st, g = s["eager_dynamic"], s["eager_static"], s["cuda_graph"]
cd, ro, ma = s["compile_default"], s["compile_reduce_overhead"], s["compile_max_autotune"]
mix = report.kernel_mix(d, "compile_default") or {"triton": 0}


def faster(a: dict, b: dict) -> str:
    """'x.xx ms faster' or 'slower' of a against b."""
    diff = b["step_ms"] - a["step_ms"]
    return f"{page.num(abs(diff), 2)} ms {'faster' if diff > 0 else 'slower'}"


extra = st["kernels"] - dyn["kernels"]
same = ("the same kernels" if g["kernels"] == st["kernels"] else
        f"{page.num(g['kernels'], 0)} kernels against eager's {page.num(st['kernels'], 0)}")
print(
    f"- **The static cache alone** costs {page.num(extra, 0)} more kernels per step than the default cache "
    f"(the article: {laptop['static_extra_kernels']}), and eagerly it is {faster(st, dyn)} than the default cache "
    f"({lap['eager_static']['step_ms']} against {lap['eager_dynamic']['step_ms']} ms on the laptop). "
    + ("Its fixed shapes pay off only once the step is captured.\n" if st["step_ms"] > dyn["step_ms"] else
       "Eagerly it is not slower here; what it buys is a step that can be captured.\n")
    + f"- **Capturing** that step took {page.num(d['setup']['cuda_graph']['capture_s'], 2)} s (the laptop: "
    f"{lap['cuda_graph']['setup_s']} s) and took it from {page.num(st['step_ms'], 2)} to "
    f"{page.num(g['step_ms'], 2)} ms with {same}; the host's part shrank to a {page.num(g['host_ms'], 2)} ms "
    f"replay call (the laptop: "
    f"{lap['cuda_graph']['host_ms']} ms). "
    + ("The GPU, fed without pause, now sets the pace: " if g["idle_share"] < 0.2 else "The GPU still waits: ")
    + f"it is idle {page.pct(g['idle_share'])} of the step, against {page.pct(st['idle_share'])} eagerly.\n"
    f"- **torch.compile's default mode** fused the step down to {page.num(cd['kernels'], 0)} kernels, "
    f"{mix['triton']} of them Triton (the laptop: {lap['compile_default']['kernels']} and "
    f"{lap['compile_default']['triton_kernels']}), but still launched every one from Python: "
    f"{page.num(cd['host_ms'], 2)} ms of host time per step and a GPU idle {page.pct(cd['idle_share'])} of it "
    f"(the laptop: {lap['compile_default']['host_ms']} ms and {page.pct(lap['compile_default']['idle_share'])}).\n"
    f"- **reduce-overhead** does both, fusing and replaying: {page.num(ro['step_ms'], 2)} ms, {faster(ro, g)} than the "
    f"hand-captured graph (the laptop: {lap['compile_reduce_overhead']['step_ms']} ms, "
    f"{laptop['ro_gain_over_graph_ms']} ms faster). **max-autotune** was {faster(ma, ro)} than reduce-overhead "
    f"(the laptop: {laptop['ma_gain_over_ro_ms']} ms faster), after a cold compile of "
    f"{page.num(d['setup']['compile_max_autotune']['compile_s'], 0)} s against "
    f"{page.num(d['setup']['compile_reduce_overhead']['compile_s'], 0)} s for reduce-overhead and "
    f"{page.num(d['setup']['compile_default']['compile_s'], 0)} s for default (the laptop's max-autotune: "
    f"{lap['compile_max_autotune']['setup_s']} s)."
)
