from kernelbook import page

r = page.result("decode.constraints")
t = r.data["trap"]
c = t["counter"]
print(page.table(
    ["", "cache's write counter", f"relative error of {t['steps']} replayed steps", "bit-identical to eager"],
    [
        ["after prefill, before capture", c["after_first_prefill"], "", ""],
        [f"after {t['warmup_calls']} warm-up calls and the capture", c["after_warmup_and_capture"], "", ""],
        ["prefill again, **no reset**, then replay", c["after_prefill_without_reset"],
         page.pct(t["without_reset"]["rel_err"]), "yes" if t["without_reset"]["bit_identical"] else "no"],
        ["reset in place, prefill, then replay", c["after_prefill_with_reset"],
         page.pct(t["with_reset"]["rel_err"], 2), "yes" if t["with_reset"]["bit_identical"] else "no"],
    ], align="lrrc"))
print(page.provenance(r))
