from kernelbook import page
from kernelbook.chapters.speed_of_light import figures, report

r = page.result("speed_of_light.swiglu")
AGAINST = ["copy", *figures.RIVALS[r.experiment]]  # ours minus each, placement by placement


def us(ms: float) -> str:  # a signed difference in µs, with a true minus sign; none where it rounds to zero
    return "0.00" if abs(ms) < 5e-6 else f"{ms * 1e3:+.2f}".replace("-", "−")


heads = ["rows × width", "ours: block × warps, divide", "placements",
         *[h for o in AGAINST for h in (f"ours − {figures.LABELS[o]}, µs",
                                        f"placements ours beat {figures.LABELS[o]} on",
                                        f"ours vs {figures.LABELS[o]}")]]  # unique: the JSON download keys on them
rows, shown = [], []
for s in r.data["shapes"]:
    if not figures.big(s):
        continue
    pairs = figures.against(s, tuple(AGAINST))
    diff = {o: f"{us(pairs[o]['median'])} [{us(pairs[o]['low'])}, {us(pairs[o]['high'])}]" for o in AGAINST}
    rows.append([figures.shape_text(s), report.swiglu_config(s["best_config"]), len(s["placements"]["ours"]),
                 *[cell for o in AGAINST for cell in (diff[o], pairs[o]["faster"], pairs[o]["verdict"])]])
    shown.append([figures.shape_text(s), report.swiglu_config(s["best_config"]),
                  *[f"{diff[o]}<br>{pairs[o]['verdict']}" for o in AGAINST]])
SHORT = {"copy": "copy"}  # the heads on the page: the copy by its short name
print(report.table(["rows × width", "ours", *[f"ours − {SHORT.get(o, figures.LABELS[o])}, µs" for o in AGAINST]],
                   shown, "llrrr", "sol-swiglu-placements", full=(heads, rows)))
print(f'\n<p class="kb-provenance">One run\'s placements: {report.newest(r)}.</p>\n')
print(page.provenance(r))
