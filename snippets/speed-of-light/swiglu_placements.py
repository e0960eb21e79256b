from kernelbook import page
from kernelbook.chapters.speed_of_light import report as sol_report
from kernelbook.chapters.speed_of_light.swiglu import PROBE

r = page.result("speed_of_light.swiglu")
OURS = sol_report.OURS
RIVALS = sol_report.RIVALS[r.experiment]
big = [s for s in r.data["shapes"] if sol_report.big(s)]


def us(ms: float) -> str:  # a signed difference in µs, with a true minus sign
    return f"{ms * 1e3:+.2f}".replace("-", "−")


rows = []
for s in big:
    pairs = sol_report.against(s, r.experiment)  # ours minus each rival, placement by placement
    rows.append([sol_report.shape_text(s), sol_report.swiglu_config(s["best_config"]),
                 len(s["placements"][OURS]),
                 *[cell for o in RIVALS for cell in (
                     f"{us(pairs[o]['median'])} [{us(pairs[o]['low'])}, {us(pairs[o]['high'])}]",
                     f"{pairs[o]['faster']}", pairs[o]["verdict"])]])
print(page.table(["rows × width", "ours", "placements",
                  *[h for o in RIVALS for h in (f"ours − {o}, µs", "ours faster on", "ours is")]], rows,
                 align="llr" + "rrc" * len(RIVALS), name="sol-swiglu-placements"))
print(f"\nEach difference is the median over the placements of ours minus the rival on the same buffers, with its "
      f"{sol_report.CONFIDENCE:.0%} bootstrap interval in brackets; ours is ahead only where the whole interval is "
      "below zero.\n")
s = next(s for s in big if (s["rows"], s["hidden"]) == PROBE)  # the probe shape, one dot per placement
ms = s["placements"]  # version -> ms on each placement
moved = {k: max(v) - min(v) for k, v in ms.items()}  # how far one version's time moved between placements
widest = max(moved, key=moved.get)
print(f"At {sol_report.shape_text(s)} one version's time moved by up to {moved[widest] * 1e3:.2f} µs between "
      f"placements ({widest}), and ours by {moved[OURS] * 1e3:.2f} µs.")
fig = sol_report.placement_plot(ms)
print(page.figure(fig, f"Time per call of each SwiGLU version on each placement at {PROBE[0]} x {PROBE[1]}"))
print(page.provenance(r))
