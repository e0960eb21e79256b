import statistics

from kernelbook import across, page
from kernelbook.chapters.torch_compile.figures import kernel_label

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


def kernels(t: str, side: str) -> tuple[list[tuple[str, str, float]], bool]:
    """Each kernel of one side at t tokens with its median µs over the runs (where every run launched the same
    kernels in the same order), so the listing sums to about the table's median; else the newest run's, flagged."""
    lists = [d["by_tokens"][t][side]["kernels"] for d in runs]
    names = [k["name"] for k in lists[-1]]
    if all([k["name"] for k in ks] == names for ks in lists):
        return [(k["name"], k["family"], statistics.median(ks[i]["us"] for ks in lists))
                for i, k in enumerate(lists[-1])], True
    return [(k["name"], k["family"], k["us"]) for k in by[t][side]["kernels"]], False


print(page.table(
    ["tokens", "eager kernels", "eager GPU µs", "compiled kernels", "compiled GPU µs", "GPU time saved"],
    [[f"{int(t):,}", fig(t, "eager kernels", 0, "eager", "per_call"), fig(t, "eager GPU", 1, "eager", "busy_us"),
      fig(t, "compiled kernels", 0, "compiled", "per_call"), fig(t, "compiled GPU", 1, "compiled", "busy_us"),
      saved(t)] for t in by]))
print('\n??? note "Host time per call, under the profiler"\n')
host = page.table(["tokens", "eager host µs", "compiled host µs"],
                  [[f"{int(t):,}", fig(t, "eager host", 0, "eager", "cpu_us"),
                    fig(t, "compiled host", 0, "compiled", "cpu_us")] for t in by])
print("\n".join("    " + line for line in host.splitlines()))
print()
for t in by:
    rows, over_runs = [], True
    for side in ("eager", "compiled"):
        listed, same = kernels(t, side)
        over_runs &= same
        rows += [[side, page.code(kernel_label(name)), family, page.num(us, 1)] for name, family, us in listed]
    plural = "s" if t != "1" else ""
    what = (f"µs, {page.over_runs(len(runs))}" if over_runs
            else f"µs in the newest run, {str(r.provenance.get('started_utc', r.run))[:10]}")
    calls = r.data["calls"]
    print(f'\n??? note "Every kernel at {int(t):,} token{plural}: {what} (each a median over {calls} calls)"\n')
    listing = page.table(["", "kernel", "kind", "µs"], rows, align="lllr")
    print("\n".join("    " + line for line in listing.splitlines()))
    print()
print(page.provenance(r))
