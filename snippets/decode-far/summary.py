from kernelbook import page
from kernelbook.chapters.decode_far import report as far_report

r = page.result("decode_far.ladder")
d = r.data
base, last, g = far_report.baseline(d), far_report.final(d), far_report.goal(d)
failed = [s["label"] for s in far_report.summaries(d).values() if not s["passed"]]
if base is None or last is None:
    missing = d["baseline"] if base is None else d["steps"][-1]
    print(f"On this {page.machine_label(r)} the variant `{missing}` could not be built or timed, so the ladder has "
          f"no {'start' if base is None else 'end'} to compare: see the build errors below.")
else:
    goal_ms = page.num(g["goal_ms"], 1)
    if g["met"]:
        verdict = f"The goal, at most {goal_ms} ms per step, is **met**"
    elif not g["passed"]:
        verdict = (f"That step **failed its correctness check**, so its time does not count and the goal "
                   f"({goal_ms} ms) is **not met**")
    else:
        verdict = (f"The goal, at most {goal_ms} ms per step, is **not met**: the last step is "
                   f"{page.num(g['over_ms'], 2)} ms ({page.pct(g['over_ms'] / g['goal_ms'])}) over it")
    loop = ""
    if g["loop_ms"] is not None:
        n = f"{d['loop_steps']} steps" if d.get("loop_steps") else "steps"
        loop = (f" Run back to back, {n} with one synchronisation at the end instead of one around every step, it "
                f"took {page.num(g['loop_ms'], 2)} ms, which "
                + ("is within the goal." if g["loop_met"] else "is over it too." if g["loop_ms"] > g["goal_ms"] else
                   "would be within the goal had the step passed its check."))
    print(
        f"On this {page.machine_label(r)}, the plain CUDA graph of Hugging Face's decode step took "
        f"**{page.num(base['step_ms'], 2)} ms** per token. After {len(d['steps'])} changes, each checked against "
        f"eager logits before it was timed, the last step ({last['label'].lstrip('+ ')}) took "
        f"**{page.num(last['step_ms'], 2)} ms**, {page.num(base['step_ms'] / last['step_ms'], 1)} times faster, "
        f"with {page.num(last['kernels'], 0)} kernels instead of {page.num(base['kernels'], 0)}. That is "
        f"{page.pct(last['floor_share'])} of the bandwidth floor: "
        f"{page.num(d['weight_bytes'] / 1e9, 3)} GB of weights at the {page.num(d['copy']['gbps'], 0)} GB/s copy "
        f"bandwidth measured in the same run take {page.num(d['floor_ms'], 3)} ms. {verdict}.{loop}"
        + (f" **{', '.join(failed)} failed the check**; "
           f"{'its time is' if len(failed) == 1 else 'their times are'} struck out below." if failed else "")
    )
