from kernelbook import page
from kernelbook.chapters.decode_far import report as far_report

r = page.result("decode_far.ladder")
d = r.data
WHAT = dict(far_report.SITE_WHAT)
if "attention" in d.get("tuning", {}):
    splits = d["tuning"]["attention"]["best"][1]
    WHAT["attention"] += f", split {splits} ways + merge" if splits > 1 else ", one program per head"
rows = far_report.tuning_rows(d)
print(page.table(
    ["site", "computes", "MiB read / launch", "best config", "µs / launch", "GB/s", "of copy",
     "slowest of the configs tried"],
    [[f"`{t['site']}`", WHAT.get(t["site"], "—"),
      "—" if t["bytes"] is None else page.num(t["bytes"] / 2**20, 2 if t["bytes"] < 2**20 else 1),
      " × ".join(str(x) for x in t["best"]),
      page.num(t["us"], 2), page.num(t["gbps"], 0),
      page.pct(t["share_of_copy"]), f"{page.num(t['slowest_us'], 2)} µs ({t['candidates']} tried)"] for t in rows],
    align="llrlrrrr", name="decode-far-tuning"))
over = [t["site"] for t in rows if t["share_of_copy"] > 1]
print(
    "Config: rows (pairs, for the paired kernels) per program × BLOCK_K × warps"
    + ("; for attention, slots per block × splits × warps. " if "attention" in d.get("tuning", {}) else ". ")
    + "Timed as one launch per layer on that layer's real weights (for `lm_head`, repeated launches on the embedding, "
    "which is far larger than L2), all replayed from one CUDA graph, so the weights come from memory and not from "
    "L2; µs per launch includes the hand-off to the next launch. GB/s: bytes read per launch (weights; for "
    "attention, the keys and values of the filled slots) over that time. "
    f"Copy: {page.num(d['copy']['gbps'], 0)} GB/s, bytes read plus bytes written "
    f"by a {page.num(d['copy']['bytes_moved'] / 2 / 2**30, 0)} GiB device copy in the same run"
    + (f"; a matvec only reads, which is why {', '.join(f'`{s}`' for s in over)} can pass 100%." if over else ".")
    + (f" Tuning all sites took {page.num(d['tune_s'], 0)} s." if "tune_s" in d else "")
)
retuned = far_report.in_step_rows(d)  # every site tuned again inside each fused step
if retuned:
    reps = d.get("in_step_back_to_back")
    at = next(iter(d["in_step"].values())).get("positions")
    print("\n\nTuned again inside the step, one site at a time (attention first, then in launch order), each "
          "candidate captured in the whole step and the step replayed"
          + (f" {reps} times back to back" if reps else "")
          + (f", at positions {' and '.join(map(str, at))}, the first and last the steps are timed at, and "
             "averaged" if at else "") + ":\n")
    print(page.table(
        ["step", "site", "configs tried", "config alone", "config in the step", "µs / step, config alone",
         "µs / step, chosen"],
        [[d["labels"][x["step"]], f"`{x['site']}`", x["candidates"], " × ".join(map(str, x["alone"])),
          " × ".join(map(str, x["best"])) + ("" if x["best"] != x["alone"] else " (same)"),
          "—" if x["alone_us"] is None else page.num(x["alone_us"], 1), page.num(x["best_us"], 1)] for x in retuned],
        align="llrllrr", name="decode-far-in-step"))
    for step in d.get("in_step", {}):
        start, end = far_report.in_step_gain(d, step)
        if start is not None:
            print(f"\nInside “{d['labels'][step]}”, every site at its config alone gave {page.num(start, 1)} µs per "
                  f"step; retuned inside the step, {page.num(end, 1)} µs ({page.pct((start - end) / start, 1)} less).")
print(page.provenance(r))
