import matplotlib.pyplot as plt

from kernelbook import page, sol_report

r = page.result("sol.add_rmsnorm")
large = [s for s in r.data["shapes"] if not s["small"]]
names = [n for n in large[0]["versions"] if n != "same-bytes copy"]

fig, ax = plt.subplots(figsize=(7.5, 3.6))
for i, name in enumerate(names):
    pts = [(s["bytes"] / 2**20, s["versions"][name]["share_of_copy"] * 100) for s in large
           if "share_of_copy" in s["versions"].get(name, {})]
    if pts:
        xs, ys = zip(*sorted(pts), strict=True)
        tile = name == "same-bytes copy, kernel-sized programs"  # a copy, not a kernel: drawn apart
        ax.plot(xs, ys, marker="x" if tile else "os^vD<>"[i % 7], ls="", label=name, color="gray" if tile else None)
ax.axhline(sol_report.GOAL_SHARE * 100, c="gray", ls=":", lw=1)  # the goal
ax.set_xscale("log")
ax.set_xlabel("MiB moved by the fused kernel (log)")
ax.set_ylabel("% of the same-bytes copy")
ax.legend(fontsize=7, ncol=2)
ax.grid(True, alpha=0.3)
print(page.figure(fig, "Share of the same-bytes copy reached by each add+RMSNorm version, large shapes"))
print(page.provenance(r))
