from kernelbook import page
from kernelbook.chapters.torch_compile import generated_code as ic

r = page.result("torch_compile.codegen")
m = r.data["mlp_1token_max_autotune"]
s = m["summary"]
mm = [k for k in s["kernels"] if "_mm_" in k["name"] or k["name"].endswith("_mm")]
down = next((k for k in mm if k["constants"].get("xnumel") == 1536), mm[-1] if mm else None)
print("```python\n" + ic.trim_call(m["code"]) + "\n```\n")
if down is not None:
    print(f"The kernel that replaces the down projection, `{down['name']}`, trimmed:\n")
    print("```python\n" + ic.trim_kernel(ic.kernel_sources(m["code"])[down["name"]]) + "\n```\n")
print(f'??? note "Full generated module under max-autotune ({len(m["code"]):,} characters)"\n')
print("    ```python")
print("\n".join("    " + line for line in m["code"].splitlines()))
print("    ```\n")
print(page.provenance(r))
