import matplotlib.pyplot as plt

from kernelbook import page

r = page.result("fusing_by_hand.versions")
vs = r.data["versions"]
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
ms = [v["time"]["median"] for v in vs]
b.bar(labels, ms, color=colors, yerr=[[m - v["time"]["min"] for m, v in zip(ms, vs, strict=True)],
                                      [v["time"]["max"] - m for m, v in zip(ms, vs, strict=True)]], capsize=3,
      hatch=["//" if not v["time"].get("quiet", True) else "" for v in vs], edgecolor="k")
b.set_ylabel("time, ms (median, range over rounds)")
for ax in (a, b):
    ax.tick_params(axis="x", labelsize=7)
fig.tight_layout()
print(page.figure(fig, "Bytes and time per version"))
print(page.provenance(r))
