from kernelbook import across, page
from kernelbook.chapters.decode.facts import step_summary
from kernelbook.decode import report

r = page.result("decode.six_ways")
d = r.data
runs = across.datas("decode.six_ways")  # every run of the current code: the step time is their median
lap = page.result("decode.six_ways", report.LAPTOP).data["variants"]


def kernels(name: str, s: dict) -> str:
    mix = report.kernel_mix(d, name)
    n = page.num(s["kernels"], 0)
    return f"{n} ({mix['triton']} Triton)" if mix and mix["triton"] else n


def laptop(name: str, key: str, digits: int) -> str:
    v = lap.get(name, {}).get(key)
    return "—" if v is None else page.num(v, digits)


def noise(t: dict) -> str:  # the widest run's, noisy where any run stayed noisy
    if t.get("noise_pct") is None:
        return "—"
    return f"{t['noise_pct']:.1f}%" + ("" if t["quiet"] else " noisy")


rows = []
for n, s in report.summaries(d).items():
    a = across.of([step_summary(x, n) for x in runs])
    step = across.value(a, 2)
    spread = max(t["spread_pct"] for t in a.summaries) / 2  # the widest run's rounds, fastest to slowest
    rows.append([
        s["label"], step if s["valid"] else f"~~{step}~~ failed check", noise(across.pooled(a)),
        f"±{page.num(spread, 1)}%",
        kernels(n, s), page.num(s["busy_ms"], 2), page.pct(s["idle_share"]), page.num(s["host_ms"], 2),
        page.num(s["tok_s"], 0), page.pct(s["floor_share"]), laptop(n, "step_ms", 1), laptop(n, "kernels", 0),
    ])
print(page.table(
    ["variant", "step ms", "noise", "spread", "kernels / step", "GPU busy ms", "GPU idle", "host ms / step", "tokens/s",
     "of floor", "laptop step ms (article)", "laptop kernels (article)"], rows))
print(page.provenance(r))
