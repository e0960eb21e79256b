import matplotlib.pyplot as plt

from kernelbook import page

MiB = 1 << 20
r = page.result("allocator.graph_pools")
d = r.data
sep = [(v - d["base_reserved"]) / MiB for v in d["separate_reserved"]]
shared = [(v - d["base_reserved_shared"]) / MiB for v in d["shared_reserved"]]
n = range(1, len(d["sizes"]) + 1)

fig, (ax, bx) = plt.subplots(1, 2, figsize=(10, 3.6))
ax.plot(n, sep, marker=".", label="a private pool per graph")
ax.plot(n, shared, marker=".", label="one pool shared by all graphs")
ax.set_xlabel(f"graphs captured (batch {d['sizes'][0]} first, down to {d['sizes'][-1]})")
ax.set_ylabel("MiB reserved above the model's own")
ax.legend(fontsize=8)
ax.grid(alpha=0.3)
bx.scatter(d["sizes"], [s / MiB for s in d["separate_steps"]], s=12)
bx.set_xlabel("batch size of the captured graph")
bx.set_ylabel("MiB its private pool added")
bx.grid(alpha=0.3)
print(page.figure(fig, f"CUDA graph pools on the {page.machine_label(r)}"))
print(page.provenance(r))
