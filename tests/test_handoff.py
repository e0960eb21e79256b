"""The hand-off chains of kernels/handoff.py: in order they leave every value at the number of hops."""

from __future__ import annotations

import pytest
import torch

from kernelbook.kernels import handoff as ho

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")


@pytest.mark.parametrize(("programs", "hops"), [(1, 1), (3, 4), (9, 5), (16, 6)])
def test_a_chain_of_launches_ends_in_order(programs, hops):
    bufs = ho.buffers(programs, hops, DEVICE)
    out = ho.hop_chain(bufs, programs, hops)
    assert torch.equal(out, ho.handoff_ref(programs, hops, DEVICE))
    assert out is bufs[hops % 2 != 0]  # the hops alternate between the two blocks


def test_a_chain_out_of_order_leaves_smaller_values():
    """The check can fail: a hop that reads a block before the hop ahead of it wrote it leaves it short."""
    bufs = ho.buffers(5, 4, DEVICE)
    ho.hop_chain(bufs, 5, 2)  # two hops into block a
    bufs[0][:ho.BLOCK].zero_()  # one program's block as if it had been read before it was written
    out = ho.hop_chain(bufs, 5, 2)  # two more
    assert not torch.equal(out, ho.handoff_ref(5, 4, DEVICE)) and int(out.min()) < 4 and int(out.max()) == 4


@pytest.mark.skipif(DEVICE.type == "cuda", reason="on a GPU the barrier runs: the ladder's dry run checks it")
def test_the_barrier_chain_refuses_to_run_without_a_gpu():
    with pytest.raises(AssertionError, match="every program running at once"):
        ho.barrier_chain(ho.buffers(4, 3, DEVICE), 4, 3)


@pytest.mark.skipif(DEVICE.type != "cuda", reason="needs every program resident at once: a GPU")
def test_the_barrier_chain_ends_in_order():
    sms = torch.cuda.get_device_properties(DEVICE).multi_processor_count
    bufs = ho.buffers(sms, 12, DEVICE)
    assert torch.equal(ho.barrier_chain(bufs, sms, 12), ho.handoff_ref(sms, 12, DEVICE))
