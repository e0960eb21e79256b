from kernelbook import page
from kernelbook.chapters.stability.facts import facts

f = facts()


def picks(x):  # each config the site's retuning picked, and in how many runs
    return " · ".join(f"{c} ({n})" for c, n in x.picks)


# a step retuned in one run has no pick to compare: "—", not 0
rows = [[s.step, s.runs, s.sites, s.moved if s.runs > 1 else "— (one run)"] for s in f.retuned_steps]
full = [[x.step, x.site, picks(x), " → ".join(x.configs)] for x in f.retuned]  # every site that moved, each run
print(page.table(["step of the hand-built decode", "stored runs (any code) that retuned it", "sites",
                  "sites whose pick changed"],
                 rows, align="lrrr", name="stability-retuned",
                 full=(["step", "site", "config picked (runs)", "config in each run, oldest first (— not retuned)"],
                       full or [["—", "—", "—", "no site's pick changed"]])))
