from kernelbook import across, page

r = page.result("torch_compile.recompiles")
print(page.code_block("\n".join(r.data["log"]) or "(nothing logged)") + "\n")
runs = across.datas("torch_compile.recompiles")  # every run of the current code: each time is their median
calls = r.data["calls"]
FACTS = {2: "later_first_ms", len(calls) - 1: "later_last_ms"}  # the calls after the recompile the prose quotes


def ms(i: int) -> str:
    a = across.of([{"median": d["calls"][i]["seconds"]} for d in runs])
    text = page.fact("torch_compile", FACTS[i]) if i in FACTS and i >= 2 else page.num(a.median * 1e3, 1)
    return text + across.runs_note(a, 1, 1e3)


print(page.table(["call", "tokens", "time, compile included (ms)", "graphs compiled by this call"],
                 [[i + 1, c["tokens"], ms(i), c["graphs_compiled"]] for i, c in enumerate(calls)]))
print(page.provenance(r))
