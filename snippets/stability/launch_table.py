from kernelbook import page
from kernelbook.chapters.stability.facts import facts

f = facts()
HASH = page.link("code hash", "../glossary/#code-hash")  # of the experiment's files: it decides if a run is current
heads = ["run (UTC start)", "code hash", "eager µs per launch", "host µs to enqueue one", "eager ÷ host",
         "graph µs per kernel", "graph speedup"]
rows = [[r.started[:16].replace("T", " "), page.code(r.code) + ("" if r.current else " (earlier)"),
         page.num(r.eager_us, 2), page.num(r.host_us, 2), page.num(r.eager_over_host, 3), page.num(r.graph_us, 3),
         f"{r.speedup:.1f}×"] for r in f.launch_runs]
SHOWN = [0, 1, 2, 3, 5, 6]  # eager ÷ host is in the download
lines = page.table(["run (UTC)", HASH, "eager µs", "host µs", "graph µs", "speedup"],
                   [[r[i] for i in SHOWN] for r in rows], align="llrrrr",
                   name="stability-launch").split('\n<p class="kb-downloads">')[0]
print(lines + "\n" + page.downloads(heads, rows, "stability-launch"))
