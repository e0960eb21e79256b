from kernelbook import page

d = page.result("decode.six_ways").data
trap = page.result("decode.constraints").data["trap"]["without_reset"]  # the broken replay shown further down
y = d["yardstick_fp32"]
tf = d["teacher_forced"]
failed = [d["labels"][n] for n in d["names"] if not tf[n]["passed"]]
compiled = [n for n in d["names"] if n.startswith("compile")]
worst = max(compiled, key=lambda n: tf[n]["rel_err_max"]) if compiled else None
print(
    f"The tolerance is measured, not chosen. The same eager StaticCache step run in float32, on the same weights, "
    f"puts the bf16 logits at most {page.num(100 * y['rel_err_max'], 2)}% away (relative error of the whole "
    f"logit vector, worst of {d['check_steps']} steps; largest single-logit difference "
    f"{page.num(y['max_abs'], 3)}). That is what bf16 rounding alone does to this model. A compiled step rounds "
    f"differently from eager, and each lands about that far from the exact answer, so two correct bf16 results can "
    f"differ by up to about twice it; the check allows {page.num(d['tol_factor'], 0)} times it, "
    f"{page.num(100 * d['tolerance'], 2)}%. A broken step misses by far more: the cache-counter trap below "
    f"gives {page.num(100 * trap['rel_err'], 0)}%. Top-1 disagreements are allowed only at steps where the "
    f"reference's two best logits are "
    f"within {page.num(d['band'], 3)} of each other ({page.num(d['tol_factor'], 0)} times the largest rounding "
    f"difference), since an error that small could swap them there and nowhere else. "
    + (f"Of the compiled variants, {d['labels'][worst]} strayed furthest, "
       f"{page.num(100 * tf[worst]['rel_err_max'], 2)}%. " if worst else "")
    + (f"All {len(d['names'])} passed, so every time below is a time for a correct step."
       if not failed else
       f"**{', '.join(failed)} failed**: {'its' if len(failed) == 1 else 'their'} times below are marked and do "
       "not count.")
)
