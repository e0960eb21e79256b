from kernelbook import page
from kernelbook.chapters.speed_of_light import report as sol_report

r = page.result("speed_of_light.swiglu")
reg = next(s for s in r.data["shapes"] if "registers" in s)["registers"]  # read from the compiled kernel
held = {d: sol_report.programs_per_sm(n, reg["warps"], reg["threads_per_sm"]) for d, n in reg["per_thread"].items()}
OURS = sol_report.OURS
big = [s for s in r.data["shapes"] if sol_report.big(s)]
over = [s for s in big if s["versions"][OURS]["share_of_copy"] > 1]  # ours faster than the copy
by_ieee = sum(s["best_config"][2] for s in over)
print(
    f"Compiled for the chapter's launch, the kernel holds {reg['per_thread']['ieee']} registers per thread with the "
    f"IEEE divide and {reg['per_thread']['approx']} with the approximate one, so one SM runs {held['ieee']} of its "
    f"{reg['warps']}-warp programs at once instead of {held['approx']}, and keeps fewer loads in flight. "
    + (f"Ours was faster than the copy at {len(over)} of the {len(big)} large shapes, "
       + ("every time with the IEEE divide: the slower arithmetic, in the faster kernel." if by_ieee == len(over)
          else f"{by_ieee} of them with the IEEE divide.") if over
       else "Ours was not faster than the copy at any large shape.")
)
