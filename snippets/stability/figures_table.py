from kernelbook import page
from kernelbook.chapters.stability.facts import facts

f = facts()


def value(x, unit, digits):
    if unit == "%":
        return page.pct(x, 1)
    return f"{page.num(x, digits)}×" if unit == "×" else page.num(x, digits, unit)


def gap(x):
    text = f"{100 * x:+.1f}%"
    return "0.0%" if text in ("+0.0%", "-0.0%") else text.replace("-", "−")


def earlier(fig):
    if fig.earlier_low is None:
        return "—"
    if fig.earlier_runs == 1:
        return gap(fig.earlier_low)
    return f"{gap(fig.earlier_low)} to {gap(fig.earlier_high)}"


def link(fig):
    """The label linked to its page, relative to this page's built URL: a link printed by an exec block is not
    rewritten by MkDocs, so `machine.md` would stay as written and 404."""
    return f"[{fig.label}](../{fig.page.removesuffix('.md')}/)"


heads = ["headline figure", "today", "within-run spread", "current-code runs", "run-to-run range", "earlier-code runs",
         "earlier code against today", "firmness"]
rows = [[link(x), value(x.median, x.unit, x.digits),
         "not stored" if x.within is None else page.pct(x.within, 1), x.current_runs,
         "awaits a second run" if x.current_range is None else page.pct(x.current_range, 1),
         x.earlier_runs, earlier(x), f"**{x.firmness}**" if x.firmness in ("noisy", "unsettled") else x.firmness]
        for x in f.figures]
SHOWN = [0, 1, 2, 4, 7]  # the columns on the page; the download holds them all
lines = page.table([heads[i] for i in SHOWN], [[r[i] for i in SHOWN] for r in rows], align="lrrrl",
                   name="stability-figures").split('\n<p class="kb-downloads">')[0]
print(lines + "\n" + page.downloads(heads, rows, "stability-figures"))
