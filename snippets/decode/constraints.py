from kernelbook import page

r = page.result("decode.constraints")
item = r.data["item"]
if item.get("raised"):
    print(f"**{page.text(item['type'])}**:\n\n{page.code_block(item['message'])}\n")
    if item.get("context_type"):
        print(f"the earlier **{page.text(item['context_type'])}**:\n\n{page.code_block(item['context_message'])}\n")
print(page.provenance(r))
