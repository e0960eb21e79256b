from kernelbook import across, page

r = page.result("torch_compile.recompiles")
print("```text\n" + ("\n".join(r.data["log"]) or "(nothing logged)") + "\n```\n")
runs = across.datas("torch_compile.recompiles")  # every run of the current code: each time is their median
print(page.table(["call", "tokens", "time, compile included (ms)", "graphs compiled by this call"],
                 [[i + 1, c["tokens"], across.value(across.of([{"median": d["calls"][i]["seconds"]} for d in runs]),
                                                    1, 1e3), c["graphs_compiled"]]
                  for i, c in enumerate(r.data["calls"])]))
print(page.provenance(r))
