from kernelbook import page
from kernelbook.chapters.allocator.checks import rule_checks

r = page.result("allocator.segments")
print(page.table(["rule (CUDACachingAllocator.cpp)", f"on the {page.machine_label(r)}"],
                 [[rule, "holds" if ok else "**does not hold**"] for rule, ok in rule_checks(r.data)], align="ll",
                 name="allocator-rules"))
print(page.provenance(r))
