from kernelbook import across, page
from kernelbook.chapters.decode_far import report as far_report

r = page.result("decode_far.ladder")
runs = across.datas("decode_far.ladder") or [r.data]  # every fresh run of the current code
d = r.data
rows = far_report.median_waterfall(runs)
loop = any(s["loop_ms"] is not None for s in rows)


def saved(s: dict) -> str:
    if s["saved_ms"] is None:
        return "—"
    return f"{'−' if s['saved_ms'] >= 0 else '+'}{page.num(abs(s['saved_ms']), 2)}"


def checked(s: dict) -> str:
    if not s["checked"]:
        return "not checked"
    if s["rel_err_max"] is None:
        how = f"{s['nonfinite']:,} non-finite logits" if s["nonfinite"] else "no error recorded"
    else:
        how = "bit-identical" if s["bit_identical"] else f"{page.num(100 * s['rel_err_max'], 2)}%"
    return f"{how}, **{'passed' if s['passed'] else 'FAILED'}**"


table = []
for s in rows:
    step = page.num(s["step_ms"], 3)
    table.append([
        s["label"], step if s["passed"] else f"~~{step}~~", f"±{page.num(50 * s['spread'], 1)}%",
        *([page.num(s["loop_ms"], 3)] if loop else []), saved(s), page.num(s["kernels"], 0),
        page.num(s["host_ms"], 3), page.num(s["tok_s"], 0), page.pct(s["floor_share"]), checked(s),
    ])
print(page.table(
    ["step", "ms / step", "spread", *(["ms / step, back to back"] if loop else []), "ms saved", "kernels / step",
     "host ms / step", "tokens/s", "of floor", "teacher-forced: max rel. error, check"],
    table, align="lrr" + ("r" if loop else "") + "rrrrrl", name="decode-far-steps"))
errors = d.get("build_errors", {})
if errors:
    print(page.table(["not built", "error"], [[d["labels"].get(n, n), f"`{e[:300]}`"] for n, e in errors.items()],
                     align="ll", name="decode-far-build-errors"))
print(page.provenance(r))
