from kernelbook import macros, page
from kernelbook.chapters.stability.facts import FIRM, SHOWN_AS, facts

f = facts()


def value(x, unit, digits, key):
    if key in SHOWN_AS:  # the figure as its own page shows it: that chapter's fact, the same quantity
        shown = getattr(macros.raw_facts(SHOWN_AS[key][0]), SHOWN_AS[key][1])
        if abs(x / shown - 1) > FIRM:
            raise ValueError(f"{key}: {x} here but {shown} as {'.'.join(SHOWN_AS[key])}: not the same quantity")
        return page.fact(*SHOWN_AS[key]) + ("" if unit in ("%", "×") else f" {unit}")
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
    return page.link(fig.label, f"../{fig.page.removesuffix('.md')}/")


def share(x):  # a spread or range: a tenth of a point under 10%, whole points above (63%, not 63.3%: the ends
    return page.pct(x, 1 if x < 0.1 else 0)  # it comes from print to two or three digits on their own pages)


def verdict(x):  # noisy and unsettled in bold, with what made them so
    return f"**{x.firmness}**: {x.why}" if x.why else x.firmness


heads = ["headline figure", "today", "within-run spread, noisiest run", "current-code runs", "run-to-run range",
         "earlier-code runs", "earlier code against today", "firmness"]
rows = [[link(x), value(x.median, x.unit, x.digits, x.key),
         "not stored" if x.within is None else share(x.within), x.current_runs,
         "awaits a second run" if x.current_range is None else share(x.current_range),
         x.earlier_runs, earlier(x), verdict(x)]
        for x in f.figures]
SHOWN = [0, 1, 2, 4, 7]  # the columns on the page; the download holds them all
lines = page.table([heads[i] for i in SHOWN], [[r[i] for i in SHOWN] for r in rows], align="lrrrl",
                   name="stability-figures").split('\n<p class="kb-downloads">')[0]
print(lines + "\n" + page.downloads(heads, rows, "stability-figures"))
