from kernelbook import page

r = page.result("torch_compile.modes")
mix = page.result("decode.six_ways")  # kernels per decode step in each mode, from the decode chapter's profile
flags = sorted({f for opts in r.data["options"].values() for f in opts})
FACTS = {"max-autotune": "decode_ma", "reduce-overhead": "decode_ro"}  # the counts the prose quotes: its facts
rows = []
for mode, opts in r.data["options"].items():
    row = [page.code(mode)] + ["on" if opts.get(f) else "—" for f in flags]
    k = mix.data["kernel_mix"]["compile_" + mode.replace("-", "_")]  # the same in every run of decode.six_ways
    rows.append(row + ([page.fact("torch_compile", f"{FACTS[mode]}_{c}") for c in ("triton", "other")]
                       if mode in FACTS else [k["triton"], k["other"]]))
heads = ["mode"] + [page.code(f) for f in flags] + ["decode step: triton_* kernels", "other kernels"]
print(page.table(heads, rows, align="l" + "c" * len(flags) + "rr"))
defaults = page.lines((page.code(f"{k} = {v}") for k, v in r.data["config_defaults"].items()), ", ")
print(f"\nDefaults in this torch: {defaults}.\n")
print(page.provenance(r))
print(page.provenance(mix))
