from kernelbook import page
from kernelbook.chapters.torch_compile import generated_code as ic

r = page.result("torch_compile.codegen")
mlp = r.data["mlp_1token"]
call = mlp["summary"]["call"]
print("```python\n" + ic.trim_call(mlp["code"]) + "\n```\n")
what = {"triton": "Triton kernel (Inductor's)", "extern": "extern call (cuBLAS)", "reuse": "buffer reuse",
        "aten": "ATen fallback"}
print(page.table(["step", "what runs", "operations (Inductor's source nodes)"],
                 [[f"`{s['op']}`", what[s["kind"]], s["source_nodes"] or "—"] for s in call["steps"]], align="lll"))
print(f'??? note "Full generated module, MLP half at 1 token ({len(mlp["code"]):,} characters)"\n')
print("    ```python")
print("\n".join("    " + line for line in mlp["code"].splitlines()))
print("    ```\n")
print(page.provenance(r))
