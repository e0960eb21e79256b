"""swiglu_ring: its schedule, its grid and chunk arithmetic, that it compiles for Hopper with the installed Triton,
and (on a Hopper GPU) that it matches matvec_pair's SwiGLU bit for bit. Gluon has no CPU interpreter, so the step's
CPU path (matvec_pair's kernel) is tested with the other steps in test_decode_fast.py."""

from __future__ import annotations

import json

import pytest
import torch
from conftest import compile_in_child

from kernelbook.kernels import swiglu_ring as sr
from kernelbook.kernels.matvec_pair import swiglu_pair


@pytest.mark.parametrize("n_blocks, grid", [(2240, 264), (2240, 132), (7, 3), (3, 8), (1, 1)])
def test_every_block_is_walked_once_in_order(n_blocks, grid):
    walks = sr.ring_blocks(n_blocks, grid)
    flat = sorted(b for w in walks for b in w)
    assert flat == list(range(n_blocks))
    assert all(w == sorted(w) for w in walks)
    sizes = [len(w) for w in walks]
    assert max(sizes) - min(sizes) <= 1  # no program takes more than one block more than another


def test_the_grid_is_what_shared_memory_holds():
    # a ring of 4 blocks of 4 pairs at K = 1536: 4 * 2 * 4 * 1536 * 2 B = 96 KiB, two a SM in 192 KiB
    assert sr.programs(1536, (4, 4, 4), 132) == 264
    assert sr.programs(1536, (4, 8, 4), 132) == 132
    assert sr.programs(1536, (2, 2, 4), 132) == 132 * sr.MAX_PER_SM  # 24 KiB: capped
    with pytest.raises(AssertionError, match="shared memory"):
        sr.programs(1536, (8, 8, 4), 132)  # 384 KiB


def test_a_ring_fits_by_its_bytes_at_the_model_width():
    assert sr.ring_bytes((4, 4, 4), 1536) == 96 * 1024 and sr.fits((4, 8, 4), 1536)
    assert not sr.fits((8, 8, 4), 1536) and not sr.fits((4, 8, 4), 3584)  # 384 KiB; 448 KiB at Qwen2.5-7B's width
    assert sr.fits((2, 4, 4), 3584)


@pytest.mark.parametrize("k, c", [(1536, 512), (896, 128), (3584, 512), (5120, 512), (192, 64), (2048, 512)])
def test_the_chunk_is_the_widest_power_of_two_that_divides_k(k, c):
    assert sr.chunk(k) == c and k % c == 0


def test_a_width_no_chunk_divides_is_refused():
    with pytest.raises(AssertionError, match="no chunk"):
        sr.chunk(100)


def test_a_config_whose_copies_would_be_under_4_bytes_has_no_layout():
    assert sr.layout_fits((2, 8, 4), 1536) and sr.layout_fits((1, 4, 4), 1536)  # 512 columns: 8 and 4 bf16 a thread
    assert not sr.layout_fits((2, 8, 4), 192)  # 64 columns over two warps along K: one bf16 a thread
    assert sr.layout_fits((4, 8, 4), 192)  # four warps over four rows: two bf16 a thread
    with pytest.raises(AssertionError, match="under 4 B"):
        sr.layout(2, 64, 4)


def test_the_layout_spans_the_chunk_without_repeats():
    for bp, kc, warps in ((4, 512, 4), (2, 512, 4), (8, 512, 8), (1, 256, 4), (4, 64, 4)):
        lay = sr.layout(bp, kc, warps)
        wr, wc = lay.warps_per_cta
        assert wr * wc == warps and bp % wr == 0
        assert 32 * wc * lay.size_per_thread[1] <= kc  # threads along K never wrap onto the same columns twice
        assert lay.size_per_thread[1] >= 2  # cp.async copies 4 B or more


def test_no_ring_off_a_gpu():
    assert not sr.ring_supported(torch.device("cpu"))
    with pytest.raises(AssertionError, match="Hopper"):
        sr.swiglu_ring(torch.zeros(64, dtype=torch.bfloat16), torch.zeros(8, 64, dtype=torch.bfloat16),
                       torch.ones(64, dtype=torch.bfloat16))


_COMPILE = """
import json, sys
from triton import compile as triton_compile
from triton.backends.compiler import GPUTarget
from triton.experimental.gluon._runtime import GluonASTSource
from kernelbook.kernels import swiglu_ring as sr

out = []
for block_p, nbuf, warps, k, inter, pdl in json.loads(sys.argv[1]):
    kc = sr.chunk(k)
    sig = {"x_ptr": "*bf16", "w_ptr": "*bf16", "g_ptr": "*bf16", "out_ptr": "*bf16", "eps": "fp32", "n_blocks": "i32",
           **dict.fromkeys(("K", "INTER", "BLOCK_P", "KC", "NBUF", "L", "PDL"), "constexpr")}
    consts = {"K": k, "INTER": inter, "BLOCK_P": block_p, "KC": kc, "NBUF": nbuf, "L": sr.layout(block_p, kc, warps),
              "PDL": pdl}
    src = GluonASTSource(sr._swiglu_ring_kernel, sig, consts,
                         attrs={(i,): [["tt.divisibility", 16]] for i in range(4)})  # 16 B aligned, as torch's
    kern = triton_compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": warps})
    out.append({"shared": kern.metadata.shared, "ptx": kern.asm["ptx"]})
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def compiled():
    """The kernel compiled for sm_90 on this machine, no GPU needed, outside the interpreter (compile_in_child)."""
    cases = [(4, 4, 4, 1536, 8960, 1), (4, 8, 4, 1536, 8960, 1), (8, 2, 8, 1536, 8960, 1), (4, 4, 4, 1536, 8960, 0)]
    return dict(zip(cases, json.loads(compile_in_child(_COMPILE, json.dumps(cases))), strict=True))


@pytest.mark.parametrize("config", [(4, 4, 4), (4, 8, 4), (8, 2, 8)])
def test_it_compiles_for_hopper_with_its_ring_in_shared_memory(compiled, config):
    """The ring is the shared memory the kernel takes, the copies are 16 B each, and the kernel waits for the one
    ahead exactly once, after its first copies."""
    block_p, nbuf, warps = config
    k = compiled[(block_p, nbuf, warps, 1536, 8960, 1)]
    assert k["shared"] == nbuf * 2 * block_p * 1536 * 2
    ptx = k["ptx"]
    assert "cp.async.cg.shared.global" in ptx or "cp.async.ca.shared.global" in ptx
    assert ", 0x10," in ptx or ", 16," in ptx
    assert ptx.count("griddepcontrol.wait") == 1 and ptx.count("griddepcontrol.launch_dependents") == 1
    assert ptx.index("cp.async") < ptx.index("griddepcontrol.wait")  # weights copied before the wait


def test_without_pdl_it_never_waits(compiled):
    assert "griddepcontrol" not in compiled[(4, 4, 4, 1536, 8960, 0)]["ptx"]


@pytest.mark.skipif(not (torch.cuda.is_available() and sr.ring_supported(torch.device("cuda"))),
                    reason="the ring runs on a Hopper GPU")
@pytest.mark.parametrize("config", [(4, 4, 4), (4, 8, 4), (2, 8, 4)])
@pytest.mark.parametrize("k, inter", [(1536, 8960), (896, 4864), (192, 100)])
def test_it_matches_matvec_pair_on_the_gpu(config, k, inter):
    if inter % config[0] or not sr.layout_fits(config, k):
        pytest.skip("the block must divide the intermediate size, and a copy be 4 B or more")
    g = torch.Generator(device="cuda").manual_seed(0)
    x = torch.randn(k, device="cuda", generator=g).bfloat16()
    w = (0.02 * torch.randn(2 * inter, k, device="cuda", generator=g)).bfloat16()
    nw = (1 + 0.1 * torch.randn(k, device="cuda", generator=g)).bfloat16()
    ref = swiglu_pair(x, w, nw)
    out = torch.full_like(ref, float("nan"))
    sr.swiglu_ring(x, w, nw, out=out, config=config)
    assert torch.isfinite(out).all()
    torch.testing.assert_close(out, ref, rtol=0, atol=1e-2)
