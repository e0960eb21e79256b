from kernelbook import page

r = page.result("decode.six_ways")


def fact(name: str) -> str:  # the decode chapter's fact: the same text as anywhere on the page
    return page.fact("decode", name)


print(page.table(["Qwen2ForCausalLM, as built here", "value"], [
    ["layers", fact("layers")],
    ["hidden size", fact("hidden")],
    ["MLP width", fact("mlp")],
    ["query heads, key/value heads", f"{fact('heads')}, {fact('kv_heads')}"],
    ["head size", fact("head_dim")],
    ["vocabulary (tied LM head)", fact("vocab")],
    ["RoPE base", fact("rope_theta")],
    ["weight init std (norm scales 1)", fact("init_std")],
    ["parameters, billions", fact("params_b")],
    ["weights, GB (article's checkpoint)", f"{fact('weight_gb')} ({fact('laptop_weight_gb')})"],
], align="lr", name="decode-model"))
print(page.provenance(r))
