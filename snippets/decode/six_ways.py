from kernelbook import page
from kernelbook.decode import report

r = page.result("decode.six_ways")
d = r.data
lap = page.result("decode.six_ways", report.LAPTOP).data["variants"]


def kernels(name: str, s: dict) -> str:
    mix = report.kernel_mix(d, name)
    n = page.num(s["kernels"], 0)
    return f"{n} ({mix['triton']} Triton)" if mix and mix["triton"] else n


def laptop(name: str, key: str, digits: int) -> str:
    v = lap.get(name, {}).get(key)
    return "—" if v is None else page.num(v, digits)


rows = []
for n, s in report.summaries(d).items():
    step = page.num(s["step_ms"], 2)
    rows.append([
        s["label"], step if s["valid"] else f"~~{step}~~ failed check", f"±{page.num(50 * s['spread'], 1)}%",
        kernels(n, s), page.num(s["busy_ms"], 2), page.pct(s["idle_share"]), page.num(s["host_ms"], 2),
        page.num(s["tok_s"], 0), page.pct(s["floor_share"]), laptop(n, "step_ms", 1), laptop(n, "kernels", 0),
    ])
print(page.table(
    ["variant", "step ms", "spread", "kernels / step", "GPU busy ms", "GPU idle", "host ms / step", "tokens/s",
     "of floor", "laptop step ms (article)", "laptop kernels (article)"], rows))
print(
    f"Medians of {d['rounds_n']} interleaved rounds; each round times {d['timed_steps']} steps "
    f"({d['timer']}). Kernels and GPU busy time: {d['profile_calls']} steps profiled after the last round. "
    "Spread: half the range of the round medians. "
    f"Floor: {page.num(d['weight_bytes'] / 1e9, 3)} GB of weights at {page.num(d['copy']['gbps'], 0)} GB/s = "
    f"{page.num(d['floor_ms'], 3)} ms. Host ms: time until the step call returns, launches included."
)
print(page.provenance(r))
