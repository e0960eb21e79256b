from kernelbook import page

r = page.result("fusing_by_hand.exactness")


def diff(c: dict) -> str:
    if c["bit_identical"]:
        return "identical"
    return (f"{c['differ']:,} differ ({100 * c['differ'] / c['elements']:.3g}%), max {page.num(c['max_abs'], 4)} = "
            f"{c['max_steps']} step{'s' if c['max_steps'] != 1 else ''}")


rows = [[f"{c['shape'][0]:,} × {c['shape'][1]:,}", f"{c['shape'][0] * c['shape'][1]:,}", diff(c["h"]),
         diff(c["y"]), diff(c["swiglu"])] for c in r.data["triton"]]
c = r.data["compiled"]
rows.append([f"torch.compile, {c['shape'][0]:,} × {c['shape'][1]:,}", f"{c['shape'][0] * c['shape'][1]:,}",
             diff(c["h"]), diff(c["y"]), diff(c["swiglu"])])
print(page.table(["shape (Triton unless named)", "elements", "h = x + residual", "y = RMSNorm(h)",
                  "SwiGLU"], rows, align="lrlll"))
print(page.provenance(r))
