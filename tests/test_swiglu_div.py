"""swiglu_div: both divides against the reference (CPU: Triton's interpreter, fp32), the every-input check's
counting, and on a GPU the IEEE divide matching eager at all 65,536 bf16 inputs."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


@pytest.mark.parametrize("shape", [(1, 4096), (3, 1000), (5, 1031)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("ieee", [True, False])
def test_both_divides_match_the_reference_fp32(shape, ieee, kernel):
    mod = kernel("swiglu_div")
    gen = torch.Generator().manual_seed(shape[0] * 7 + shape[1])
    g, u = (4 * torch.randn(shape, generator=gen).to(DEVICE) for _ in range(2))
    out = mod.swiglu_div(g, u, torch.full_like(g, float("nan")), block=256, warps=4, ieee=ieee)  # poisoned
    torch.testing.assert_close(out, mod.swiglu_ref(g, u), atol=1e-6, rtol=1e-5)


def test_every_bf16_is_each_bit_pattern_once(kernel):
    g = kernel("swiglu_div").every_bf16("cpu")
    assert g.dtype == torch.bfloat16 and g.numel() == 1 << 16
    assert g.view(torch.int16).unique().numel() == 1 << 16
    for special in (float("inf"), float("-inf"), -0.0, 1.0):
        assert (g.view(torch.int16) == torch.tensor(special, dtype=torch.bfloat16).view(torch.int16)).sum() == 1
    assert g.isnan().sum() == 2 * 127  # exponent all ones and a non-zero mantissa, both signs


def test_silu_mismatches_counts_the_inputs_that_differ(kernel, monkeypatch):
    mod = kernel("swiglu_div")

    def exact(g, u, out, ieee):  # eager's silu, with NaNs of other bits where eager has NaN
        return out.copy_(torch.where(g.isnan(), torch.full_like(g, -float("nan")), F.silu(g)))

    monkeypatch.setattr(mod, "swiglu_div", exact)
    assert mod.silu_mismatches(True, device="cpu") == 0

    def off(g, u, out, ieee):  # three inputs one bf16 step away
        exact(g, u, out, ieee)
        bits = out.view(torch.int16)
        bits[[100, 20000, 40000]] += 1
        return out

    monkeypatch.setattr(mod, "swiglu_div", off)
    assert mod.silu_mismatches(False, device="cpu") == 3


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_the_ieee_divide_gives_eagers_silu_at_every_bf16_input(kernel):
    assert kernel("swiglu_div").silu_mismatches(True) == 0
