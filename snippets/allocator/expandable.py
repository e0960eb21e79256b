from kernelbook import page
from kernelbook.chapters.allocator.parse import describe

MiB = 1 << 20
r = page.result("allocator.fragmentation")
laptop = page.result("allocator.fragmentation", "nvidia-geforce-rtx-4060-laptop-gpu").data
run = r.data["expandable"]


def mib(c: dict) -> str:
    state = f"{page.num(c['allocated'] / MiB, 0)} / {page.num(c['reserved'] / MiB, 0)}"
    return f"out of memory at {state}" if c["error"] else state


rows = [[m["label"], mib(m), describe(m["segments"]), mib(p)]
        for m, p in zip(run["checkpoints"], run["predicted"], strict=True)]
rows[-1].append(f"{laptop['expandable_allocated_mib']:,} / {laptop['expandable_reserved_mib']:,}")
for row in rows[:-1]:
    row.append("—")
print(page.table(["step", f"{page.machine_label(r)}: allocated / reserved (MiB)", "segments", "model (MiB)",
                  "RTX 4060 Laptop, article (MiB)"], rows, align="lrlrr", name="allocator-expandable"))
print(page.provenance(r))
