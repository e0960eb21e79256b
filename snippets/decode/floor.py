from kernelbook import page
from kernelbook.decode import report

d = page.result("decode.six_ways").data
laptop = page.result("decode.six_ways", report.LAPTOP).data
s = report.summaries(d)
best = report.best_valid(d)
dyn = s["eager_dynamic"]
lap = laptop["variants"]
if best is None:
    print("No variant passed the correctness check, so none is compared with the floor.")
else:
    bw_ratio = d["copy"]["gbps"] / laptop["dram_gbps"]
    step_ratio = lap["compile_max_autotune"]["step_ms"] / best["step_ms"]
    versus = (f"The H200 copies {page.num(bw_ratio, 0)} times the laptop's bytes per second, but its best step was "
              f"only {page.num(step_ratio, 1)} times faster than the laptop's best: with a floor this low, what each "
              f"of the {page.num(best['kernels'], 0)} kernels costs beyond its bytes (start-up, the tail of a small "
              "grid, the hand-off to the next kernel) weighs more than the bytes do."
              if step_ratio < 0.7 * bw_ratio else
              f"The H200 copies {page.num(bw_ratio, 0)} times the laptop's bytes per second and its best step was "
              f"{page.num(step_ratio, 1)} times faster than the laptop's best: the speed-up follows the bandwidth.")
    print(
        f"At {page.num(d['copy']['gbps'], 0)} GB/s, reading {page.num(d['weight_bytes'] / 1e9, 3)} GB takes "
        f"{page.num(d['floor_ms'], 3)} ms, a ceiling of {page.num(1e3 / d['floor_ms'], 0)} tokens per second. The "
        f"best correct step, {best['label']}, reached {page.pct(best['floor_share'])} of it "
        f"({page.num(best['tok_s'], 0)} tokens/s); eager with the default cache reached "
        f"{page.pct(dyn['floor_share'])}. The article's laptop, at {laptop['dram_gbps']} GB/s, had a floor of "
        f"{laptop['floor_ms']} ms ({laptop['ceiling_tok_s']} tokens/s) and reached "
        f"{page.pct(lap['compile_max_autotune']['floor_share'])} with max-autotune and "
        f"{page.pct(lap['eager_dynamic']['floor_share'])} eagerly. "
        f"The best step's kernels alone ran for {page.num(best['busy_ms'], 2)} ms, "
        f"{page.num(best['busy_ms'] / d['floor_ms'], 1)} times the floor, and the GPU sat idle for another "
        f"{page.num(best['idle_ms'], 2)} ms between them. "
        + versus
    )
