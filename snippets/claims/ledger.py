from kernelbook import page
from kernelbook.chapters.claims import ledger as claims

machines = claims.measured_machines()
results = {m: page.results("machine.ceilings")[m] for m in machines}  # one record per machine, for its label
rows = []
for c in claims.CLAIMS:
    row = [f"[{c.text}]({c.page})", c.test, claims.laptop_figure(c)]
    for m in machines:
        figure, verdict = claims.verdict(c, m)
        mark = {"holds": "✓ holds", "does not hold": "✗ **does not hold**"}.get(verdict, verdict)
        row += [figure, mark]
    rows.append(row)
heads = ["the article's claim", "holds when", "RTX 4060 Laptop (article)"]
for m in machines:
    heads += [page.machine_label(results[m]), "verdict"]
print(page.table(heads, rows, align="lll" + "rl" * len(machines), name="claims-ledger"))
