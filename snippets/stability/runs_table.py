from kernelbook import page
from kernelbook.chapters.stability.facts import facts

f = facts()


def runs(found):
    return page.lines(f"{r.started[:16].replace('T', ' ')} · code " + page.code(r.code) for r in found) or "—"


print(page.table(["experiment", "current-code runs (UTC start · code hash)", "runs of earlier code"],
                 [[page.code(s.experiment), runs(s.current), runs(s.earlier)] for s in f.stored], align="lll",
                 name="stability-runs"))
