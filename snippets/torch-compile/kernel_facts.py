from kernelbook import page

r = page.result("torch_compile.codegen")
s = r.data["add_rmsnorm"]["summary"]
laptop = page.result("torch_compile.codegen", "nvidia-geforce-rtx-4060-laptop-gpu").data
k = s["kernels"][0]
rows, cols = r.data["add_rmsnorm"]["shapes"][0]
consts = ", ".join(f"`{n} = {v:,}`" for n, v in k["constants"].items())
hints = ", ".join(f"{n} × `{p}`" for p, n in sorted(k["eviction"].items()) if p != "none") or "no eviction hints"
weight_hint = k["eviction_by_pointer"].get("in_ptr2")
reread = k["stored_then_reloaded"] or k["reloaded_in_later_loop"]

facts = [f"Inductor wrote **{s['kernel_count']} Triton kernel{'s' if s['kernel_count'] != 1 else ''}** for the "
         f"{rows:,} × {cols:,} add and norm (the article's laptop: {laptop['add_rmsnorm_kernels']}), a "
         f"{k['kind']} named after every operation it absorbed."]
if k["chunked"]:
    facts.append(f"It walks each row in chunks: {k['loops']} `for` loops over the reduction "
                 f"(`{k['loop_ranges'][0]}`), the first summing squares and the second scaling.")
    if k["stored_then_reloaded"]:
        facts.append(f"The second loop loads `{reread[0]}`, the new residual the first loop stored, so h is read "
                     "back once more: on a row of a few KB that read mostly hits the cache.")
    elif k["reloaded_in_later_loop"]:
        facts.append(f"The second loop loads {', '.join(f'`{p}`' for p in reread)} again and recomputes the add "
                     "instead of reading h back.")
else:
    facts.append("It holds each whole row at once (a persistent reduction, no loop), so nothing is read twice.")
facts.append(f"Its loads carry cache hints: {hints}" + (f"; the weight vector, shared by every row, gets "
             f"`{weight_hint}`." if weight_hint and weight_hint != "none" else "."))
facts.append(f"The shape is baked in as constants: {consts}; another shape means another kernel.")
print(" ".join(facts))
