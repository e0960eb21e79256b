from kernelbook import page

r = page.result("torch_compile.modes")
laptop = page.result("torch_compile.modes", "nvidia-geforce-rtx-4060-laptop-gpu").data
t = r.data["threshold"]
sms, need = r.data["sm_count"], t["min_sms"]
print(f"`is_big_gpu` wants **{need} SMs** (the line in this torch reads `{t['source_line']}`); this "
      f"{r.data['gpu'].replace('NVIDIA ', '')} has **{sms}**, so the check "
      f"{'passes' if r.data['is_big_gpu'] else 'fails'} and max-autotune "
      f"{'may' if r.data['is_big_gpu'] else 'may not'} try Triton matmul templates. The article's laptop had "
      f"{laptop['sm_count']} SMs against the same {laptop['min_sms']}, and fell short.")
mm = r.data["mm_rewrite"]
if mm["comment"]:
    print(f" The single-row matmul rewrite is gated on coordinate-descent tuning "
          f"({'confirmed in' if mm['needs_coordinate_descent'] else 'not found in'} the source); its comment reads "
          f"“{mm['comment']}”")
