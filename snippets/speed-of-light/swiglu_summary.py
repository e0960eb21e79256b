from kernelbook import page
from kernelbook.chapters.speed_of_light import report as sol_report

r = page.result("speed_of_light.swiglu")
RIVALS = sol_report.RIVALS[r.experiment]
OURS = sol_report.OURS
CHECK = {"compiled": "compiled", "liger": "liger"}  # where each rival's comparison with eager is stored
big = [s for s in r.data["shapes"] if sol_report.big(s)]
ours = [s["versions"][OURS] for s in big]
rivals = [[s["versions"][o] for o in RIVALS if "ms" in s["versions"].get(o, {})] for s in big]
spread = max(max(v["share_of_copy"] for v in [b, *rs]) - min(v["share_of_copy"] for v in [b, *rs])
             for b, rs in zip(ours, rivals, strict=True))


ahead_at, level, behind, inexact = [], [], [], []
for s in big:
    at = sol_report.shape_text(s)
    pairs = sol_report.against(s, r.experiment)  # ours minus each rival, placement by placement
    if not (not_ahead := sol_report.behind(s, r.experiment)):
        ahead_at.append(at)
    for verdict, found in (("level", level), ("behind", behind)):
        if named := [o for o in not_ahead if pairs[o]["verdict"] == verdict]:
            found.append(f"{' and '.join(named)} at {at}")
    exact = all(s["check"][k]["bit_identical"] for k in ("triton", "ieee", "approx") if k in s["check"])
    for o in not_ahead:  # a rival ours did not beat that does not compute eager's output is worth saying so
        c = s["check"].get(CHECK[o])
        if exact and c and not c["bit_identical"] and not any(t.startswith(o) for t in inexact):
            inexact.append(
                f"{o}'s output was not eager's: at {at} it differed at {c['differ'] / c['elements']:.0%} of "
                f"the elements, by at most {c['max_steps']} bf16 step{'' if c['max_steps'] == 1 else 's'}, while ours "
                "matched eager bit for bit (eager rounds silu(g) to bf16 before the multiply; a kernel that skips "
                "that rounding lands a step away wherever it mattered).")
met = sum(sol_report.met(s, r.experiment) for s in big)
n = {len(ms) for s in big for ms in s["placements"].values()}
miss = r.data["mismatches"]
approx_won = sum(not s["best_config"][2] for s in big)
divide_text = (
    f"Of the {miss['ieee']['pairs']:,} pairs of bf16 g and u, {miss['ieee']['differ']:,} gave an output other than "
    f"eager's through the IEEE divide and {miss['approx']['differ']:,} through the approximate one"
    + (f", so both were swept; the approximate divide was in the best configuration at {approx_won} of the "
       f"{len(big)} large shapes. " if miss["approx"]["differ"] == 0 else ", so only the IEEE divide was swept. "))
print(
    divide_text
    + f"At the {len(big)} shapes that move at least {sol_report.BIG_TEXT}, the SwiGLU kernel's best configuration "
    f"reached {page.pct_down(min(b['share_of_copy'] for b in ours))} to "
    f"{page.pct_down(max(b['share_of_copy'] for b in ours))} of the copy, and at each shape it, "
    f"{sol_report.rivals_text(r.experiment)} were at most {spread * 100:.1f} points apart in the rounds"
    + (": three elementwise kernels at the copy's speed. " if spread < 0.02 else ". ")
    + f"Whether ours was ahead is read from the {' or '.join(map(str, sorted(n)))} paired placements of each shape "
    f"(below), with a {sol_report.CONFIDENCE:.0%} bootstrap interval for the median difference. "
    + (f"Over them ours was ahead of {'both' if len(RIVALS) == 2 else 'all'} at {' and '.join(ahead_at)}"
       if ahead_at else f"Over them ours was not ahead of {'both' if len(RIVALS) == 2 else 'all'} at any shape")
    + (f"; it was level with {' and with '.join(level)}" if level else "")
    + (f"; it was behind {' and '.join(behind)}" if behind else "")
    + (f" (the placements table below gives each difference), so the goal is met at {met} of {len(big)} shapes."
       if met < len(big) else f": the goal is met at {met} of {len(big)}.")
    + "".join(" " + t for t in inexact)
)
