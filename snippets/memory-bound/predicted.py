from kernelbook import page
from kernelbook.chapters.memory_bound.facts import LABELS

r = page.result("memory_bound.eager_bytes")
gbps = r.data["copy"]["gbps"]
rows = []
for key, c in r.data["chains"].items():
    t = c["bench"]
    rows.append([LABELS[key], c["count"], page.num(c["bytes_per_elem"], 2), page.num(c["predicted_us"] / 1e3, 3),
                 f"{page.num(t['median'], 3)} ±{t['spread_pct'] / 2:.1f}%",
                 f"{t['median'] * 1e3 / c['predicted_us']:.2f}×",
                 page.num(c["busy_us"] / 1e3, 3),
                 page.num(c["measured_gbps"], 0), page.pct(c["measured_gbps"] / gbps),
                 page.num(c["fused_bytes_per_elem"], 2), page.num(c["fused_predicted_us"] / 1e3, 3)])
print(page.table(["eager chain", "kernels", "B/elem", "predicted ms", "measured ms (do_bench)", "measured ÷ predicted",
                  "sum of kernel times, ms", "GB/s moved", "of copy", "fused B/elem", "fused predicted ms"], rows))
print(page.provenance(r))
