from kernelbook import page, paths, store
from kernelbook.chapters.machines import carry

primary = paths.pyproject_primary()
others = carry.measured()
if not others:  # the page's paragraphs say why (their guards' absent words): a label here
    print("*no second GPU measured*")
else:
    machines = [primary, others[0]]
    found = carry.findings(machines)
    b = store.machine_label(others[0])
    differ = [x for x in found if not all(x.holds)]
    title = {p: (paths.root() / "docs" / p).read_text().split("\n", 1)[0].lstrip("# ").strip() for p in
             {x.page for x in found}}  # each page's own heading
    rows = [[page.link(title[x.page], f"../{x.page.removesuffix('.md')}/"), x.says, x.found[1] or "—"]
            for x in differ]  # the statements' words are text: the table escapes them
    if rows:
        every = [[x.page.removesuffix(".md"), x.says, *["holds" if h else "differs" for h in x.holds], x.found[1]]
                 for x in found]
        heads = ["page", "statement", *[store.machine_label(m) for m in machines], f"on the {b}"]
        print(page.table(["page", f"what the page states of the {store.machine_label(primary)}",
                          f"what the {b} measured"], rows, align="lll", name="carry-over-findings",
                         full=(heads, every)))
