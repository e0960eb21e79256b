from kernelbook import page
from kernelbook.chapters.speed_of_light import figures, report

r = page.result("speed_of_light.swiglu")
s = figures.probe(r.data)  # the probe shape, one dot per placement: one run's placements
fig = report.placement_plot(s["placements"])
print(page.figure(fig, f"SwiGLU, each placement at {figures.shape_text(s)} ({report.newest(r)})", caption=True))
print(page.provenance(r))
