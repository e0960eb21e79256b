"""Qwen2.5-1.5B's exact configuration, built in code, with seeded random weights.

No weights can be downloaded on the measuring machine, so the model is the real architecture (Hugging Face's
`Qwen2ForCausalLM`, PyTorch SDPA attention) at the real shapes with random weights: the same bytes, the same
kernels and the same launch count per step as the released model, and meaningless text.
"""

from __future__ import annotations

from typing import Any

import torch

SEED = 0
INIT_STD = 0.02  # Qwen2's initializer_range

# Qwen2.5-1.5B(-Instruct)'s config.json, field by field; head_dim = 1536 / 12 = 128
QWEN25_15B: dict[str, Any] = {
    "vocab_size": 151936,
    "hidden_size": 1536,
    "intermediate_size": 8960,
    "num_hidden_layers": 28,
    "num_attention_heads": 12,
    "num_key_value_heads": 2,
    "hidden_act": "silu",
    "max_position_embeddings": 32768,
    "rms_norm_eps": 1e-6,
    "rope_theta": 1_000_000.0,
    "tie_word_embeddings": True,
    "use_sliding_window": False,
}

# Two layers, same structure (grouped-query attention, tied embeddings, q/k/v biases): for CPU tests
TINY: dict[str, Any] = {
    **QWEN25_15B,
    "vocab_size": 512,
    "hidden_size": 64,
    "intermediate_size": 160,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
}


def qwen2_config(fields: dict[str, Any] = QWEN25_15B) -> Any:
    """A transformers Qwen2Config from plain fields, with SDPA attention; rope_theta goes where this version wants."""
    import inspect

    from transformers import Qwen2Config

    full = fields is QWEN25_15B
    fields = dict(fields)
    theta = fields.pop("rope_theta")
    params = inspect.signature(Qwen2Config.__init__).parameters
    if "rope_parameters" in params or "rope_parameters" in getattr(Qwen2Config, "__annotations__", {}):
        fields["rope_parameters"] = {"rope_type": "default", "rope_theta": theta}
    else:  # transformers 4.x
        fields["rope_theta"] = theta
    cfg = Qwen2Config(**fields, attn_implementation="sdpa")
    cfg._attn_implementation = "sdpa"
    got = getattr(cfg, "rope_parameters", None) or {}
    got_theta = got.get("rope_theta", getattr(cfg, "rope_theta", None)) if isinstance(got, dict) else None
    assert got_theta == theta, f"rope_theta did not reach the config: {got_theta!r} != {theta}"
    assert not full or cfg.hidden_size // cfg.num_attention_heads == 128, "Qwen2.5-1.5B's head_dim is 128"
    return cfg


def build_model(fields: dict[str, Any] = QWEN25_15B, device: str | torch.device = "cuda",
                dtype: torch.dtype = torch.bfloat16, seed: int = SEED) -> torch.nn.Module:
    """Qwen2ForCausalLM on `device`, weights drawn in float32 from a seeded generator on that device, then cast.

    Linear weights, biases and the embedding ~ N(0, 0.02); RMSNorm scales 1. Drawing in float32 and casting means
    a float32 and a bf16 model built with the same seed hold the same weights up to bf16 rounding.
    """
    from transformers import Qwen2ForCausalLM

    cfg = qwen2_config(fields)
    with torch.device(device):
        model = Qwen2ForCausalLM(cfg)
    gen = torch.Generator(device=device).manual_seed(seed)
    with torch.no_grad():
        for name, p in sorted(model.named_parameters(), key=lambda kv: kv[0]):
            if "norm" in name:
                p.fill_(1.0)
            else:
                p.normal_(0.0, INIT_STD, generator=gen)
    model = cast_params(model, dtype).eval().requires_grad_(False)
    assert model.lm_head.weight is model.model.embed_tokens.weight or not cfg.tie_word_embeddings, \
        "tie_word_embeddings=True but lm_head and embed_tokens hold separate tensors"
    assert model.config._attn_implementation == "sdpa", f"attention is {model.config._attn_implementation!r}"
    return model


def cast_params(model: torch.nn.Module, dtype: torch.dtype) -> torch.nn.Module:
    """Cast the parameters only, in place: buffers such as RoPE's inv_freq stay float32, as in a bf16 checkpoint
    loaded by from_pretrained. The Parameter objects are kept, so tied weights stay tied."""
    with torch.no_grad():
        for p in model.parameters():
            p.data = p.data.to(dtype)
    return model


def weight_bytes(model: torch.nn.Module) -> int:
    """Bytes of every parameter, a tied embedding counted once: what one decode step must read."""
    # parameters() yields each shared tensor once
    return sum(p.numel() * p.element_size() for p in model.parameters())


def param_count(model: torch.nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())
