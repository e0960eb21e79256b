from kernelbook import page
from kernelbook.chapters.stability.facts import facts

f = facts()
SHORT = {"eager, default cache": "eager", "eager, StaticCache": "static cache", "CUDA graph by hand": "graph"}
GRAPHS = {"CUDA graph by hand", "torch.compile reduce-overhead", "torch.compile max-autotune"}  # replay a graph


def short(label):  # the column heads kept narrow: torch.compile's modes by their names
    return SHORT.get(label, label.replace("torch.compile ", ""))


for replayed, name in ((False, "stability-decode-rounds-launched"), (True, "stability-decode-rounds-replayed")):
    ways = [w for w in f.decode_rounds if (w.label in GRAPHS) == replayed]
    print(page.table(
        ["round", *(short(w.label) for w in ways)],
        [[i + 1, *(f"{page.num(w.step_ms[i], 2)} ({page.num(w.host_ms[i], 2)})" for w in ways)]
         for i in range(f.decode_rounds_n)],
        align="r" * (1 + len(ways)), name=name))
