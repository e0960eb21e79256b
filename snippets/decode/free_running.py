from kernelbook import page
from kernelbook.decode import report

r = page.result("decode.six_ways")
d = r.data
rows = []
for x in report.free_running_table(d):
    step = x["step"]
    rows.append([x["label"], f"{x['same']} of {x['of']}",
                 "never" if step is None else f"step {step + 1}",
                 "—" if step is None else page.num(x["ref_gap"], 3)])
print(page.table(["variant", "tokens equal to eager StaticCache's", "first departs at",
                  "eager's top-two gap there"], rows))
print(page.provenance(r))
