from kernelbook import page
from kernelbook.chapters.torch_compile import generated_code as ic
from kernelbook.chapters.torch_compile.facts import launches

r = page.result("torch_compile.codegen")
m = r.data["mlp_1token_max_autotune"]
code, kernels = m["code"], m["summary"]["kernels"]
print("```python\n" + "\n".join(s["line"] for s in launches(code)) + "\n```\n")
rows = []
for k in kernels:
    c = k["constants"]
    width = c.get("r0_numel", c.get("rnumel"))
    rows.append([f"`{k['name']}`", k["kind"], page.num(c.get("xnumel"), 0), page.num(width, 0),
                 len(k["pointers_stored"]), k["loops"]])
print(page.table(["kernel", "kind", "outputs (xnumel)", "each a sum over (r0_numel)", "tensors written", "loops"],
                 rows, align="llrrrr"))
for k in kernels:
    if "_mm_" in k["name"] or k["name"].endswith("_mm"):
        print(f'??? note "`{k["name"]}`, trimmed"\n')
        print("    ```python")
        print("\n".join("    " + line for line in ic.trim_kernel(ic.kernel_sources(code)[k["name"]]).splitlines()))
        print("    ```\n")
print(f'??? note "Full module, max-autotune ({len(code):,} characters)"\n')
print("    ```python")
print("\n".join("    " + line for line in code.splitlines()))
print("    ```\n")
print(page.provenance(r))
