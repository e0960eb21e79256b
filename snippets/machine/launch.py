from kernelbook import across, page
from kernelbook.chapters.machine import facts as machine
from kernelbook.chapters.machine.facts import LABELS, facts

r = page.result("machine.ceilings")
runs = across.datas("machine.ceilings")  # every run of the current code: each figure is their median
f = facts()


def cell(a: across.Across, value: str, noise: str) -> str:
    """The prose's figures (its facts): the median across runs and the median of the runs' noise, marked where the
    runs mostly stayed noisy, and the runs' range where they lie further apart than a run's own spread."""
    noisy = 2 * sum(not t["quiet"] for t in a.summaries) > len(a.summaries)
    return (f"{page.fact('machine', value)} ±{page.fact('machine', noise)}%" + (" noisy" if noisy else "")
            + across.runs_note(a, 2))


eager = across.of([machine.eager_launch(d) for d in runs])
graph = across.of([machine.graph_launch(d) for d in runs])
host = across.of([machine.host_enqueue(d) for d in runs])
several = len(runs) > 1  # one run: no median of runs to speak of
samples = lambda name: page.fact("machine", name)  # noqa: E731  # sample counts, the median run's
print(page.table(
    [f"{f.launches:,} one-element add_ kernels",
     f"{f.gpu}, median of {len(runs)} runs ± their median noise" if several else f"{f.gpu}, one run ± its noise",
     "samples, median of runs" if several else "samples", "RTX 4060 Laptop (article)"],
    [
        [LABELS["eager"], cell(eager, "eager_us", "eager_noise"), samples("eager_samples"), "—"],
        [LABELS["graph"], cell(graph, "graph_us", "graph_noise"), samples("graph_samples"), "—"],
        [LABELS["speedup"], page.fact("machine", "launch_speedup")
         + across.runs_note(across.of([machine.graph_speedup(d) for d in runs]), 1), "",
         f"{f.laptop_graph_low}–{f.laptop_graph_high}×"],
        [LABELS["host"], cell(host, "host_us", "host_noise"), samples("host_samples"), page.num(f.laptop_host_us, 1)],
        [f"… its middle {page.fact('machine', 'host_middle')} of samples, µs"
         + (" (median of runs)" if several else ""),
         f"{page.fact('machine', 'host_us_low')}–{page.fact('machine', 'host_us_high')}", "", "—"],
    ],
    align="lrrr",
))
print(page.provenance(r))
