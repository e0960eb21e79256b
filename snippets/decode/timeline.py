import matplotlib.pyplot as plt

from kernelbook import page
from kernelbook.decode import report

r = page.result("decode.six_ways")
d = r.data
panels = [(n, report.timeline(d, n)) for n in ("eager_static", "cuda_graph")]
panels = [(n, t) for n, t in panels if t]
end = max(max([k[0] + k[1] for k in t["kernels"]] + [t["host_us"]]) for _, t in panels) / 1e3
ZOOM_MS = 0.25  # the slice of the eager step drawn up close, from the kernel halfway through it


def draw(ax, t, lo=0.0, hi=float("inf")):
    """The host's call (grey), its launch calls (orange) and the GPU's kernels (blue) as drawn to scale between lo
    and hi ms; no edge lines, so that a kernel is as wide as it ran and the gaps between kernels stay white."""
    ms = lambda spans: [(a / 1e3, b / 1e3) for a, b in spans if a / 1e3 < hi and (a + b) / 1e3 > lo]  # noqa: E731
    ax.broken_barh([(0, t["host_us"] / 1e3)], (4.0, 1.0), color="0.6", linewidth=0)
    ax.broken_barh(ms(t["launches"]), (2.0, 1.0), color="C1", linewidth=0)
    ax.broken_barh(ms(t["kernels"]), (0.0, 1.0), color="C0", linewidth=0)
    ax.set_yticks([0.5, 2.5, 4.5], ["GPU kernels", "launch calls", "host's call"])
    ax.set_ylim(-0.4, 5.4)
    ax.grid(True, axis="x", alpha=0.3)


eager = dict(panels).get("eager_static")
rows = [(n, t, None) for n, t in panels]
if eager:
    mid = sorted(eager["kernels"])[len(eager["kernels"]) // 2][0] / 1e3
    rows.insert(1, ("eager_static", eager, (mid - ZOOM_MS / 4, mid + 3 * ZOOM_MS / 4)))
fig, axes = plt.subplots(len(rows), 1, figsize=(8.0, 1.2 + 1.6 * len(rows)), squeeze=False)
whole = [ax for ax, (_, _, z) in zip(axes[:, 0], rows, strict=True) if z is None]
for ax, (name, t, zoom) in zip(axes[:, 0], rows, strict=True):
    if zoom:
        lo, hi = zoom
        draw(ax, t, lo, hi)
        ax.set_xlim(lo, hi)
        inside = [k for k in t["kernels"] if lo <= k[0] / 1e3 < hi]
        ax.set_title(f"{d['labels'][name]}, {page.num(hi - lo, 2)} ms of it up close: {len(inside)} kernels, "
                     f"the white between them the GPU waiting", fontsize=8.5, loc="left")
        ax.set_xlabel("ms from the step's start", fontsize=8.5)
        axes[0, 0].axvspan(lo, hi, fill=False, edgecolor="k", linewidth=1)  # where the slice lies in the whole step
        axes[0, 0].annotate("up close below", (hi, 5.0), (4, 1), textcoords="offset points", fontsize=7.5)
        continue
    draw(ax, t)
    ax.set_xlim(0, end * 1.02)
    gaps = report.gaps_between(t["kernels"])
    busy = sum(k[1] for k in t["kernels"]) / 1e3
    n_l = len(t["launches"])
    calls = f"{n_l:,} launch call{'s' if n_l != 1 else ''}"
    ax.set_title(f"{d['labels'][name]}: {len(t['kernels']):,} GPU events, {calls}, "
                 f"{page.num(busy, 2)} ms busy, {page.num(sum(gaps) / 1e3, 2)} ms of gaps between kernels",
                 fontsize=8.5, loc="left")
for ax in whole[1:]:
    ax.sharex(whole[0])
when = str(r.provenance.get("started_utc", "?"))[:16].replace("T", " ")
n_runs = len(page.fresh_runs("decode.six_ways"))  # one run drawn: the newest (the page's prose: medians over runs)
which = "its one run" if n_runs == 1 else f"the newest of {n_runs} runs"
whole[-1].set_xlabel(f"ms from the step's start, profiled: {which} ({when} UTC)")
fig.tight_layout()
print(page.figure(fig, f"Eager and replayed step, newest run ({when} UTC), and a slice of the eager step up close"))
print(page.provenance(r))
