import matplotlib.pyplot as plt

from kernelbook import across, page
from kernelbook.chapters.fusing_by_hand.facts import version_time

r = page.result("fusing_by_hand.versions")
runs = across.datas("fusing_by_hand.versions")  # the times: the median of every run's, as in the table
vs = r.data["versions"]
times = [across.of([version_time(d, v["op"], v["key"]) for d in runs]) for v in vs]
names = {"eager": "eager", "rms_norm": "eager, F.rms_norm", "triton": "Triton", "compiled": "torch.compile"}
labels = [f"{'add + RMSNorm' if v['op'] == 'add_rmsnorm' else 'SwiGLU'}: {names[v['key']]}" for v in vs]
colors = ["C0" if v["op"] == "add_rmsnorm" else "C3" for v in vs]
y = range(len(vs))

fig, (a, b) = plt.subplots(1, 2, figsize=(8.4, 3.4), sharey=True)
a.barh(y, [v["bytes_per_elem"] or 0 for v in vs], color=colors)
a.barh(y, [v["fused_bytes_per_elem"] for v in vs], fill=False, edgecolor="k", ls="--", label="one fused kernel")
for i, v in enumerate(vs):
    if not v["bytes_per_elem"]:
        a.annotate("not counted", (0.5, i), va="center", fontsize=7)
a.set_xlabel("bytes moved per element")
a.legend(fontsize=8, loc="lower right")
ms = [t.median for t in times]
noisy = [2 * sum(not s.get("quiet", True) for s in t.summaries) > t.runs for t in times]
b.barh(y, ms, color=colors, xerr=[[t.median - t.low for t in times], [t.high - t.median for t in times]],
       capsize=3, hatch=["//" if x else "" for x in noisy], edgecolor="k")
b.set_xlabel(f"time, ms ({page.over_runs(len(runs))})")
a.set_yticks(list(y), labels, fontsize=8)
a.invert_yaxis()
fig.tight_layout()
print(page.figure(fig, "Bytes and time per version"))
print(page.provenance(r))
