from kernelbook import page

r = page.result("torch_compile.mlp_profile")
machine = page.result("machine.ceilings").data
laptop = page.result("torch_compile.mlp_profile", "nvidia-geforce-rtx-4060-laptop-gpu").data
one, big = r.data["by_tokens"]["1"], r.data["by_tokens"]["2048"]
launch_us = machine["launch"]["host_enqueue_us"]["median"]
removed = one["kernels_removed"]
gone = sorted(k["us"] for k in one["eager"]["kernels"] if k["family"] != "gemm")
copies = [k for k in one["compiled"]["kernels"] if k["family"] == "copy"]
gemm_share = sum(k["us"] for k in big["compiled"]["kernels"] if k["family"] == "gemm") / big["compiled"]["busy_us"]

print(f"At one token, compiling removed **{page.num(removed, 0)} kernels** and saved "
      f"**{page.num(one['saved_us'], 1)} µs** of GPU time per call (the article's laptop: "
      f"{laptop['saved_us_1token_low']}–{laptop['saved_us_1token_high']} µs, {laptop['kernels_removed_1token']} "
      f"kernels). The eager elementwise kernels ran {page.num(gone[0], 1)} to {page.num(gone[-1], 1)} µs each on the "
      f"GPU, while Python spends about {page.num(launch_us, 1)} µs of host time to enqueue one launch on this machine "
      f"(the laptop: {laptop['launch_host_us']} µs), so at this size the launches cost "
      f"{'more' if launch_us > gone[len(gone) // 2] else 'less'} than the kernels they start: host time per call "
      f"went from {page.num(one['eager']['cpu_us'], 0)} to {page.num(one['compiled']['cpu_us'], 0)} µs.")
if copies:
    print(f" The compiled call has {len(copies)} copy of {page.num(copies[0]['us'], 1)} µs: the residual moved into "
          f"`addmm`'s output before cuBLAS adds to it (the article measured {laptop['addmm_copy_us']} µs).")
saved_pct = big["saved_us"] / big["eager"]["busy_us"]
print(f" At 2,048 tokens the saving is {page.num(big['saved_us'] / 1e3, 2)} ms of "
      f"{page.num(big['eager']['busy_us'] / 1e3, 2)} ms ({page.pct(saved_pct, 1)}; the laptop: "
      f"{laptop['saved_ms_2048']} of {laptop['eager_ms_2048']} ms, {laptop['saved_pct_2048']}%), because the "
      f"matrix products, cuBLAS kernels in both versions, take {page.pct(gemm_share, 0)} of the compiled call's "
      "GPU time.")
