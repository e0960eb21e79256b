import matplotlib.pyplot as plt

from kernelbook import page
from kernelbook.decode import report

r = page.result("decode.six_ways")
d = r.data
panels = [(n, report.timeline(d, n)) for n in ("eager_static", "cuda_graph")]
panels = [(n, t) for n, t in panels if t]
end = max(max([k[0] + k[1] for k in t["kernels"]] + [t["host_us"]]) for _, t in panels) / 1e3

fig, axes = plt.subplots(len(panels), 1, figsize=(8.0, 1.5 + 1.3 * len(panels)), sharex=True, squeeze=False)
for ax, (name, t) in zip(axes[:, 0], panels, strict=True):
    ms = lambda spans: [(a / 1e3, max(b, 0.3) / 1e3) for a, b in spans]  # noqa: E731 - 0.3 µs minimum to be visible
    ax.broken_barh([(0, t["host_us"] / 1e3)], (2.2, 0.6), color="0.85")
    ax.broken_barh(ms(t["launches"]), (2.0, 1.0), color="C1")
    ax.broken_barh(ms(t["kernels"]), (0.0, 1.0), color="C0")
    gaps = report.gaps_between(t["kernels"])
    busy = sum(k[1] for k in t["kernels"]) / 1e3
    ax.set_yticks([0.5, 2.5], ["GPU kernels", "host launches"])
    ax.set_ylim(-0.4, 3.4)
    n_l = len(t["launches"])
    calls = f"{n_l:,} launch call{'s' if n_l != 1 else ''}"
    ax.set_title(f"{d['labels'][name]}: {len(t['kernels']):,} GPU events, {calls}, "
                 f"{page.num(busy, 2)} ms busy, {page.num(sum(gaps) / 1e3, 2)} ms of gaps between kernels",
                 fontsize=8.5, loc="left")
    ax.grid(True, axis="x", alpha=0.3)
axes[-1, 0].set_xlim(0, end * 1.02)
when = str(r.provenance.get("started_utc", "?"))[:16].replace("T", " ")
n_runs = len(page.fresh_runs("decode.six_ways"))  # one run drawn: the newest (the page's prose: medians over runs)
axes[-1, 0].set_xlabel(f"ms from the step's start, profiled: the newest of {n_runs} runs ({when} UTC)")
fig.tight_layout()
print(page.figure(fig, f"Eager and replayed step, newest run ({when} UTC)"))
print(page.provenance(r))
