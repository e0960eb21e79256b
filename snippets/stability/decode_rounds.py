from kernelbook import page
from kernelbook.chapters.stability.facts import facts

f = facts()


def signed(ms):
    return f"{'+' if ms >= 0 else '−'}{page.num(abs(ms), 2)}"


def host_share(w):  # the host's time per step over the step, its lowest and highest round
    shares = [h / s for h, s in zip(w.host_ms, w.step_ms, strict=True)]
    return f"{page.pct_down(min(shares), 1)}–{page.pct_down(max(shares), 1)}"


print(page.table(
    ["way", "host time, share of the step", "slowest round", "its step over the median, ms",
     "its host time over the median, ms"],
    [[w.label, host_share(w), w.slow_round, signed(w.slow_step_ms), signed(w.slow_host_ms)] for w in f.decode_rounds],
    align="lrrrr", name="stability-decode-slowest"))
