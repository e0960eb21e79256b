from kernelbook import page
from kernelbook.chapters.torch_compile import generated_code as ic

r = page.result("torch_compile.codegen")
norm = r.data["add_rmsnorm"]
code = norm["code"]
name = norm["summary"]["kernel_names"][0]

print(f"`{name}`, trimmed (index aliases dropped):\n")
print("```python\n" + ic.trim_kernel(ic.kernel_sources(code)[name]) + "\n```\n")
print(f'??? note "Full generated module ({len(code):,} characters)"\n')
print("    ```python")
print("\n".join("    " + line for line in code.splitlines()))
print("    ```\n")
print(page.provenance(r))
