from kernelbook import page

r = page.result("allocator.caching")
cached, uncached = r.data["cached"], r.data["uncached"]


def label(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"


rows = [[label(c["bytes"]), page.num(c["alloc_us"], 1), page.num(c["free_us"], 1),
         page.num(u["alloc_us"], 1), page.num(u["free_us"], 1)]
        for c, u in zip(cached["sizes"], uncached["sizes"], strict=True)]
qc, qu = cached["queued"], uncached["queued"]
rows.append([f"{label(qc['bytes'])}, {page.num(qu['gpu_ms'], 0)} ms of GPU work queued",
             page.num(qc["alloc_us"], 1), page.num(qc["free_us"], 1),
             page.num(qu["alloc_us"], 1), page.num(qu["free_us"], 1)])
print(page.table(["request (torch.empty, uint8)", "alloc, cached (µs)", "free, cached (µs)",
                  "alloc, no caching (µs)", "free, no caching (µs)"], rows, name="allocator-caching"))
print(page.provenance(r))
