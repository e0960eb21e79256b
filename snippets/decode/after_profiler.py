from kernelbook import page
from kernelbook.decode import report

r = page.result("decode.six_ways")
d = r.data
after = {n: a for n in d["names"] if (a := report.after_profiler(d, n))}
if not after:
    print("This run did not time a round after the profiles.")
else:
    print(page.table(
        ["variant", "step ms, rounds", "step ms, after the profiles", "host µs / step, rounds",
         "host µs / step, after the profiles"],
        [[d["labels"][n], page.num(a["before_ms"], 2), page.num(a["step_ms"], 2), page.num(a["before_host_us"], 0),
          page.num(a["host_us"], 0)] for n, a in after.items()],
        align="lrrrr", name="decode-after-profiler"))
    worst = max(after, key=lambda n: after[n]["added_host_us"])
    print(f"\nThe round after the profiles is one round, so read it as a direction, not a median. The host's time to "
          f"launch a step grew most for {d['labels'][worst]}: {page.num(after[worst]['added_host_us'], 0)} µs more "
          f"per step ({page.pct(after[worst]['added_host_us'] / after[worst]['before_host_us'])}).")
print(page.provenance(r))
