"""The seventh decode variant, built one change at a time from the plain static-cache graph.

Every step is a complete decode step for the same model (the decode chapter's Qwen2.5-1.5B with seeded weights),
reading the same input buffers and writing the same Hugging Face StaticCache tensors, so Hugging Face's prefill
fills the cache and each step continues from it. Each step keeps the changes of the steps before it:

own               the step in our own PyTorch code: separate projections, SDPA over all cache slots with a mask
fused_proj        q, k, v in one projection and gate, up in one (stacked weights)
filled_attention  a Triton attention kernel that reads only the filled slots
fused_kernels     the fusion chapter's add+RMSNorm and SwiGLU kernels
matvec            Triton matrix-vector kernels, tuned per shape, instead of cuBLAS
matvec_fusions    RMSNorm, bias, RoPE, the cache write, SwiGLU and the residual add inside the matvecs:
                  four matvec launches a layer and attention's one or two (as tuned)
pdl               the same kernels launched with programmatic dependent launch
greedy            the argmax, the next token's id and its position inside the graph too: the generation loop
                  only replays it
swiglu_ring       SwiGLU's gate/up projection on a persistent grid whose programs stream their weights through
                  rings of shared memory, the first blocks copied before the wait (kernels/swiglu_ring.py)
few_o             the output projection in a few programs of many rows each: one wave that leaves the SMs room, so
                  the ring's programs are resident, copying their first blocks, while attention still runs
down_ring         the down projection on a persistent grid too, whole rows of W_down in rings of shared memory, the
                  first ones copied before the wait (kernels/matvec_ring.py)
attention_o       attention inside the output projection: each program computes one head's attention and its
                  share of W_o's rows, the last one of a row block adds the heads up, so four launches a layer

A step is a zero-argument function; `variants` captures each in one CUDA graph.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F

from kernelbook.decode.harness import Buffers, Decoder, cache_layers
from kernelbook.kernels.add_rmsnorm import add_rmsnorm_triton
from kernelbook.kernels.attention_o import attention_o
from kernelbook.kernels.attention_o import workspace as attention_o_workspace
from kernelbook.kernels.decode_attention import decode_attention, workspace
from kernelbook.kernels.matvec import NO_WAIT, matvec, rmsnorm_ref
from kernelbook.kernels.matvec_pair import qkv_rope, rotate_ref, swiglu_pair
from kernelbook.kernels.matvec_ring import fits as down_fits
from kernelbook.kernels.matvec_ring import matvec_ring
from kernelbook.kernels.next_token import next_token
from kernelbook.kernels.next_token import workspace as token_workspace
from kernelbook.kernels.swiglu import swiglu_triton
from kernelbook.kernels.swiglu_ring import ring_supported, swiglu_ring

STEPS = ("own", "fused_proj", "filled_attention", "fused_kernels", "matvec", "matvec_fusions", "pdl", "greedy",
         "swiglu_ring", "few_o", "down_ring", "attention_o")
FUSED = ("matvec_fusions", "pdl", "greedy", "swiglu_ring", "few_o", "down_ring", "attention_o")  # fused_step's
ADVANCES = ("greedy", "swiglu_ring", "few_o", "down_ring", "attention_o")  # steps that write their next input
FOLDED = ("attention_o",)  # the steps that launch attention inside the output projection
RINGED = ("swiglu_ring", "few_o", "down_ring", "attention_o")  # steps whose SwiGLU streams through shared memory
FEW = ("few_o", "down_ring")  # the steps whose output projection takes the o_few site's config (a few programs)
DOWNED = ("down_ring", "attention_o")  # the steps whose down projection streams through shared memory
LABELS = {
    "own": "own PyTorch step",
    "fused_proj": "+ fused QKV, gate/up",
    "filled_attention": "+ attention over filled slots",
    "fused_kernels": "+ fused add+RMSNorm, SwiGLU",
    "matvec": "+ Triton matvec for one row",
    "matvec_fusions": "+ norm, RoPE, SwiGLU, residual in the matvecs",
    "pdl": "+ programmatic dependent launch",
    "greedy": "+ argmax and next inputs in the graph",
    "swiglu_ring": "+ SwiGLU weights through shared memory",
    "few_o": "+ output projection in a few programs",
    "down_ring": "+ down weights through shared memory",
    "attention_o": "+ attention inside the output projection",
}
# the launches a step makes, by site; the tuner picks a config for each: (block, block_k, warps) for a matvec,
# (slots per block, splits, warps) for attention, (rows per block, slots per block, warps) for attention_o,
# (pairs per block, blocks in flight, warps) for swiglu_ring, (rows in flight, warps, programs per SM) for
# down_ring; o_few is the output projection's matvec in the steps
# of FEW, tuned over blocks of many rows (ladder.FEW_ROWS)
DEFAULTS = {**{s: (8, 512, 4) for s in ("qkv", "o", "gate_up", "down", "lm_head", "qkv_rope", "swiglu")},
            "attention": (32, 16, 4), "attention_o": (64, 32, 8), "swiglu_ring": (4, 4, 4), "o_few": (32, 512, 8),
            "down_ring": (2, 2, 4)}
SITES = ("qkv", "o", "gate_up", "down", "lm_head", "qkv_rope", "swiglu", "swiglu_ring", "attention", "attention_o",
         "o_few", "down_ring")
# fused_step's calls, in order: a step makes attention and o, or attention_o in their place, swiglu or swiglu_ring,
# and down or down_ring (fused_calls)
FUSED_CALLS = ("qkv_rope", "attention", "o", "attention_o", "swiglu", "swiglu_ring", "down", "down_ring", "lm_head")


def calls_made(fold: bool, ring: bool = False, down_ring: bool = False) -> tuple[str, ...]:
    """The calls of FUSED_CALLS that fused_step makes, in order, with attention inside the output projection
    (fold) or not, SwiGLU's ring (ring) or matvec_pair's kernel, and down's ring (down_ring) or matvec."""
    gone = (("attention", "o") if fold else ("attention_o",)) + (("swiglu",) if ring else ("swiglu_ring",))
    gone += ("down",) if down_ring else ("down_ring",)
    return tuple(c for c in FUSED_CALLS if c not in gone)


def fused_calls(step: str) -> tuple[str, ...]:
    """The calls of FUSED_CALLS that the fused step `step` makes, in order."""
    return calls_made(step in FOLDED, step in RINGED, step in DOWNED)


def step_sites(step: str) -> tuple[str, ...]:
    """The sites whose configs the fused step `step` reads, one per call in order: a call's own name, but o_few for
    the output projection of the steps in FEW."""
    return tuple("o_few" if c == "o" and step in FEW else c for c in fused_calls(step))


@dataclass
class Layer:
    ln1: torch.Tensor  # (H,) input RMSNorm weight
    ln2: torch.Tensor  # (H,) post-attention RMSNorm weight
    w_qkv: torch.Tensor  # (Hq*D + 2*Hkv*D, H): W_q, W_k, W_v stacked
    b_qkv: torch.Tensor  # (Hq*D + 2*Hkv*D,)
    w_o: torch.Tensor  # (H, Hq*D)
    w_gate_up: torch.Tensor  # (2I, H): W_gate over W_up
    w_down: torch.Tensor  # (H, I)
    k_cache: torch.Tensor  # (Hkv, slots, D): a view of the StaticCache layer's keys
    v_cache: torch.Tensor  # (Hkv, slots, D)


@dataclass
class Packed:
    """The model's weights as the fast steps read them: stacked once, shared by every step."""
    embed: torch.Tensor  # (V, H) the token embedding
    lm_head: torch.Tensor  # (V, H) the output projection: the embedding itself when they are tied
    norm: torch.Tensor  # (H,) final RMSNorm weight
    layers: list[Layer]
    cos: torch.Tensor  # (slots, D) rotary tables in the model dtype, as Hugging Face computes them
    sin: torch.Tensor
    q_heads: int
    kv_heads: int
    head_dim: int
    eps: float

    @property
    def sizes(self) -> tuple[int, int, int]:
        d = self.head_dim
        return self.q_heads * d, self.kv_heads * d, self.kv_heads * d


def pack(model: torch.nn.Module, cache: Any) -> Packed:
    """Stack each layer's projections and point at the cache's key/value tensors (which must exist: prefill first)."""
    cfg = model.config
    d = cfg.hidden_size // cfg.num_attention_heads
    layers = []
    for i, blk in enumerate(model.model.layers):
        a, m = blk.self_attn, blk.mlp
        cl = cache_layers(cache)
        keys = cl[i].keys if cl else cache.key_cache[i]
        values = cl[i].values if cl else cache.value_cache[i]
        assert keys is not None and keys.shape[0] == 1 and keys.is_contiguous(), "prefill before pack(): no cache"
        layers.append(Layer(
            ln1=blk.input_layernorm.weight, ln2=blk.post_attention_layernorm.weight,
            w_qkv=torch.cat([a.q_proj.weight, a.k_proj.weight, a.v_proj.weight]).contiguous(),
            b_qkv=torch.cat([a.q_proj.bias, a.k_proj.bias, a.v_proj.bias]).contiguous(),
            w_o=a.o_proj.weight, w_gate_up=torch.cat([m.gate_proj.weight, m.up_proj.weight]).contiguous(),
            w_down=m.down_proj.weight, k_cache=keys[0], v_cache=values[0]))
    slots = layers[0].k_cache.shape[1]
    positions = torch.arange(slots, device=model.device)[None]  # (1, slots)
    probe = torch.zeros(1, dtype=model.dtype, device=model.device)
    cos, sin = model.model.rotary_emb(probe, positions)  # (1, slots, D), Hugging Face's own tables
    return Packed(embed=model.model.embed_tokens.weight, lm_head=model.lm_head.weight,
                  norm=model.model.norm.weight, layers=layers,
                  cos=cos[0].contiguous(), sin=sin[0].contiguous(), q_heads=cfg.num_attention_heads,
                  kv_heads=cfg.num_key_value_heads, head_dim=d, eps=cfg.rms_norm_eps)


# --8<-- [start:torch_step]
def torch_step(pk: Packed, bufs: Buffers, step: str, configs: dict[str, tuple[int, int, int]] | None = None
               ) -> Callable[[], torch.Tensor]:
    """Steps own .. matvec: one layer at a time in PyTorch, each change swapped in by the step's name."""
    on = set(STEPS[:STEPS.index(step) + 1])
    assert "matvec_fusions" not in on, "the fused steps are fused_step's"
    cfg = configs or {}
    nq, nkv, _ = pk.sizes
    d, slots = pk.head_dim, pk.layers[0].k_cache.shape[1]

    def linear(x, w, b=None, site=""):  # x (H,) -> (N,)
        if "matvec" in on:
            return matvec(x, w, b, config=cfg.get(site, DEFAULTS[site]))
        return F.linear(x, w, b)

    def add_norm(delta, h, w):  # (new residual, normalised) from the residual h and what the block added
        if "fused_kernels" in on:
            hn, y = add_rmsnorm_triton((torch.zeros_like(h) if delta is None else delta)[None], h[None], w, pk.eps)
            return hn[0], y[0]
        h = h if delta is None else h + delta
        return h, rmsnorm_ref(h, w, pk.eps)

    def attention(lw, x, pos):
        if "fused_proj" in on:
            q, k, v = linear(x, lw.w_qkv, lw.b_qkv, "qkv").split(pk.sizes)
        else:
            q, k, v = (linear(x, w, b, "qkv") for w, b in zip(lw.w_qkv.split(pk.sizes), lw.b_qkv.split(pk.sizes),
                                                              strict=True))
        cos, sin = pk.cos.index_select(0, pos), pk.sin.index_select(0, pos)  # (1, D)
        q = rotate_ref(q.view(-1, d), cos, sin)  # (Hq, D)
        lw.k_cache.index_copy_(1, pos, rotate_ref(k.view(-1, 1, d), cos, sin))  # slot pos of (Hkv, slots, D)
        lw.v_cache.index_copy_(1, pos, v.view(-1, 1, d))
        if "filled_attention" in on:
            o = decode_attention(q.contiguous(), lw.k_cache, lw.v_cache, pos,
                                 config=cfg.get("attention", DEFAULTS["attention"]))
        else:
            mask = (torch.arange(slots, device=pos.device) <= pos).view(1, 1, 1, slots)
            o = F.scaled_dot_product_attention(q[None, :, None], lw.k_cache[None], lw.v_cache[None],
                                               attn_mask=mask, scale=d ** -0.5, enable_gqa=True)
        return linear(o.reshape(nq), lw.w_o, None, "o")

    def mlp(lw, x):
        if "fused_proj" in on:
            g, u = linear(x, lw.w_gate_up, None, "gate_up").chunk(2)
        else:
            g, u = (linear(x, w, None, "gate_up") for w in lw.w_gate_up.chunk(2))
        act = swiglu_triton(g, u) if "fused_kernels" in on else F.silu(g) * u
        return linear(act, lw.w_down, None, "down")

    def run() -> torch.Tensor:
        pos = bufs.pos
        h, delta = pk.embed.index_select(0, bufs.ids.view(1))[0], None  # (H,)
        for lw in pk.layers:
            h, x = add_norm(delta, h, lw.ln1)
            h, x = add_norm(attention(lw, x, pos), h, lw.ln2)
            delta = mlp(lw, x)
        _, x = add_norm(delta, h, pk.norm)
        return linear(x, pk.lm_head, None, "lm_head").view(1, -1)  # (1, V) logits
    return run
# --8<-- [end:torch_step]


def ring_runs(pk: Packed) -> bool:
    """Whether swiglu_ring can run the model's SwiGLU here: a Hopper GPU, bf16 weights."""
    return ring_supported(pk.embed.device) and pk.embed.dtype == torch.bfloat16


# --8<-- [start:fused_step]
def fused_step(pk: Packed, bufs: Buffers, configs: dict[str, tuple[int, int, int]], pdl: bool | str,
               skip: tuple[str, ...] = (), greedy: bool = False, fold: bool = False, ring: bool = False,
               few: bool = False, down_ring: bool = False) -> Callable[[], torch.Tensor]:
    """Five calls a layer, every buffer allocated once: QKV+RoPE+cache write, attention (one launch, or two when
    its slots are split), o + residual, gate/up+SwiGLU, down + residual; then the output projection with the final
    norm and, with `greedy`, the argmax written into bufs.ids and bufs.pos advanced. With `fold`, attention and o
    are one call, attention_o: four a layer. With `ring`, SwiGLU is swiglu_ring's persistent launch where the GPU
    runs it (bf16 on Hopper), matvec_pair's kernel at configs["swiglu"] elsewhere. With `few`, the output
    projection takes configs["o_few"] instead of configs["o"]: the same kernel in fewer, larger programs. With
    `down_ring`, the down projection is matvec_ring's persistent launch where the GPU runs it (bf16 on Hopper),
    matvec at configs["down"] elsewhere. The calls named in `skip` (FUSED_CALLS) are left out, to time what each
    costs; the logits are then wrong."""
    dev, dt = pk.embed.device, pk.embed.dtype
    hidden, nq = pk.embed.shape[1], pk.q_heads * pk.head_dim
    inter = pk.layers[0].w_gate_up.shape[0] // 2
    h = torch.empty(hidden, device=dev, dtype=dt)  # the residual stream, updated in place
    q = torch.empty(nq, device=dev, dtype=dt)
    att = torch.empty(nq, device=dev, dtype=dt)
    act = torch.empty(inter, device=dev, dtype=dt)
    logits = torch.empty(1, pk.lm_head.shape[0], device=dev, dtype=dt)
    token_work = token_workspace(dev)  # next_token's key and counter, left reset by every launch
    # attention's partials, every layer; or attention_o's partial sums and counters, left reset by every launch
    work = None if fold else workspace(pk.q_heads, pk.head_dim, configs["attention"][1], dev)
    fold_work = attention_o_workspace(pk.q_heads, hidden, configs["attention_o"][0], dev) if fold else None
    def pair(lw: Layer) -> torch.Tensor:  # SwiGLU as matvec_pair's kernel: the swiglu call, and the ring's elsewhere
        return swiglu_pair(h, lw.w_gate_up, lw.ln2, out=act, eps=pk.eps, config=configs["swiglu"], pdl=pdl)

    calls = {  # one layer's launches, in order
        "qkv_rope": lambda lw: qkv_rope(h, lw.w_qkv, lw.b_qkv, lw.ln1, pk.cos, pk.sin, bufs.pos, lw.k_cache,
                                        lw.v_cache, pk.q_heads, out=q, eps=pk.eps, config=configs["qkv_rope"],
                                        pdl=pdl),
        "attention": lambda lw: decode_attention(q, lw.k_cache, lw.v_cache, bufs.pos, out=att,
                                                 config=configs["attention"], work=work, pdl=pdl),
        "o": lambda lw: matvec(att, lw.w_o, residual=h, config=configs["o_few" if few else "o"], pdl=pdl),
        "attention_o": lambda lw: attention_o(q, lw.k_cache, lw.v_cache, bufs.pos, lw.w_o, h,
                                              config=configs["attention_o"], work=fold_work, pdl=pdl),
        "swiglu": pair,
        "swiglu_ring": (lambda lw: swiglu_ring(h, lw.w_gate_up, lw.ln2, out=act, eps=pk.eps,
                                               config=configs["swiglu_ring"], pdl=pdl)) if ring_runs(pk) else pair,
        "down": lambda lw: matvec(act, lw.w_down, residual=h, config=configs["down"], pdl=pdl),
    }
    down_runs = ring_runs(pk) and "down_ring" in configs and down_fits(configs["down_ring"], inter)  # else matvec
    calls["down_ring"] = (lambda lw: matvec_ring(act, lw.w_down, h, config=configs["down_ring"], pdl=pdl)
                          ) if down_runs else calls["down"]
    layer = [f for c, f in calls.items() if c in calls_made(fold, ring, down_ring) and c not in skip]

    def run() -> torch.Tensor:
        torch.index_select(pk.embed, 0, bufs.ids.view(1), out=h.view(1, -1))
        for lw in pk.layers:
            for f in layer:
                f(lw)
        if "lm_head" not in skip:
            matvec(h, pk.lm_head, norm_weight=pk.norm, out=logits.view(-1), eps=pk.eps, config=configs["lm_head"],
                   pdl=pdl)
        if greedy:
            next_token(logits, bufs.ids, bufs.pos, work=token_work, pdl=pdl)
        return logits
    return run
# --8<-- [end:fused_step]


def make_step(pk: Packed, bufs: Buffers, step: str, configs: dict[str, tuple[int, int, int]] | None = None,
              skip: tuple[str, ...] = (), advance: bool = True, wait: bool = True) -> Callable[[], torch.Tensor]:
    """`step` as a zero-argument function. With `advance` False a step of ADVANCES is built without its last
    kernel, so that it replays at one position (as tuning and launch costs replay it), not past the cache's end.
    With `wait` False a step launched under PDL is built with kernels that do not wait for the one before
    (matvec.NO_WAIT): its values are wrong, its time is the launches' without their dependencies."""
    pdl = step in FUSED and step != "matvec_fusions"
    assert wait or pdl, f"{step} launches nothing under PDL: no wait to leave out"
    if step in FUSED:
        return fused_step(pk, bufs, configs or DEFAULTS, pdl=pdl if wait else NO_WAIT, skip=skip,
                          greedy=advance and step in ADVANCES, fold=step in FOLDED, ring=step in RINGED,
                          few=step in FEW, down_ring=step in DOWNED)
    assert not skip, "only the fused steps leave calls out"
    return torch_step(pk, bufs, step, configs)


# --8<-- [start:decoder]
class GreedyDecoder(Decoder):
    """The generation loop for a step that writes its own next input (ADVANCES): `start` puts the prefill's token
    and the position into the input buffers once; `advance` only replays, after copying a fed token over the one
    the step chose."""

    def start(self, prompt: torch.Tensor) -> torch.Tensor:
        logits = super().start(prompt)
        self.bufs.ids.copy_(self.token.view(1, 1))
        self.bufs.pos.fill_(self.pos)
        return logits

    def advance(self, feed: torch.Tensor | None = None) -> torch.Tensor:
        if feed is not None:
            self.bufs.ids.copy_(feed.view(1, 1))
        logits = self.variant.step()  # also writes its argmax into bufs.ids and pos + 1 into bufs.pos
        self.pos += 1
        return logits
# --8<-- [end:decoder]
