from kernelbook import page

r = page.result("decode.six_ways")


def fact(name: str) -> str:  # the decode chapter's fact: the same text as anywhere on the page
    return page.fact("decode", name)


print(page.table(["setting", "value"], [
    ["prompt, seeded random tokens", fact("prompt_len")],
    ["StaticCache slots", fact("cache_slots")],
    ["checked steps per way", fact("check_steps")],
    ["stop at noise ≤ (%)", fact("bound_pct")],
    ["minimum rounds", fact("min_rounds")],
    ["round cap (s)", fact("rounds_cap_s")],
    ["rounds run", fact("rounds_n")],
    ["warm-up steps per way, round", fact("warm_steps")],
    ["timed steps per way, round", fact("timed_steps")],
    ["profiled steps per way", fact("profile_calls")],
    ["stored runs (medians)", fact("six_runs")],
], align="lr", name="decode-method"))
print(page.provenance(r))
