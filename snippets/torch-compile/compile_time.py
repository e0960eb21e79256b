from kernelbook import page

r = page.result("torch_compile.compile_time")
laptop = page.result("torch_compile.compile_time", "nvidia-geforce-rtx-4060-laptop-gpu").data
six = page.result("decode.six_ways")  # the decode chapter compiles the 1.5B step in each mode, cold

names = {"add_rmsnorm": "add + RMSNorm, 8,192 × 4,096", "mlp_1token": "MLP half, 1 token"}
rows = []
for case, label in names.items():
    c, w = r.data[case]["cold"], r.data[case]["warm"]
    hits = ", ".join(f"{k.split('.')[-1]} {v}" for k, v in sorted(w["cache"].items()) if "hit" in k) or "none"
    rows.append([label, page.num(c["first_call_s"], 2), page.num(w["first_call_s"], 2),
                 page.num(c["second_call_s"] * 1e3, 2), hits])
cw = page.result("decode.compile_warm")  # the decode step compiled in two new processes sharing one cache dir
for mode in ("default", "reduce-overhead", "max-autotune"):
    key = "compile_" + mode.replace("-", "_")
    if key in cw.data["modes"]:
        cold, warm = cw.data["cold"]["modes"][key], cw.data["warm"]["modes"][key]
        rows.append([f"decode step, {mode}", page.num(cold["compile_s"], 1), page.num(warm["compile_s"], 1),
                     page.num(warm["calls_s"][-1] * 1e3, 2), "—"])
    else:  # cold only, from the decode chapter's run
        setup = six.data["setup"][key]
        rows.append([f"decode step, {mode} (decode chapter's run)", page.num(setup["compile_s"], 1), "not measured",
                     page.num(setup["calls_s"][-1] * 1e3, 2), "—"])
print(page.table(["function", "first call, cold cache (s)", "first call, warm cache, new process (s)",
                  "second call (ms)", "cache hits when warm"], rows))
print(page.provenance(r))
print(page.provenance(cw))
print(page.provenance(six))
print(f"\n<p class=\"kb-provenance\">The article's laptop: add + RMSNorm {laptop['add_rmsnorm_cold_s']} s cold; the "
      f"decode step {laptop['decode_cold_s_low']}–{laptop['decode_cold_s_high']} s cold depending on the mode, "
      f"{laptop['decode_warm_s_low']}–{laptop['decode_warm_s_high']} s with a warm cache.</p>\n")
