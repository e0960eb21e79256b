from kernelbook import page
from kernelbook.chapters.stability.facts import facts

f = facts()


def runs(found):
    return page.lines(f"{r.started[:16].replace('T', ' ')} · " + page.code(r.code) for r in found) or "—"


HASH = page.link("code hash", "../glossary/#code-hash")  # of the experiment's files: it decides if a run is current
rows = [[page.code(s.experiment), runs(s.current), runs(s.earlier)] for s in f.stored]
print(page.table(["experiment", page.Markup(f"current-code runs (UTC start · {HASH})"), "runs of earlier code"], rows,
                 align="lll", name="stability-runs",
                 full=(["experiment", "current-code runs (UTC start · code hash)", "runs of earlier code"], rows)))
