"""Attention folded into the output projection against its reference: decode attention over slots 0..pos, rounded
to the dtype, then residual + W_o att. On a CPU in fp32 under Triton's interpreter (which runs the programs one
after another, so the arrival counters are exercised but not their races: the GPU check covers those); on a GPU
also in bf16."""

from __future__ import annotations

import pytest
import torch

from tests.conftest import covering

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
DTYPES = [torch.float32] + ([torch.bfloat16] if DEVICE == "cuda" else [])
# (q_heads, kv_heads, D, N): GQA groups 1, 3 and 7, heads not a power of two, N not a multiple of BLOCK_N,
# head sizes 64 and 128 as the Qwen2 family has them, and a tiny one
SHAPES = [(4, 2, 16, 64), (6, 2, 32, 100), (7, 1, 16, 50), (3, 3, 64, 72), (2, 1, 128, 40)]
CONFIGS = [(8, 16, 4), (16, 4, 2), (64, 32, 4)]
SLOTS = 40


def _close(got: torch.Tensor, ref: torch.Tensor) -> None:
    if got.dtype == torch.float32:
        torch.testing.assert_close(got, ref, atol=1e-4, rtol=1e-4)
    else:  # the attention and the projection's sums run in another order than SDPA's and cuBLAS's
        scale = ref.float().abs().amax().item()
        torch.testing.assert_close(got.float(), ref.float(), atol=2e-2 * scale, rtol=2e-2)


def _inputs(shape, dtype, seed):
    qh, kvh, d, n = shape
    gen = torch.Generator().manual_seed(seed)
    q = torch.randn(qh * d, generator=gen)
    kc, vc = torch.randn(kvh, SLOTS, d, generator=gen), torch.randn(kvh, SLOTS, d, generator=gen)
    w = torch.randn(n, qh * d, generator=gen) / (qh * d) ** 0.5
    res = torch.randn(n, generator=gen)
    return [t.to(dtype).to(DEVICE) for t in (q, kc, vc, w, res)]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape, config", covering(SHAPES, CONFIGS))  # each shape once by default, all in .ci/run
def test_attention_o_matches_attention_then_projection(shape, config, dtype, kernel):
    ao = kernel("attention_o")
    qh, kvh, d, n = shape
    work = ao.workspace(qh, n, config[0], torch.device(DEVICE))
    for i, pos in enumerate((0, 17, SLOTS - 1)):  # the first slot, one between, the last: one workspace for all
        q, kc, vc, w, res = _inputs(shape, dtype, seed=100 * i + qh)
        kc[:, pos + 1:], vc[:, pos + 1:] = float("nan"), float("nan")  # poison: slots past pos must not be read
        ref = ao.attention_o_ref(q.float(), kc.float(), vc.float(), pos, w.float(), res.float()).to(dtype)
        work[0].fill_(float("nan"))  # poisoned: every head's partial must be written before it is summed
        got = ao.attention_o(q, kc, vc, torch.tensor([pos], device=DEVICE), w, res, config=config, work=work)
        assert got.data_ptr() == res.data_ptr(), "the residual is updated in place"
        assert not torch.isnan(got).any(), (pos, "a slot past the position or an unwritten partial leaked in")
        _close(got, ref)
        assert not work[1].any(), "every row block's counter is left at 0 for the next launch"


def test_attention_o_is_attention_rounded_then_projected(kernel):
    """The reference is the chain the step ran before: decode attention's output in the dtype, then the matvec."""
    ao, da, mv = kernel("attention_o"), kernel("decode_attention"), kernel("matvec")
    q, kc, vc, w, res = _inputs((6, 2, 32, 100), torch.float32, seed=7)
    att = da.decode_attention_ref(q.view(6, 32), kc, vc, 20)
    torch.testing.assert_close(ao.attention_o_ref(q, kc, vc, 20, w, res.clone()),
                               mv.matvec_ref(att.flatten(), w, residual=res.clone()), atol=0, rtol=0)


def test_attention_o_rejects_a_workspace_of_another_block(kernel):
    ao = kernel("attention_o")
    q, kc, vc, w, res = _inputs((4, 2, 16, 64), torch.float32, seed=1)
    with pytest.raises(AssertionError, match="another shape"):
        ao.attention_o(q, kc, vc, torch.tensor([3], device=DEVICE), w, res, config=(16, 16, 4),
                       work=ao.workspace(4, 64, 8, torch.device(DEVICE)))
