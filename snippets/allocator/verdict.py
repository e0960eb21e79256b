from kernelbook import page

MiB = 1 << 20
seg = page.result("allocator.segments").data
frag_res = page.result("allocator.fragmentation")
frag = frag_res.data
cach = page.result("allocator.caching").data
laptop = page.result("allocator.fragmentation", "nvidia-geforce-rtx-4060-laptop-gpu").data
gpu = page.machine_label(frag_res)

points = [all(ok.values()) for c in seg["cases"] for ok in c["match"]]
points += [all(ok.values()) for k in ("default", "expandable") for ok in frag[k]["match"]]
d, e = frag["default"], frag["expandable"]
art = {c["label"]: (c["allocated"], c["reserved"]) for c in laptop["checkpoints_mib"]}
here = {c["label"]: (round(c["allocated"] / MiB), round(c["reserved"] / MiB)) for c in d["checkpoints"]}
same_steps = [k for k in art if here.get(k) == art[k]]
oom = next((c for c in d["checkpoints"] if c["error"]), None)
rescued = e["checkpoints"][-1]
rescue_here = (round(rescued["allocated"] / MiB), round(rescued["reserved"] / MiB))
rescue_art = (laptop["expandable_allocated_mib"], laptop["expandable_reserved_mib"])
speed = [u["free_us"] / c["free_us"] for c, u in zip(cach["cached"]["sizes"], cach["uncached"]["sizes"], strict=True)]

lines = [
    ("- **The model holds.** " if all(points) else "- **The model misses some checkpoints.** ")
    + f"Its rules predicted allocated bytes, reserved bytes, the split of every segment and "
    f"the out-of-memory error at {sum(points)} of {len(points)} checkpoints measured on the {gpu}.",
    ("- **The fragmentation is not the laptop's alone.** " if oom else "- **The fragmentation did not recur.** ")
    + (f"The {gpu} reproduced the article's figures at all {len(art)} steps"
       if len(same_steps) == len(art) else
       f"The {gpu} matched the article's figures at {len(same_steps)} of {len(art)} steps")
    + (f" and failed the {laptop['oom_request_mib']} MiB request with "
       f"{page.num((oom['reserved'] - oom['allocated']) / MiB, 0)} MiB reserved but unallocated "
       f"(the article: {laptop['oom_unallocated_mib']} MiB), "
       f"holding {page.num(oom['reserved'] / MiB, 0)} MiB while {page.num(d['device_free_at_start'] / (1 << 30), 0)} "
       f"GiB of the GPU stood free: the cap, not the GPU, ran out."
       if oom else f", but the {laptop['oom_request_mib']} MiB request did not fail here."),
    ("- **Expandable segments rescue it** "
     + (f"with the same figures as the article: {rescue_here[0]:,} MiB allocated in {rescue_here[1]:,} MiB reserved."
        if rescue_here == rescue_art else
        f"with {rescue_here[0]:,} MiB allocated in {rescue_here[1]:,} MiB reserved (the article: "
        f"{rescue_art[0]:,} in {rescue_art[1]:,}).")
     if not rescued["error"] else
     f"- **Expandable segments did not rescue it here:** out of memory at {rescue_here[0]:,} MiB allocated in "
     f"{rescue_here[1]:,} MiB reserved (the article: it succeeded with {rescue_art[0]:,} in {rescue_art[1]:,})."),
    (f"- **Caching pays on every free:** `cudaFree` cost {page.num(min(speed), 0)} to {page.num(max(speed), 0)} "
     f"times a cached free, before any queued work made it wait." if min(speed) > 1 else
     f"- **Caching did not pay on every free:** `cudaFree` cost {page.num(min(speed), 1)} to "
     f"{page.num(max(speed), 1)} times a cached free without queued work."),
]
print("\n".join(lines))
