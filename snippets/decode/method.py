from kernelbook import page
from kernelbook.decode.measure import WARM_STEPS
from kernelbook.decode.variants import COMPILE_CALLS

d = page.result("decode.six_ways").data
print(
    f"Only after every check has run are the variants timed: {d['rounds_n']} interleaved rounds, with the order "
    "rotated each round so that clock drift and warm-up hit all variants alike. In each round a variant prefills, "
    f"runs {WARM_STEPS} untimed steps and times {d['timed_steps']} steps one by one. Only after the last round is "
    f"each variant profiled, for {d['profile_calls']} more steps: the profile gives the kernels per step and the "
    "GPU's busy time (the sum of kernel durations); idle is the rest of the step's time. The profiles come last "
    "because `torch.profiler` leaves CUDA's profiling interface (CUPTI) attached when it stops, and every launch "
    "after it costs the host more; one more round, timed after the profiles, shows how much (below the table). The "
    "times come from `time.perf_counter` around each step with `torch.cuda.synchronize()` before and after, so they "
    "include the synchronisation itself, as a real decode loop's per-token time would. A compile time is the wall "
    f"time of a mode's first {COMPILE_CALLS} calls (tracing and compiling, then, for the two graph modes, recording "
    "the CUDA graph), with each mode given an empty on-disk Inductor cache; all three compile in the same process."
)
