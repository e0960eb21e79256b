from kernelbook import page

MiB = 1 << 20
r = page.result("allocator.fragmentation")
laptop = page.result("allocator.fragmentation", "nvidia-geforce-rtx-4060-laptop-gpu").data
run = r.data["default"]
m = next(c for c in run["checkpoints"] if c["error"])
p = next((c for c in run["predicted"] if c["error"]), None)
err = m["error"]
msg = err["parsed"]
row = err["summary_parsed"]["rows"].get("Non-releasable memory", {})
free_mib = (m["reserved"] - m["allocated"]) / MiB
segs = [s for s in m["segments"] if len(s["blocks"]) > 1]
holes = sorted({b[0] for s in segs for b in s["blocks"] if b[1] == "free"})
before = run["checkpoints"][-2]["reserved"]
same = msg["unallocated"] is not None and round(msg["unallocated"] / MiB) == laptop["oom_unallocated_mib"]

print(
    f"The request failed with {page.num(free_mib, 0)} MiB reserved but unallocated: the message says "
    f"{page.num((msg['unallocated'] or 0) / MiB, 2)} MiB, `memory_summary()` lists "
    f"{page.num(row.get('cur', 0) / MiB, 0)} MiB of non-releasable memory, and the `inactive_split_bytes` "
    f"counter reads {page.num(err['inactive_split_stat'] / MiB, 0)} MiB. It lies in {len(segs)} split segments, "
    f"in holes of {', '.join(page.num(h / MiB, 0) + ' MiB' for h in holes)}: "
    + ("none of them holds" if holes and max(holes) < msg["tried"] else "one of them could hold")
    + f" the {page.num(msg['tried'] / MiB, 0)} MiB asked for. "
    + (f"Before giving up, the allocator returned every segment with nothing alive in it to CUDA and tried again "
       f"(`cudaMalloc retries: {err['num_alloc_retries']}`): reserved memory fell from "
       f"{page.num(before / MiB, 0)} to {page.num(m['reserved'] / MiB, 0)} MiB, and that was not enough. "
       if before > m["reserved"] else
       f"Before giving up, the allocator looked for segments with nothing alive in them to return to CUDA "
       f"(`cudaMalloc retries: {err['num_alloc_retries']}`) and found none. ")
    + ("The article's laptop reported the same figure." if same else
       f"The article's laptop reported {laptop['oom_unallocated_mib']} MiB.")
    + (f" The model predicted the error with {page.num((p['reserved'] - p['allocated']) / MiB, 0)} MiB unallocated."
       if p else " The model did not predict this error.")
)
