import statistics

from kernelbook import across, page
from kernelbook.chapters.machine import facts as machine
from kernelbook.chapters.machine.facts import LABELS, facts

h200 = page.result("machine.ceilings")
runs = across.datas("machine.ceilings")  # every run of the current code: each figure is their median
f = facts()


def spread(a: across.Across, fact: str | None = None) -> str:
    """Sampled until quiet: the median of the runs' noise (the prose's figure: its fact where it quotes one),
    marked where the runs mostly stayed noisy."""
    noise = page.fact("machine", fact) if fact else page.num(statistics.median(t["noise_pct"] for t in a.summaries), 1)
    noisy = 2 * sum(not t["quiet"] for t in a.summaries) > len(a.summaries)
    return f"±{noise}%" + (" noisy" if noisy else "")


copy, read, write = (across.of([machine.bandwidth(d, k) for d in runs]) for k in ("copy", "read", "write"))
mm = across.of([machine.matmul_rate(d) for d in runs])
laptop_ridge = (f"{page.fact('machine', 'laptop_ridge')} (the article's own ridge, "
                f"{page.fact('machine', 'laptop_ridge_published')}, divides by DRAM bandwidth)")
several = len(runs) > 1  # one run: no median of runs to speak of
samples = {k: page.num(statistics.median(d["bandwidth"][k]["n"] for d in runs), 0) for k in ("copy", "read", "write")}
print(page.table(
    ["ceiling", f.gpu, f"± noise, median of {len(runs)} runs" if several else "± noise, one run",
     "samples, median of runs" if several else "samples", "RTX 4060 Laptop (article)"],
    [
        [LABELS["copy"], page.fact("machine", "copy_gbps") + across.runs_note(copy, 0), spread(copy), samples["copy"],
         page.num(f.laptop_copy_gbps, 0)],
        [LABELS["read"], page.fact("machine", "read_gbps") + across.runs_note(read, 0), spread(read), samples["read"],
         "—"],
        [LABELS["write"], page.fact("machine", "write_gbps") + across.runs_note(write, 0), spread(write),
         samples["write"], "—"],
        [LABELS["matmul"].format(n=page.fact("machine", "matmul_n")),
         page.fact("machine", "matmul_tflops"), spread(mm), page.fact("machine", "matmul_samples"),
         page.num(f.laptop_tflops, 1)],
        [LABELS["ridge"], page.fact("machine", "ridge"), "", "", laptop_ridge],
    ],
    align="lrrrl",
))
print(page.provenance(h200))
