from kernelbook import page
from kernelbook.chapters.speed_of_light import report as sol_report

r = page.result("speed_of_light.add_rmsnorm")
fig = sol_report.share_plot([s for s in r.data["shapes"] if not s["small"]])
print(page.figure(fig, "Share of the same-bytes copy reached by each add+RMSNorm version, large shapes"))
print(page.provenance(r))
