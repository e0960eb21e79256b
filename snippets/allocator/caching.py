from kernelbook import page

r = page.result("allocator.caching")
cached, uncached = r.data["cached"], r.data["uncached"]


def label(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"


def cells(c: dict, u: dict) -> list[str]:  # median ± noise, in µs, of the four timings of a row
    return [page.timed(t, 1) for t in (c["alloc"], c["free"], u["alloc"], u["free"])]


rows = [[label(c["bytes"]), *cells(c, u)] for c, u in zip(cached["sizes"], uncached["sizes"], strict=True)]
qc, qu = cached["queued"], uncached["queued"]
rows.append([f"{label(qc['bytes'])}, {page.num(qu['gpu_ms'], 0)} ms of GPU work queued", *cells(qc, qu)])
print(page.table(["request (torch.empty, uint8)", "alloc, cached (µs)", "free, cached (µs)",
                  "alloc, no caching (µs)", "free, no caching (µs)"], rows, name="allocator-caching"))
print(page.provenance(r))
