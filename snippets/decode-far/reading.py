from kernelbook import page
from kernelbook.chapters.decode_far import report as far_report

r = page.result("decode_far.ladder")
d = r.data
m = page.result("machine.ceilings").data["launch"]
rows = far_report.waterfall(d)
steps = [x for x in rows if x["saved_ms"] is not None]
last, g = far_report.final(d), far_report.goal(d)
out = []

# 1. the steps that saved most, and what they removed
top = sorted(steps, key=lambda x: -x["saved_ms"])[:2]
prev = {x["name"]: x for x in rows}
parts, per_kernel = [], []
for x in top:
    p = prev[x["prev"]]
    cut = p["kernels"] - x["kernels"]
    if cut > 0:
        per_kernel.append(1e3 * x["saved_ms"] / cut)
    per = f", {page.num(per_kernel[-1], 1)} µs per kernel removed" if cut > 0 else ""
    parts.append(f"“{x['label']}” ({page.num(x['saved_ms'], 2)} ms, {page.num(p['kernels'], 0)} kernels down to "
                 f"{page.num(x['kernels'], 0)}{per})")
if parts:
    head = "Fewer kernels saved the most." if len(per_kernel) == len(top) else "The largest savings."
    text = f"- **{head}** "
    text += (f"The two largest savings were {' and '.join(parts)}. " if len(parts) == 2 else
             f"The largest saving was {parts[0]}. ")
    if per_kernel:
        ratio = min(per_kernel) / m["graph_us_per_launch"]
        text += (f"A trivial kernel replayed from a graph costs {page.num(m['graph_us_per_launch'], 2)} µs (the "
                 "machine page), so " + (
                     f"{'both steps' if len(per_kernel) == 2 else 'it'} saved {page.num(ratio, 1)} times that or "
                     "more per kernel removed: a removed kernel cost more than its hand-off, with a grid to start "
                     "and drain and inputs to read back from memory." if ratio > 1.3 else
                     "a removed kernel cost about its hand-off alone: the kernels removed did little work."))
    out.append(text)

# 2. the matvec swap: the same kernel count, faster projections
if "matvec" in prev and prev["matvec"]["prev"]:
    x, p = prev["matvec"], prev[prev["matvec"]["prev"]]
    ws = far_report.weight_stream(d, "matvec")
    cb = far_report.weight_stream(d, p["name"], far_report.CUBLAS)
    cb_main = sum(k["count"] for k in far_report.kernel_rows(d, p["name"])
                  if any(c in k["name"] for c in far_report.CUBLAS) and "splitKreduce" not in k["name"])
    text = (f"- **cuBLAS against a matvec written for one row.** Swapping the projections alone "
            f"({page.num(p['kernels'], 0)} kernels to {page.num(x['kernels'], 0)}) "
            + (f"saved {page.num(x['saved_ms'], 2)} ms. " if x["saved_ms"] > 0 else
               f"cost {page.num(-x['saved_ms'], 2)} ms. "))
    if ws and cb and ws["launches"] == cb_main:  # the profile caught every projection of both steps
        text += (f"cuBLAS's projection kernels ran for {page.num(cb['us'] / 1e3, 3)} ms per step "
                 f"({page.num(cb['gbps'], 0)} GB/s of weights), the matvec kernels for "
                 f"{page.num(ws['us'] / 1e3, 3)} ms ({page.num(ws['gbps'], 0)} GB/s, "
                 f"{page.pct(ws['share_of_copy'])} of the copy bandwidth).")
    elif ws:
        text += (f"The matvec kernels read the weights at {page.num(ws['gbps'], 0)} GB/s, "
                 f"{page.pct(ws['share_of_copy'])} of the copy bandwidth.")
    out.append(text)

# 3. where the last step without PDL spends its time
fused = next((n for n in reversed(d["names"]) if (s := far_report.step_summary(d, n)) and not s["overlapped"]
              and far_report.weight_stream(d, n)), None)
if fused:
    b = far_report.breakdown(d, fused)
    ws = far_report.weight_stream(d, fused)
    each = 1e3 * b["attention_ms"] / max(b["attention_launches"], 1)
    kv = d.get("tuning", {}).get("attention", {}).get("bytes")
    kv_us = kv / (d["copy"]["gbps"] * 1e3) if kv else None  # µs to read one launch's keys and values at copy speed
    reads = (f": a launch reads about {page.num(kv / 1024, 0)} KiB of keys and values at the position it was tuned "
             f"at, {page.num(kv_us, 2)} µs at the copy bandwidth"
             + (", so its time is start-up, synchronisation and hand-off, not bytes" if kv_us < 0.2 * each else "")
             if kv else ", though it reads little")
    out.append(
        f"- **Where the time goes.** In “{d['labels'][fused]}” ({page.num(b['step_ms'], 2)} ms), the matvec kernels "
        f"ran for {page.num(b['matvec_ms'], 3)} ms and read about every weight once: {page.num(ws['gbps'], 0)} GB/s, "
        f"{page.pct(ws['share_of_copy'])} of the copy. Attention took {page.num(b['attention_ms'], 3)} ms in "
        f"{b['attention_launches']} launches ({page.num(each, 1)} µs each){reads}. Everything else took "
        f"{page.num(b['other_ms'], 3)} ms"
        + ((f"; run back to back, the GPU sat idle for {page.num(b['idle_ms'], 3)} ms" if not b["busy_over_ms"] else
            f"; the whole step run back to back took {page.num(b['busy_over_ms'], 3)} ms less than its profiled "
            "kernels add up to (the one profiled, synchronised step ran them slower), so no idle time shows")
           + f", and the synchronised step spent {page.num(b['host_ms'], 3)} ms more on the round trip to the host. "
           if far_report.has_loop(d) else f", and the GPU sat idle for {page.num(b['idle_ms'], 3)} ms. ")
        + f"Against the {page.num(d['floor_ms'], 3)} ms floor, the matvecs lose "
        f"{page.num(b['matvec_ms'] - d['floor_ms'], 3)} ms; attention and the rest add "
        f"{page.num(b['attention_ms'] + b['idle_ms'] + b['host_ms'], 3)} ms more.")

# 4. PDL
if "pdl" in prev and prev["pdl"]["prev"]:
    x = prev["pdl"]
    if not d.get("pdl_used", True):
        out.append("- **Programmatic dependent launch** needs compute capability 9.0 or later; this GPU ran the same "
                   "kernels without it, so the last step repeats the one before.")
    else:
        p = prev[x["prev"]]
        att = {n: t["configs"]["attention"] for n, t in d.get("in_step", {}).items()}
        if x["kernels"] == p["kernels"]:
            count = f"with the same {page.num(x['kernels'], 0)} kernels"
        else:  # attention was tuned inside each step, and the two steps chose different configs
            count = (f"with {page.num(x['kernels'], 0)} kernels against {page.num(p['kernels'], 0)}"
                     + (f" (tuned inside each step, attention took {' × '.join(map(str, att['pdl']))} here and "
                        f"{' × '.join(map(str, att[p['name']]))} before: splits above one add a merge launch)"
                        if "pdl" in att and p["name"] in att else ""))
        out.append(
            "- **Programmatic dependent launch** "
            + (f"saved {page.num(x['saved_ms'], 3)} ms ({page.pct(x['saved_share'], 1)}), "
               if x["saved_ms"] > 0 else f"cost {page.num(-x['saved_ms'], 3)} ms, ")
            + f"{count}: each matvec now loads its first weights, and attention the keys and values of earlier "
            "steps, while the kernel ahead of it finishes, which hides part of each hand-off but none of the "
            "weights' bytes.")

# 5. the goal
if last is None:
    out.append(f"- **The goal is not met**: the last step, `{g['name']}`, could not be built or timed.")
else:
    if g["met"]:
        out.append(f"- **The goal is met**: {page.num(g['ms'], 3)} ms against {page.num(g['goal_ms'], 1)} ms.")
    elif not g["passed"]:
        out.append(f"- **The goal is not met**: the last step took {page.num(g['ms'], 3)} ms but failed its check, "
                   "so its time does not count.")
    else:
        text = (f"- **The goal is not met.** {page.num(g['goal_ms'], 1)} ms means {page.pct(g['floor_share_needed'])} "
                f"of the floor; the last step reached {page.pct(last['floor_share'])} and is "
                f"{page.num(g['over_ms'], 3)} ms over. ")
        if fused:
            owners = b["matvec_ms"] - d["floor_ms"] + b["attention_ms"] + b["idle_ms"] + b["host_ms"]
            text += (f"In “{d['labels'][fused]}”, the last step whose kernels do not overlap, the matvecs' loss "
                     "against the floor, attention, idle time"
                     + (" and the round trip to the host" if far_report.has_loop(d) else "")
                     + f" came to {page.num(owners, 3)} ms together: "
                     + ("more than is missing. With everything else down to "
                        f"{page.num(b['other_ms'], 3)} ms, the rest has to come from there: faster attention, matvecs "
                        "that stream closer to the copy bandwidth, fewer gaps between kernels"
                        + (", a shorter trip to the host." if far_report.has_loop(d) else ".") if owners > g["over_ms"]
                        else "less than is missing, so even perfect attention and matvecs would not reach it."))
        out.append(text)
    if last["loop_ms"] is not None:
        gap = last["step_ms"] - last["loop_ms"]
        out.append(
            f"- **Back to back** the last step took {page.num(last['loop_ms'], 3)} ms against "
            f"{page.num(last['step_ms'], 3)} ms synchronised around every step: "
            + (f"{page.num(gap, 3)} ms of each synchronised step is the round trip to the host, which a generation "
               "loop that keeps its tokens on the GPU does not pay." if gap > 0 else
               "no faster, so the synchronisation around each step costs nothing measurable here."))
    lc = d.get("launch_costs")
    alone = prev.get(lc["step"]) if lc else None
    if alone and alone["loop_ms"] is not None:
        whole_ms = lc["whole_us"] / 1e3
        argmax = sum(k["us"] for k in far_report.kernel_rows(d, alone["name"]) if "ArgMax" in k["name"])
        outside = alone["loop_ms"] > whole_ms
        out.append(
            "- **The graph alone.** Replayed back to back with nothing between the replays (as the launch costs "
            f"above were timed), the graph of the “{alone['label'].lstrip('+ ')}” step took {page.num(whole_ms, 3)} ms"
            + (f": {page.num(alone['loop_ms'] - whole_ms, 3)} ms less than its loop, which also runs, for every "
               "step, what lies outside the graph" if outside else ".")
            + (f": the argmax that picks the next token ({page.num(argmax, 1)} µs in the profiled step) and the "
               "copies of that token and its position into the graph's inputs." if outside and argmax else
               "." if outside else ""))
    for n in d.get("advances", []):
        x = prev.get(n)
        p = prev.get(x["prev"]) if x and x["prev"] else None
        if not p or x["loop_ms"] is None or p["loop_ms"] is None:
            continue
        out.append(
            f"- **{x['label'].lstrip('+ ').capitalize()}.** One kernel at the end of the graph replaces the argmax "
            f"and the copies around it ({page.num(x['kernels'], 0)} kernels a step against {page.num(p['kernels'], 0)})"
            f", and the loop only replays the graph: the host spends {page.num(1e3 * x['host_ms'], 1)} µs launching a "
            f"step instead of {page.num(1e3 * p['host_ms'], 1)} µs. Back to back the step took "
            f"{page.num(x['loop_ms'], 3)} ms against {page.num(p['loop_ms'], 3)}, "
            f"synchronised {page.num(x['step_ms'], 3)} ms against {page.num(p['step_ms'], 3)} (its own argmax is "
            "checked above, with the logits).")
print("\n".join(out))
