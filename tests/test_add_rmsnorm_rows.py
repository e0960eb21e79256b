"""The multi-row add+RMSNorm and the same-bytes copy, under Triton's interpreter in fp32, on odd shapes."""

from __future__ import annotations

import pytest
import torch

from kernelbook.kernels.add_rmsnorm_rows import add_rmsnorm_ref, add_rmsnorm_rows
from kernelbook.kernels.same_bytes_copy import same_bytes_copy, same_bytes_copy_ref

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"  # on the CPU, conftest puts Triton in interpreter mode

SHAPES = [(1, 64), (3, 100), (17, 1536), (5, 33)]
# (rows, warps, h stored late, weight loaded first): all four orders, one and several rows
CONFIGS = [(1, 4, False, False), (1, 4, True, True), (4, 4, True, False), (16, 8, False, True), (2, 4, False, True)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("config", CONFIGS)
def test_add_rmsnorm_rows_matches_reference_fp32(shape, config):
    g = torch.Generator().manual_seed(hash((shape, config)) % 2**31)
    x, r = (torch.randn(shape, generator=g).to(DEVICE) for _ in range(2))
    w = torch.randn(shape[1], generator=g).to(DEVICE)
    out = (torch.full_like(x, float("nan")), torch.full_like(x, float("nan")))  # poisoned
    h, y = add_rmsnorm_rows(x, r, w, out=out, config=config)
    h_ref, y_ref = add_rmsnorm_ref(x, r, w)
    torch.testing.assert_close(h, h_ref, rtol=0, atol=0)
    torch.testing.assert_close(y, y_ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("n", [1, 1000, 4097])
@pytest.mark.parametrize("two_out", [True, False])
def test_same_bytes_copy(n, two_out):
    a, b = torch.randn(n, device=DEVICE), torch.randn(n, device=DEVICE)
    outs = tuple(torch.full_like(a, float("nan")) for _ in range(2 if two_out else 1))
    got = same_bytes_copy(a, b, outs, block=256, num_warps=4)
    for o, ref in zip(got, same_bytes_copy_ref(a, b, two_out), strict=True):
        torch.testing.assert_close(o, ref, rtol=0, atol=0)
