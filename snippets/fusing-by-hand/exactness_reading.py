from kernelbook import page

r = page.result("fusing_by_hand.exactness")
article = page.result("fusing_by_hand.exactness", "nvidia-geforce-rtx-4060-laptop-gpu").data
cases = r.data["triton"]
h_ok = all(c["h"]["bit_identical"] for c in cases)
y_steps = max(c["y"]["max_steps"] for c in cases)
worst = max(cases, key=lambda c: c["y"]["max_abs"])["y"]
differ = sum(c["y"]["differ"] for c in cases) / sum(c["y"]["elements"] for c in cases)
sw_steps = max(c["swiglu"]["max_steps"] for c in cases)
comp = r.data["compiled"]

h_text = ("The new residual `h` came out bit-identical to eager's at every shape"
          if h_ok else "The new residual `h` was **not** bit-identical to eager's at every shape, which a single "
          "rounded add should be")
y_text = (f"the normalised `y` was at most {y_steps} bf16 step{'s' if y_steps != 1 else ''} away "
          f"(largest difference {page.num(worst['max_abs'], 4)}, where one step is "
          f"{page.num(worst['step_at_max'], 4)}), in {page.pct(differ, 3)} of all elements")
print(
    f"{h_text}; {y_text}. The row's sum of squares is added up in a different order by `tl.sum` than by eager's "
    f"reduction kernel, so its last fp32 bit can differ and, now and then, tip a rounding to bf16"
    + ("; one step in the normalised value, before the weight multiplies it, can become two after it where the "
       "(random) weight is above 1. " if y_steps > 1 else ". ")
    + ("The article saw the same" if h_ok == article["h_bit_identical"] and y_steps <= article["y_max_steps"]
       else "The article saw less") + f": `h` {'bit for bit' if article['h_bit_identical'] else 'not identical'}, "
    f"`y` within {article['y_max_steps']} step ({article['y_max_abs']}). "
    + ("SwiGLU matched eager bit for bit at every shape. " if sw_steps == 0 else
       f"SwiGLU was at most {sw_steps} step{'s' if sw_steps != 1 else ''} from eager. ")
    + "`torch.compile` of the unchanged functions was at most "
    + f"{comp['y']['max_steps']} step{'s' if comp['y']['max_steps'] != 1 else ''} from eager on `y` and "
    f"{comp['swiglu']['max_steps']} on SwiGLU"
    + (": it keeps the intermediate values in fp32 where eager rounds them to bf16."
       if comp["swiglu"]["differ"] or comp["y"]["differ"] else ".")
)
