from kernelbook import page

r = page.result("memory_bound.eager_bytes")
print("```python\n" + r.data["qwen2_forward_source"].rstrip() + "\n```")
