from kernelbook import inductor_code as ic
from kernelbook import page

r = page.result("inductor.modes")
try:
    six = page.result("decode.six_ways")
except (KeyError, FileNotFoundError):
    six = None
flags = sorted({f for opts in r.data["options"].values() for f in opts})
rows = []
for mode, opts in r.data["options"].items():
    row = [f"`{mode}`"] + ["on" if opts.get(f) else "—" for f in flags]
    if six is not None:
        v = ic.find_variant(six.data, mode)
        row += [ic.dig(v, "kernel_names.triton", "kernels.triton", "triton_kernels", "kernel_summary.triton"),
                ic.dig(v, "kernel_names.other", "kernels.other", "other_kernels", "kernel_summary.other")] if v else [
                    "—", "—"]
    rows.append(row)
heads = ["mode"] + [f"`{f}`" for f in flags] + (["decode step: triton_* kernels", "other kernels"] if six else [])
print(page.table(heads, rows, align="l" + "c" * len(flags) + "rr" * (six is not None)))
print("\nDefaults in this torch: " + ", ".join(f"`{k} = {v}`" for k, v in r.data["config_defaults"].items()) + ".\n")
print(page.provenance(r))
if six is not None:
    print(page.provenance(six))
