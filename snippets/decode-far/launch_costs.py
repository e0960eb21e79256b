from kernelbook import page
from kernelbook.chapters.decode_far import report as far_report

r = page.result("decode_far.ladder")
d = r.data
rows = far_report.launch_cost_rows(d)
if not rows:
    print("This run did not time the calls one by one.")
else:
    lc = d["launch_costs"]
    print(page.table(
        ["call", "computes", "cost in the step, µs", "per", "weights read, MiB", "those bytes at copy speed, µs",
         "copy speed / cost"],
        [[f"`{x['call']}`", far_report.SITE_WHAT.get(x["call"], "—"), page.num(x["us"], 2), x["per"],
          "—" if not x["bytes"] else page.num(x["bytes"] / 2**20, 1),
          "—" if not x["bytes"] else page.num(x["copy_us"], 2),
          "—" if x["share"] is None else page.pct(x["share"])] for x in rows],
        align="llrlrrr", name="decode-far-launch-costs"))
    by = {x["call"]: x for x in rows}
    trio = [by[c] for c in ("qkv_rope", "attention", "o") if c in by]
    mlp = [by[c] for c in ("swiglu", "down") if c in by]
    summed = sum(x["total_us"] for x in rows)
    text = (f"\nThe whole step took {page.num(lc['whole_us'], 1)} µs per replay back to back; the calls' costs, "
            f"times the layers, add up to {page.num(summed, 1)} µs"
            + (" (more than the step: a call left out also takes its overlap with its neighbours with it)."
               if summed > lc["whole_us"] else "; the rest is what no single call owns: the embedding lookup and "
               "the overlaps between neighbours."))
    if trio and mlp:
        t_us, t_mb, t_copy = (sum(x[k] for x in trio) for k in ("us", "bytes", "copy_us"))
        m_us, m_copy = sum(x["us"] for x in mlp), sum(x["copy_us"] for x in mlp)
        text += (f" Per layer, the MLP's two calls cost {page.num(m_us, 1)} µs for bytes that take "
                 f"{page.num(m_copy, 1)} µs at the copy bandwidth ({page.pct(m_copy / m_us)}); QKV, attention and "
                 f"the output projection cost {page.num(t_us, 1)} µs for {page.num(t_mb / 2**20, 1)} MiB, "
                 f"{page.num(t_copy, 1)} µs at the copy bandwidth"
                 + (". That chain of small launches, each waiting for the one before, is where the step is furthest "
                    "from its bytes." if t_copy / t_us < m_copy / m_us else "."))
    over = [x["call"] for x in rows if x["share"] is not None and x["share"] > 1]
    if over:  # the copy bandwidth counts bytes read and written; a projection only reads
        text += (f" {', '.join(f'`{c}`' for c in over)} passes 100%: the copy bandwidth counts bytes read and "
                 "written, and a projection only reads.")
    print(text)
print(page.provenance(r))
