from kernelbook import page
from kernelbook.chapters.claims import ledger as claims
from kernelbook.decode import report

M = "nvidia-h200"
v = {c.id: claims.verdict(c, M) for c in claims.CLAIMS}
fv = page.result("fusing_by_hand.versions").data["versions"]
six = report.summaries(page.result("decode.six_ways").data)
lap = page.result("decode.six_ways", claims.LAPTOP).data["variants"]
frag = page.result("allocator.fragmentation").data["default"]["checkpoints"][-1]
holes = [b[0] for s in frag["segments"] for b in s["blocks"] if b[1] == "free"]
ridge = page.result("machine.ceilings").data["ridge_flop_per_byte"]
swiglu = page.result("memory_bound.eager_bytes").data["swiglu_intensity"]["fused_flop_per_byte"]
eager, triton = (next(x for x in fv if x["op"] == "add_rmsnorm" and x["key"] == k) for k in ("eager", "triton"))
shares = [x["share_of_copy"] for x in fv]

print(f"""
**"Fused kernels are faster because they compute less."** They compute the same thing. Fused, add + RMSNorm moves
{page.num(triton['bytes_per_elem'], 0)} bytes per element instead of {page.num(eager['bytes_per_elem'], 0)} and runs
{page.num(triton['speedup'], 1)}× faster here. The arithmetic is identical; the bytes are not.

**"Every eager kernel runs at the memory's full speed anyway."** On the laptop every version moved its bytes at the
copy ceiling. On the H200 they ran at {page.pct(min(shares))} to {page.pct(max(shares))} of it
({v['same-bandwidth'][1]}): bytes set the floor, but eager kernels that cast and broadcast leave bandwidth unused.

**"torch.compile makes decode fast by fusing."** Fusing alone (default mode) took the step to
{page.num(six['compile_default']['step_ms'], 2)} ms; a CUDA graph of the unfused step ran
{page.num(six['cuda_graph']['step_ms'], 2)} ms. Launches, not arithmetic, are what batch-1 decode pays for: graphs
remove them, and fusion then trims what is left (reduce-overhead, both at once:
{page.num(six['compile_reduce_overhead']['step_ms'], 2)} ms).

**"With graphs and fusion, decode runs at the bandwidth floor."** The laptop's best step reached
{page.pct(lap['compile_max_autotune']['floor_share'])} of its floor; the H200's reached {v['floor'][0]}.
A floor this low
(fast memory, a small model) leaves the per-kernel costs in charge.

**"If memory is free, an allocation fits."** {v['oom'][0]}, in {len(holes)} pieces of at most
{max(holes) // 2**20} MiB. `expandable_segments:True` made the same script succeed ({v['expandable'][0]}).

**"A CUDA graph records what your code did."** It records addresses. The decode chapter replays a graph whose cache
counter moved during warm-up: no error, and logits far from eager's until the cache is reset in place.
""")

print(f"""What to take away:

1. Elementwise work sits far below the ridge point (SwiGLU: {page.num(swiglu, 2)} FLOP per byte against
   {page.num(ridge, 0)} here, {page.num(ridge / swiglu, 0)} times lower): its time is its bytes over the bandwidth.
   Fusion removes intermediate bytes and nothing else.
2. Count kernels and bytes before tuning: a profiler and the tensors' sizes tell you what a chain costs.
3. `torch.compile` fuses elementwise chains and reductions into Triton, leaves large matrix products to cuBLAS, bakes
   in shapes and recompiles when a guard fails; read what it wrote with `TORCH_LOGS=output_code`.
4. For batch-1 decode, launches cost more than the kernels: capture the step in a CUDA graph, then fuse.
5. Compare `memory_reserved()` with `memory_allocated()`; when they drift apart under a cap, try
   `expandable_segments:True`.
""")
