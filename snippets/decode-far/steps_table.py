from kernelbook import across, page
from kernelbook.chapters.decode_far import report as far_report

r = page.result("decode_far.ladder")
runs = across.datas("decode_far.ladder") or [r.data]  # every fresh run of the current code
d = r.data
rows = far_report.median_waterfall(runs)


def saved(s: dict) -> str:
    """What the rung saved against the rung above: a saving reads positive, a cost negative."""
    if s["saved_ms"] is None:
        return "—"
    cost = round(s["saved_ms"], 2) < 0  # a saving that rounds to zero has no sign
    return f"{'−' if cost else ''}{page.num(abs(s['saved_ms']), 2)}"


checked = far_report.check_cell  # a step's check as a cell, on both tables


def loop(s: dict) -> str:
    return "—" if s["loop_ms"] is None else page.num(s["loop_ms"], 3)


shown, full = [], []  # on screen: six columns; in the download: every column
for s in rows:
    step = page.num(s["step_ms"], 3)
    row = [s["label"], step if s["passed"] else f"~~{step}~~", loop(s), saved(s), page.num(s["kernels"], 0),
           page.pct(s["floor_share"])]
    shown.append(row)
    full.append([*row, f"±{page.num(50 * s['spread'], 1)}%", page.num(s["host_ms"], 3), page.num(s["tok_s"], 0),
                 checked(s)])
# each step timed alone (synchronised before and after) and back to back; "saved" and the floor share read alone
HEADS = ["rung", "alone ms", "back to back ms", "saved alone ms", "kernels", "of copy floor, alone"]
table = page.table(HEADS, shown, align="lrrrrr", name="decode-far-steps")
print(table.split('\n<p class="kb-downloads">')[0])  # the download below holds every column, not only these
print(page.downloads([*HEADS, "spread", "host ms", "tokens/s", "teacher-forced: max rel. error, check"], full,
                     "decode-far-steps"))
errors = d.get("build_errors", {})
if errors:
    print(page.table(["not built", "error"], [[d["labels"].get(n, n), page.code(e[:300])] for n, e in errors.items()],
                     align="ll", name="decode-far-build-errors"))
print(page.provenance(r))
