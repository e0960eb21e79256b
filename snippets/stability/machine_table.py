from kernelbook import page
from kernelbook.chapters.stability.facts import facts

f = facts()


def three(x: tuple[float, float, float], digits: int = 0) -> str:  # min / median / max
    return " / ".join(page.num(v, digits) for v in x)


def readings(m) -> str:  # those the figures are over
    if m.busy:
        return f"{page.num(m.n, 0)} of {page.num(m.of, 0)}, a kernel running"
    return f"{page.num(m.n, 0)}, whole run"


rows = []
for s in f.stored:
    for r in s.current:
        m = r.sampled
        if m is None:  # a run from before sampling: the runs table above lists it
            continue
        rows.append([page.code(s.experiment), r.started[:16].replace("T", " "), r.host or "—",
                     page.code(r.gpu_uuid[:12]) if r.gpu_uuid else "—", three(m.sm_mhz), page.num(m.mem_mhz[1], 0),
                     three(m.power_w), page.num(m.temp_c[2], 0), readings(m)])
if not rows:
    rows = [["(no run of the current code sampled the GPU)", *["—"] * 8]]
HEADS = ["experiment", "run (UTC start)", "host CPU", "GPU UUID", "SM MHz (min / median / max)", "memory MHz",
         "power W (min / median / max)", "hottest °C", "readings"]
print(page.table(HEADS, rows, align="lllllrlrr", name="stability-machine"))
