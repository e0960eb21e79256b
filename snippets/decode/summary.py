from kernelbook import page
from kernelbook.decode import report

r = page.result("decode.six_ways")
d = r.data
laptop = page.result("decode.six_ways", report.LAPTOP).data
s = report.summaries(d)
best = report.best_valid(d)
eager, graph = s["eager_dynamic"], s["cuda_graph"]
lap = laptop["variants"]

if best is None:
    print(f"On this {page.machine_label(r)} no variant passed the correctness check, so no time below counts.")
else:
    speedup = eager["step_ms"] / best["step_ms"]
    print(
        f"On this {page.machine_label(r)}, one batch-1 decode step of a Qwen2.5-1.5B-shaped model took "
        f"**{page.num(eager['step_ms'], 2)} ms** run eagerly with Hugging Face's default cache, "
        f"{page.num(graph['step_ms'], 2)} ms replayed from a CUDA graph captured by hand, and "
        f"**{page.num(best['step_ms'], 2)} ms** at best ({best['label']}), {page.num(speedup, 1)} times faster than "
        f"eager. The best step reached {page.pct(best['floor_share'])} of the bandwidth floor, the time it takes just "
        f"to read {page.num(d['weight_bytes'] / 1e9, 3)} GB of weights once at the copy bandwidth measured in the "
        f"same run. The article's laptop went from {lap['eager_dynamic']['step_ms']} to "
        f"{lap['compile_max_autotune']['step_ms']} ms, {page.pct(lap['compile_max_autotune']['floor_share'])} of "
        f"its floor. Every variant was checked against eager logits before any of these times were kept."
    )
