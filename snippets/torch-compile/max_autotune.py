from kernelbook import page
from kernelbook.chapters.torch_compile import generated_code as ic
from kernelbook.chapters.torch_compile.figures import launches

r = page.result("torch_compile.codegen")
m = r.data["mlp_1token_max_autotune"]
code, kernels = m["code"], m["summary"]["kernels"]
print(page.code_block("\n".join(s["line"] for s in launches(code)), "python") + "\n")
rows = []
for k in kernels:
    c = k["constants"]
    width = c.get("r0_numel", c.get("rnumel"))
    rows.append([page.code(k["name"]), k["kind"], page.num(c.get("xnumel"), 0), page.num(width, 0),
                 len(k["pointers_stored"]), k["loops"]])
print(page.table(["kernel", "kind", "outputs (xnumel)", "each a sum over (r0_numel)", "tensors written", "loops"],
                 rows, align="llrrrr"))
for k in kernels:
    if "_mm_" in k["name"] or k["name"].endswith("_mm"):
        print(f'??? note "{page.code(k["name"])}, trimmed"\n')
        print(page.code_block(ic.trim_kernel(ic.kernel_sources(code)[k["name"]]), "python", indent="    ") + "\n")
print(f'??? note "Full module, max-autotune ({len(code):,} characters)"\n')
print(page.code_block(code.rstrip("\n"), "python", indent="    ") + "\n")
print(page.provenance(r))
