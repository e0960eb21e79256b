"""Published batch-1 decode steps on an H200, to set this page's steps against: figures quoted, not measured here.

msaroufim/megakernels-vs-cuda-graphs timed Llama-3.2-1B at batch 1 on an H200 two ways: CUDA graphs with
programmatic dependent launch, and Hazy Research's megakernel (one persistent launch for the whole step). Its
RESULTS.md gives each as µs per decode step, the mean over 127 dependent steps. Another model, another H200 and
another driver: the bytes a step reads make the steps comparable, as weights over time.

What RESULTS.md says beside those figures, recorded here because the page says it: the megakernel was built unmodified
with its H100 setting ("Build: unmodified `GPU=H100`, `sm_90a`"), and run on the H200 as built; and under the study's
own numerical-fidelity check (errors against Hugging Face's FP32 eager step, calibrated by native BF16) the CUDA-graph
arm passes and the megakernel misses ("Conventional passes both criteria ...; Hazy misses them"), so by its rule
neither H200 figure is an accuracy-matched speed win.

Those bytes are counted here as `decode.model.weight_bytes` counts ours (every parameter once, a tied embedding
once), from Llama-3.2-1B's shapes; a test checks the count against transformers' own model built on the meta device.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

REPO, PATH = "msaroufim/megakernels-vs-cuda-graphs", "llama/docs/RESULTS.md"
COMMIT = "e7b1b5eb0e1b22370aebe48638205f046fdac620"
MODEL, GPU = "Llama-3.2-1B", "H200"  # what the published steps ran
TIMED_STEPS = 127  # dependent decode steps a published mean is over, after 32 prompt tokens

# meta-llama/Llama-3.2-1B's config.json, the fields that size its weights (no biases, tied embeddings)
LLAMA32_1B: dict[str, Any] = {
    "vocab_size": 128256,
    "hidden_size": 2048,
    "intermediate_size": 8192,
    "num_hidden_layers": 16,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "head_dim": 64,
    "tie_word_embeddings": True,
}


@dataclass(frozen=True)
class Anchor:
    label: str
    step_us: float  # µs per decode step, as published
    fidelity_passed: bool  # passed the study's own numerical-fidelity check (RESULTS.md, "Numerical fidelity")
    built_for: str | None = None  # the GPU setting it was built with, where RESULTS.md names one


ANCHORS = (Anchor("CUDA graphs + PDL", 794.74, fidelity_passed=True),
           Anchor("Hazy Research's megakernel", 759.83, fidelity_passed=False, built_for="H100"))


def llama_layer_bytes(cfg: dict[str, Any] = LLAMA32_1B, element_bytes: int = 2) -> int:
    """One layer's weights in a Llama model without biases: its projections and its two RMSNorm scales."""
    h, i = cfg["hidden_size"], cfg["intermediate_size"]
    q = cfg["num_attention_heads"] * cfg["head_dim"]  # 2048
    kv = cfg["num_key_value_heads"] * cfg["head_dim"]  # 512
    attention = h * q + 2 * h * kv + q * h  # W_q, W_k, W_v (h -> q, kv, kv) and W_o (q -> h)
    mlp = 3 * h * i  # W_gate, W_up (h -> i) and W_down (i -> h)
    return element_bytes * (attention + mlp + 2 * h)


def llama_weight_bytes(cfg: dict[str, Any] = LLAMA32_1B, element_bytes: int = 2) -> int:
    """Every weight of that model, a tied embedding counted once: what one decode step reads."""
    h = cfg["hidden_size"]
    embedding = cfg["vocab_size"] * h * (1 if cfg["tie_word_embeddings"] else 2)  # the LM head's, if untied
    return cfg["num_hidden_layers"] * llama_layer_bytes(cfg, element_bytes) + element_bytes * (embedding + h)
