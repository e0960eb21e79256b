from kernelbook import page
from kernelbook.chapters.torch_compile import generated_code as ic
from kernelbook.chapters.torch_compile.facts import LABELS

r = page.result("torch_compile.codegen")
mlp = r.data["mlp_1token"]
call = mlp["summary"]["call"]
print(page.code_block(ic.trim_call(mlp["code"]), "python") + "\n")
print(page.table(["step", "what runs", "operations (Inductor's source nodes)"],
                 [[page.code(s["op"]), LABELS[("step", s["kind"])], s["source_nodes"] or "—"] for s in call["steps"]],
                 align="lll"))
print(f'??? note "Full module, 1 token ({len(mlp["code"]):,} characters)"\n')
print(page.code_block(mlp["code"].rstrip("\n"), "python", indent="    ") + "\n")
print(page.provenance(r))
