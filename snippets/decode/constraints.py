from kernelbook import page

r = page.result("decode.constraints")
item = r.data["item"]
if item.get("raised"):
    print(f"`.item()` inside `torch.cuda.graph(...)` raised **{item['type']}**:\n")
    print("```text\n" + item["message"] + "\n```\n")
    if item.get("context_type"):
        print(f"raised while handling an earlier **{item['context_type']}**:\n")
        print("```text\n" + item["context_message"] + "\n```\n")
    print("After the failed capture, a fresh CUDA operation in the same process "
          + ("still worked." if item.get("context_usable_after") else "failed too: the context was unusable."))
elif item.get("raised") is None:
    print(f"The child process reported nothing (exit status {item.get('returncode')}).")
else:
    print("`.item()` inside the capture raised nothing on this machine.")
print(page.provenance(r))
