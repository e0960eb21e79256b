from kernelbook import page, sol_report
from kernelbook.sol_swiglu import AGAIN, CHAPTER

r = page.result("sol.swiglu")
RIVALS = sol_report.RIVALS[r.experiment]
CHECK = {"torch.compile": "compiled", "Liger-Kernel": "liger"}  # where each rival's comparison with eager is stored
big = [s for s in r.data["shapes"] if sol_report.big(s)]
ours = [s["versions"]["Triton (best block)"] for s in big]
rivals = [[s["versions"][o] for o in RIVALS if "ms" in s["versions"].get(o, {})] for s in big]
spread = max(max(v["share_of_copy"] for v in [b, *rs]) - min(v["share_of_copy"] for v in [b, *rs])
             for b, rs in zip(ours, rivals, strict=True))


def by(rival: dict, b: dict) -> str:  # how far a rival was ahead: points of the copy, and time when under 0.1 point
    points = (rival["share_of_copy"] - b["share_of_copy"]) * 100
    return f"{points:.1f} points" if points >= 0.1 else f"{points:.2f} points, {(b['ms'] - rival['ms']) * 1e3:.2f} µs"


lost, twins, inexact = [], [], []
for b, s in zip(ours, big, strict=True):
    if ahead := sol_report.behind(s, r.experiment):
        where = f"{s['rows']:,} × {s['hidden']:,}"
        lost.append(f"at {where} " + " and ".join(f"{o} (by {by(s['versions'][o], b)})" for o in ahead)
                    + (" were" if len(ahead) > 1 else " was") + " ahead of ours")
        exact = all(s["check"][k]["bit_identical"] for k in ("triton", "ieee", "approx") if k in s["check"])
        for o in ahead:  # a rival ahead that does not compute eager's output is worth saying so
            c = s["check"].get(CHECK[o])
            if exact and c and not c["bit_identical"]:
                inexact.append(
                    f"{o}'s output there was not eager's: it differed at {c['differ'] / c['elements']:.0%} of the "
                    f"elements, by at most {c['max_steps']} bf16 step{'' if c['max_steps'] == 1 else 's'}, while ours "
                    "matched eager bit for bit (eager rounds silu(g) to bf16 before the multiply; a kernel that skips "
                    "that rounding lands a step away wherever it mattered).")
        # the chapter's launch runs twice in every round, as two versions: the distance between the two is one
        # reading of the timer's noise at this shape
        first = max(ahead, key=lambda o: s["versions"][o]["share_of_copy"])
        lead = b["ms"] - s["versions"][first]["ms"]
        twin = abs(s["versions"][CHAPTER]["ms"] - s["versions"][AGAIN]["ms"])
        twins.append(f"At {where} the chapter's launch, timed twice in the same rounds as two versions, landed "
                     f"{twin * 1e3:.2f} µs apart, against {first}'s lead of {lead * 1e3:.2f} µs" + (
                         ": a tie as far as this timer can tell, and the goal counts only a lead."
                         if twin >= lead else ": in this run the lead was wider than that."))
met = sum(sol_report.met(s, r.experiment) for s in big)
lost_text = "; ".join(lost)
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
    f"{sol_report.rivals_text(r.experiment)} were at most {spread * 100:.1f} points apart"
    + (": three elementwise kernels at the copy's speed. " if spread < 0.02 else ". ")
    + (f"{lost_text[0].upper()}{lost_text[1:]}, so the goal is met at {met} of {len(big)} shapes."
       if lost else f"Ours was ahead of {'both' if len(RIVALS) == 2 else 'all'} at every one of them: the goal is met "
       f"at {met} of {len(big)}.")
    + "".join(" " + t for t in twins + inexact)
)
