from kernelbook import across, page
from kernelbook.chapters.torch_compile.facts import kernel_label

r = page.result("torch_compile.mlp_profile")
by = r.data["by_tokens"]
runs = across.datas("torch_compile.mlp_profile")  # every run of the current code: each figure is their median
small, big = min(by, key=int), max(by, key=int)
FACTS = {  # the figures the page's prose quotes, printed as its facts: (tokens, column) -> field
    (small, "eager GPU"): "one_eager_us", (small, "compiled GPU"): "one_compiled_us",
    (small, "saved"): "one_saved_us", (small, "share"): "one_saved_share",
    (small, "eager host"): "one_host_eager_us", (small, "compiled host"): "one_host_compiled_us",
    (big, "eager GPU"): "big_eager_us", (big, "compiled GPU"): "big_compiled_us",
    (big, "saved"): "big_saved_us", (big, "share"): "big_saved_share",
}


def fig(t: str, column: str, digits: int, *keys: str) -> str:
    """The median over runs of one figure (the page's fact where the prose quotes it), with the runs' ends where
    they lie apart."""
    a = across.of([{"median": _get(d["by_tokens"][t], keys)} for d in runs])
    text = page.fact("torch_compile", FACTS[t, column]) if (t, column) in FACTS else page.num(a.median, digits)
    return text + across.runs_note(a, digits)


def saved(t: str) -> str:
    """Eager's GPU time minus compiled's, from the medians in the same row, and its share of eager's."""
    if (t, "saved") in FACTS:
        return f"{page.fact('torch_compile', FACTS[t, 'saved'])} µs ({page.fact('torch_compile', FACTS[t, 'share'])})"
    e, c = (across.of([{"median": d["by_tokens"][t][side]["busy_us"]} for d in runs]).median
            for side in ("eager", "compiled"))
    return f"{page.num(e - c, 1)} µs ({page.pct((e - c) / e, 1)})"


def _get(x: dict, keys: tuple[str, ...]) -> float:
    for k in keys:
        x = x[k]
    return x


print(page.table(
    ["tokens", "eager kernels", "eager GPU µs", "compiled kernels", "compiled GPU µs", "GPU time saved",
     "eager host µs/call, profiled", "compiled host µs/call, profiled"],
    [[f"{int(t):,}", fig(t, "eager kernels", 0, "eager", "per_call"), fig(t, "eager GPU", 1, "eager", "busy_us"),
      fig(t, "compiled kernels", 0, "compiled", "per_call"), fig(t, "compiled GPU", 1, "compiled", "busy_us"),
      saved(t), fig(t, "eager host", 0, "eager", "cpu_us"), fig(t, "compiled host", 0, "compiled", "cpu_us")]
     for t in by]))
newest = f"newest run, {str(r.provenance.get('started_utc', r.run))[:10]}"
for t, v in by.items():
    rows = []
    for side in ("eager", "compiled"):
        for k in v[side]["kernels"]:
            rows.append([side, f"`{kernel_label(k['name'])}`", k["family"], page.num(k["us"], 1)])
    plural = "s" if t != "1" else ""
    print(f'\n??? note "Every kernel at {int(t):,} token{plural}, median µs over {r.data["calls"]} calls ({newest})"\n')
    listing = page.table(["", "kernel", "kind", "µs"], rows, align="lllr")
    print("\n".join("    " + line for line in listing.splitlines()))
    print()
print(page.provenance(r))
