from kernelbook import page
from kernelbook.chapters.speed_of_light import report as sol_report

d = page.result("speed_of_light.add_rmsnorm").data
small = sorted({s["rows"] for s in d["shapes"] if s["small"]})
copies = [s["versions"]["copy"]["values"] for s in d["shapes"] if not s["small"]]
moved = max((max(v) - min(v)) / min(v) for v in copies)  # the copy's widest range over rounds, large shapes
print(
    "Every version is captured in a CUDA graph and timed replaying it, so no version pays for its host side "
    "(Python, `torch.compile`'s guards, the launch itself). Large shapes are one call per graph, timed with "
    f"`triton.testing.do_bench` (median, L2 cleared before each replay) in {d['rounds']} interleaved rounds. Each "
    "round draws fresh inputs and outputs, shared by every version in it and at addresses no other round uses, so "
    "a median is taken over where the buffers land in memory as well as over time (the copy's rounds spanned up to "
    f"{moved * 100:.1f}% at a large shape). "
    f"Shapes of {small[0]} to {small[-1]} rows, the decode case, are {d['graph_calls']} launches per graph, back "
    "to back. `torch.compile` is compiled for each shape (`dynamic=False`), so its kernels are tuned at that "
    "shape, as ours are. The "
    f"{d['finalists']} fastest configurations of each sweep, the copy's and the kernel's, run in the rounds beside "
    "the other versions, and the fastest median among them is reported. Percentages are each version's share of "
    "the same-bytes copy at that shape, measured in the same process. A goal mark (✓) needs at least "
    f"{page.pct(sol_report.GOAL_SHARE)} of the copy and a time ahead of "
    f"{sol_report.rivals_text('speed_of_light.add_rmsnorm')}, at every shape that moves {sol_report.BIG_TEXT} or more."
)
