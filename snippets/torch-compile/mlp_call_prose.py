from collections import Counter

from kernelbook import page

r = page.result("torch_compile.codegen")
call = r.data["mlp_1token"]["summary"]["call"]
laptop = page.result("torch_compile.codegen", "nvidia-geforce-rtx-4060-laptop-gpu").data
ext = Counter(call["extern_calls"])
ext_text = " and ".join(f"{n} × `{op}`" for op, n in ext.items()) or "no extern calls"
same = call["extern_calls"] == laptop["mlp_1token_extern"] and call["triton_launches"] == laptop[
    "mlp_1token_triton_kernels"]
print(f"For one token, `call()` launches **{call['triton_launches']} Triton kernels** and makes **{ext_text}**; "
      f"{len(call['reuses'])} buffer{'s are' if len(call['reuses']) != 1 else ' is'} reused "
      f"({', '.join(f'`{x}`' for x in call['reuses']) or 'none'}), and {call['reinterpret_tensor']} weight"
      f"{'s are' if call['reinterpret_tensor'] != 1 else ' is'} passed transposed by `reinterpret_tensor` rather "
      f"than copied. " + ("That is the same split the article printed from its laptop." if same else
                          f"The article's laptop printed {laptop['mlp_1token_triton_kernels']} Triton kernels and "
                          f"{', '.join(laptop['mlp_1token_extern'])}."))
if "addmm" in ext:
    print(" The second residual add went into `addmm`, cuBLAS's multiply-and-add: `beta=1` adds the residual buffer "
          "to the product, so no separate add kernel runs.")
