from kernelbook import across, page
from kernelbook.chapters.decode.figures import after_across, after_worst

r = page.result("decode.six_ways")
d = r.data
runs = across.datas("decode.six_ways")  # one round after the profiles in each run: each figure is their median
after = {n: a for n in d["names"] if (a := after_across(runs, n))}
worst = after_worst(runs)


def host(name: str, key: str, field: str) -> str:  # the way the prose names: its fact, the same median
    return page.fact("decode", field) if name == worst else page.num(after[name][key], 0)


if after:
    print(page.table(
        ["variant", "step ms, rounds", "step ms, after the profiles", "host µs / step, rounds",
         "host µs / step, after the profiles"],
        [[d["labels"][n], page.num(a["before_ms"], 2), page.num(a["step_ms"], 2),
          host(n, "before_host_us", "after_worst_before_us"), host(n, "host_us", "after_worst_host_us")]
         for n, a in after.items()],
        align="lrrrr", name="decode-after-profiler"))
print(page.provenance(r))
