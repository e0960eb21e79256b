"""add_rmsnorm: the Triton kernel against its reference (CPU: Triton's interpreter, fp32) and against Hugging Face's
Qwen2RMSNorm in bf16 on a GPU."""

from __future__ import annotations

import importlib

import pytest
import torch
from transformers.models.qwen2.modeling_qwen2 import Qwen2RMSNorm

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
SHAPES = [(1, 4096), (3, 1000), (7, 1536), (2, 33), (5, 8)]  # one row; widths that are not powers of two
TOL = {torch.float32: dict(atol=1e-5, rtol=1e-5)}


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("dtype", [torch.float32])
def test_kernel_matches_reference(shape, dtype, kernel):
    mod = kernel("add_rmsnorm")
    gen = torch.Generator().manual_seed(shape[0] * 7919 + shape[1])
    x, r = (torch.randn(shape, generator=gen, dtype=dtype).to(DEVICE) for _ in range(2))
    w = (1 + 0.1 * torch.randn(shape[1], generator=gen, dtype=dtype)).to(DEVICE)
    h, y = mod.add_rmsnorm_triton(x, r, w, 1e-6)
    h_ref, y_ref = mod.add_rmsnorm_ref(x, r, w, 1e-6)
    assert torch.equal(h, h_ref), "the residual is one add: it must match exactly"
    torch.testing.assert_close(y, y_ref, **TOL[dtype])


def test_poisoned_outputs_are_overwritten(kernel):
    mod = kernel("add_rmsnorm")
    x, r = torch.randn(3, 1000, device=DEVICE), torch.randn(3, 1000, device=DEVICE)
    w = torch.rand(1000, device=DEVICE)
    h, y = torch.full_like(x, float("nan")), torch.full_like(x, float("nan"))
    mod.add_rmsnorm_triton(x, r, w, 1e-6, out=(h, y))
    assert not torch.isnan(h).any() and not torch.isnan(y).any()


def test_leading_dims_are_flattened(kernel):
    mod = kernel("add_rmsnorm")
    x, r = torch.randn(2, 3, 40, device=DEVICE), torch.randn(2, 3, 40, device=DEVICE)
    w = torch.rand(40, device=DEVICE)
    h, y = mod.add_rmsnorm_triton(x, r, w)
    assert h.shape == y.shape == x.shape
    torch.testing.assert_close(y, mod.add_rmsnorm_ref(x, r, w)[1], **TOL[torch.float32])


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_reference_is_qwen2rmsnorm(dtype):
    """The reference beside the kernel computes exactly what Hugging Face's module does, bit for bit (on the CPU)."""
    mod = importlib.import_module("kernelbook.kernels.add_rmsnorm")
    norm = Qwen2RMSNorm(64, 1e-6).to(dtype).requires_grad_(False)
    with torch.no_grad():
        norm.weight.copy_(1 + 0.1 * torch.randn(64))
    x, r = torch.randn(5, 64, dtype=dtype), torch.randn(5, 64, dtype=dtype)
    h, y = mod.add_rmsnorm_ref(x, r, norm.weight, norm.variance_epsilon)
    assert torch.equal(h, x + r)
    assert torch.equal(y, norm(x + r))


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
@pytest.mark.parametrize("shape", [(1, 4096), (3, 1000), (7, 1536), (333, 5120), (2048, 8960), (8192, 4096)],
                         ids=lambda s: f"{s[0]}x{s[1]}")
def test_bf16_exactness_against_qwen2(shape, kernel):
    from kernelbook.checks import compare, random_bf16
    from kernelbook.kernels.add_rmsnorm import make_qwen2_norm, qwen2_add_rmsnorm

    mod = kernel("add_rmsnorm")
    x, r = random_bf16(*shape, seed=shape[0] + shape[1], n=2)
    norm = make_qwen2_norm(shape[1], "cuda")
    with torch.no_grad():
        h_ref, y_ref = qwen2_add_rmsnorm(x, r, norm)
        h, y = mod.add_rmsnorm_triton(x, r, norm.weight, norm.variance_epsilon)
    assert compare(h, h_ref)["bit_identical"], "the new residual must be bit-identical to eager"
    cy = compare(y, y_ref)
    # a one-step difference in the normalised value (the row sum's order) becomes at most two after a weight < 2
    assert cy["max_steps"] <= 2, f"normalised output more than two bf16 steps from eager: {cy}"
    assert cy["differ"] <= 0.01 * cy["elements"], f"too many elements differ: {cy}"
