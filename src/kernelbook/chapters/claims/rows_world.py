"""The ledger's rows for the article's "In the real world": what vLLM, SGLang and llama.cpp document (rows of
their own kind, with the source cited, computed where they can be), and why engines capture decode, not prefill."""

from __future__ import annotations

from .data import OWN, WORLD, launch, mlp, ms, vllm_sizes
from .verdicts import documented, figure, relation

MP, MC = "torch_compile.mlp_profile", "machine.ceilings"
SOL = "speed_of_light.add_rmsnorm"
VLLM_COMPILE = "https://docs.vllm.ai/en/latest/design/torch_compile.html"
VLLM_GRAPHS = "https://docs.vllm.ai/en/latest/design/cuda_graphs.html"
VLLM_ARGS = "https://docs.vllm.ai/en/latest/configuration/engine_args.html"
SGLANG_ARGS = "https://docs.sglang.ai/advanced_features/server_arguments.html"
LLAMA_CPP = "https://developer.nvidia.com/blog/optimizing-llama-cpp-ai-inference-with-cuda-graphs/"
VLLM_KERNELS = "https://github.com/vllm-project/vllm/blob/main/csrc/layernorm_kernels.cu"
LIGER = "https://github.com/linkedin/Liger-Kernel/tree/main/src/liger_kernel/ops"
UNSLOTH = "https://github.com/unslothai/unsloth/tree/main/unsloth/kernels"


def _mean_ms(d, way: str) -> float:
    """The mean GPU time of one kernel of the MLP half at 2,048 tokens, ms."""
    m = mlp(d, "2048")[way]
    return m["busy_us"] / m["per_call"] / 1e3


def _gpu_us(d) -> float:
    """The eager MLP half's GPU time per call at 2,048 tokens, µs."""
    return mlp(d, "2048")["eager"]["busy_us"]


def _host_bounds(d) -> tuple[float, float]:
    """The same call's host time, µs, only bounded: no less than its launches at the host's time to enqueue one,
    timed without the profiler (machine.ceilings), and no more than its host time under the profiler, which inflates
    host time (the decode chapter shows by how much). Host time unprofiled was not measured for this call."""
    eager = mlp(d, "2048")["eager"]
    return round(eager["launches"]) * launch(d)["host_enqueue_us"]["median"], eager["cpu_us"]


def _sizes(largest: int) -> str:
    s = vllm_sizes(largest)
    return f"{len(s)} sizes, {s[0]} to {s[-1]:,}"


ROWS = (
    documented("vllm-compiles", WORLD, "real-world.md",
               "vLLM's V1 engine runs torch.compile by default, for a symbolic batch size, cut at attention",
               "vLLM docs: torch.compile integration", VLLM_COMPILE),
    documented("vllm-graph-mode", WORLD, "real-world.md",
               "vLLM's default graph mode replays one whole graph for pure decode batches, and pieces around eager "
               "attention otherwise", "vLLM docs: CUDA graphs", VLLM_GRAPHS),
    documented("vllm-one-size", WORLD, "real-world.md", "A graph vLLM captured serves only the batch size it was "
               "captured for", "vLLM docs: engine arguments", VLLM_ARGS),
    documented("vllm-sizes", WORLD, "real-world.md",
               "vLLM captures sizes 1, 2, 4, every 8 to 248, then every 16 up to 512 (1,024 on data-centre "
               "Blackwell)", "vLLM docs: engine arguments", VLLM_ARGS,
               ours=lambda d: f"{_sizes(512)}; {_sizes(1024)}"),
    documented("vllm-enforce-eager", WORLD, "real-world.md",
               "vLLM's --enforce-eager disables compilation and graphs alike",
               "vLLM docs: engine arguments", VLLM_ARGS),
    documented("sglang-graphs", WORLD, "real-world.md",
               "SGLang sets the largest batch of its decode and of its prefill CUDA graphs separately",
               "SGLang docs: server arguments", SGLANG_ARGS),
    documented("sglang-compile", WORLD, "real-world.md",
               "SGLang's --enable-torch-compile is meant for small models at small batches, up to "
               "--torch-compile-max-bs (32 by default)", "SGLang docs: server arguments", SGLANG_ARGS),
    documented("llama-cpp-graphs", WORLD, "real-world.md",
               "llama.cpp's CUDA backend replays each token's kernels as one graph at batch size 1",
               "NVIDIA technical blog: llama.cpp with CUDA graphs", LLAMA_CPP),
    documented("llama-cpp-gain", WORLD, "real-world.md",
               "NVIDIA reports up to 1.2× from llama.cpp's graphs, for the smallest Llama 7B on H100",
               "NVIDIA technical blog: llama.cpp with CUDA graphs", LLAMA_CPP),
    documented("llama-cpp-update", WORLD, "real-world.md",
               "As the KV cache grows, llama.cpp writes the changed kernel parameters into its graph rather than "
               "capture again", "NVIDIA technical blog: llama.cpp with CUDA graphs", LLAMA_CPP),
    figure("prefill-kernel-ms", WORLD, "real-world.md",
           "At 2,048 tokens the MLP half's kernels average 0.5 to 1.2 ms each",
           test="else: longer than a launch", needs=(MP, MC),
           value=lambda d: tuple(sorted((_mean_ms(d, "compiled"), _mean_ms(d, "eager")))),
           direction=lambda d: min(_mean_ms(d, "compiled"), _mean_ms(d, "eager")) * 1e3
           > launch(d)["host_enqueue_us"]["median"], fmt=ms(3), band=OWN,
           article=lambda p: (p[MP]["kernel_ms_2048_low"], p[MP]["kernel_ms_2048_high"])),
    figure("prefill-kernel-count", WORLD, "real-world.md",
           "At 2,048 tokens the MLP half runs 7 to 16 kernels, compiled or eager",
           test="else: fewer compiled", needs=(MP,),
           value=lambda d: (mlp(d, "2048")["compiled"]["per_call"], mlp(d, "2048")["eager"]["per_call"]),
           direction=lambda d: mlp(d, "2048")["compiled"]["per_call"] < mlp(d, "2048")["eager"]["per_call"],
           fmt=lambda x: f"{x:.0f}", band=OWN,
           article=lambda p: (p[MP]["kernels_2048_low"], p[MP]["kernels_2048_high"])),
    relation("prefill-launch-hidden", WORLD, "real-world.md",
             "At 2,048 tokens the launches hide behind the kernels' GPU time",
             "each op's kernel outlasts the host's time to issue it: the call's GPU time over its host time, known "
             "only between its launches at the unprofiled enqueue time and its host time under the profiler, which "
             "inflates host time (not resolved between the two)",
             needs=(MP, MC), rounds=lambda d: [_gpu_us(d) - host for host in _host_bounds(d)],
             laptop=lambda p: "stated",
             ours=lambda d: f"{_gpu_us(d):,.0f} µs GPU; host {_host_bounds(d)[0]:,.0f} µs (its launches, "
                            f"unprofiled) to {_host_bounds(d)[1]:,.0f} µs (under the profiler)"),
    documented("vllm-fused-kernels", WORLD, "real-world.md",
               "vLLM ships its own fused add + RMSNorm and SiLU-and-multiply kernels", "vLLM source: csrc",
               VLLM_KERNELS),
    documented("liger-unsloth", WORLD, "speed-of-light.md",
               "Liger-Kernel maintains RMSNorm and SwiGLU written in Triton, for training",
               "Liger-Kernel source: ops", LIGER, needs=(SOL,),
               ours=lambda d: "its kernels raced against ours on this GPU" if d[SOL].get("liger")
               else "not installed for this GPU's runs"),
    documented("unsloth", WORLD, "speed-of-light.md",
               "Unsloth maintains RMSNorm and SwiGLU written in Triton, for training",
               "Unsloth source: kernels (rms_layernorm.py, swiglu.py)", UNSLOTH),
)
