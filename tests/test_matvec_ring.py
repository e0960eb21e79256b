"""matvec_ring: its schedule, its tiles and what fits an SM, that it compiles for Hopper with the installed Triton,
and (on a Hopper GPU) that it matches matvec with its residual add. Gluon has no CPU interpreter, so the step's CPU
path (matvec) is tested with the other steps in test_decode_fast.py."""

from __future__ import annotations

import json

import pytest
import torch
from conftest import compile_in_child

from kernelbook.kernels import matvec_ring as mr
from kernelbook.kernels.matvec import matvec


@pytest.mark.parametrize("n, grid", [(1536, 528), (1536, 396), (7, 3), (3, 8), (1, 1)])
def test_every_row_is_walked_once_in_order(n, grid):
    walks = mr.ring_rows(n, grid)
    assert sorted(r for w in walks for r in w) == list(range(n))
    assert all(w == sorted(w) for w in walks)
    sizes = [len(w) for w in walks]
    assert max(sizes) - min(sizes) <= 1  # no program takes more than one row more than another
    assert mr._max_rows(n, grid) >= max(sizes)  # the residual rows a program reads at once cover its walk


def test_a_row_is_whole_tiles_of_one_warp_a_chunk():
    # Qwen2.5-1.5B's down: K = 8960 = 35 chunks of 256; two warps take two chunks a tile, 18 tiles, the last half
    # masked; four warps, 9 tiles
    assert mr.tiles(8960, 2) == (256, 18) and mr.tiles(8960, 4) == (256, 9)
    assert mr.ring_bytes((2, 2, 4), 8960) == 2 * 18 * 2 * 256 * 2  # 36 KiB, the masked half tile included
    assert mr.tiles(4864, 4) == (256, 5)  # Qwen2.5-0.5B's intermediate size: 19 chunks
    assert mr.tiles(18944, 2) == (512, 19)  # Qwen2.5-7B's: 37 chunks of 512


def test_what_fits_an_sm_is_its_rings_and_their_reserve():
    assert mr.fits((2, 2, 4), 8960) and mr.fits((3, 4, 4), 8960)  # 4 x (54 KiB + 1 KiB) under 227 KiB
    assert not mr.fits((4, 2, 4), 8960)  # 4 x 72 KiB
    assert mr.fits((2, 2, 6), 8960) and not mr.fits((2, 2, 7), 8960)  # 6 x 37 KiB fit, 7 do not
    assert not mr.fits((2, 2, 4), 160)  # no chunk of 256 columns: a copy would be under 16 B
    assert mr.programs(1536, (2, 2, 4), 132) == 528 and mr.programs(100, (2, 2, 4), 132) == 100


def test_no_ring_off_a_gpu():
    assert not mr.ring_supported(torch.device("cpu"))
    with pytest.raises(AssertionError, match="Hopper"):
        mr.matvec_ring(torch.zeros(256, dtype=torch.bfloat16), torch.zeros(8, 256, dtype=torch.bfloat16),
                       torch.zeros(8, dtype=torch.bfloat16))


_COMPILE = """
import json, sys
from triton import compile as triton_compile
from triton.backends.compiler import GPUTarget
from triton.experimental.gluon._runtime import GluonASTSource
from kernelbook.kernels import matvec_ring as mr

out = []
for nbuf, warps, k, pdl in json.loads(sys.argv[1]):
    kc, nt = mr.tiles(k, warps)
    sig = {"x_ptr": "*bf16", "w_ptr": "*bf16", "h_ptr": "*bf16", "N": "i32",
           **dict.fromkeys(("K", "NT", "R2", "KC", "NBUF", "MAXR", "L", "PDL"), "constexpr")}
    consts = {"K": k, "NT": nt, "R2": warps, "KC": kc, "NBUF": nbuf, "MAXR": 4, "L": mr._layout(kc, warps),
              "PDL": pdl}
    src = GluonASTSource(mr._matvec_ring_kernel, sig, consts,
                         attrs={(i,): [["tt.divisibility", 16]] for i in range(3)})  # 16 B aligned, as torch's
    kern = triton_compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": warps})
    out.append({"shared": kern.metadata.shared, "ptx": kern.asm["ptx"]})
print(json.dumps(out))
"""
CASES = [(2, 2, 8960, 1), (3, 4, 8960, 1), (1, 2, 4864, 1), (2, 2, 8960, 0)]


@pytest.fixture(scope="module")
def compiled():
    """The kernel compiled for sm_90 on this machine, no GPU needed, outside the interpreter (compile_in_child)."""
    return dict(zip(map(tuple, CASES), json.loads(compile_in_child(_COMPILE, json.dumps(CASES))), strict=True))


@pytest.mark.slow  # minutes under the interpreter: .ci/run runs it
@pytest.mark.parametrize("case", CASES[:3])
def test_it_compiles_for_hopper_with_its_rows_in_shared_memory(compiled, case):
    """The ring is the shared memory the kernel takes, the copies are 16 B each, and the kernel waits for the one
    ahead exactly once, after its first copies."""
    nbuf, warps, k, _ = case
    ptx = compiled[case]["ptx"]
    assert compiled[case]["shared"] - mr.ring_bytes((nbuf, warps, 4), k) in range(0, 64)  # and a reduction's scratch
    assert "cp.async.cg.shared.global" in ptx or "cp.async.ca.shared.global" in ptx
    assert ", 0x10," in ptx or ", 16," in ptx
    assert ptx.count("griddepcontrol.wait") == 1 and ptx.count("griddepcontrol.launch_dependents") == 1
    assert ptx.index("cp.async") < ptx.index("griddepcontrol.wait")  # weights copied before the wait


def test_without_pdl_it_never_waits(compiled):
    assert "griddepcontrol" not in compiled[(2, 2, 8960, 0)]["ptx"]


@pytest.mark.skipif(not (torch.cuda.is_available() and mr.ring_supported(torch.device("cuda"))),
                    reason="the ring runs on a Hopper GPU")
@pytest.mark.parametrize("config", [(2, 2, 4), (1, 4, 4), (3, 2, 4)])
@pytest.mark.parametrize("n, k", [(1536, 8960), (896, 4864), (1000, 8960), (64, 256)])
def test_it_matches_matvec_on_the_gpu(config, n, k):
    g = torch.Generator(device="cuda").manual_seed(0)
    x = torch.randn(k, device="cuda", generator=g).bfloat16()
    w = (0.02 * torch.randn(n, k, device="cuda", generator=g)).bfloat16()
    res = torch.randn(n, device="cuda", generator=g).bfloat16()
    ref = matvec(x, w, residual=res.clone())
    out = mr.matvec_ring(x, w, res.clone(), config=config)
    assert torch.isfinite(out).all()
    torch.testing.assert_close(out, ref, rtol=0, atol=1e-2)
