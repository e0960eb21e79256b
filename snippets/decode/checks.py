import statistics

from kernelbook import across, page

r = page.result("decode.six_ways")
d = r.data
runs = across.datas("decode.six_ways")  # every run of the current code: each figure is their median, each check
rows = []  # passed only where it passed in every run
for n in d["names"]:
    cs = [x["teacher_forced"][n] for x in runs]
    c = d["teacher_forced"][n]
    rule = "bit for bit" if c["need_identical"] else f"≤ {page.num(100 * c['tolerance'], 2)}%"
    rows.append([
        d["labels"][n], page.num(100 * statistics.median(x["rel_err_max"] for x in cs), 3) + "%",
        "yes" if all(x["bit_identical"] for x in cs) else "no",
        page.pct(statistics.median(x["top1_agree"] for x in cs)), rule,
        "**passed**" if all(x["passed"] for x in cs) else "**FAILED**",
    ])
print(page.table(["variant", "max relative error", "bit-identical", "top-1 agreement", "must match", "check"],
                 rows, align="lrcrll"))
errors = d.get("build_errors") or {}
if errors:
    print(page.table(["variant", "build error"], [[n, page.code(e[:300])] for n, e in errors.items()]))
print(page.provenance(r))
