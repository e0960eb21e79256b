from kernelbook import page
from kernelbook.decode import report

r = page.result("decode.six_ways")
d = r.data
after = {n: a for n in d["names"] if (a := report.after_profiler(d, n))}
if after:
    print(page.table(
        ["variant", "step ms, rounds", "step ms, after the profiles", "host µs / step, rounds",
         "host µs / step, after the profiles"],
        [[d["labels"][n], page.num(a["before_ms"], 2), page.num(a["step_ms"], 2), page.num(a["before_host_us"], 0),
          page.num(a["host_us"], 0)] for n, a in after.items()],
        align="lrrrr", name="decode-after-profiler"))
print(page.provenance(r))
