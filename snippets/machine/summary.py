from kernelbook import page

r = page.result("machine.ceilings")
bw, mm, launch = r.data["bandwidth"], r.data["matmul"], r.data["launch"]
laptop = page.result("machine.ceilings", "nvidia-geforce-rtx-4060-laptop-gpu").data

l2 = r.provenance.get("l2_bytes")
chip = f"{r.provenance['sm_count']} SMs" + (f", {page.num(l2 / 2**20, 0)} MiB of L2" if l2 else "")
print(
    f"This {page.machine_label(r)} ({chip}) copies {page.num(bw['copy']['gbps'] / 1e3, 2)} TB/s (bytes read plus "
    f"bytes written) and multiplies bf16 matrices at {page.num(mm['tflops'], 0)} TFLOP/s, so a kernel needs about "
    f"**{page.num(r.data['ridge_flop_per_byte'], 0)} FLOP per byte** before arithmetic, not memory, limits it. "
    f"The article's laptop needed {page.num(laptop['ridge_flop_per_byte'], 0)}: the H200 moves "
    f"{page.num(bw['copy']['gbps'] / laptop['copy_gbps'], 0)} times the bytes and does "
    f"{page.num(mm['tflops'] / laptop['bf16_tflops'], 0)} times the arithmetic. A launch from Python costs "
    f"{page.num(launch['eager_us_per_launch'], 1)} µs of GPU wall time when the kernel itself is trivial; replayed "
    f"from a CUDA graph the same kernel costs {page.num(launch['graph_us_per_launch'], 2)} µs."
)
host, lap_host = launch["host_enqueue_us"]["median"], laptop["launch_host_us"]
print(
    f"\nOne difference from the article matters for every later page: the Python side of a launch is "
    f"{'slower' if host > lap_host else 'faster'} here, {page.num(host, 1)} µs of host time per launch against the "
    f"laptop's {page.num(lap_host, 1)} µs, while the GPU side got far faster. So on this machine the host, not the "
    f"GPU, sets the pace of any step made of many small kernels, and removing launches "
    f"({page.num(launch['speedup'], 1)}× for these tiny kernels, against the laptop's "
    f"{laptop['graph_speedup_low']}–{laptop['graph_speedup_high']}×) pays "
    f"{'even more' if launch['speedup'] > laptop['graph_speedup_high'] else 'at least as much'}."
)
