from kernelbook import page

r = page.result("decode.six_ways")


def fact(name: str) -> str:  # the decode chapter's fact: the same text as anywhere on the page
    return page.fact("decode", name)


print(page.table(["setting", "value"], [
    ["prompt: seeded random token ids", fact("prompt_len")],
    ["StaticCache slots", fact("cache_slots")],
    ["teacher-forced steps checked per way", fact("check_steps")],
    ["rounds stop when every way's noise is at most (%)", fact("bound_pct")],
    ["... over at least this many rounds", fact("min_rounds")],
    ["... or after (s)", fact("rounds_cap_s")],
    ["rounds run", fact("rounds_n")],
    ["untimed steps per way and round", fact("warm_steps")],
    ["timed steps per way and round", fact("timed_steps")],
    ["profiled steps per way, after the last round", fact("profile_calls")],
    ["stored runs, each figure their median", fact("six_runs")],
], align="lr", name="decode-method"))
print(page.provenance(r))
