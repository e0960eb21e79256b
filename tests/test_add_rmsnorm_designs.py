"""The three designs the speed-of-light page sets against the row kernel, under Triton's interpreter in fp32."""

from __future__ import annotations

import pytest
import torch

from kernelbook.checks import poisoned
from kernelbook.kernels.add_rmsnorm_persistent import add_rmsnorm_persistent
from kernelbook.kernels.add_rmsnorm_rows import add_rmsnorm_ref
from kernelbook.kernels.add_rmsnorm_split_row import add_rmsnorm_split_row, workspace
from kernelbook.kernels.add_rmsnorm_warp_rows import add_rmsnorm_warp_rows

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"  # on the CPU, conftest puts Triton in interpreter mode

SHAPES = [(1, 64), (7, 100), (37, 96), (5, 600)]


def _inputs(shape, seed):
    g = torch.Generator().manual_seed(seed)
    x, r = (torch.randn(shape, generator=g).to(DEVICE) for _ in range(2))
    return x, r, torch.randn(shape[1], generator=g).to(DEVICE)


def _check(h, y, x, r, w):
    h_ref, y_ref = add_rmsnorm_ref(x, r, w)
    torch.testing.assert_close(h, h_ref, rtol=0, atol=0)
    torch.testing.assert_close(y, y_ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("config", [(1, 4, 1), (2, 4, 2), (4, 4, 1)])
@pytest.mark.parametrize("sms", [1, 3])
def test_persistent_covers_every_block_whatever_the_grid(shape, config, sms):
    x, r, w = _inputs(shape, 1)
    h, y = add_rmsnorm_persistent(x, r, w, out=poisoned(x, 2), config=config, sms=sms)
    _check(h, y, x, r, w)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("config", [(1, 4), (2, 4), (4, 4)])
def test_split_row_is_exact_and_leaves_its_counters_at_zero(shape, config):
    x, r, w = _inputs(shape, 2)
    for _ in range(2):  # a second launch must find the counters the first one reset
        h, y = add_rmsnorm_split_row(x, r, w, out=poisoned(x, 2), config=config)
        _check(h, y, x, r, w)
        assert int(workspace(x.device, shape[0], config[0])[1].abs().sum()) == 0


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("rows", [1, 2, 4])
def test_warp_rows_matches_reference(shape, rows):
    x, r, w = _inputs(shape, 3)
    h, y = add_rmsnorm_warp_rows(x, r, w, out=poisoned(x, 2), rows=rows)
    _check(h, y, x, r, w)
