from kernelbook import inductor_code as ic
from kernelbook import page

r = page.result("inductor.compile_time")
laptop = page.result("inductor.compile_time", "nvidia-geforce-rtx-4060-laptop-gpu").data
try:
    six = page.result("decode.six_ways")
except (KeyError, FileNotFoundError):
    six = None

names = {"add_rmsnorm": "add + RMSNorm, 8,192 × 4,096", "mlp_1token": "MLP half, 1 token"}
rows = []
for case, label in names.items():
    c, w = r.data[case]["cold"], r.data[case]["warm"]
    hits = ", ".join(f"{k.split('.')[-1]} {v}" for k, v in sorted(w["cache"].items()) if "hit" in k) or "none"
    rows.append([label, page.num(c["first_call_s"], 2), page.num(w["first_call_s"], 2),
                 page.num(c["second_call_s"] * 1e3, 2), hits])
if six is not None:
    for mode in ("default", "reduce-overhead", "max-autotune"):
        v = ic.find_variant(six.data, mode)
        s = ic.dig(v, "compile_s", "compile.seconds", "compile_time_s", "compile.cold_s") if v else None
        warm = ic.dig(v, "compile_warm_s", "compile.warm_s") if v else None
        rows.append([f"decode step, {mode} (decode chapter)", page.num(s, 1), page.num(warm, 1), "—", "—"])
print(page.table(["function", "first call, cold cache (s)", "first call, warm cache, new process (s)",
                  "second call (ms)", "cache hits when warm"], rows))
print(page.provenance(r))
if six is not None:
    print(page.provenance(six))
print(f"\n<p class=\"kb-provenance\">The article's laptop: add + RMSNorm {laptop['add_rmsnorm_cold_s']} s cold; the "
      f"decode step {laptop['decode_cold_s_low']}–{laptop['decode_cold_s_high']} s cold depending on the mode, "
      f"{laptop['decode_warm_s_low']}–{laptop['decode_warm_s_high']} s with a warm cache.</p>\n")
