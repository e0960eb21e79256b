"""The in-graph greedy step's last kernel against torch.argmax: the token written into the input buffer, the position
advanced, and the key and counter left reset for the next launch. In fp32 on a CPU (Triton's interpreter), also in
bf16 on a GPU."""

from __future__ import annotations

import pytest
import torch

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
DTYPES = [torch.float32] + ([torch.bfloat16] if DEVICE == "cuda" else [])


def _run(nt, logits: torch.Tensor, block: int, work=None) -> tuple[int, int]:
    ids = torch.full((1, 1), -1, dtype=torch.long, device=DEVICE)  # poisoned
    pos = torch.tensor([41], device=DEVICE)
    nt.next_token(logits, ids, pos, work=work, block=block)
    return int(ids.item()), int(pos.item())


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("vocab, block", [(151936, 4096), (5000, 1024), (300, 512), (1, 64)])
def test_next_token_is_torch_argmax(vocab, block, dtype, kernel):
    nt = kernel("next_token")
    gen = torch.Generator().manual_seed(vocab)
    for trial in range(3):
        logits = (3 * torch.randn(1, vocab, generator=gen)).to(dtype).to(DEVICE)
        if trial == 1:
            logits = -logits.abs() - 1  # all negative: the order of negative floats' bits is reversed
        ids, pos = _run(nt, logits, block)
        assert ids == int(logits.argmax(-1).item()) and pos == 42, (trial, ids)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_equal_logits_give_the_first_index(dtype, kernel):
    nt = kernel("next_token")
    logits = torch.randn(1, 5000, generator=torch.Generator().manual_seed(1)).to(dtype).to(DEVICE)
    top = logits.max() + 1
    for i in (4999, 2100, 17):  # the same maximum in three programs' blocks
        logits[0, i] = top
    assert _run(nt, logits, 1024)[0] == 17 == int(logits.argmax(-1).item())
    zeros = torch.full((1, 3000), -1.0, dtype=dtype, device=DEVICE)
    zeros[0, 2500], zeros[0, 1200] = 0.0, -0.0  # -0.0 equals +0.0: the lower index wins, as in torch.argmax
    assert _run(nt, zeros, 1024)[0] == 1200 == int(zeros.argmax(-1).item())


def test_the_workspace_is_left_ready_for_the_next_launch(kernel):
    nt = kernel("next_token")
    work = nt.workspace(torch.device(DEVICE))
    gen = torch.Generator().manual_seed(2)
    for _ in range(4):  # a stale key or counter would make a later launch wrong
        logits = torch.randn(1, 3000, generator=gen).to(DEVICE)
        assert _run(nt, logits, 512, work)[0] == int(logits.argmax(-1).item())
        assert int(work[0].item()) == nt.KEY_FLOOR and int(work[1].item()) == 0


def test_reference_takes_the_first_maximum_and_advances_the_position(kernel):
    nt = kernel("next_token")
    logits = torch.tensor([[0.5, 2.0, 2.0, -1.0]], device=DEVICE)
    ids, pos = torch.zeros(1, 1, dtype=torch.long, device=DEVICE), torch.tensor([7], device=DEVICE)
    nt.next_token_ref(logits, ids, pos)
    assert int(ids.item()) == 1 and int(pos.item()) == 8
