from kernelbook import page
from kernelbook.chapters.speed_of_light import report

r = page.result("speed_of_light.add_rmsnorm")
fig = report.share_plot([s for s in r.data["shapes"] if not s["small"]])
print(page.figure(fig, "add + RMSNorm versions against the copy"))
print(page.provenance(r))
