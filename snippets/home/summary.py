from kernelbook import page
from kernelbook.chapters.claims import ledger as claims
from kernelbook.decode import report

m = page.result("machine.ceilings")
fv = page.result("fusing_by_hand.versions")
eb = page.result("memory_bound.eager_bytes").data["chains"]["add_rmsnorm"]
six = page.result("decode.six_ways").data
frag = page.result("allocator.fragmentation").data["default"]["checkpoints"][-1]
lap = page.result("decode.six_ways", claims.LAPTOP).data["variants"]
triton = next(v for v in fv.data["versions"] if v["op"] == "add_rmsnorm" and v["key"] == "triton")
s = report.summaries(six)
best = report.best_valid(six)
verdicts = [claims.verdict(c, "nvidia-h200")[1] for c in claims.CLAIMS]

print(f"""
Measured on an **{page.machine_label(m)}** ({m.provenance['sm_count']} SMs; it copies
{page.num(m.data['bandwidth']['copy']['gbps'] / 1e3, 2)} TB/s and multiplies bf16 at
{page.num(m.data['matmul']['tflops'], 0)} TFLOP/s):

- Hugging Face's Qwen2 residual add and RMSNorm launch **{eb['count']} kernels** that move
  **{page.num(eb['bytes_per_elem'], 0)} bytes per element**; one fused Triton kernel moves
  {page.num(eb['fused_bytes_per_elem'], 0)} and runs **{page.num(triton['speedup'], 1)}× faster**, and `torch.compile`
  writes the same kernel by itself. [Memory-bound](memory-bound.md) · [fusing by hand](fusing-by-hand.md) ·
  [what torch.compile generates](torch-compile.md)
- A batch-1 decode step of a Qwen2.5-1.5B-shaped model takes **{page.num(s['eager_dynamic']['step_ms'], 1)} ms**
  eagerly and **{page.num(best['step_ms'], 2)} ms** compiled and replayed from a CUDA graph
  ({best['label']}), every variant checked against eager logits first. That is {page.pct(best['floor_share'])} of the
  time it takes just to read the weights; the article's laptop reached
  {page.pct(lap['compile_max_autotune']['floor_share'])} of its own, far lower, floor. [The decode step](decode.md)
- PyTorch's caching allocator runs out of memory under a 2 GiB cap with
  **{(frag['reserved'] - frag['allocated']) // 2**20} MiB reserved but free**, in pieces too small for the request,
  exactly as on the laptop; one setting, `expandable_segments`, fixes it. [The caching allocator](allocator.md)
- Of the article's {len(verdicts)} measurable claims, **{verdicts.count(claims.HOLDS)} hold on the H200** and
  {verdicts.count(claims.FAILS)} do not. [The claims, checked](claims.md)
""")
print(page.provenance(m))
