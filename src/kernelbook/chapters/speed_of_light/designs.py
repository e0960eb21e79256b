"""Speed of light, other designs: three other ways to write add+RMSNorm, each held to the same-bytes copy in the
same rounds as the row kernel, at the wide shapes, where one row is a large program.

- persistent: a few programs per SM walk the rows and load the next block before reducing the current one;
- split row: a row split over several programs that exchange partial sums (the last to arrive writes y);
- warp rows: a row per warp, so its sum of squares is reduced inside the warp.

Each is checked against eager PyTorch on the same inputs first; each design's configurations are swept, and its
fastest few timed in the rounds, each round on fresh buffers, until every version is quiet or the shape's cap, as
on the rest of the page (method.py). The
row kernel's configurations are the main table's (add_rmsnorm.py).
"""

from __future__ import annotations

from typing import Any

import torch
import triton

from kernelbook.chapters.speed_of_light import method as sol
from kernelbook.chapters.speed_of_light.add_rmsnorm import EPS, eager_inputs, row_configs
from kernelbook.checks import compare, poisoned, random_bf16
from kernelbook.kernels.add_rmsnorm import qwen2_add_rmsnorm
from kernelbook.kernels.add_rmsnorm_persistent import add_rmsnorm_persistent
from kernelbook.kernels.add_rmsnorm_rows import add_rmsnorm_rows
from kernelbook.kernels.add_rmsnorm_split_row import add_rmsnorm_split_row, workspace
from kernelbook.kernels.add_rmsnorm_warp_rows import CHUNK, launch
from kernelbook.kernels.same_bytes_copy import same_bytes_copy

SHAPES = ((8192, 4096), (8192, 8192), (8192, 16384))
REGISTERS = 255  # the most a thread can have
DESIGNS = ("row_kernel", "persistent", "split_row", "warp_rows")


def _configs(rows: int, hidden: int) -> dict[str, list[tuple[int, ...]]]:
    block = triton.next_power_of_2(hidden)

    def per_thread(elements: int, warps: int) -> int:
        return elements // (warps * 32)
    return {
        "row_kernel": row_configs(rows, hidden),
        # (rows per block, warps, programs per SM): at most 64 warps on an SM
        "persistent": [(rw, wp, k) for rw in (1, 2) for wp in (16, 32) for k in (1, 2, 4)
                       if wp * k <= 64 and 8 <= per_thread(rw * block, wp) <= 32],
        # (programs per row, warps)
        "split_row": [(s, wp) for s in (2, 4, 8) for wp in (4, 8, 16) if 4 <= per_thread(block // s, wp) <= 32],
        # rows (and warps) per program; a thread holds hidden / 32 elements of each tensor, two bf16 per register
        "warp_rows": [(rw,) for rw in (1, 2, 4)] if hidden // 64 <= REGISTERS else [],
    }


def _shape(rows: int, hidden: int) -> dict[str, Any]:
    timer = sol.make_timer(False)
    x, r, norm, seed = eager_inputs(rows, hidden)  # the inputs of speed_of_light.add_rmsnorm at this shape
    w = norm.weight
    h_ref, y_ref = qwen2_add_rmsnorm(x, r, norm)
    outs = poisoned(x, 2)
    run = {
        "row_kernel": lambda x, r, c, o: add_rmsnorm_rows(x, r, w, EPS, out=o, config=c),
        "persistent": lambda x, r, c, o: add_rmsnorm_persistent(x, r, w, EPS, out=o, config=c),
        "split_row": lambda x, r, c, o: add_rmsnorm_split_row(x, r, w, EPS, out=o, config=c),
        "warp_rows": lambda x, r, c, o: launch(x, r, w, EPS, o, c[0]),
    }
    configs = _configs(rows, hidden)

    # correct before fast: every configuration of every design, on fresh poisoned outputs, against eager
    check, kernels = {}, {}
    for design, cfgs in configs.items():
        for c in cfgs:
            o = poisoned(x, 2)
            launched = run[design](x, r, c, o)
            ch, cy = compare(o[0], h_ref), compare(o[1], y_ref)
            assert ch["bit_identical"], f"{design} {c} at ({rows}, {hidden}): h differs from eager"
            assert cy["max_steps"] <= 2, f"{design} {c} at ({rows}, {hidden}): y off by {cy['max_steps']} steps"
            check[f"{design} {c}"] = {"h": ch, "y": cy}
            if design == "warp_rows":
                spills = getattr(launched, "n_spills", None)  # Triton's count of 4-byte local words; None interpreted
                ptx = getattr(launched, "asm", {}).get("ptx")
                kernels[str(c)] = {"registers": getattr(launched, "n_regs", None),
                                   "local_bytes": None if spills is None else spills * 4,
                                   "barriers": None if ptx is None else ptx.count("bar.sync")}
        if design == "split_row":
            assert all(int(workspace(x.device, rows, c[0])[1].abs().sum()) == 0 for c in cfgs), "counters not reset"

    sweeps, names = {}, {}
    top_copy, sweeps["copy"] = sol.sweep_configs(timer, {c: (lambda c=c: same_bytes_copy(x, r, outs, *c))
                                                                    for c in sol.COPY_CONFIGS})
    names["copy"] = {c: f"copy {c}" for c in top_copy}
    for design, cfgs in configs.items():
        if cfgs:
            top, sweeps[design] = sol.sweep_configs(timer, {c: (lambda c=c, d=design: run[d](x, r, c, outs))
                                                            for c in cfgs})
            names[design] = {c: f"{design} {c}" for c in top}

    def place(i: int) -> dict[str, Any]:
        x, r = random_bf16(rows, hidden, seed=seed + 1 + i)
        outs = poisoned(x, 2)
        versions = {n: (lambda c=c: same_bytes_copy(x, r, outs, *c)) for c, n in names["copy"].items()}
        for design in DESIGNS:
            versions.update({n: (lambda c=c, d=design: run[d](x, r, c, outs))
                             for c, n in names.get(design, {}).items()})
        return versions

    timed, rounds = sol.interleaved_rounds(timer, place)
    picked, finalists = {}, {}
    for design, n in names.items():
        best, finalists[design] = sol.pick(timed, n, design)
        picked[design] = list(best)
    order = [d for d in DESIGNS if d in timed]
    timed = sol.against_copy(sol.listed_first(timed, "copy", *order), 4 * x.numel() * 2 + hidden * 2)
    return {"rows": rows, "hidden": hidden, "configs": picked, "versions": timed, "sweep_ms": sweeps,
            "finalist_rounds": finalists, "rounds": rounds, "warp_rows_kernels": kernels,
            # a design with no configuration that fits: the registers its row would need for x alone, two bf16 each
            "not_run": {} if configs["warp_rows"] else {"warp_rows": {
                "elements_per_thread": hidden // 32, "registers_for_x": hidden // 64, "registers": REGISTERS}},
            "check": check}


def measure() -> dict[str, Any]:
    shapes = []
    for rows, hidden in SHAPES:
        shapes.append(_shape(rows, hidden))
        torch.cuda.empty_cache()
    return {"shapes": shapes, **sol.criterion(), "finalists": sol.FINALISTS, "chunk": CHUNK,
            "sms": torch.cuda.get_device_properties(0).multi_processor_count}
