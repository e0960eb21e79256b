from kernelbook import page
from kernelbook.chapters.torch_compile import generated_code as ic

r = page.result("torch_compile.codegen")
norm = r.data["add_rmsnorm"]
code = norm["code"]
name = norm["summary"]["kernel_names"][0]

print(f"{page.code(name)}, trimmed (index aliases dropped):\n")
print(page.code_block(ic.trim_kernel(ic.kernel_sources(code)[name]), "python") + "\n")
print(f'??? note "Full generated module ({len(code):,} characters)"\n')
print(page.code_block(code.rstrip("\n"), "python", indent="    ") + "\n")
print(page.provenance(r))
