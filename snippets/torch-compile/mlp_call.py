from kernelbook import page
from kernelbook.chapters.torch_compile import generated_code as ic
from kernelbook.chapters.torch_compile.facts import LABELS

r = page.result("torch_compile.codegen")
mlp = r.data["mlp_1token"]
call = mlp["summary"]["call"]
print("```python\n" + ic.trim_call(mlp["code"]) + "\n```\n")
print(page.table(["step", "what runs", "operations (Inductor's source nodes)"],
                 [[f"`{s['op']}`", LABELS[("step", s["kind"])], s["source_nodes"] or "—"] for s in call["steps"]],
                 align="lll"))
print(f'??? note "Full module, 1 token ({len(mlp["code"]):,} characters)"\n')
print("    ```python")
print("\n".join("    " + line for line in mlp["code"].splitlines()))
print("    ```\n")
print(page.provenance(r))
