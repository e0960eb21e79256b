"""The multi-row add+RMSNorm and the same-bytes copy, under Triton's interpreter in fp32, on odd shapes."""

from __future__ import annotations

import os

os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported by the kernels

import pytest  # noqa: E402
import torch  # noqa: E402

from kernelbook.kernels.add_rmsnorm_rows import add_rmsnorm_ref, add_rmsnorm_rows  # noqa: E402
from kernelbook.kernels.same_bytes_copy import same_bytes_copy, same_bytes_copy_ref  # noqa: E402

SHAPES = [(1, 64), (3, 100), (17, 1536), (5, 33)]
CONFIGS = [(1, 4), (4, 4), (16, 8)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("config", CONFIGS)
def test_add_rmsnorm_rows_matches_reference_fp32(shape, config):
    g = torch.Generator().manual_seed(hash((shape, config)) % 2**31)
    x, r = (torch.randn(shape, generator=g) for _ in range(2))
    w = torch.randn(shape[1], generator=g)
    out = (torch.full_like(x, float("nan")), torch.full_like(x, float("nan")))  # poisoned
    h, y = add_rmsnorm_rows(x, r, w, out=out, config=config)
    h_ref, y_ref = add_rmsnorm_ref(x, r, w)
    torch.testing.assert_close(h, h_ref, rtol=0, atol=0)
    torch.testing.assert_close(y, y_ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("n", [1, 1000, 4097])
@pytest.mark.parametrize("two_out", [True, False])
def test_same_bytes_copy(n, two_out):
    a, b = torch.randn(n), torch.randn(n)
    outs = tuple(torch.full_like(a, float("nan")) for _ in range(2 if two_out else 1))
    got = same_bytes_copy(a, b, outs, block=256, num_warps=4)
    for o, ref in zip(got, same_bytes_copy_ref(a, b, two_out), strict=True):
        torch.testing.assert_close(o, ref, rtol=0, atol=0)
