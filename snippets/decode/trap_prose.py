from kernelbook import page

r = page.result("decode.constraints")
t = r.data["trap"]
c, bad, good = t["counter"], t["without_reset"], t["with_reset"]
shift = c["after_warmup_and_capture"] - c["after_first_prefill"]
print(
    f"The warm-up calls ran for real and moved the counter by {shift}; the capture itself only recorded. Prefill "
    f"without a reset then wrote the {t['prompt_len']}-token prompt into slots {c['after_warmup_and_capture']} to "
    f"{c['after_prefill_without_reset'] - 1}, behind stale ones, and every replay attended over slots that did not "
    f"match the positions it was given. Nothing failed: the replays returned logits of the right shape, "
    f"{page.pct(bad['rel_err'])} away from eager's"
    + (f", agreeing on the top token at {page.pct(bad['top1_agree'])} of steps. " if bad["top1_agree"] > 0 else
       ", with not one top token in common. ")
    + ("After an in-place reset the same graph matched eager bit for bit. " if good["bit_identical"] else
       f"After an in-place reset the error was {page.pct(good['rel_err'], 2)}, not zero: the reset is incomplete "
       "on this transformers version. ")
    + "The harness therefore resets the cache in place before every prefill (keys, values and any counter it finds "
    "on the cache or its layers) and then checks that the cache reports exactly the prompt's length."
)
