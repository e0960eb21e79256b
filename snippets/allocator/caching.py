from kernelbook import across, page
from kernelbook.chapters.allocator.facts import DIGITS, cell

r = page.result("allocator.caching")
runs = across.datas("allocator.caching")  # every run of the current code: each cell is their median
cached, uncached = r.data["cached"], r.data["uncached"]


def label(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"


def shown(a: across.Across, fact: str | None, digits: int) -> str:
    """The median across runs ± the noisiest run's noise (and the runs' range where they lie apart); the figure
    itself as the page's fact where the prose quotes it."""
    text = across.cell(a, digits)
    return text if fact is None else page.fact("allocator", fact) + text.removeprefix(page.num(a.median, digits))


def size_cells(i: int, n: int) -> list[str]:  # the four timings of one size's row, in µs
    return [shown(across.of([d[who]["sizes"][i][op] for d in runs]), cell(who, op, n), DIGITS[cell(who, op, n)])
            for who in ("cached", "uncached") for op in ("alloc", "free")]


def queued(who: str, op: str) -> across.Across:
    return across.of([d[who]["queued"][op] for d in runs])


rows = [[label(c["bytes"]), *size_cells(i, c["bytes"])] for i, c in enumerate(cached["sizes"])]
rows.append([f"{label(cached['queued']['bytes'])}, {page.fact('allocator', 'queued_gpu_ms')} ms of GPU work queued",
             shown(queued("cached", "alloc"), "cached_queued_alloc_us", DIGITS["cached_queued_alloc_us"]),
             shown(queued("cached", "free"), "cached_queued_free_us", DIGITS["cached_queued_free_us"]),
             shown(queued("uncached", "alloc"), None, 1), shown(queued("uncached", "free"), None, 1)])
print(page.table(["request (torch.empty, uint8)", "alloc, cached (µs)", "free, cached (µs)",
                  "alloc, no caching (µs)", "free, no caching (µs)"], rows, name="allocator-caching"))
print(page.provenance(r))
