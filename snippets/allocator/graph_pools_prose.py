import statistics

from kernelbook import page

MiB = 1 << 20
r = page.result("allocator.graph_pools")
d = r.data
steps = [s / MiB for s in d["separate_steps"]]
per_graph = statistics.median(steps)
separate = (d["separate_reserved"][-1] - d["base_reserved"]) / MiB
shared = (d["shared_reserved"][-1] - d["base_reserved_shared"]) / MiB
largest = d["sizes"].index(max(d["sizes"]))

print(
    f"vLLM's default list holds **{d['vllm_count']} batch sizes** up to {max(d['vllm_sizes'])}. Captured one by one "
    f"with a private pool each, the MLP's graphs ({d['layers']} layers, hidden {d['hidden']:,}, intermediate "
    f"{d['inter']:,}, bf16) added {page.num(min(steps), 0)} to {page.num(max(steps), 0)} MiB each, a median of "
    f"{page.num(per_graph, 0)} MiB; at that median the whole list costs {d['vllm_count']} × "
    f"{page.num(per_graph, 0)} = **{page.num(d['vllm_count'] * per_graph, 0)} MiB**, and measured it cost "
    f"{page.num(separate, 0)} MiB, against {page.num(d['weight_bytes'] / MiB, 0)} MiB of weights. "
    f"The pool of the largest batch took {page.num(steps[largest], 0)} MiB. Sharing one pool across the captures, "
    f"largest first, the same {len(d['sizes'])} graphs cost {page.num(shared, 0)} MiB"
    + (": each later, smaller graph reused blocks that the earlier ones had freed, and only the outputs that stay "
       "alive took new room." if shared < 0.5 * separate else ", not much less than separate pools.")
)
