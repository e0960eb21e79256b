from kernelbook import page
from kernelbook.chapters.stability.facts import facts

f = facts()
print(page.table(
    ["run (UTC start)", "code", "kernels max-autotune picked for the MLP half", "compile s"],
    [[p.started[:16].replace("T", " "), "current" if p.current else "earlier", page.lines(map(page.code, p.kernels)),
      page.num(p.compile_s, 1)] for p in f.picks],
    align="lllr", name="stability-autotune"))
