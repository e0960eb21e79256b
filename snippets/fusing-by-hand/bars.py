import matplotlib.pyplot as plt

from kernelbook import across, page
from kernelbook.chapters.fusing_by_hand.facts import version_time

r = page.result("fusing_by_hand.versions")
runs = across.datas("fusing_by_hand.versions")  # the times: the median of every run's, as in the table
vs = r.data["versions"]
times = [across.of([version_time(d, v["op"], v["key"]) for d in runs]) for v in vs]
labels = [f"{'add+norm' if v['op'] == 'add_rmsnorm' else 'SwiGLU'}\n{v['key']}" for v in vs]
colors = ["C0" if v["op"] == "add_rmsnorm" else "C3" for v in vs]

fig, (a, b) = plt.subplots(1, 2, figsize=(9, 3.6))
moved = [v["bytes_per_elem"] or 0 for v in vs]
a.bar(labels, moved, color=colors)
a.bar(labels, [v["fused_bytes_per_elem"] for v in vs], fill=False, edgecolor="k", ls="--", label="fused bytes")
for i, v in enumerate(vs):
    if not v["bytes_per_elem"]:
        a.annotate("not counted", (i, 0.5), ha="center", rotation=90, fontsize=7)
a.set_ylabel("bytes moved per element")
a.legend(fontsize=8)
ms = [t.median for t in times]
b.bar(labels, ms, color=colors, yerr=[[t.median - t.low for t in times], [t.high - t.median for t in times]],
      capsize=3, hatch=["//" if 2 * sum(not s.get("quiet", True) for s in t.summaries) > t.runs else "" for t in times],
      edgecolor="k")
b.set_ylabel(f"time, ms (median of {len(runs)} runs)")
for ax in (a, b):
    ax.tick_params(axis="x", labelsize=7)
fig.tight_layout()
print(page.figure(fig, "Bytes and time per version"))
print(page.provenance(r))
