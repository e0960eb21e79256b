from kernelbook import page
from kernelbook.chapters.speed_of_light import report as sol_report

r = page.result("speed_of_light.designs")
shapes = r.data["shapes"]
OTHERS = ["persistent", "split_row", "warp_rows"]


def share(s: dict, design: str) -> float | None:
    return s["versions"].get(design, {}).get("share_of_copy")


def span(design: str) -> str:
    got = [x for s in shapes if (x := share(s, design)) is not None]
    low, high = page.pct_down(min(got)), page.pct_down(max(got))  # down, as in the tables above
    return low if low == high else f"{low} to {high}"


ahead = [f"{d} at {sol_report.shape_text(s)}" for s in shapes for d in OTHERS
         if (x := share(s, d)) is not None and x > share(s, "row_kernel")]
# the same row kernel at the same shapes in sol.add_rmsnorm, another process: how far apart two runs land
main = {(s["rows"], s["hidden"]): s["versions"]["ours"]["share_of_copy"]
        for s in page.result("speed_of_light.add_rmsnorm").data["shapes"]}
rerun = max(((share(s, "row_kernel") - main[k], k) for s in shapes if (k := (s["rows"], s["hidden"])) in main),
            key=lambda d: abs(d[0]), default=None)
print(
    f"In {r.data['rounds']} interleaved rounds with the {r.data['finalists']} fastest configurations of each design, "
    f"the row kernel reached {span('row_kernel')} of the copy at these shapes; the persistent kernel "
    f"{span('persistent')}, the split row {span('split_row')}, and the warp per row {span('warp_rows')}. "
    + ("None of the three was ahead of the row kernel at any shape." if not ahead
       else f"Ahead of the row kernel: {'; '.join(ahead)}.")
    + (f" At {rerun[1][0]:,} × {rerun[1][1]:,} the row kernel's share here is {abs(rerun[0]) * 100:.1f} points "
       f"{'higher' if rerun[0] > 0 else 'lower'} than in the table above: two runs of the same kernel and sweep can "
       "land that far apart." if rerun and abs(rerun[0]) >= 0.001 else "")
)

warp = {s["hidden"]: s for s in shapes if "warp_rows" in s["versions"]}


def fastest(h: int) -> dict:
    return warp[h]["warp_rows_kernels"][str(tuple(warp[h]["configs"]["warp_rows"]))]


def warps(h: int) -> str:
    w = warp[h]["configs"]["warp_rows"][0]
    return f"{w} warp{'s' * (w > 1)} per program"


parts = []
for h, s in warp.items():
    local = [k["local_bytes"] for k in s["warp_rows_kernels"].values()]
    got, row = share(s, "warp_rows"), share(s, "row_kernel")
    state = ("every configuration fitted in registers" if max(local) == 0 else
             "every configuration spilled to local memory" if min(local) > 0 else "some configurations spilled")
    parts.append(f"at {h:,} wide {state} (the fastest, {warps(h)}: {fastest(h)['registers']} registers and "
                 f"{fastest(h)['local_bytes']:,} bytes of local memory per thread) and it reached {page.pct_down(got)} "
                 f"of the copy, {'behind' if got < row else 'ahead of'} the row kernel's {page.pct_down(row)}")
parts += [f"at {s['hidden']:,} wide it is not run ({s['not_run']['warp_rows']})" for s in shapes
          if "warp_rows" in s["not_run"]]
one = {k["barriers"] for s in warp.values() for c, k in s["warp_rows_kernels"].items() if c == "(1,)"}
more = {c.strip("(,)"): k["barriers"] for s in warp.values() for c, k in s["warp_rows_kernels"].items() if c != "(1,)"}
print()
print(f"The warp per row keeps a whole row in registers: {'; '.join(parts)}." + (
    f" In its PTX, the one-warp program has {'no barrier' if one == {0} else 'barriers'}; with "
    f"{' or '.join(sorted(more))} warps per program Triton emitted "
    f"{min(more.values())}{'' if min(more.values()) == max(more.values()) else f' to {max(more.values())}'} "
    "barriers all the same." if one and more else ""))
