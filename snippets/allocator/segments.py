from kernelbook import page
from kernelbook.chapters.allocator.parse import describe, human

r = page.result("allocator.segments")
rows = []
for case in r.data["cases"]:
    for m, p, ok in zip(case["measured"], case["predicted"], case["match"], strict=True):
        what = case["label"] if len(case["measured"]) == 1 else f"{case['label']}: {m['label']}"
        model = f"{human(p['allocated'])} / {human(p['reserved'])}: {describe(p['segments'])}"
        rows.append([what, human(m["allocated"]), human(m["reserved"]), describe(m["segments"]),
                     "same" if all(ok.values()) else model])
print(page.table(["request", "memory_allocated", "memory_reserved", "segments (memory_snapshot)", "model"], rows,
                 align="lrrll", name="allocator-segments"))
print(page.provenance(r))
