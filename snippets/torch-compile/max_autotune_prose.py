from kernelbook import page

r = page.result("torch_compile.codegen")
six = page.result("decode.six_ways")  # the decode chapter profiled the whole 1.5B step compiled with max-autotune
top = six.data["kernel_mix"]["compile_max_autotune"]["top"]
fused_down = [k["name"] for k in top if "_mm_" in k["name"] and "silu" in k["name"]]
laptop = page.result("torch_compile.codegen", "nvidia-geforce-rtx-4060-laptop-gpu").data
s = r.data["mlp_1token_max_autotune"]["summary"]
mm = [k for k in s["kernels"] if "_mm_" in k["name"] or k["name"].endswith("_mm")]
ext = s["call"]["extern_calls"]
print(f"Under max-autotune the one-token MLP half became **{s['kernel_count']} Triton kernels**; "
      f"{len(mm)} of them carry `mm` in their names, matrix products rewritten as a multiply and a sum and fused "
      f"with their neighbours, and " + (f"{len(ext)} stayed extern ({', '.join(f'`{e}`' for e in ext)})."
                                         if ext else "no matrix product stayed with cuBLAS.") +
      f" In the article's decode step the down projection became `{laptop['decode_down_proj_kernel_max_autotune']}`"
      + (f"; in the H200's, `{fused_down[0]}`." if fused_down else "; no such kernel is among the H200 decode "
         "step's busiest kernels."))
for k in mm:
    c = k["constants"]
    width = c.get("r0_numel", c.get("rnumel", "?"))
    print(f" `{k['name']}` makes {c.get('xnumel', '?'):,} outputs, each a sum over {width:,} products"
          f"{' walked in chunks' if k['chunked'] else ''}.")
