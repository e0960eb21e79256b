from kernelbook import page

r = page.result("sol.swiglu")
OTHERS = ["Triton (chapter's block)", "torch.compile", "Liger-Kernel", "eager"]


def cell(v: dict) -> str:
    return "fails" if "error" in v else f"{v['share_of_copy'] * 100:.0f}%"


rows = []
for s in r.data["shapes"]:
    v = s["versions"]
    best = v["Triton (best block)"]
    rows.append([f"{s['rows']:,} × {s['hidden']:,}", page.num(s["bytes"] / 2**20, 1), s["timing"],
                 page.num(v["same-bytes copy"]["gbps"], 0), f"{page.num(best['gbps'], 0)} ({cell(best)})",
                 f"{s['best_config'][0]} × {s['best_config'][1]}", *[cell(v[o]) if o in v else "—" for o in OTHERS]])
print(page.table(["rows × width", "MiB moved", "timed by", "copy GB/s", "best kernel GB/s (of copy)",
                  "block × warps", *OTHERS], rows, name="sol-swiglu"))
print(page.provenance(r))
