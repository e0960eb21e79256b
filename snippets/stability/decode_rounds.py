from kernelbook import page
from kernelbook.chapters.stability.facts import facts

f = facts()
n = f.decode_rounds_n
print(page.table(
    ["way", *(f"round {i + 1}: step ms (host ms)" for i in range(n)), "slowest round over the median: step, host"],
    [[w.label, *(f"{page.num(s, 2)} ({page.num(h, 2)})" for s, h in zip(w.step_ms, w.host_ms, strict=True)),
      f"+{page.num(w.slow_step_ms, 2)}, {'+' if w.slow_host_ms >= 0 else '−'}{page.num(abs(w.slow_host_ms), 2)} ms"]
     for w in f.decode_rounds],
    align="l" + "r" * (n + 1), name="stability-decode-rounds"))
