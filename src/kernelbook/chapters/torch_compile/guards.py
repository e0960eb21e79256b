"""What the torch-compile page's sentences rest on: each guard's condition on the facts (kernelbook.guards), with the
words it states and what the page would say were it false."""

from __future__ import annotations

from kernelbook import fmt
from kernelbook.guards import Guard


def _s(x: float | None) -> str:
    return f"{fmt.num(x, 1)} s"


def _us(x: float | None) -> str:
    return f"{fmt.num(x, 1)} µs"


GUARDS = {  # what the page's paragraphs rest on (kernelbook.guards); each tested both ways in tests/
    "gemms_to_cublas": Guard(
        "the compiled one-token MLP half hands its matrix products to cuBLAS",
        lambda f: f.mlp_extern > 0,
        states=("handed every     matrix product to cuBLAS",),
        found=lambda f: "the compiled one-token MLP half made no cuBLAS call"),
    "one_saves": Guard(
        "compiling took GPU time off the MLP half at one token",
        lambda f: f.one_saved_us > 0,
        states=("of the GPU time",),
        found=lambda f: f"compiling changed the MLP half's GPU time at one token by {_us(-f.one_saved_us)}"),
    "big_saves": Guard(
        "compiling took GPU time off the MLP half at prefill size",
        lambda f: f.big_saved_share > 0,
        states=("tokens it saved",),
        found=lambda f: f"compiling changed the MLP half's GPU time at {f.big_tokens} tokens by "
                        f"{fmt.pct(-f.big_saved_share)}"),
    "gemm_dominates": Guard(
        "at prefill size the matrix products take most of eager's GPU time",
        lambda f: f.big_gemm_dominates,
        states=("are most of the work",),
        found=lambda f: f"at {f.big_tokens} tokens the matrix products took {fmt.pct(f.big_gemm_share_eager)} of "
                        "eager's GPU time"),
    "norm_as_laptop": Guard(
        "Inductor wrote as many kernels for add + RMSNorm as on the article's laptop",
        lambda f: f.norm_kernels_as_laptop,
        states=("as on the article's laptop",),
        found=lambda f: f"Inductor wrote {f.norm_kernels} kernels for add + RMSNorm, the laptop "
                        f"{f.laptop_norm_kernels}"),
    "norm_chunked": Guard(
        "the add + RMSNorm kernel walks each row in blocks",
        lambda f: f.norm_chunked,
        states=("walks each row in blocks",),
        found=lambda f: "the add + RMSNorm kernel holds each row at once"),
    "norm_rereads_h": Guard(
        "the add + RMSNorm kernel loads the stored h back in a later loop",
        lambda f: f.norm_reread == "stored",
        states=("a later loop loads `h` back",),
        found=lambda f: "the add + RMSNorm kernel does not load the stored h back in a later loop"),
    "weight_kept": Guard(
        "the weight vector's load carries the hint to keep it in cache",
        lambda f: f.weight_kept,
        states=("`evict_last` on the weight vector",),
        found=lambda f: "the weight vector's load carries no hint to keep it in cache"),
    "others_dropped": Guard(
        "the kernel's other loads carry the hint to let the cache drop them",
        lambda f: f.evict_first > 0,
        states=("`evict_first`",),
        found=lambda f: "no load of the kernel carries the hint to let the cache drop it"),
    "shape_baked": Guard(
        "both sizes of the input are literals in the kernel's source",
        lambda f: f.shape_baked,
        states=("both sizes are literals in the source",),
        found=lambda f: "the kernel's source takes the input's sizes as arguments"),
    "mlp_as_laptop": Guard(
        "the MLP half's call() has the laptop's Triton kernels and cuBLAS calls",
        lambda f: f.mlp_as_laptop,
        states=("the split the article printed from its laptop",),
        found=lambda f: f"the MLP half's call() ran {f.mlp_triton} Triton kernels, {f.mlp_mm} mm and {f.mlp_addmm} "
                        f"addmm calls; the laptop's {f.laptop_mlp_triton}, {f.laptop_mlp_mm} and {f.laptop_mlp_addmm}"),
    "residual_in_addmm": Guard(
        "an addmm with beta=1 adds the second residual",
        lambda f: f.residual_in_addmm,
        states=("cuBLAS adds it while it writes the down projection",),
        found=lambda f: "no addmm takes the residual as its input: a kernel of Inductor's adds it"),
    "one_saved_as_laptop": Guard(
        "the GPU time saved at one token lies inside the laptop's range",
        lambda f: f.one_saved_vs_laptop == "within",
        states=("inside the range the article measured",),
        found=lambda f: f"compiling saved {_us(f.one_saved_us)} at one token, {f.one_saved_vs_laptop} the laptop's "
                        f"{fmt.num(f.laptop_one_saved_low, 0)} to {fmt.num(f.laptop_one_saved_high, 0)} µs"),
    "launch_beats_kernel": Guard(
        "an eager loop's time per launch from Python is longer than the median eager kernel runs",
        lambda f: f.launch_beats_kernel,
        states=("more than most of them run",),
        found=lambda f: f"an eager loop took {_us(f.machine_eager_us)} per launch from Python, and the median eager "
                        f"kernel ran {_us(f.eager_kernel_us_median)}"),
    "addmm_copy": Guard(
        "the compiled call copies the residual once for its addmm, where eager makes no copy",
        lambda f: f.addmm_copies == 1 and f.eager_copies == 0,
        states=("the compiled call adds one device-to-device copy",),
        found=lambda f: f"the compiled call made {f.addmm_copies} device-to-device copies, eager {f.eager_copies}"),
    "big_share_above_laptop": Guard(
        "at prefill size compiling saved a larger share than on the laptop",
        lambda f: f.big_saving_vs_laptop == "more",
        states=("the saved share is larger than on the laptop",),
        found=lambda f: f"at {f.big_tokens} tokens compiling saved {fmt.pct(f.big_saved_share)}, the laptop "
                        f"{fmt.pct(f.laptop_big_saved_share)}"),
    "gemm_renamed": Guard(
        "at prefill size cuBLAS runs another kernel for some matrix product in the compiled call",
        lambda f: f.big_gemm_renamed > 0,
        states=("picked another kernel for some of them",),
        found=lambda f: f"at {f.big_tokens} tokens cuBLAS ran the same kernels for all {f.big_gemms} matrix products "
                        "in the compiled call"),
    "norm_cold_as_laptop": Guard(
        "add + RMSNorm's cold compile took about as long as the laptop's",
        lambda f: f.norm_cold_vs_laptop == "similar",
        states=("compiled in about the time the article measured",),
        found=lambda f: f"add + RMSNorm's cold compile took {_s(f.norm_cold_s)}, the laptop's "
                        f"{_s(f.laptop_norm_cold_s)}"),
    "decode_cold_slower": Guard(
        "the slowest cold decode compile took longer than the laptop's slowest",
        lambda f: f.decode_cold_above_laptop,
        states=("the slowest compile timed here took longer than the laptop's slowest",),
        found=lambda f: f"the slowest cold decode compile took {_s(f.decode_cold_high)}, the laptop's "
                        f"{_s(f.laptop_decode_cold_high)}"),
    "decode_warm_slower": Guard(
        "the slowest warm decode compile of the modes timed warm took longer than the laptop's slowest",
        lambda f: f.decode_warm_above_laptop,
        states=("cold and warm",),
        found=lambda f: f"the slowest warm decode compile timed took {_s(f.decode_warm_high)}, the laptop's "
                        f"{_s(f.laptop_decode_warm_high)}"),
    "recompiled": Guard(
        "the second token count failed its guard and compiled a second graph",
        lambda f: f.second_recompiled,
        states=("compiled a second graph",),
        found=lambda f: f"the call with {f.second_tokens} tokens compiled no second graph"),
    "recompile_as_laptop": Guard(
        "the recompile took about the laptop's time",
        lambda f: f.recompile_vs_laptop == "similar",
        states=("close to the article's time",),
        found=lambda f: f"the recompile took {fmt.num(f.recompile_s, 2)} s, the laptop's "
                        f"{fmt.num(f.laptop_recompile_s, 2)} s"),
    "later_quiet": Guard(
        "no call after the recompile compiled anything",
        lambda f: f.later_quiet,
        states=("the calls after it compiled nothing",),
        found=lambda f: f"the calls after the recompile compiled {f.later_graphs} more graphs"),
    "checked_broke": Guard(
        "the .item() check broke the graph",
        lambda f: f.checked_broke,
        states=("found the same break",),
        found=lambda f: "the .item() check did not break the graph"),
    "breaks_as_laptop": Guard(
        "the checked function broke into as many graphs as on the laptop",
        lambda f: f.checked_as_laptop,
        states=("as on the article's laptop",),
        found=lambda f: f"the checked function compiled as {f.checked_graphs} graphs with {f.checked_breaks} breaks, "
                        f"the laptop's as {f.laptop_checked_graphs} with {f.laptop_checked_breaks}"),
    "decode_unbroken": Guard(
        "the decode step compiles as one graph with no break",
        lambda f: f.decode_unbroken,
        states=("it compiles as one graph",),
        found=lambda f: f"the decode step compiled as {f.decode_graphs} graphs with {f.decode_breaks} breaks"),
    "big_gpu_here": Guard(
        "this GPU passes Inductor's big-GPU test",
        lambda f: f.is_big_gpu,
        states=("and passes",),
        found=lambda f: f"this GPU fails Inductor's big-GPU test, with {f.sm_count} SMs against its {f.min_sms}"),
    "laptop_small": Guard(
        "the laptop fell short of the same big-GPU threshold",
        lambda f: f.same_threshold and not f.laptop_big,
        states=("fell short",),
        found=lambda f: f"the laptop's {f.laptop_sm_count} SMs met its threshold of {f.laptop_min_sms}, this torch's "
                        f"{f.min_sms}"),
    "rewrite_needs_cdt": Guard(
        "the one-row matmul rewrite needs coordinate descent tuning",
        lambda f: f.mm_rewrite_needs_cdt,
        states=("does this only with `coordinate_descent_tuning`",),
        found=lambda f: "Inductor's mm decomposition rewrites one-row products without coordinate descent tuning"),
    "ma_sets_cdt": Guard(
        "max-autotune turns coordinate descent tuning on",
        lambda f: f.ma_sets_cdt,
        states=("which max-autotune turns on",),
        found=lambda f: "max-autotune leaves coordinate descent tuning off"),
    "ma_all_triton": Guard(
        "max-autotune ran the one-token MLP half with no cuBLAS call",
        lambda f: f.ma_all_triton,
        states=("no cuBLAS call",),
        found=lambda f: f"max-autotune's one-token MLP half made {f.ma_extern} cuBLAS calls"),
    "ma_mm_fused": Guard(
        "under max-autotune the down projection is a Triton reduction named for mm and its fused operations",
        lambda f: f.ma_down_found,
        states=("turned into a reduction",),
        found=lambda f: "under max-autotune no Triton kernel of the MLP half names mm"),
    "decode_templates": Guard(
        "matrix products with a bias ran as Triton templates in the decode step",
        lambda f: f.decode_uses_templates,
        states=("ran as Triton templates",),
        found=lambda f: "no matrix product of the decode step ran as a Triton template"),
    "laptop_kept_cublas": Guard(
        "the laptop ran as many matrix products with a bias on cuBLAS as ran here as Triton templates",
        lambda f: f.laptop_bias_cublas >= max(f.decode_bias_templates, 1),
        states=("kept them all on cuBLAS",),
        found=lambda f: f"the laptop ran {f.laptop_bias_cublas} matrix products with a bias on cuBLAS, against "
                        f"{f.decode_bias_templates} Triton templates here"),
    "only_attention_outside": Guard(
        "among the decode step's busiest kernels under max-autotune only attention ran outside Triton",
        lambda f: f.only_attention_outside,
        states=("only attention ran outside Triton",),
        found=lambda f: "among the decode step's busiest kernels under max-autotune, more than attention ran "
                        "outside Triton"),
    "decode_shared_cache": Guard(
        "the two-process run compiles several modes into one cache",
        lambda f: f.decode_shared_cache,
        states=("into the same cache directory",),
        found=lambda f: f"each process compiled only {f.decode_first_mode} mode"),
}
