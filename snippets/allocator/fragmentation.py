from kernelbook import page

MiB = 1 << 20
r = page.result("allocator.fragmentation")
laptop = page.result("allocator.fragmentation", "nvidia-geforce-rtx-4060-laptop-gpu").data
run = r.data["default"]
article = {c["label"]: c for c in laptop["checkpoints_mib"]}


def mib(c: dict) -> str:
    return f"{page.num(c['allocated'] / MiB, 0)} / {page.num(c['reserved'] / MiB, 0)}"


rows = []
for m, p in zip(run["checkpoints"], run["predicted"], strict=True):
    a = article.get(m["label"])
    if m["error"] or p["error"]:
        here = f"out of memory at {mib(m)}" if m["error"] else f"no error, {mib(m)}"
        model = f"out of memory at {mib(p)}" if p["error"] else f"no error, {mib(p)}"
        a_oom = laptop["oom_allocated_mib"]
        theirs = f"out of memory at {a_oom:,} / {a_oom + laptop['oom_unallocated_mib']:,}"
    else:
        here, model = mib(m), mib(p)
        theirs = f"{a['allocated']:,} / {a['reserved']:,}" if a else "—"
    rows.append([m["label"], here, page.num(m["inactive_split"] / MiB, 0), model, theirs])
print(page.table(["step", f"{page.machine_label(r)}: allocated / reserved (MiB)", "inactive split (MiB)",
                  "model (MiB)", "RTX 4060 Laptop, article (MiB)"], rows, name="allocator-fragmentation"))
print(page.provenance(r))
