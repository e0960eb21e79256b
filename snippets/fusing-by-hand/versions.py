import statistics

from kernelbook import across, page
from kernelbook.chapters.fusing_by_hand.facts import LABELS, version_time

r = page.result("fusing_by_hand.versions")
runs = across.datas("fusing_by_hand.versions")  # every run of the current code: each figure is their median
laptop = page.result("fusing_by_hand.versions", "nvidia-geforce-rtx-4060-laptop-gpu").data
article = {("add_rmsnorm", "eager"):
           f"{laptop['add_rmsnorm_eager_ms']} ms, {laptop['add_rmsnorm_eager_kernels']} kernels",
           ("add_rmsnorm", "rms_norm"): f"{laptop['rms_norm_kernels']} kernel for the norm",
           ("add_rmsnorm", "triton"): f"{laptop['add_rmsnorm_triton_ms']} ms, {laptop['add_rmsnorm_speedup']}×",
           ("swiglu", "triton"): f"−{page.pct(laptop['swiglu_time_cut'])} time"}
headline = {("add_rmsnorm", "eager"): "norm_eager_ms", ("add_rmsnorm", "triton"): "norm_triton_ms"}
noise_fact = {("add_rmsnorm", "compiled"): "compiled_norm_noise", ("swiglu", "compiled"): "compiled_swiglu_noise"}
copy_gbps = statistics.median(d["copy"]["gbps"] for d in runs)
times = {(v["op"], v["key"]): across.of([version_time(d, v["op"], v["key"]) for d in runs])
         for v in r.data["versions"]}
timing, traffic = [], []
for v in r.data["versions"]:
    op, key = v["op"], v["key"]
    ms = times[(op, key)].median  # every column below is computed from this median and the bytes
    ts = times[(op, key)].summaries
    # the noise as the prose gives it: the median of the runs' noise (its fact where it quotes one), marked noisy
    # where most runs stopped noisy; the runs' range where they lie further apart than a run's own spread
    noise = (page.fact("fusing_by_hand", noise_fact[(op, key)]) if (op, key) in noise_fact
             else page.num(statistics.median(t["noise_pct"] for t in ts), 1))
    noisy = 2 * sum(not t["quiet"] for t in ts) > len(ts)
    cell = (page.fact("fusing_by_hand", headline[(op, key)]) if (op, key) in headline else page.num(ms, 3)) \
        + across.runs_note(times[(op, key)], 3)
    speedup = {("add_rmsnorm", "triton"): page.fact("fusing_by_hand", "norm_speedup"),
               ("add_rmsnorm", "rms_norm"): page.fact("fusing_by_hand", "rms_norm_speedup")}.get(
        (op, key), f"{page.num(times[(op, 'eager')].median / ms, 1)}×")
    actual = v["bytes_moved"] / ms / 1e6 if v["actual_gbps"] else None
    timing.append([LABELS[(op, key)], v["kernels"], cell, f"±{noise}%" + (" noisy" if noisy else ""), speedup,
                   article.get((op, key), "—")])
    traffic.append([LABELS[(op, key)], page.num(v["bytes_per_elem"], 1), page.num(v["fused_bytes"] / ms / 1e6, 0),
                    page.num(actual, 0), page.pct(actual / copy_gbps) if actual else "—"])
print(page.table(["version", "kernels", f"ms ({page.over_runs(len(runs))})", "noise", "× eager",
                  "RTX 4060 Laptop (article)"], timing, align="lrrrrl", name="versions-time"))
print()
print(page.table(["version", "B/elem moved", "effective GB/s", "actual GB/s", "of a 1 GiB copy"], traffic,
                 name="versions-bytes"))
print(page.provenance(r))
