from kernelbook import page

r = page.result("allocator.graph_pools")
d = r.data
sizes = d["vllm_sizes"]
separate = d["separate_reserved"][-1] - d["base_reserved"]  # every size in its own private pool
shared = d["shared_reserved"][-1] - d["base_reserved_shared"]  # all sizes sharing one pool, as vLLM does

print(
    f"With the default maximum of {max(sizes)}, that rule gives **{len(sizes)} batch sizes**: "
    f"{', '.join(map(str, sizes[:6]))}, …, {', '.join(map(str, sizes[-3:]))}. The allocator chapter captured "
    f"a {d['layers']}-layer stand-in (hidden {d['hidden']:,}, MLP width {d['inter']:,}) at every one of them: "
    f"in a private pool each, the {len(sizes)} graphs held {page.num(separate / 2**20, 0)} MiB beyond the model; "
    f"sharing one pool, which is what vLLM does, {page.num(shared / 2**20, 0)} MiB."
)
print(page.provenance(r))
