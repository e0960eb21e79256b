from kernelbook import page
from kernelbook.decode import report

d = page.result("decode.six_ways").data
laptop = page.result("decode.six_ways", report.LAPTOP).data
rows = report.free_running_table(d)
departed = [x for x in rows if x["step"] is not None]
wide = [x for x in departed if x["ref_gap"] > d["band"]]
gap = report.median_gap(d)
print(
    ("With random weights the next-token distribution is nearly flat: " if gap < 3 * d["band"] else
     "With random weights the next-token distribution is flatter than a trained model's: ")
    + f"over eager's {d['check_steps']} free-running "
    f"steps the median gap between the two best logits was {page.num(gap, 3)}, against the "
    f"{page.num(d['band'], 3)} that rounding alone can move a logit here (the band of the teacher-forced check). "
    + (f"{len(departed)} of the {len(rows)} variants left eager's token list within {d['check_steps']} steps. "
       "After the first different token the runs feed different inputs, so what follows differs too. "
       if departed else "Even so, all six produced the same token list here. ")
    + ("The article's real model gave six identical lists; trained weights rarely leave two candidates this close. "
       if laptop["all_six_same_tokens"] else "")
    + ("" if not departed else
       "Every departure came at a step where eager's two leading logits were within that band: a near-tie broken "
       "the other way by a different rounding, not a wrong step. " if not wide else
       f"{len(wide)} departure{'s' if len(wide) != 1 else ''} came at a step where eager's lead was wider than "
       "that band, which rounding alone does not explain. ")
    + "The teacher-forced check above, not this list, decides whether a variant is right."
)
