from kernelbook import page
from kernelbook.chapters.stability.facts import facts

f = facts()


def three(x: tuple[float, float, float], digits: int = 0) -> str:  # min / median / max
    return " / ".join(page.num(v, digits) for v in x)


def readings(m) -> str:  # those the sampled figures are over
    if m is None:
        return "not sampled"
    if m.busy:
        return f"{page.num(m.n, 0)} of {page.num(m.of, 0)}, a kernel running"
    return f"{page.num(m.n, 0)}, whole run"


shown, full = [], []
for s in f.stored:
    for r in s.current:
        m = r.sampled
        ends = f"{r.clocks[0]} → {r.clocks[2]}"  # SM MHz at the run's start and end, as nvidia-smi read them
        row = [page.code(s.experiment), r.started[:16].replace("T", " "), ends, three(m.sm_mhz) if m else "—",
               readings(m)]
        shown.append(row)
        full.append([*row, f"{r.clocks[1]} → {r.clocks[3]}", page.num(m.mem_mhz[1], 0) if m else "—",
                     three(m.power_w) if m else "—", page.num(m.temp_c[2], 0) if m else "—", r.host or "—",
                     r.gpu_uuid or "—"])
HEADS = ["experiment", "run (UTC start)", "SM MHz, start → end", "SM MHz sampled (min / median / max)", "readings"]
print(page.table(HEADS, shown, align="lllll", name="stability-machine",
                 full=([*HEADS, "memory MHz, start → end", "memory MHz sampled (median)",
                        "power W (min / median / max)", "hottest °C", "host CPU", "GPU UUID"], full)))
