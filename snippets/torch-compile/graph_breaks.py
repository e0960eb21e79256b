from kernelbook import page
from kernelbook.chapters.torch_compile.facts import LABELS

r = page.result("torch_compile.graph_breaks")
laptop = page.result("torch_compile.graph_breaks", "nvidia-geforce-rtx-4060-laptop-gpu").data
dec = page.result("decode.constraints")  # torch._dynamo.explain of the decode chapter's static-cache step
fact = lambda name: page.fact("torch_compile", name)  # noqa: E731  # a count the prose quotes: its fact
rows = []
for key in ("plain", "checked"):
    d = r.data[key]
    rows.append([LABELS[("graphs", key)], fact(f"{key}_graphs"), fact(f"{key}_breaks"), d["op_count"],
                 d["break_reasons"][0]["reason"].splitlines()[0] if d["break_reasons"] else "—"])
ex = dec.data["explain"]
first = str(ex["break_reasons"][0]).splitlines()[0] if ex["break_reasons"] else "—"
rows.append(["Qwen2 decode step, static cache (decode chapter)", ex["graph_count"], ex["graph_break_count"],
             fact("decode_ops"), first])
rows.append(["laptop (article): add + RMSNorm, checked", fact("laptop_checked_graphs"), fact("laptop_checked_breaks"),
             "—", laptop["reason"]])
rows.append(["laptop (article): decode step, static cache", laptop["decode_graph_count"],
             laptop["decode_graph_break_count"], fact("laptop_decode_ops"), "—"])
print(page.table(["function", "graphs", "breaks", "operations", "break reason (first line)"], rows, align="lrrrl"))
br = r.data["checked"]["break_reasons"]
if br:
    print(f'\n??? note "Dynamo\'s full reason, at {page.title(br[0]["where"])}: {page.code(br[0]["line"])}"\n')
    print(page.code_block(br[0]["reason"], indent="    ") + "\n")
print(page.provenance(r))
print(page.provenance(dec))
