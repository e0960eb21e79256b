"""swiglu: the Triton kernel with either divide against its reference (CPU: Triton's interpreter, fp32), the
every-pair check's counting, and on a GPU the kernel against eager bf16, on random inputs and at every pair."""

from __future__ import annotations

import importlib

import pytest
import torch
import torch.nn.functional as F

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
SHAPES = [(1, 4096), (3, 1000), (7, 1536), (1, 1), (5, 1031)]  # sizes that leave the last block partly masked


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize(("block", "warps", "ieee"), [(1024, 4, True), (256, 4, False), (2048, 8, True)])
def test_kernel_matches_reference_fp32(shape, block, warps, ieee, kernel):
    mod = kernel("swiglu")
    gen = torch.Generator().manual_seed(shape[0] * 31 + shape[1])
    g, u = (4 * torch.randn(shape, generator=gen).to(DEVICE) for _ in range(2))
    out = torch.full_like(g, float("nan"))  # poisoned: an element left unwritten fails
    mod.swiglu_triton(g, u, out=out, block=block, warps=warps, ieee=ieee)
    torch.testing.assert_close(out, mod.swiglu_ref(g, u), atol=1e-6, rtol=1e-5)


def test_reference_is_silu_times_up():
    mod = importlib.import_module("kernelbook.kernels.swiglu")
    g, u = torch.tensor([0.0, 1.0, -2.0]), torch.tensor([3.0, 2.0, 1.0])
    expected = g / (1 + torch.exp(-g)) * u
    torch.testing.assert_close(mod.swiglu_ref(g, u), expected)


def test_every_bf16_is_each_bit_pattern_once():
    g = importlib.import_module("kernelbook.kernels.swiglu").every_bf16("cpu")
    assert g.dtype == torch.bfloat16 and g.numel() == 1 << 16
    assert g.view(torch.int16).unique().numel() == 1 << 16
    for special in (float("inf"), float("-inf"), -0.0, 1.0):
        assert (g.view(torch.int16) == torch.tensor(special, dtype=torch.bfloat16).view(torch.int16)).sum() == 1
    assert g.isnan().sum() == 2 * 127  # exponent all ones and a non-zero mantissa, both signs


def test_mismatches_counts_every_pair_that_differs(monkeypatch):
    mod = importlib.import_module("kernelbook.kernels.swiglu")
    values = mod.every_bf16("cpu")[::256]  # 256 values, NaNs and infinities among them: 65,536 pairs
    seen = []

    def exact(g, u, out, ieee):  # eager's output, with NaNs of other bits where eager has NaN
        seen.append(g.numel())
        ref = F.silu(g) * u
        return out.copy_(torch.where(ref.isnan(), torch.full_like(ref, -float("nan")), ref))

    monkeypatch.setattr(mod, "swiglu_triton", exact)
    got = mod.mismatches(True, device="cpu", values=values, g_per_chunk=64)
    assert got == {"pairs": 256 ** 2, "differ": 0, "examples": []}
    assert seen == [64 * 256] * 4  # every pair once, in four launches

    def off(g, u, out, ieee):  # three pairs one bf16 step away, all in the second launch
        exact(g, u, out, ieee)
        if len(seen) == 6:
            out.view(torch.int16)[[5, 700, 9000]] += 1
        return out

    monkeypatch.setattr(mod, "swiglu_triton", off)
    got = mod.mismatches(False, device="cpu", values=values, g_per_chunk=64)
    assert got["differ"] == 3 and len(got["examples"]) == 3
    g, u, kernel_bits, eager_bits = got["examples"][0]
    assert (g, u) == (values[64].view(torch.int16).item(), values[5].view(torch.int16).item())
    assert kernel_bits == eager_bits + 1


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
@pytest.mark.parametrize("shape", [(1, 4096), (3, 1000), (7, 1536), (2048, 8960), (8192, 4096)],
                         ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("ieee", [True, False])
def test_bf16_is_eagers_output(shape, ieee, kernel):
    from kernelbook.checks import compare, random_bf16
    from kernelbook.kernels.swiglu import swiglu_ref as swiglu_eager

    mod = kernel("swiglu")
    g, u = random_bf16(*shape, seed=shape[0] * 3 + shape[1], n=2)
    c = compare(mod.swiglu_triton(g, u, out=torch.full_like(g, float("nan")), ieee=ieee), swiglu_eager(g, u))
    assert c["bit_identical"], f"differs from eager: {c}"


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
@pytest.mark.parametrize("ieee", [True, False])
def test_every_pair_of_bf16_inputs_gives_eagers_output(ieee, kernel):
    got = kernel("swiglu").mismatches(ieee)
    assert got["pairs"] == 1 << 32 and got["differ"] == 0, got
