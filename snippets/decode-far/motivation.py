from kernelbook import page
from kernelbook.chapters.decode_far import report as far_report
from kernelbook.decode import report

six = page.result("decode.six_ways").data
lap = page.result("decode.six_ways", report.LAPTOP).data["variants"]["compile_max_autotune"]
far = page.result("decode_far.ladder").data
best = report.best_valid(six)
need = far_report.goal(far)["floor_share_needed"]
if best is None:
    print("In the decode chapter no variant passed its check, so there is no best step to start from.")
else:
    print(
        f"The decode chapter's fastest correct step on this H200, {best['label']}, took "
        f"{page.num(best['step_ms'], 2)} ms: {page.pct(best['floor_share'])} of the bandwidth floor, the "
        f"{page.num(six['floor_ms'], 2)} ms it takes to read every weight once. The article's laptop, with "
        f"{'the same variant' if best['name'] == 'compile_max_autotune' else 'max-autotune'}, reached "
        f"{page.pct(lap['floor_share'])} of its own floor. On the H200 the weights are read at "
        f"{page.num(six['copy']['gbps'] / 1e3, 1)} TB/s, and "
        + ("most of the step is spent on something other than reading them. " if best["floor_share"] < 0.5 else
           "the rest of the step is spent on something other than reading them. ")
        + f"The goal set for this page: a correct step in at most {page.num(far_report.GOAL_MS, 1)} ms, "
        f"{page.pct(need)} of the floor."
    )
