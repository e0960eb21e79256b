from kernelbook import page

r = page.result("memory_bound.eager_bytes")
version = r.provenance.get("versions", {}).get("transformers", "?")
print(f"`Qwen2RMSNorm.forward` as installed on the machine that measured (transformers {version}):\n")
print("```python\n" + r.data["qwen2_forward_source"].rstrip() + "\n```")
