from kernelbook import page
from kernelbook.chapters.speed_of_light import report

r = page.result("speed_of_light.swiglu")
# eager, far below the others, is left to the table so that the ones near the copy can be told apart
fig = report.share_plot([s for s in r.data["shapes"] if not s["small"]], skip=("eager",))
print(page.figure(fig, "SwiGLU versions against the copy"))
print(page.provenance(r))
