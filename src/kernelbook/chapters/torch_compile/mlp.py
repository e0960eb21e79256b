"""The MLP half of a Qwen2.5-1.5B decoder layer, in plain PyTorch, as torch.compile sees it.

residual add -> Qwen2 RMSNorm -> gate and up projections -> silu(gate) * up -> down projection -> residual add.
The weights are seeded random numbers scaled by 1/sqrt(fan_in), so activations keep a sane size; no checkpoint is
needed to see what the compiler does with the shapes. Every function here is eager PyTorch: the compiled versions
are `torch.compile` of these same functions, never a rewrite.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

from kernelbook.kernels.add_rmsnorm import make_qwen2_norm, qwen2_add_rmsnorm
from kernelbook.kernels.swiglu import swiglu_ref

HIDDEN = 1536  # Qwen2.5-1.5B hidden size
INTERMEDIATE = 8960  # Qwen2.5-1.5B MLP width
SEED = 0
CHECK_LIMIT = 100.0  # the graph-break demo's threshold on |h|


class MLPHalf(nn.Module):
    """The weights of one MLP half: Qwen2RMSNorm plus three bias-free projections (Qwen2's MLP has no bias)."""

    def __init__(self, hidden: int = HIDDEN, intermediate: int = INTERMEDIATE, device: str | torch.device = "cuda",
                 dtype: torch.dtype = torch.bfloat16, seed: int = SEED) -> None:
        super().__init__()
        gen = torch.Generator(device="cpu").manual_seed(seed)

        def linear(n_in: int, n_out: int) -> nn.Linear:
            lin = nn.Linear(n_in, n_out, bias=False, device=device, dtype=dtype)
            w = torch.randn(n_out, n_in, generator=gen) / n_in**0.5  # (out, in), as nn.Linear stores it
            lin.weight.data.copy_(w.to(dtype))
            return lin

        self.norm = make_qwen2_norm(hidden, device, dtype=dtype)
        self.gate_proj = linear(hidden, intermediate)
        self.up_proj = linear(hidden, intermediate)
        self.down_proj = linear(intermediate, hidden)
        self.requires_grad_(False)  # inference only: no autograd graph in eager or compiled code


# --8<-- [start:mlp_half]
def mlp_half(x: torch.Tensor, residual: torch.Tensor, block: MLPHalf) -> torch.Tensor:
    """x, residual: (tokens, hidden) bf16. Returns the new residual stream, (tokens, hidden)."""
    h, y = qwen2_add_rmsnorm(x, residual, block.norm)  # h = x + residual; y = RMSNorm(h)
    g = block.gate_proj(y)  # (tokens, intermediate)
    u = block.up_proj(y)  # (tokens, intermediate)
    return h + block.down_proj(swiglu_ref(g, u))  # (tokens, hidden)
# --8<-- [end:mlp_half]


# --8<-- [start:checked]
def add_rmsnorm_checked(x: torch.Tensor, residual: torch.Tensor, norm: nn.Module) -> tuple[torch.Tensor, torch.Tensor]:
    """The residual add and Qwen2 RMSNorm with a data-dependent check in between: .item() needs the value on the CPU."""
    h = x + residual
    if h.float().abs().max().item() > CHECK_LIMIT:
        print("large activation in the residual stream")
    return h, norm(h)
# --8<-- [end:checked]


def make_inputs(tokens: int, hidden: int = HIDDEN, device: str | torch.device = "cuda",
                dtype: torch.dtype = torch.bfloat16, seed: int = 1) -> tuple[torch.Tensor, torch.Tensor]:
    """x and residual, (tokens, hidden) each, random normal."""
    gen = torch.Generator(device="cpu").manual_seed(seed)
    x = torch.randn(tokens, hidden, generator=gen).to(device, dtype)
    r = torch.randn(tokens, hidden, generator=gen).to(device, dtype)
    return x, r


def check_close(out: torch.Tensor, ref: torch.Tensor, what: str, rel: float = 2e-2) -> float:
    """Relative Frobenius error of out against ref; raises if it exceeds `rel` or out holds a non-finite value."""
    assert out.shape == ref.shape, f"{what}: shape {tuple(out.shape)} != {tuple(ref.shape)}"
    assert bool(torch.isfinite(out).all()), f"{what}: non-finite values in the output"
    err = ((out.double() - ref.double()).norm() / ref.double().norm().clamp_min(1e-30)).item()
    assert err <= rel, f"{what}: relative error {err:.3g} > {rel}"
    return err


def describe(block: MLPHalf) -> dict[str, Any]:
    """Shapes and bytes of the weights, for the page."""
    n = sum(p.numel() for p in block.parameters())
    return {"hidden": block.gate_proj.in_features, "intermediate": block.gate_proj.out_features,
            "weight_elements": n, "weight_bytes": n * block.gate_proj.weight.element_size()}
