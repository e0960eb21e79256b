from kernelbook import page

r = page.result("decode.six_ways")
d = r.data
rows = []
for n in d["names"]:
    c = d["teacher_forced"][n]
    rule = "bit for bit" if c["need_identical"] else f"≤ {page.num(100 * c['tolerance'], 2)}%"
    rows.append([
        d["labels"][n], page.num(100 * c["rel_err_max"], 3) + "%", "yes" if c["bit_identical"] else "no",
        page.pct(c["top1_agree"]), rule, "**passed**" if c["passed"] else "**FAILED**",
    ])
print(page.table(["variant", "max relative error", "bit-identical", "top-1 agreement", "must match", "check"],
                 rows, align="lrcrll"))
errors = d.get("build_errors") or {}
if errors:
    print(page.table(["variant", "build error"], [[n, f"`{e[:300]}`"] for n, e in errors.items()]))
print(page.provenance(r))
