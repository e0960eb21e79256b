from kernelbook import page
from kernelbook.chapters.stability.facts import facts

f = facts()
rows = ([[x.step, page.code(x.site), " → ".join(x.configs)] for x in f.retuned]
        or [["—", "—", "—" if f.far_compared else "one stored run: comparing needs a second"]])  # none moved
print(page.table(["step of the hand-built decode", "site", "config picked in each run, oldest first"], rows,
                 align="lll", name="stability-retuned"))
