from kernelbook import page
from kernelbook.chapters.claims import ledger
from kernelbook.chapters.claims.verdicts import describe

machines = ledger.measured_machines()
records = ledger.published()
judged = {m: ledger.judge_all(m) for m in machines}
labels = {m: page.machine_label(page.result("machine.ceilings", m)) for m in machines}


def href(md):  # MkDocs leaves the links an exec block prints as they are: point at the built page
    return f"../{md.removesuffix('.md')}/"


def test_of(row):
    if row.kind == "documented":
        return f"[{row.source}]({row.url})"
    if row.kind == "unmeasured":
        return f"would take {row.measure_by}"
    return describe(row, records)


heads = ["the article says", "judged by", "RTX 4060 Laptop (article)"]
for m in machines:
    heads += [labels[m], "verdict", "runs"]
for i, (part, rows) in enumerate(ledger.by_part(judged[machines[0]])):
    print(f"\n### {part}\n")
    table = []
    for j in rows:
        cells = [j.row.claim, test_of(j.row), j.laptop]
        for m in machines:
            mine = next(x for x in judged[m] if x.row.id == j.row.id)
            runs = mine.runs if mine.readings and j.row.kind != "documented" else "—"
            cells += [mine.figure, f"[{mine.verdict}]({href(j.row.page)})", runs]
        table.append(cells)
    print(page.table(heads, table, align="lll" + "rlr" * len(machines), name=f"claims-{i + 1}"))
