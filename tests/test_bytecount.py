"""Byte accounting on chains whose traffic is known by hand."""

from __future__ import annotations

import torch

from kernelbook.bytecount import launches_kernel, record, short_kernel_name, tensor_bytes


def test_add_then_mul_chain():
    x, r = torch.randn(8, 16, dtype=torch.bfloat16), torch.randn(8, 16, dtype=torch.bfloat16)
    w = torch.randn(16, dtype=torch.bfloat16)
    ops = record(lambda: (x + r) * w)
    assert [o.op for o in ops] == ["aten::add.Tensor", "aten::mul.Tensor"]
    n = 8 * 16
    assert (ops[0].read, ops[0].written) == (2 * n * 2, n * 2)  # reads x and r, writes h
    assert (ops[1].read, ops[1].written) == (n * 2 + 16 * 2, n * 2)  # reads h and the 16-wide weight once


def test_views_and_noop_casts_move_nothing():
    x = torch.randn(4, 6)
    ops = record(lambda: x.view(6, 4).t().expand(2, 4, 6).to(torch.float32).detach())
    assert ops == []


def test_dtype_cast_is_a_kernel():
    x = torch.randn(4, 6, dtype=torch.bfloat16)
    (op,) = record(lambda: x.to(torch.float32))
    assert op.op == "aten::_to_copy" and (op.read, op.written) == (4 * 6 * 2, 4 * 6 * 4)


def test_in_place_reads_and_writes_its_target():
    x, y = torch.randn(10), torch.randn(10)
    (op,) = record(lambda: x.mul_(y))
    assert (op.read, op.written) == (80, 40)


def test_qwen2_chain_counts_nine_kernels_and_42_bytes():
    """The article's count, derived here from the tensors: 9 kernels and 42 B/elem (+ per-row and weight terms)."""
    from kernelbook.kernels.add_rmsnorm import make_qwen2_norm, qwen2_add_rmsnorm

    rows, hidden = 4, 256
    x, r = torch.randn(rows, hidden, dtype=torch.bfloat16), torch.randn(rows, hidden, dtype=torch.bfloat16)
    norm = make_qwen2_norm(hidden, "cpu")
    ops = record(lambda: qwen2_add_rmsnorm(x, r, norm))
    assert len(ops) == 9, [o.op for o in ops]
    n = rows * hidden
    per_row = sum(o.read + o.written for o in ops) - 42 * n
    # what is left: mean writes, eps add and rsqrt read and write, the mul reads one fp32 per row; the weight once
    assert per_row == rows * 4 * 6 + hidden * 2


def test_tensor_bytes_counts_broadcast_once():
    w = torch.randn(16)
    assert tensor_bytes(w.expand(8, 16)) == 64
    assert tensor_bytes(torch.empty(0)) == 0


def test_launches_kernel():
    assert not launches_kernel(torch.ops.aten.view.default)
    assert launches_kernel(torch.ops.aten.add.Tensor)


def test_short_kernel_name():
    name = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>>(int, x)"
    assert short_kernel_name(name) == "at::native::vectorized_elementwise_kernel"
