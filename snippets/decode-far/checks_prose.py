from kernelbook import page
from kernelbook.chapters.decode_far import report as far_report

d = page.result("decode_far.ladder").data
s = far_report.summaries(d)
y = d["yardstick_fp32"]
steps = [s[n] for n in d["steps"] if n in s]
same = [f"“{x['label']}”" for x in steps if x["bit_identical"]]
rounded = [x for x in steps if x["checked"] and not x["bit_identical"] and x["rel_err_max"] is not None]
broken = [f"“{x['label']}”" for x in steps if x["checked"] and x["rel_err_max"] is None]
worst = max(rounded, key=lambda x: x["rel_err_max"]) if rounded else None
failed = [f"“{x['label']}”" for x in s.values() if not x["passed"]]
near_ties_only = all(not d["teacher_forced"][n]["unexplained_steps"] for n in d["steps"] if n in d["teacher_forced"])
free = {n: far_report.free_running_same(d, n) for n in d["steps"] if n in s}
free = {n: v for n, v in free.items() if v}
free_same = [n for n, v in free.items() if v[0] == v[1]]

text = (
    f"The float32 run of the eager step puts the bf16 logits at most {page.num(100 * y['rel_err_max'], 2)}% away, "
    f"so the tolerance is {page.num(d['tol_factor'], 0)} times that, {page.num(100 * d['tolerance'], 2)}%, and a "
    f"different top token is allowed only where eager's two best logits are within {page.num(d['band'], 3)}. "
)
if same:
    text += (f"{' and '.join(same)} matched eager bit for bit: each output is still the same dot product, rounded "
             "where eager rounds it. ")
if worst:
    close = worst["rel_err_max"] <= 1.2 * y["rel_err_max"]
    text += (f"{'From there on' if same else 'Every step'} the kernels round differently; the largest error of any "
             f"step was {page.num(100 * worst['rel_err_max'], 2)}% (“{worst['label']}”), "
             f"{page.pct(worst['rel_err_max'] / d['tolerance'])} of the tolerance"
             + (", about as far as bf16 itself is from float32. " if close else ". "))
if broken:
    text += f"{' and '.join(broken)} produced non-finite logits (NaN or infinity). "
text += "Every step passed. " if not failed else (f"**{', '.join(failed)} failed**; "
                                                   f"{'its time is' if len(failed) == 1 else 'their times are'} struck "
                                                   "out below. ")
if free:
    text += (f"Run free for {d['check_steps']} tokens, {len(free_same)} of the {len(free)} steps wrote exactly "
             "eager's tokens" + (". " if len(free_same) == len(free) else "; the others parted from it. "))
    if len(free_same) < len(free):
        text += ("Under teacher forcing every top-token difference fell at a near-tie, within the band, so a parting "
                 "is rounding settling a near-tie the other way, not a wrong step." if near_ties_only else
                 "Under teacher forcing some top-token differences fell outside the band: see the check column of "
                 "the table of steps.")
for n in d.get("advances", []):
    nt = (d["teacher_forced"].get(n) or {}).get("next_token")
    if nt:
        text += (f" “{d['labels'][n]}” also picks its own next token: run free for {nt['steps']} steps, the token it "
                 f"wrote into its input buffer was the argmax of its logits at {nt['agree']} of them, and the position "
                 f"it wrote was {'always' if nt['positions_ok'] else '**not always**'} the next one.")
print(text)
