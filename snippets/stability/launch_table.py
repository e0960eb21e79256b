from kernelbook import page
from kernelbook.chapters.stability.facts import facts

f = facts()
print(page.table(
    ["run (UTC start)", "code", "eager µs per launch", "host µs to enqueue one", "eager ÷ host", "graph µs per kernel",
     "graph speedup"],
    [[r.started[:16].replace("T", " "), f"`{r.code}`" + ("" if r.current else " (earlier code)"),
      page.num(r.eager_us, 2), page.num(r.host_us, 2), page.num(r.eager_over_host, 3), page.num(r.graph_us, 3),
      f"{r.speedup:.1f}×"] for r in f.launch_runs],
    align="llrrrrr", name="stability-launch"))
