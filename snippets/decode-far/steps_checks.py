from kernelbook import across, page
from kernelbook.chapters.decode_far import report as far_report

r = page.result("decode_far.ladder")
runs = across.datas("decode_far.ladder") or [r.data]  # every fresh run of the current code
rows = far_report.median_waterfall(runs)


def checked(s: dict) -> str:
    if not s["checked"]:
        return "not checked"
    if s["rel_err_max"] is None:
        how = f"{s['nonfinite']:,} non-finite logits" if s["nonfinite"] else "no error recorded"
    else:
        how = "bit-identical" if s["bit_identical"] else f"{page.num(100 * s['rel_err_max'], 2)}%"
    return f"{how}, **{'passed' if s['passed'] else 'FAILED'}**"


table = page.table(
    ["step", "spread", "host ms", "tokens/s", "max rel. error, check"],
    [[s["label"], f"±{page.num(50 * s['spread'], 1)}%", page.num(s["host_ms"], 3), page.num(s["tok_s"], 0),
      checked(s)] for s in rows],
    align="lrrrl", name="decode-far-steps-checks")
print(table.split('\n<p class="kb-downloads">')[0])  # the steps table's download holds these columns too
print(page.provenance(r))
