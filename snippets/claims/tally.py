from kernelbook import page
from kernelbook.chapters.claims import ledger as claims

for m in claims.measured_machines():
    verdicts = [claims.verdict(c, m)[1] for c in claims.CLAIMS]
    label = page.machine_label(page.result("machine.ceilings", m))
    failed = [c.text for c, v in zip(claims.CLAIMS, verdicts, strict=True) if v == claims.FAILS]
    print(f"On the **{label}**, {verdicts.count(claims.HOLDS)} of {len(verdicts)} claims hold, "
          f"{verdicts.count(claims.FAILS)} do not, and {verdicts.count(claims.MISSING)} are not measured. "
          f"The ones that do not: " + "; ".join(f"*{t}*" for t in failed) + ".")
