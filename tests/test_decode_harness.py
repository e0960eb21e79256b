"""The decode harness on a two-layer Qwen2 in float32 on the CPU: caches, reset, compile, and the counter trap."""

from __future__ import annotations

import types

import pytest
import torch

from kernelbook.decode import variants as V
from kernelbook.decode.harness import (
    Buffers,
    Decoder,
    cache_length,
    decode_step_fn,
    generate,
    layer_keys,
    make_static_cache,
    prefill,
    prompt_ids,
    reset_static_cache,
)
from kernelbook.decode.model import QWEN25_15B, TINY, build_model, qwen2_config, weight_bytes

STEPS = 6
SLOTS = 64


@pytest.fixture(scope="module")
def tiny():
    model = build_model(TINY, "cpu", torch.float32)
    prompt = prompt_ids(model.config.vocab_size, "cpu", length=11)
    feed = torch.randint(0, model.config.vocab_size, (STEPS,), generator=torch.Generator().manual_seed(3))
    return model, prompt, feed


def static_variant(model):
    cache, bufs = make_static_cache(model, SLOTS), Buffers.on("cpu")
    return V.eager_static(model, cache, bufs), bufs


def test_full_config_is_qwen25_15b():
    from transformers import Qwen2ForCausalLM

    cfg = qwen2_config(QWEN25_15B)
    with torch.device("meta"):
        model = Qwen2ForCausalLM(cfg).to(torch.bfloat16)
    assert model.lm_head.weight is model.model.embed_tokens.weight
    assert cfg.hidden_size // cfg.num_attention_heads == 128 and cfg.num_key_value_heads == 2
    # 1,543,714,304 parameters with the 151936 x 1536 embedding counted once: 3.087 GB in bf16
    assert weight_bytes(model) == 2 * 1_543_714_304


def test_seeded_weights_repeat(tiny):
    model, _, _ = tiny
    again = build_model(TINY, "cpu", torch.float32)
    for (n, a), (_, b) in zip(model.named_parameters(), again.named_parameters(), strict=True):
        assert torch.equal(a, b), n


def test_dynamic_and_static_cache_agree_teacher_forced(tiny):
    model, prompt, feed = tiny
    bufs = Buffers.on("cpu")
    dyn = generate(Decoder(model, bufs, V.eager_dynamic(model, bufs)), prompt, STEPS, feed)
    st, bufs2 = static_variant(model)
    sta = generate(Decoder(model, bufs2, st), prompt, STEPS, feed)
    torch.testing.assert_close(dyn["logits"], sta["logits"], rtol=1e-5, atol=1e-5)
    assert dyn["first_token"] == sta["first_token"]


def test_reset_makes_a_second_run_identical(tiny):
    model, prompt, feed = tiny
    st, bufs = static_variant(model)
    a = generate(Decoder(model, bufs, st), prompt, STEPS, feed)
    assert cache_length(st.cache) == prompt.shape[1] + STEPS
    b = generate(Decoder(model, bufs, st), prompt, STEPS, feed)  # start() resets in place
    assert torch.equal(a["logits"], b["logits"])
    keys = layer_keys(st.cache, 0)
    ptr = keys.data_ptr()
    touched = reset_static_cache(st.cache)
    assert layer_keys(st.cache, 0).data_ptr() == ptr, "reset must zero in place, not reallocate"
    assert not layer_keys(st.cache, 0).any() and cache_length(st.cache) == 0
    assert any("keys" in t for t in touched)


def test_prefill_without_reset_is_silently_wrong(tiny):
    """The trap a hand capture falls into: calls that advance the write counter, then prefill without a reset."""
    model, prompt, feed = tiny
    st, bufs = static_variant(model)
    good = prefill(model, st.cache, prompt)
    step = decode_step_fn(model, st.cache, bufs)
    for _ in range(3):  # what a capture's warm-up does
        step()
    shifted = prefill(model, st.cache, prompt)
    assert cache_length(st.cache) == 2 * prompt.shape[1] + 3
    assert not torch.allclose(good, shifted, atol=1e-3), "prefill over stale slots should change the logits"
    reset_static_cache(st.cache)
    assert torch.equal(prefill(model, st.cache, prompt), good)


def test_reset_finds_counters_by_attribute():
    """A cache layout this transformers does not have: a layer with its own counter names, a cache-level int."""
    layer = types.SimpleNamespace(keys=torch.ones(1, 1, 4, 2), values=torch.ones(1, 1, 4, 2),
                                  write_position=torch.tensor(7), max_cache_len=4, cumulative_length_int=7)

    class Cache:
        def __init__(self):
            self.layers, self._seen_tokens = [layer], 7

        def get_seq_length(self):
            return int(layer.write_position) + self._seen_tokens

    c = Cache()
    reset_static_cache(c)
    assert int(layer.write_position) == 0 and layer.cumulative_length_int == 0 and c._seen_tokens == 0
    assert layer.max_cache_len == 4 and not layer.keys.any()


@pytest.mark.slow  # minutes under the interpreter: .ci/run runs it
def test_compiled_step_matches_eager(tiny):
    """torch.compile (Inductor's CPU backend, C++) of the static step, teacher-forced against eager."""
    model, prompt, feed = tiny
    st, bufs = static_variant(model)
    ref = generate(Decoder(model, bufs, st), prompt, STEPS, feed)
    comp = V.compiled(model, st.cache, bufs, prompt, "compile_default")
    assert comp.setup["first_call_s"] > 0
    got = generate(Decoder(model, bufs, comp), prompt, STEPS, feed)
    torch.testing.assert_close(got["logits"], ref["logits"], rtol=1e-4, atol=1e-4)
    assert got["tokens"] == ref["tokens"]


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_hand_capture_replays_eager_bit_for_bit_on_gpu():
    """The hand-captured step, reset after capture, against eager on the same cache, in bf16 on the GPU."""
    model = build_model(TINY, "cuda", torch.bfloat16)
    prompt = prompt_ids(model.config.vocab_size, "cuda", length=11)
    feed = torch.randint(0, model.config.vocab_size, (STEPS,), generator=torch.Generator().manual_seed(3)).cuda()
    cache, bufs = make_static_cache(model, SLOTS), Buffers.on("cuda")
    ref = generate(Decoder(model, bufs, V.eager_static(model, cache, bufs)), prompt, STEPS, feed)
    graph = V.cuda_graph(model, cache, bufs, prompt)
    got = generate(Decoder(model, bufs, graph), prompt, STEPS, feed)
    assert torch.equal(got["logits"], ref["logits"])
