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


rows = [[link(x), value(x.median, x.unit, x.digits),
         "not stored" if x.within is None else page.pct(x.within, 2), x.current_runs,
         "awaits a second run" if x.current_range is None else page.pct(x.current_range, 2),
         x.earlier_runs, earlier(x), f"**{x.firmness}**" if x.firmness in ("noisy", "unsettled") else x.firmness]
        for x in f.figures]
print(page.table(["headline figure", "today", "within-run spread", "current-code runs", "run-to-run range",
                  "earlier-code runs", "earlier code against today", "firmness"], rows, align="lrrrrrrl",
                 name="stability-figures"))
