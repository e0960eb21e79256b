"""The decode kernels against their references: matvec (norm, bias, residual), the paired matvec (SwiGLU, QKV with
RoPE and the cache write) and decode attention. On a CPU in fp32 under Triton's interpreter; on a GPU also in
bf16, where the kernels must sit within bf16 rounding of the plain-PyTorch reference."""

from __future__ import annotations

import pytest
import torch

from tests.conftest import covering

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
DTYPES = [torch.float32] + ([torch.bfloat16] if DEVICE == "cuda" else [])
# a block size that does not divide N, a K that is not a power of two, and K smaller than one block
CONFIGS = [(4, 32, 4), (8, 64, 2), (16, 256, 4), (1, 512, 8)]


def _close(got: torch.Tensor, ref: torch.Tensor) -> None:
    if got.dtype == torch.float32:
        torch.testing.assert_close(got, ref, atol=1e-4, rtol=1e-4)
    else:  # a few bf16 steps: the sums run in another order than cuBLAS's
        scale = ref.float().abs().amax().item()
        torch.testing.assert_close(got.float(), ref.float(), atol=2e-2 * scale, rtol=2e-2)


def _rand(*shape, dtype, gen, std=1.0):
    return (std * torch.randn(*shape, generator=gen)).to(dtype).to(DEVICE)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("flags, config", covering(["plain", "bias", "norm", "residual", "norm+bias"], CONFIGS))
def test_matvec(flags, config, dtype, kernel):
    mv = kernel("matvec")
    gen = torch.Generator().manual_seed(len(flags) * 100 + config[0])
    n, k = 100, 200
    x, w = _rand(k, dtype=dtype, gen=gen), _rand(n, k, dtype=dtype, gen=gen, std=0.05)
    bias = _rand(n, dtype=dtype, gen=gen) if "bias" in flags else None
    g = (1 + 0.1 * torch.randn(k, generator=gen)).to(dtype).to(DEVICE) if "norm" in flags else None
    res = _rand(n, dtype=dtype, gen=gen) if flags == "residual" else None
    ref = mv.matvec_ref(x, w, bias, g, None if res is None else res.clone())
    out = torch.full((n,), float("nan"), dtype=dtype, device=DEVICE)  # poisoned: every row must be written
    got = mv.matvec(x, w, bias, g, res, out=None if res is not None else out, config=config)
    if res is not None:
        assert got.data_ptr() == res.data_ptr(), "the residual is updated in place"
    assert not torch.isnan(got).any()
    _close(got, ref)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("config", CONFIGS, ids=str)
def test_swiglu_pair(config, dtype, kernel):
    mp = kernel("matvec_pair")
    gen = torch.Generator().manual_seed(11)
    inter, k = 90, 160
    x, w = _rand(k, dtype=dtype, gen=gen), _rand(2 * inter, k, dtype=dtype, gen=gen, std=0.1)
    g = (1 + 0.1 * torch.randn(k, generator=gen)).to(dtype).to(DEVICE)
    out = torch.full((inter,), float("nan"), dtype=dtype, device=DEVICE)
    got = mp.swiglu_pair(x, w, g, out=out, config=config)
    assert not torch.isnan(got).any()
    _close(got, mp.swiglu_pair_ref(x, w, g))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("pos, config", covering([0, 5, 15], [(4, 32, 4), (8, 128, 4), (2, 512, 2)]))
def test_qkv_rope_writes_q_and_the_cache_slot(pos, config, dtype, kernel):
    mp = kernel("matvec_pair")
    gen = torch.Generator().manual_seed(pos)
    qh, kvh, d, slots, k = 4, 2, 16, 16, 96
    x = _rand(k, dtype=dtype, gen=gen)
    w, b = _rand((qh + 2 * kvh) * d, k, dtype=dtype, gen=gen, std=0.1), _rand((qh + 2 * kvh) * d, dtype=dtype, gen=gen)
    g = (1 + 0.1 * torch.randn(k, generator=gen)).to(dtype).to(DEVICE)
    ang = torch.arange(slots)[:, None] * (10000.0 ** (-torch.arange(0, d, 2) / d))[None]  # (slots, d/2)
    cos, sin = (f(torch.cat([ang, ang], -1)).to(dtype).to(DEVICE) for f in (torch.cos, torch.sin))
    kc, vc = _rand(kvh, slots, d, dtype=dtype, gen=gen), _rand(kvh, slots, d, dtype=dtype, gen=gen)
    kc_ref, vc_ref = kc.clone(), vc.clone()
    q_ref = mp.qkv_rope_ref(x, w, b, g, cos, sin, pos, kc_ref, vc_ref, qh)
    out = torch.full((qh * d,), float("nan"), dtype=dtype, device=DEVICE)
    q = mp.qkv_rope(x, w, b, g, cos, sin, torch.tensor([pos], device=DEVICE), kc, vc, qh, out=out, config=config)
    _close(q, q_ref)
    _close(kc[:, pos], kc_ref[:, pos])
    _close(vc[:, pos], vc_ref[:, pos])
    others = [s for s in range(slots) if s != pos]
    assert torch.equal(kc[:, others], kc_ref[:, others]) and torch.equal(vc[:, others], vc_ref[:, others]), \
        "only slot pos may change"


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_qkv_rope_rotates_exactly_as_eager(dtype, kernel):
    """With one-hot weight rows the projection is exact (one product, plus the bias), so q and k after RoPE must
    equal eager's bit for bit: every product rounded on its own, as eager rounds it, none fused into an FMA."""
    mp = kernel("matvec_pair")
    gen = torch.Generator().manual_seed(4)
    qh, kvh, d, slots, k, pos = 4, 2, 16, 8, 64, 5
    rows = (qh + 2 * kvh) * d
    x = _rand(k, dtype=dtype, gen=gen)
    w = torch.nn.functional.one_hot(torch.randint(0, k, (rows,), generator=gen), k).to(dtype).to(DEVICE)
    b = _rand(rows, dtype=dtype, gen=gen)
    ang = torch.randn(slots, d // 2, generator=gen)
    cos, sin = (f(torch.cat([ang, ang], -1)).to(dtype).to(DEVICE) for f in (torch.cos, torch.sin))
    kc, vc = torch.zeros(kvh, slots, d, dtype=dtype, device=DEVICE), torch.zeros(kvh, slots, d, dtype=dtype,
                                                                               device=DEVICE)
    kc_ref, vc_ref = kc.clone(), vc.clone()
    q_ref = mp.qkv_rope_ref(x, w, b, None, cos, sin, pos, kc_ref, vc_ref, qh)
    q = mp.qkv_rope(x, w, b, None, cos, sin, torch.tensor([pos], device=DEVICE), kc, vc, qh, config=(4, 64, 4))
    assert torch.equal(q, q_ref) and torch.equal(kc, kc_ref) and torch.equal(vc, vc_ref)


def test_qkv_rope_rejects_a_block_that_straddles_heads(kernel):
    mp = kernel("matvec_pair")
    d = 16
    kc = torch.zeros(1, 4, d, device=DEVICE)
    with pytest.raises(AssertionError, match="half a head"):
        mp.qkv_rope(torch.zeros(8, device=DEVICE), torch.zeros(3 * d, 8, device=DEVICE),
                    torch.zeros(3 * d, device=DEVICE), None, torch.zeros(4, d, device=DEVICE),
                    torch.zeros(4, d, device=DEVICE),
                    torch.zeros(1, dtype=torch.long, device=DEVICE), kc, kc.clone(), 1, config=(16, 32, 4))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("pos, config", covering([0, 3, 63, 64, 100], [(32, 1, 4), (16, 4, 4), (8, 32, 2)]))
def test_decode_attention_reads_only_filled_slots(pos, config, dtype, kernel):
    da = kernel("decode_attention")
    gen = torch.Generator().manual_seed(pos + 1)
    qh, kvh, d, slots = 6, 2, 32, 128
    q = _rand(qh, d, dtype=dtype, gen=gen)
    kc, vc = _rand(kvh, slots, d, dtype=dtype, gen=gen), _rand(kvh, slots, d, dtype=dtype, gen=gen)
    kc[:, pos + 1:], vc[:, pos + 1:] = float("nan"), float("nan")  # poison: slots past pos must not be read
    out = torch.full((qh, d), float("nan"), dtype=dtype, device=DEVICE)
    work = da.workspace(qh, d, config[1], torch.device(DEVICE))
    ref = da.decode_attention_ref(q.float(), kc.float(), vc.float(), pos).to(dtype)
    work.fill_(float("nan"))  # poisoned: every split writes its partial, an empty one too
    got = da.decode_attention(q, kc, vc, torch.tensor([pos], device=DEVICE), out=out, config=config, work=work)
    assert not torch.isnan(got).any(), "a slot past the position leaked into the result"
    _close(got, ref)


def test_decode_attention_with_one_split_is_one_launch(kernel, monkeypatch):
    da = kernel("decode_attention")

    class NoMerge:  # stands in for the merge kernel: indexing it (a launch) fails the test
        def __getitem__(self, grid):
            raise AssertionError("one split has nothing to merge")

    monkeypatch.setattr(da, "_attention_merge_kernel", NoMerge())
    gen = torch.Generator().manual_seed(5)
    q = _rand(4, 16, dtype=torch.float32, gen=gen)
    kc, vc = _rand(2, 32, 16, dtype=torch.float32, gen=gen), _rand(2, 32, 16, dtype=torch.float32, gen=gen)
    got = da.decode_attention(q, kc, vc, torch.tensor([20], device=DEVICE), config=(16, 1, 4))
    _close(got, da.decode_attention_ref(q, kc, vc, 20))
    with pytest.raises(AssertionError, match="nothing to merge"):  # two splits do launch the merge
        da.decode_attention(q, kc, vc, torch.tensor([20], device=DEVICE), config=(16, 2, 4))



def test_launch_options_under_pdl_and_without_its_wait(monkeypatch):
    from kernelbook.kernels import matvec as mv

    cpu = torch.device("cpu")
    assert mv.launch_options(True, cpu) == (0, {}) and mv.launch_options(mv.NO_WAIT, cpu) == (0, {})
    monkeypatch.setattr(mv, "pdl_supported", lambda device: True)
    assert mv.launch_options(False, cpu) == (0, {})
    assert mv.launch_options(True, cpu) == (1, {"launch_pdl": True})
    assert mv.launch_options(mv.NO_WAIT, cpu) == (2, {"launch_pdl": True})


PTX_COUNTS = """
import json, triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from kernelbook.kernels import matvec as mv
sig = {n: "*bf16" for n in ("x_ptr", "w_ptr", "b_ptr", "g_ptr", "y_ptr")} | {"eps": "fp32", "N": "i32"}
out = {}
for mode in (1, 2):
    const = dict(K=1536, BLOCK_N=2, BLOCK_K=2048, NORM=True, BIAS=False, RESIDUAL=True, PDL=mode)
    src = ASTSource(fn=mv._matvec_kernel, signature={**sig, **{n: "constexpr" for n in const}}, constexprs=const)
    ptx = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4}).asm["ptx"]
    lines = ["".join(ln.split()) for ln in ptx.splitlines()]
    out[mode] = [lines.count("griddepcontrol.launch_dependents;"), lines.count("griddepcontrol.wait;")]
print(json.dumps(out))
"""


@pytest.mark.slow  # minutes under the interpreter: .ci/run runs it
def test_the_kernel_waits_only_under_pdl_proper():
    """The matvec compiled for sm_90 here, without a GPU (Triton ships ptxas), in a process without the
    interpreter: under PDL (1) it lets the next kernel start and waits for the one before once; without its wait
    (2, the diagnostic) it still lets the next kernel start, and never waits."""
    import json

    from conftest import compile_in_child

    assert json.loads(compile_in_child(PTX_COUNTS, timeout=300)) == {"1": [1, 1], "2": [1, 0]}
