"""The decode chapters' teacher-forced check, shown to catch bugs: a pass means something only if a broken step fails.

Each case plants one bug a fused decode step could have in the eager StaticCache step, in decode steps only (prefill
stays Hugging Face's, as in the fast variants), teacher-forces it on the check's feed and asks `compare` whether it
passes against eager bf16, with the tolerance and band the chapters derive from eager fp32 (`yardstick_model`,
`tolerance`). The bugs: one query head left unrotated by RoPE; one layer's q/k/v bias not added; each step's key
and value written one cache slot past its position; the cache's write counter left stale by a capture's warm-up
calls (the counter trap of test_decode_harness.py). An unmutated second eager run is the control: it must pass,
bit for bit.

A finding, recorded as a strict xfail with the numbers: on the two-layer random model of the CPU tests the
unrotated head stays inside the tolerance (0.39 x on the CPU). Its weights are N(0, 0.02) at hidden size 64, so
query-key scores spread by about 0.027 and attention is nearly uniform over the slots: how a query is rotated barely
moves the output (every query head unrotated still gives only 0.53 x). At Qwen2.5-1.5B's width (hidden 1536, 12
heads of 128, 2 KV heads) in two layers, the `wide` case (slow), scores spread by about 0.62 and the same head is
caught at 6.2 x; the GPU cases run the tiny model and the full configuration the chapters check.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

import pytest
import torch

from kernelbook.decode import variants as V
from kernelbook.decode.check import CHECK_STEPS, compare, tolerance, yardstick_model
from kernelbook.decode.harness import (
    Buffers,
    Decoder,
    generate,
    make_static_cache,
    prefill,
    reset_static_cache,
)
from kernelbook.decode.model import QWEN25_15B, TINY

CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
CASES = [
    pytest.param(("cpu", "tiny"), id="cpu-tiny"),
    pytest.param(("cpu", "wide"), id="cpu-wide", marks=pytest.mark.slow),  # about 8 s on two cores
    pytest.param(("cuda", "tiny"), id="cuda-tiny", marks=(pytest.mark.gpu, CUDA)),
    pytest.param(("cuda", "full"), id="cuda-full", marks=(pytest.mark.gpu, CUDA)),
]
# wide: Qwen2.5-1.5B's widths and heads in two layers and a small vocabulary (the attention statistics of the real
# model at a CPU test's cost)
CONFIGS = {"tiny": TINY, "wide": {**QWEN25_15B, "num_hidden_layers": 2, "vocab_size": 512}, "full": QWEN25_15B}
WARMUP_CALLS = 3  # what a capture's warm-up runs (variants.GRAPH_WARMUP)


@dataclass
class Checked:
    """The check's setup on one device: the bf16 model, the feed, the reference logits and the tolerance."""
    name: str
    model: torch.nn.Module
    prompt: torch.Tensor
    feed: torch.Tensor
    bufs: Buffers
    ref: torch.Tensor  # eager bf16, teacher-forced (CHECK_STEPS, vocab)
    tol: float
    band: float
    yard: dict[str, Any]

    def eager(self) -> V.Variant:
        return V.eager_static(self.model, make_static_cache(self.model), self.bufs)

    def check(self, dec: Decoder) -> dict[str, Any]:
        got = generate(dec, self.prompt, CHECK_STEPS, self.feed)["logits"]
        return compare(self.ref, got, self.tol, need_identical=False, band=self.band)


@pytest.fixture(scope="module", params=CASES)
def checked(request) -> Checked:
    """The yardstick exactly as the decode chapters compute it: eager StaticCache teacher-forced in fp32, the same
    weights cast to bf16, eager bf16 teacher-forced as the reference, `tolerance(ref32, ref)`."""
    device, config = request.param
    dev = torch.device(device)
    model, prompt, feed, bufs, ref32 = yardstick_model(CONFIGS[config], dev)
    c = Checked(f"{device}-{config}", model, prompt, feed, bufs, torch.empty(0), 0.0, 0.0, {})
    c.ref = generate(Decoder(model, bufs, c.eager()), prompt, CHECK_STEPS, feed)["logits"]
    c.yard, c.tol, c.band = tolerance(ref32, c.ref)
    yield c
    del c, model
    if device == "cuda":
        torch.cuda.empty_cache()


def mutant(base: V.Variant, reset: Callable[[], None] | None = None) -> V.Variant:
    return V.Variant("eager_static", base.step, base.cache, reset or base.reset, same_kernels_as_reference=False)


def _decoding(x: torch.Tensor) -> bool:
    """A tensor of one token (seq dim -2 of length 1): the mutations act in decode steps, never in prefill."""
    return x.shape[-2] == 1


def must_act(undo: ExitStack) -> list[bool]:
    """A list the mutation appends to whenever it acts; when the case ends, an empty one is an error (RuntimeError,
    never a strict xfail's expected failure): a mutation that never ran would pass any check and prove nothing."""
    hits: list[bool] = []

    def acted() -> None:
        if not hits:
            raise RuntimeError("the mutation never acted in a decode step")
    undo.callback(acted)
    return hits


# ---- the bugs ------------------------------------------------------------------------------------------------------

def rope_head(c: Checked, undo: ExitStack) -> Decoder:
    """The last query head of every layer left unrotated (a head-index bound off by one in a fused RoPE)."""
    from transformers.models.qwen2 import modeling_qwen2

    right = modeling_qwen2.apply_rotary_pos_emb  # looked up as a module global by Qwen2Attention.forward
    head, hits = c.model.config.num_attention_heads - 1, must_act(undo)

    def wrong(q, k, cos, sin, *args, **kwargs):
        q_embed, k_embed = right(q, k, cos, sin, *args, **kwargs)
        if _decoding(q):
            hits.append(True)
            q_embed = q_embed.clone()
            q_embed[:, head] = q[:, head]
        return q_embed, k_embed

    undo.enter_context(pytest.MonkeyPatch.context()).setattr(modeling_qwen2, "apply_rotary_pos_emb", wrong)
    return Decoder(c.model, c.bufs, mutant(c.eager()))


def dropped_bias(c: Checked, undo: ExitStack) -> Decoder:
    """Layer 0's q, k and v biases not added (a fused QKV matvec that forgets its bias in one layer)."""
    attn, hits = c.model.model.layers[0].self_attn, must_act(undo)

    def unbiased(m: torch.nn.Linear, args: Any, out: torch.Tensor) -> torch.Tensor:
        if not _decoding(out):
            return out
        hits.append(True)
        return out - m.bias

    for proj in (attn.q_proj, attn.k_proj, attn.v_proj):
        undo.callback(proj.register_forward_hook(unbiased).remove)
    return Decoder(c.model, c.bufs, mutant(c.eager()))


def kv_slot(c: Checked, undo: ExitStack) -> Decoder:
    """Each step's key and value written one slot past its position, attention over slots 0..pos as before: a step
    never sees its own key, and sees an empty slot where the first decode step should have written."""
    v = mutant(c.eager())
    right, held, hits = v.cache.update, {}, must_act(undo)

    def update(key_states, value_states, layer_idx, *args, **kwargs):
        if not _decoding(key_states):
            return right(key_states, value_states, layer_idx, *args, **kwargs)
        hits.append(True)
        pos = c.bufs.pos
        # what slot `pos` holds before the step (the last step's key, or nothing before the first step)
        before = ([t.index_select(2, pos) for t in held[layer_idx]] if layer_idx in held
                  else [torch.zeros_like(key_states), torch.zeros_like(value_states)])
        keys, values = right(key_states, value_states, layer_idx, *args, **kwargs)  # wrote slot `pos`
        held[layer_idx] = (keys, values)  # the full static tensors (batch, kv_heads, slots, head_dim)
        for t, old in zip((keys, values), before, strict=True):
            t.index_copy_(2, pos + 1, t.index_select(2, pos))  # the step's key and value, one slot late
            t.index_copy_(2, pos, old)
        return keys, values

    undo.enter_context(pytest.MonkeyPatch.context()).setattr(v.cache, "update", update)
    return Decoder(c.model, c.bufs, v)


class Unguarded(Decoder):
    """Decoder without the length assertion in `start`: to show the check catches a stale counter on its own."""

    def start(self, prompt: torch.Tensor) -> torch.Tensor:
        self.variant.reset()
        logits = prefill(self.model, self.variant.cache, prompt)
        self.pos = prompt.shape[1]
        self.token = logits.argmax(-1)
        return logits


def stale_counter(c: Checked, undo: ExitStack) -> Decoder:
    """The counter trap: the cache is reset, then a capture's warm-up calls advance its write counter and nothing
    resets it again, so prefill writes WARMUP_CALLS slots late over the warm-up's keys."""
    base, hits = c.eager(), must_act(undo)

    def reset_then_warm_up() -> None:
        hits.append(True)
        reset_static_cache(base.cache)
        for _ in range(WARMUP_CALLS):
            base.step()

    return Unguarded(c.model, c.bufs, mutant(base, reset_then_warm_up))


MUTATIONS = {"rope_head": rope_head, "dropped_bias": dropped_bias, "kv_slot": kv_slot,
             "stale_counter": stale_counter}
# (case, mutation) pairs the check misses, with what was measured: see the module docstring
_TINY_ROPE = ("the check passes one unrotated query head on the tiny random model: rel_err_max 0.007657 <= tol "
              "0.0195 (0.39 x), max_abs 0.0078 vs band 0.0143, top-1 agreement 1.00 (measured on the CPU, torch 2.13, "
              "transformers 5.24); its attention is near uniform (query-key scores spread by about 0.027)")
KNOWN_MISSES: dict[tuple[str, str], str] = {("cpu-tiny", "rope_head"): _TINY_ROPE,
                                            ("cuda-tiny", "rope_head"): _TINY_ROPE}


# ---- the tests -----------------------------------------------------------------------------------------------------

def test_unmutated_eager_passes_bit_for_bit(checked):
    got = checked.check(Decoder(checked.model, checked.bufs, checked.eager()))
    assert got["passed"] and got["bit_identical"], got
    assert 0 < checked.tol < 1 and checked.yard["rel_err_max"] > 0, checked.yard


@pytest.mark.parametrize("name", list(MUTATIONS))
def test_check_fails_on_mutation(checked, name, request):
    miss = KNOWN_MISSES.get((checked.name, name))
    if miss:
        request.applymarker(pytest.mark.xfail(strict=True, raises=AssertionError, reason=miss))
    with ExitStack() as undo:  # every patch and hook is gone when the case ends
        got = checked.check(MUTATIONS[name](checked, undo))
    assert not got["passed"], (f"{checked.name}: the check passed {name}: rel_err_max {got['rel_err_max']:.4g} "
                               f"<= tol {checked.tol:.4g} ({got['rel_err_max'] / checked.tol:.2f} x), "
                               f"max_abs {got['max_abs']:.4g} vs band {checked.band:.4g}, "
                               f"top-1 agreement {got['top1_agree']:.2f}")


def test_start_also_guards_the_stale_counter(checked):
    """The harness's own guard: Decoder.start refuses a cache whose counter is off after prefill."""
    with ExitStack() as undo, pytest.raises(AssertionError, match="cache holds"):
        dec = stale_counter(checked, undo)
        Decoder(checked.model, checked.bufs, dec.variant).start(checked.prompt)
