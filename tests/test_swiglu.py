"""swiglu: the Triton kernel against its reference (CPU: Triton's interpreter, fp32) and against eager bf16 on a GPU."""

from __future__ import annotations

import importlib

import pytest
import torch

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
SHAPES = [(1, 4096), (3, 1000), (7, 1536), (1, 1), (5, 1031)]  # sizes that leave the last block partly masked
TOL = {torch.float32: dict(atol=1e-6, rtol=1e-5)}


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("dtype", [torch.float32])
def test_kernel_matches_reference(shape, dtype, kernel):
    mod = kernel("swiglu")
    gen = torch.Generator().manual_seed(shape[0] * 31 + shape[1])
    g, u = (4 * torch.randn(shape, generator=gen, dtype=dtype).to(DEVICE) for _ in range(2))
    out = torch.full_like(g, float("nan"))
    mod.swiglu_triton(g, u, out=out)
    torch.testing.assert_close(out, mod.swiglu_ref(g, u), **TOL[dtype])


def test_reference_is_silu_times_up():
    mod = importlib.import_module("kernelbook.kernels.swiglu")
    g, u = torch.tensor([0.0, 1.0, -2.0]), torch.tensor([3.0, 2.0, 1.0])
    expected = g / (1 + torch.exp(-g)) * u
    torch.testing.assert_close(mod.swiglu_ref(g, u), expected)


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
@pytest.mark.parametrize("shape", [(1, 4096), (3, 1000), (7, 1536), (2048, 8960), (8192, 4096)],
                         ids=lambda s: f"{s[0]}x{s[1]}")
def test_bf16_against_eager(shape, kernel):
    from kernelbook.fusion import compare, random_bf16, swiglu_eager

    mod = kernel("swiglu")
    g, u = random_bf16(*shape, seed=shape[0] * 3 + shape[1], n=2)
    c = compare(mod.swiglu_triton(g, u), swiglu_eager(g, u))
    # exp differs from eager's in its last fp32 bits: one step in silu(g) can become two after the multiply by u
    assert c["max_steps"] <= 2, f"more than two bf16 steps from eager: {c}"
    assert c["differ"] <= 0.01 * c["elements"], f"too many elements differ: {c}"
