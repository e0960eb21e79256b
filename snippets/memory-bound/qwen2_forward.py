from kernelbook import page

r = page.result("memory_bound.eager_bytes")
print(page.code_block(r.data["qwen2_forward_source"].rstrip(), "python"))
