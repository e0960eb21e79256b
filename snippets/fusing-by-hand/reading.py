from kernelbook import page

r = page.result("fusing_by_hand.versions")
laptop = page.result("fusing_by_hand.versions", "nvidia-geforce-rtx-4060-laptop-gpu").data
v = {(x["op"], x["key"]): x for x in r.data["versions"]}
ms = {k: x["time"]["median"] for k, x in v.items()}
actual = [x["actual_gbps"] for x in r.data["versions"] if x["actual_gbps"]]
share = [x["share_of_copy"] for x in r.data["versions"] if x["share_of_copy"]]
copy = r.data["copy"]["gbps"]
speed = v[("add_rmsnorm", "triton")]["speedup"]
cut = 1 - ms[("swiglu", "triton")] / ms[("swiglu", "eager")]
tie = {op: ms[(op, "compiled")] / ms[(op, "triton")] - 1 for op in ("add_rmsnorm", "swiglu")}
tie_limit = laptop["compiled_vs_triton_within"]


def versus(op: str, name: str) -> str:
    d = tie[op]
    if abs(d) <= tie_limit:
        return f"tied the hand-written {name} within {page.pct(abs(d), 1)}"
    return (f"was {page.pct(abs(d), 1)} {'slower' if d > 0 else 'faster'} than the hand-written {name}")


rms = v[("add_rmsnorm", "rms_norm")]
print(
    f"Divide the bytes each version moved by its time and the rows land between {page.num(min(actual), 0)} and "
    f"{page.num(max(actual), 0)} GB/s, {page.pct(min(share))} to {page.pct(max(share))} of the "
    f"{page.num(copy, 0)} GB/s copy measured in the same process; the article's laptop put every row between "
    f"{laptop['actual_gbps_low']} and {laptop['actual_gbps_high']} GB/s, its own copy ceiling. "
    + ("So here too the eager versions run at close to full bandwidth: they are slow because they have more to move. "
       if min(share) > 0.8 else
       "Here the versions do not all run at the ceiling, so bytes alone do not explain every time. ")
    + f"Fusion made add + RMSNorm {page.num(speed, 1)} times faster (the laptop: {laptop['add_rmsnorm_speedup']}) and "
    f"cut SwiGLU's time by {page.pct(cut)} (the laptop: {page.pct(laptop['swiglu_time_cut'])}). "
    f"Swapping the spelled-out norm for `F.rms_norm` leaves {rms['kernels']} kernels and "
    f"{page.num(rms['speedup'], 1)}× eager's speed. The compiled add + RMSNorm {versus('add_rmsnorm', 'kernel')}, "
    f"and the compiled SwiGLU {versus('swiglu', 'one')}; on the laptop both tied within "
    f"{page.pct(tie_limit, 1)}."
)
