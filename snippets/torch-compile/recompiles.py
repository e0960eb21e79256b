from kernelbook import page

r = page.result("torch_compile.recompiles")
print("```text\n" + ("\n".join(r.data["log"]) or "(nothing logged)") + "\n```\n")
print(page.table(["call", "tokens", "time, compile included (ms)", "graphs compiled by this call"],
                 [[i + 1, c["tokens"], page.num(c["seconds"] * 1e3, 1), c["graphs_compiled"]]
                  for i, c in enumerate(r.data["calls"])]))
print(page.provenance(r))
