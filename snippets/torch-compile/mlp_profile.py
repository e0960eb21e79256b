from kernelbook import across, page
from kernelbook.chapters.torch_compile import generated_code as ic

r = page.result("torch_compile.mlp_profile")
by = r.data["by_tokens"]
runs = across.datas("torch_compile.mlp_profile")  # every run of the current code: the GPU times are their median


def us(t: str, *keys: str) -> str:  # one value per run: the median, and the runs' ends where they differ
    a = across.of([{"median": _get(d["by_tokens"][t], keys)} for d in runs])
    return across.value(a, 1)


def _get(x: dict, keys: tuple[str, ...]) -> float:
    for k in keys:
        x = x[k]
    return x


print(page.table(
    ["tokens", "eager kernels", "eager GPU µs", "compiled kernels", "compiled GPU µs", "GPU time saved",
     "eager host µs/call, profiled", "compiled host µs/call, profiled"],
    [[f"{int(t):,}", page.num(v["eager"]["per_call"], 0), us(t, "eager", "busy_us"),
      page.num(v["compiled"]["per_call"], 0), us(t, "compiled", "busy_us"),
      f"{us(t, 'saved_us')} µs ({page.pct(v['saved_us'] / v['eager']['busy_us'], 1)} in the newest run)"
      if len(runs) > 1 else f"{page.num(v['saved_us'], 1)} µs ({page.pct(v['saved_us'] / v['eager']['busy_us'], 1)})",
      page.num(v["eager"]["cpu_us"], 0), page.num(v["compiled"]["cpu_us"], 0)] for t, v in by.items()]))
for t, v in by.items():
    rows = []
    for side in ("eager", "compiled"):
        for k in v[side]["kernels"]:
            rows.append([side, f"`{ic.short_kernel_name(k['name'], 70)}`", k["family"], page.num(k["us"], 1)])
    plural = "s" if t != "1" else ""
    print(f'\n??? note "Every kernel at {int(t):,} token{plural}, median µs over {r.data["calls"]} calls"\n')
    listing = page.table(["", "kernel", "kind", "µs"], rows, align="lllr")
    print("\n".join("    " + line for line in listing.splitlines()))
    print()
print(page.provenance(r))
