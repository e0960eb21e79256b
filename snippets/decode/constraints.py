from kernelbook import page

r = page.result("decode.constraints")
item = r.data["item"]
if item.get("raised"):
    print(f"**{item['type']}**:\n\n```text\n{item['message']}\n```\n")
    if item.get("context_type"):
        print(f"the earlier **{item['context_type']}**:\n\n```text\n{item['context_message']}\n```\n")
print(page.provenance(r))
