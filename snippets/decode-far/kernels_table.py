from kernelbook import page
from kernelbook.chapters.decode_far import report as far_report

r = page.result("decode_far.ladder")
d = r.data
last = next((n for n in reversed(d["names"]) if d.get("kernel_mix", {}).get(n)), None)
if last is None:
    print("This run kept no kernel list for any step.")
else:
    prior = d["names"][:d["names"].index(last)]
    s = far_report.step_summary(d, last)
    if s and s["overlapped"]:  # set against the last step whose kernels do not overlap, where durations are costs
        before = next((n for n in reversed(prior) if (p := far_report.step_summary(d, n)) and not p["overlapped"]
                       and d["kernel_mix"].get(n)), None)
    else:
        before = prior[-1] if prior else None
    rows = far_report.kernel_rows(d, last, before)
    against = before is not None and any(k["us_against"] is not None for k in rows)
    print(page.table(
        ["kernel", "written", "launches / step", "µs / step", "µs / launch",
         *(["µs / step, the step compared"] if against else [])],
        [[f"`{k['short']}`", "here, Triton" if k["ours"] else "PyTorch / driver", k["count"], page.num(k["us"], 1),
          page.num(k["us_per_launch"], 2), *([page.num(k["us_against"], 1)] if against else [])] for k in rows],
        align="llrrr" + ("r" if against else ""), name="decode-far-kernels"))
    mix = d["kernel_mix"][last]
    print(
        f"One profiled step of “{d['labels'][last]}”, after the timing rounds: {mix['distinct']} distinct GPU "
        f"events, {mix['copies']} of them copies or memsets; durations from the profiler, summed per kernel name. "
        + (f"The step compared is “{d['labels'][before]}”. " if against else "")
        + (f"Under programmatic dependent launch a kernel starts before the one ahead of it ends and waits inside, so "
           f"the durations overlap: summed they come to {page.num(s['busy_ms'], 2)} ms against a step of "
           f"{page.num(s['step_ms'], 2)} ms"
           + (", and each kernel's own cost is read better in the column for the step compared, the last without "
              "it." if against else ".") if s and s["overlapped"] else "")
    )
    print(page.provenance(r))
