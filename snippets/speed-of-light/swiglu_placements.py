import statistics

from kernelbook import page, sol_report

r = page.result("sol.swiglu")
s = next(s for s in r.data["shapes"] if "placements" in s)  # the probe shape
ms = s["placements"]  # version -> ms on each placement
OURS = sol_report.OURS[r.experiment]
rivals = [o for o in sol_report.RIVALS[r.experiment] if o in ms]
med = {k: statistics.median(v) for k, v in ms.items()}
moved = {k: max(v) - min(v) for k, v in ms.items()}  # how far one version's time moved between placements
wins = {o: sum(a < b for a, b in zip(ms[OURS], ms[o], strict=True)) for o in rivals}  # same inputs, same placement
ahead = [o for o in rivals if med[o] < med[OURS]]
lead = s["versions"][OURS]["ms"] - min(s["versions"][o]["ms"] for o in rivals)  # in the rounds; > 0: a rival led
widest = max(moved, key=moved.get)


def us(x: float) -> str:
    return f"{x * 1e3:.2f} µs"


print(
    f"At {s['rows']:,} × {s['hidden']:,}, every version but eager was then timed once on each of {len(ms[OURS])} more "
    "placements, in an order shuffled per placement. Ours was faster than "
    + " and ".join(f"{o} on {wins[o]}" for o in rivals) + " of them, on the same inputs. The medians: "
    + ", ".join(f"{k} {us(med[k])}" for k in sorted(med, key=med.get)) + ". "
    + (f"Over these placements the median of {' and '.join(ahead)} was ahead of ours. " if ahead
       else "Over these placements no rival's median was ahead of ours. ")
    + f"Between placements one version's time moved by up to {us(moved[widest])} ({widest}), and ours by "
    f"{us(moved[OURS])}"
    + (f", against the {us(lead)} by which a rival led ours in the {r.data['rounds']} rounds above." if lead > 0
       else ".")
)
fig = sol_report.placement_plot(ms)
print(page.figure(fig, f"Time per call of each SwiGLU version on each placement at {s['rows']} x {s['hidden']}"))
print(page.provenance(r))
