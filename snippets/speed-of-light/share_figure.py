from kernelbook import page
from kernelbook.chapters.speed_of_light import figures, report

r = page.result("speed_of_light.add_rmsnorm")
runs = page.fresh_runs(r.experiment)
m = figures.merged([x.data for x in runs])  # each shape's shares from the medians over the runs, as in the table
# F.rms_norm, far below the others, and the heuristic launch are left to the table, so that the ones near the copy
# can be told apart
fig = report.share_plot([s for s in m["shapes"] if not s["small"]], skip=("rms_norm", "ours_heuristic"))
print(page.figure(fig, f"add + RMSNorm versions against the copy, {page.over_runs(len(runs), 'medians')}"))
print(report.runs_note(runs, newest=False))
print(page.provenance(r))
