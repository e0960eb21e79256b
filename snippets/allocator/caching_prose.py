from kernelbook import page

r = page.result("allocator.caching")
cached, uncached = r.data["cached"], r.data["uncached"]
c_alloc = max(s["alloc_us"] for s in cached["sizes"])
c_free = max(s["free_us"] for s in cached["sizes"])
u_alloc = [s["alloc_us"] for s in uncached["sizes"]]
u_free = [s["free_us"] for s in uncached["sizes"]]
qu, qc = uncached["queued"], cached["queued"]
queued_us = qu["gpu_ms"] * 1e3
waited = qu["free_us"] >= 0.5 * queued_us

print(
    f"With the cache, every size took at most {page.num(c_alloc, 1)} µs to allocate and {page.num(c_free, 1)} µs "
    f"to free on this {page.machine_label(r)}, the cost of creating a tensor object and a lookup in a sorted set. "
    f"Without it, `cudaMalloc` took {page.num(min(u_alloc), 0)} to {page.num(max(u_alloc), 0)} µs and `cudaFree` "
    f"{page.num(min(u_free), 0)} to {page.num(max(u_free), 0)} µs, growing with the size. "
    + (f"Behind {page.num(qu['gpu_ms'], 0)} ms of queued GPU work, `cudaFree` took "
       f"{page.num(qu['free_us'] / 1e3, 1)} ms: it waited for the queue to drain, so the CPU lost its lead over the "
       f"GPU, while the cached free took {page.num(qc['free_us'], 1)} µs."
       if waited else
       f"Behind {page.num(qu['gpu_ms'], 0)} ms of queued GPU work, `cudaFree` took only "
       f"{page.num(qu['free_us'] / 1e3, 2)} ms here: on this driver it did not wait for the queue.")
)
