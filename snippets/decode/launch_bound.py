from kernelbook import page
from kernelbook.decode import report

m = page.result("machine.ceilings").data["launch"]
d = page.result("decode.six_ways").data
st = report.variant_summary(d, "eager_static")
launch_ms = st["kernels"] * m["eager_us_per_launch"] / 1e3
graph_ms = st["kernels"] * m["graph_us_per_launch"] / 1e3
floor = d["floor_ms"]
print(
    f"A decode step reads every weight once: {page.num(d['weight_bytes'] / 1e9, 3)} GB, which at the "
    f"{page.num(d['copy']['gbps'], 0)} GB/s copy bandwidth measured in the same run takes "
    f"**{page.num(floor, 2)} ms**. The same step, run eagerly with a StaticCache, launches "
    f"{page.num(st['kernels'], 0)} kernels. At the launch cost above, launching them one by one takes about "
    f"{page.num(launch_ms, 2)} ms whatever the kernels compute, "
    + (f"{page.num(launch_ms / floor, 1)} times the floor. " if launch_ms > floor else
       f"{page.pct(launch_ms / floor)} of the floor. ")
    + f"From a graph the same launches cost about {page.num(graph_ms, 2)} ms. "
    + ("So eager batch-1 decode is bound by launches before it is bound by bandwidth: "
       if launch_ms > floor else "Launches are not the larger cost here, but they are not small either: ")
    + "most of its kernels are tiny (norms, rotary embedding, residual adds, cache writes), and a tiny kernel costs "
    "a full launch."
)
