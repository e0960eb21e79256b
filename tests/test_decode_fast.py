"""The seventh variant's steps against Hugging Face's eager step: every step of the ladder, on the tiny two-layer
Qwen2 in fp32 (CPU: Triton's interpreter), teacher-forced from the same prefill, must give the same logits."""

from __future__ import annotations

import statistics

import pytest
import torch

from kernelbook.decode import fast
from kernelbook.decode import variants as V
from kernelbook.decode.harness import (
    Buffers,
    Decoder,
    generate,
    make_static_cache,
    prefill,
    prompt_ids,
    reset_static_cache,
)
from kernelbook.decode.model import TINY, build_model

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
STEPS = 4  # teacher-forced steps of the full matrix (slow); the default run checks QUICK_STEPS on the tiny shape
QUICK_STEPS = 2  # the second step reads what the first wrote into the cache
# attention_o: 32 rows a block, which 48 and 112 rows do not fill evenly, and 4 slots a block, so that it walks
# several blocks of slots; o_few: 16 rows a block, which 48 and 112 rows do not fill evenly either
CONFIGS = {**{s: (8, 32, 4) for s in fast.SITES}, "attention": (4, 4, 4), "attention_o": (32, 4, 4),
           "o_few": (16, 32, 4)}
# the configs of a whole step under the interpreter, on every shape: the matvecs in blocks of 32 rows over 64 columns,
# 4 to 8 times fewer programs for it to walk one by one. Blocks still end part-filled: the tiny model's down projection
# (160 columns), and hidden sizes 112 and 48 and intermediate size 100 below. The kernels' own tests take every config
# on odd shapes (test_matvec.py and others); on a GPU the steps run CONFIGS.
QUICK = {**CONFIGS, **{s: (32, 64, 4) for s in ("qkv", "o", "gate_up", "down", "lm_head", "swiglu", "swiglu_ring")},
         "qkv_rope": (8, 64, 4)}
# other Qwen2-family shapes for the fused steps: (q heads, kv heads, hidden) gives head sizes 16, 64 and 128, GQA
# groups 1, 3 and 7, head counts that are not powers of two, hidden and intermediate sizes that are not (and that
# attention_o's row blocks do not divide), and untied embeddings
SHAPES = {
    "d64-group3-untied": {"num_attention_heads": 3, "num_key_value_heads": 1, "hidden_size": 192,
                          "tie_word_embeddings": False},
    "d16-group7": {"num_attention_heads": 7, "num_key_value_heads": 1, "hidden_size": 112},
    "d128-group1": {"num_attention_heads": 1, "num_key_value_heads": 1, "hidden_size": 128},
    "d16-group3-narrow": {"num_attention_heads": 3, "num_key_value_heads": 1, "hidden_size": 48,
                          "intermediate_size": 100},
}


def _setup(fields, steps=STEPS):
    model = build_model(fields, DEVICE, torch.float32)
    prompt = prompt_ids(model.config.vocab_size, DEVICE, length=5)
    feed = torch.randint(0, model.config.vocab_size, (steps,), generator=torch.Generator().manual_seed(3)).to(DEVICE)
    bufs = Buffers.on(DEVICE)
    cache = make_static_cache(model, slots=16)
    ref = generate(Decoder(model, bufs, V.eager_static(model, cache, bufs)), prompt, steps, feed)
    prefill(model, cache, prompt)
    return model, prompt, feed, bufs, cache, ref, fast.pack(model, cache)


@pytest.fixture(scope="module")
def setup():
    """The tiny model over QUICK_STEPS (the default run's shape; QUICK its configs)."""
    return _setup(TINY, QUICK_STEPS)


@pytest.fixture(scope="module", params=list(SHAPES), ids=list(SHAPES))
def shaped(request):
    return _setup({**TINY, **SHAPES[request.param]}, QUICK_STEPS if DEVICE == "cpu" else STEPS)


def _matches_eager(setup, step, configs=CONFIGS):
    model, prompt, feed, bufs, cache, ref, pk = setup
    fn = fast.make_step(pk, bufs, step, configs)
    v = V.Variant(step, fn, cache, lambda: reset_static_cache(cache), same_kernels_as_reference=False)
    got = generate((fast.GreedyDecoder if step in fast.ADVANCES else Decoder)(model, bufs, v), prompt, len(feed), feed)
    rel = ((got["logits"] - ref["logits"]).norm(dim=-1) / ref["logits"].norm(dim=-1)).max().item()
    assert rel < 1e-5, f"{step}: logits differ from eager by {rel:.2e}"
    assert got["tokens"] == ref["tokens"]


@pytest.mark.parametrize("step", fast.STEPS)
def test_step_matches_eager(setup, step):
    _matches_eager(setup, step, QUICK)


# the first step and the fused ones; without a GPU a step whose only change is one the interpreter cannot make runs
# exactly the step before it: "pdl" (no PDL), "swiglu_ring" and "down_ring" (no ring: fast.ring_runs is false)
@pytest.mark.slow  # the full step x shape matrix (.ci/run); each step is checked on the tiny shape above by default
@pytest.mark.parametrize("step", ("own", *(s for s in fast.FUSED
                                           if DEVICE == "cuda" or s not in ("pdl", "swiglu_ring", "down_ring"))))
def test_fused_steps_match_eager_on_other_shapes(shaped, step):
    _matches_eager(shaped, step, QUICK if DEVICE == "cpu" else CONFIGS)


@pytest.mark.slow  # minutes under the interpreter: .ci/run runs it
def test_fused_step_leaves_out_the_calls_it_is_told_to(setup, monkeypatch):
    """launch_costs times the step without one call: that call, and only it, must be gone."""
    model, prompt, feed, bufs, cache, ref, pk = setup
    seen: list[str] = []
    for name in ("qkv_rope", "decode_attention", "matvec", "swiglu_pair", "attention_o"):
        real = getattr(fast, name)
        monkeypatch.setattr(fast, name, lambda *a, _f=real, _n=name, **k: (seen.append(_n), _f(*a, **k))[1])
    layers = len(pk.layers)
    cases = ((False, False, False, (), None), (False, False, False, ("attention",), "decode_attention"),
             (False, False, False, ("lm_head",), None), (True, False, False, (), None),
             (True, False, False, ("attention_o",), "attention_o"), (True, False, False, ("down",), None),
             (False, True, False, (), None), (False, True, False, ("swiglu_ring",), "swiglu_pair"),
             (True, True, False, ("swiglu_ring",), "swiglu_pair"), (False, True, True, (), None),
             (False, True, True, ("down_ring",), None), (False, True, True, ("down",), None))
    for fold, ring, down_ring, skip, gone in cases:
        seen.clear()
        fast.fused_step(pk, bufs, QUICK, pdl=False, skip=skip, fold=fold, ring=ring, down_ring=down_ring)()
        # folded, the output projection is no matvec of its own: only down's and the logits' are left; with the
        # rings on a CPU, SwiGLU is matvec_pair's kernel and down matvec all the same (Gluon has no interpreter);
        # a step makes down or down_ring, so only its own call is left out
        down_gone = ("down_ring" if down_ring else "down") in skip
        want = {"qkv_rope": layers, "decode_attention": 0 if fold else layers, "attention_o": layers if fold else 0,
                "swiglu_pair": layers,
                "matvec": (1 if fold else 2) * layers - layers * down_gone + ("lm_head" not in skip)}
        if gone:
            want[gone] = 0
        assert {n: seen.count(n) for n in want} == want, (fold, ring, down_ring, skip)
    assert fast.FUSED_CALLS == ("qkv_rope", "attention", "o", "attention_o", "swiglu", "swiglu_ring", "down",
                                "down_ring", "lm_head")
    assert fast.fused_calls("pdl") == ("qkv_rope", "attention", "o", "swiglu", "down", "lm_head")
    assert fast.fused_calls("swiglu_ring") == ("qkv_rope", "attention", "o", "swiglu_ring", "down", "lm_head")
    assert fast.fused_calls("attention_o") == ("qkv_rope", "attention_o", "swiglu_ring", "down_ring", "lm_head")
    assert fast.fused_calls("few_o") == fast.fused_calls("swiglu_ring")  # the same calls, o at another config
    assert fast.step_sites("few_o") == ("qkv_rope", "attention", "o_few", "swiglu_ring", "down", "lm_head")
    assert fast.step_sites("down_ring") == ("qkv_rope", "attention", "o_few", "swiglu_ring", "down_ring", "lm_head")
    assert fast.step_sites("swiglu_ring") == fast.fused_calls("swiglu_ring")


def test_the_few_programs_step_gives_the_output_projection_its_own_config(setup, monkeypatch):
    """With `few`, the output projection's matvec runs at configs["o_few"], without at configs["o"]; the down
    projection and the logits keep theirs either way."""
    *_, bufs, _, _, pk = setup
    seen: list[tuple[tuple[int, ...], tuple[int, ...]]] = []  # (weight shape, config) per matvec launch
    real = fast.matvec

    def matvec(x, w, *args, **kw):
        seen.append((tuple(w.shape), kw["config"]))
        return real(x, w, *args, **kw)

    monkeypatch.setattr(fast, "matvec", matvec)
    o_shape = tuple(pk.layers[0].w_o.shape)
    configs = {**QUICK, "o": (4, 32, 4), "o_few": (16, 32, 4)}
    for few, want in ((False, (4, 32, 4)), (True, (16, 32, 4))):
        seen.clear()
        fast.fused_step(pk, bufs, configs, pdl=False, few=few)()
        assert [c for shape, c in seen if shape == o_shape] == [want] * len(pk.layers), few
        assert [c for shape, c in seen if shape != o_shape] == [configs["down"]] * len(pk.layers) + [configs["lm_head"]]


def test_the_ring_runs_only_where_gluon_can(setup, monkeypatch):
    """The ring step launches swiglu_ring only for bf16 weights on a GPU that runs it; elsewhere (the CPU, fp32)
    matvec_pair's SwiGLU at the plain SwiGLU site's config."""
    *_, pk = setup
    assert not fast.ring_runs(pk)  # fp32 on the CPU (or the interpreter)
    monkeypatch.setattr(fast, "ring_supported", lambda device: True)
    assert not fast.ring_runs(pk)  # still fp32
    bf16 = fast.Packed(**{**pk.__dict__, "embed": pk.embed.to(torch.bfloat16)})
    assert fast.ring_runs(bf16)


def test_the_down_ring_runs_only_where_the_ring_runs_and_its_rows_fit(setup, monkeypatch):
    """With `down_ring`, down is matvec_ring's launch where the rings run (fast.ring_runs) and its config fits the
    intermediate size (matvec_ring.fits); elsewhere matvec at the plain down site's config."""
    *_, bufs, _, _, pk = setup
    seen: list[str] = []
    real = fast.matvec
    monkeypatch.setattr(fast, "ring_runs", lambda pk: True)  # as on Hopper; both rings stand in for themselves:
    monkeypatch.setattr(fast, "swiglu_ring", lambda h, w, g, out, eps, config, pdl: fast.swiglu_pair(
        h, w, g, out=out, eps=eps, config=config))  # Gluon has no interpreter
    monkeypatch.setattr(fast, "matvec_ring", lambda x, w, h, config, pdl: (seen.append(("ring", config)),
                                                                          real(x, w, residual=h))[1])
    monkeypatch.setattr(fast, "matvec", lambda x, w, *a, **k: (seen.append(("matvec", k["config"])),
                                                              real(x, w, *a, **k))[1])
    configs = {**QUICK, "swiglu_ring": QUICK["swiglu"], "down": (16, 64, 4), "down_ring": (2, 2, 4)}
    inter = pk.layers[0].w_down.shape[1]
    assert inter % 256  # TINY's 160: no 16 B copies, so the ring does not fit
    for fits, want in ((False, ("matvec", (16, 64, 4))), (True, ("ring", (2, 2, 4)))):
        monkeypatch.setattr(fast, "down_fits", lambda config, k, fits=fits: fits)
        seen.clear()
        fast.fused_step(pk, bufs, configs, pdl=False, ring=True, down_ring=True, few=True)()
        downs = [c for c in seen if c[1] in (configs["down"], configs["down_ring"])]
        assert downs == [want] * len(pk.layers), fits


@pytest.mark.parametrize("step", ("greedy", "attention_o"))
def test_a_step_built_not_to_advance_stays_at_its_position(setup, step):
    """Tuning and the launch costs replay a step many times at one position: a step that advances its position is
    built without its next-token kernel there, or its replays would walk past the cache's last slot."""
    model, prompt, feed, bufs, cache, ref, pk = setup
    bufs.pos.fill_(7)
    bufs.ids.fill_(3)
    fast.make_step(pk, bufs, step, QUICK, advance=False)()
    assert int(bufs.pos.item()) == 7 and int(bufs.ids.item()) == 3
    fast.make_step(pk, bufs, step, QUICK)()
    assert int(bufs.pos.item()) == 8


def test_pack_stacks_weights_and_points_at_the_cache(setup):
    model, *_, cache, _, pk = setup
    attn = model.model.layers[1].self_attn
    assert torch.equal(pk.layers[1].w_qkv[:attn.q_proj.weight.shape[0]], attn.q_proj.weight)
    assert torch.equal(pk.layers[1].b_qkv[-attn.v_proj.bias.shape[0]:], attn.v_proj.bias)
    assert pk.layers[1].k_cache.data_ptr() == cache.layers[1].keys.data_ptr(), "the step must write HF's cache"
    assert pk.cos.shape == (16, model.config.hidden_size // model.config.num_attention_heads)


def test_steps_are_cumulative_and_labelled():
    assert set(fast.LABELS) == set(fast.STEPS) and len(fast.STEPS) == 12
    assert fast.STEPS[-5:] == ("greedy", "swiglu_ring", "few_o", "down_ring", "attention_o")
    assert fast.STEPS[0] == "own"
    assert set(fast.FEW) <= set(fast.RINGED) - set(fast.FOLDED)  # folded, there is no output projection of its own
    assert set(fast.RINGED) == set(fast.STEPS[fast.STEPS.index("swiglu_ring"):])  # the steps after keep the ring
    assert set(fast.DOWNED) == set(fast.STEPS[fast.STEPS.index("down_ring"):])  # and down's
    assert fast.STEPS[-len(fast.FUSED):] == fast.FUSED and set(fast.ADVANCES) <= set(fast.FUSED)


@pytest.mark.slow  # minutes under the interpreter: .ci/run runs it
def test_the_greedy_step_feeds_itself(setup):
    """Free-running, the step that takes its own argmax and advances its own position generates eager's tokens with
    nothing but replays: bufs.ids holds its argmax and bufs.pos the next position after every step."""
    from kernelbook.chapters.decode_far.ladder import next_token_check

    model, prompt, feed, bufs, cache, ref, pk = setup
    eager = generate(Decoder(model, bufs, V.eager_static(model, cache, bufs)), prompt, STEPS)
    fn = fast.make_step(pk, bufs, "greedy", QUICK)
    v = V.Variant("greedy", fn, cache, lambda: reset_static_cache(cache), same_kernels_as_reference=False)
    dec = fast.GreedyDecoder(model, bufs, v)
    got = generate(dec, prompt, STEPS)
    assert got["tokens"] == eager["tokens"]
    assert int(bufs.ids.item()) == got["tokens"][-1] and int(bufs.pos.item()) == prompt.shape[1] + STEPS
    check = next_token_check(dec, prompt, STEPS)
    assert check == {"steps": STEPS, "agree": STEPS, "positions_ok": True, "passed": True}


def _rings_on_the_tiny_model() -> dict[str, bool]:
    """Whether the ladder tunes each ring on TINY here, by the ladder's own rules: a ring runs on Hopper in bf16 (the
    ladder's model is bf16), and a site is tuned where one of its candidate configs fits the model's widths (on
    TINY some SwiGLU rings fit and no down ring does, on the H100 and the H200 alike)."""
    from kernelbook.chapters.decode_far.ladder import DOWN_RING, RING
    from kernelbook.kernels import matvec_ring as mr
    from kernelbook.kernels.swiglu_ring import fits, layout_fits, ring_supported

    hidden, inter = TINY["hidden_size"], TINY["intermediate_size"]
    runs = ring_supported(torch.device(DEVICE))
    return {"swiglu_ring": runs and any(inter % c[0] == 0 and fits(c, hidden) and layout_fits(c, hidden)
                                        for c in RING),
            "down_ring": runs and any(mr.fits(c, inter) for c in DOWN_RING)}


@pytest.mark.skipif(DEVICE != "cuda", reason="CUDA graphs and the tuner need a GPU")
def test_far_dry_run_on_the_tiny_model():
    from kernelbook.chapters.decode_far.ladder import layer_launches
    from kernelbook.chapters.decode_far.ladder import measure as far

    data = far(TINY, min_rounds=1, wide=((8, 32, 4), (4, 64, 4)), deep=((4, 64, 4),), split=((16, 4, 4), (16, 1, 4)),
               fold=((16, 16, 4), (32, 4, 4)), few=((16, 32, 4), (32, 32, 4)))
    assert not data["build_errors"], data["build_errors"]
    assert data["all_passed"], str({n: (c["rel_err_max"], c["nonfinite"]) for n, c in data["teacher_forced"].items()})
    assert data["names"] == ["cuda_graph", *fast.STEPS]
    assert all(data["rounds"][0]["variants"][n]["step_ms"] > 0 for n in data["names"])
    assert all(data["rounds"][0]["variants"][n]["loop_ms"] > 0 for n in data["names"])
    tuned = set(fast.SITES) - {site for site, runs in _rings_on_the_tiny_model().items() if not runs}
    assert set(data["configs"]) == tuned
    for step, t in data["in_step"].items():  # every site tuned again inside the whole step
        assert step in fast.STEPS and set(t["configs"]) == tuned
        assert t["positions"][0] == data["prompt_len"] < t["positions"][1]  # the first and last timed positions
        swiglu = "swiglu_ring" if step in fast.RINGED else "swiglu"
        down = [] if step in fast.DOWNED else ["down"]  # the untuned down_ring site's fallback keeps down's config
        if step in fast.FOLDED:
            assert list(t["sites"]) == ["attention_o", "qkv_rope", swiglu, *down, "lm_head"]
            assert len(t["sites"]["attention_o"]["candidates"]) == 2
        else:
            o = "o_few" if step in fast.FEW else "o"
            assert list(t["sites"]) == ["attention", "qkv_rope", o, swiglu, *down, "lm_head"]
            assert len(t["sites"]["attention"]["candidates"]) == 2 and len(t["sites"][o]["candidates"]) == 2
        assert all(c["step_us"] > 0 for s in t["sites"].values() for c in s["candidates"])
    assert list(data["in_step"]) == ["matvec_fusions", "pdl", "swiglu_ring", "few_o", "down_ring", "attention_o"]
    rings = _rings_on_the_tiny_model()
    for check, site in (("ring_check", "swiglu_ring"), ("down_check", "down_ring")):  # each ring checked where tuned
        assert (data[check] is not None) == rings[site], (check, data[check])
        if data[check] is not None:
            assert all(r["nonfinite"] == 0 for r in data[check]["rows"]), data[check]
    assert list(data["launch_costs"]["calls"]) == list(fast.fused_calls(data["launch_costs"]["step"]))
    assert data["layer_fit"]["layers"] == [0, 1, 2] and all(v > 0 for t in data["layer_fit"]["us"] for v in t)
    tl = data["timeline"]  # one layer of the cost step, profiled after the timings
    assert tl["step"] == data["launch_costs"]["step"] == "down_ring" and tl["layers"] == 2
    assert tuple(tl["launches"]) == layer_launches("down_ring", data["in_step"]["down_ring"]["configs"])
    ends = [statistics.median(v) for v in tl["end_us"]]
    assert ends == sorted(ends) and ends[0] > 0  # each launch waits for the one ahead: the ends come in order
    assert all(r["launch_ordered"] and r["barrier_ordered"] for r in data["handoff"]["rows"])


def test_tune_positions_span_the_timed_steps_within_the_cache():
    from types import SimpleNamespace

    from kernelbook.chapters.decode_far.ladder import tune_positions
    from kernelbook.decode.rounds import TIMED_STEPS, WARM_STEPS

    small, large = SimpleNamespace(cos=torch.zeros(16, 8)), SimpleNamespace(cos=torch.zeros(512, 8))  # slots, D
    assert tune_positions(small, 5) == (5, 15)  # the last timed position is past a 16-slot cache: its last slot
    assert tune_positions(large, 43) == (43, 43 + WARM_STEPS + TIMED_STEPS)


@pytest.mark.parametrize("step", fast.FUSED)
def test_launch_costs_and_in_step_tuning_take_the_calls_each_step_makes(setup, step, monkeypatch):
    """Leaving one call out, and retuning a site inside the step, work for every fused step: only the calls the
    step makes are left out or retuned (step_us, which needs a GPU, stands in as each call's made-up cost)."""
    from kernelbook.chapters.decode_far import ladder

    *_, bufs, _, _, pk = setup
    cost = {c: 10.0 * (i + 1) for i, c in enumerate(fast.FUSED_CALLS)}
    built = []

    def fake_step_us(pk_, bufs_, step_, configs, positions, skip=()):
        built.append((step_, skip))
        return 1000.0 - sum(cost[c] for c in skip) + 0.5 * sum(configs["attention_o"])

    monkeypatch.setattr(ladder, "step_us", fake_step_us)
    made = fast.fused_calls(step)
    lc = ladder.launch_costs(pk, bufs, step, QUICK, (5,), rounds=1)
    assert list(lc["calls"]) == list(made) and {s for _, s in built} == {(), *((c,) for c in made)}
    layers = len(pk.layers)
    for c, x in lc["calls"].items():
        assert x["us"] == pytest.approx(cost[c] / (1 if c == "lm_head" else layers)), c
    tuning = {s: {"best": list(QUICK[s]), "candidates": [{"config": list(QUICK[s]), "us": 1.0}]}
              for s in fast.SITES}
    t = ladder.tune_in_step(pk, bufs, step, tuning, (5,), split=((4, 4, 4),), fold=((32, 4, 4), (8, 4, 4)))
    assert set(t["sites"]) == {s for s in ladder.STEP_SITES if s in fast.step_sites(step)}
    if step in fast.FOLDED:  # the fake step is fastest with the smaller attention_o config
        assert t["configs"]["attention_o"] == [8, 4, 4]


def test_in_step_tuning_tries_every_config_of_the_attention_halfs_projections(setup, monkeypatch):
    """QKV and the output projection are tried inside the step over every config they were tuned at alone, the
    down projection and the LM head over their TOP fastest alone; the step's fastest stays, even when it was not
    among the TOP fastest alone (step_us, which needs a GPU, stands in: its made-up time favours the largest block)."""
    from kernelbook.chapters.decode_far import ladder

    *_, bufs, _, _, pk = setup
    tried: dict[str, set] = {}
    alone = [(1, 32, 4), (2, 32, 4), (4, 32, 4), (8, 32, 4), (16, 32, 4), (8, 64, 8)]

    def fake_step_us(pk_, bufs_, step_, configs, positions, skip=()):
        for s, c in configs.items():
            tried.setdefault(s, set()).add(tuple(c))
        return 1000.0 - sum(configs[s][0] for s in ("qkv_rope", "o", "down", "lm_head"))

    monkeypatch.setattr(ladder, "step_us", fake_step_us)
    tuning = {s: {"best": list(QUICK[s]), "candidates": [{"config": list(QUICK[s]), "us": 1.0}]}
              for s in fast.SITES}
    for s in ("qkv_rope", "o", "down", "lm_head"):  # alone, the smaller the block the faster
        tuning[s] = {"best": list(alone[0]), "candidates": [{"config": list(c), "us": 1.0 + i}
                                                           for i, c in enumerate(alone)]}
    t = ladder.tune_in_step(pk, bufs, "pdl", tuning, (5,), split=((4, 4, 4),))
    for s in ("qkv_rope", "o"):
        assert len(t["sites"][s]["candidates"]) == len(alone) and tried[s] >= set(alone)
        assert t["configs"][s] == [16, 32, 4]  # fifth of six alone, the fastest in the step
    for s in ("down", "lm_head"):
        assert [tuple(c["config"]) for c in t["sites"][s]["candidates"]] == alone[:ladder.TOP]
        assert t["configs"][s] == list(alone[ladder.TOP - 1])


def test_wait_cost_times_the_step_both_ways_in_turn(setup, monkeypatch):
    """wait_cost times the step as built and without its waits in alternating order (step_us, which needs a GPU,
    stands in with made-up times); a step launched without PDL has no wait to leave out."""
    from kernelbook.chapters.decode_far import ladder

    *_, bufs, _, _, pk = setup
    order = []

    def fake_step_us(pk_, bufs_, step_, configs, positions, skip=(), wait=True):
        order.append(wait)
        return 100.0 if wait else 80.0

    monkeypatch.setattr(ladder, "step_us", fake_step_us)
    w = ladder.wait_cost(pk, bufs, "pdl", QUICK, (5, 6), rounds=3)
    assert (w["with_us"], w["without_us"]) == ([100.0] * 3, [80.0] * 3)
    assert order == [True, False, False, True, True, False] and w["positions"] == [5, 6] and w["step"] == "pdl"
    with pytest.raises(AssertionError, match="no wait"):
        fast.make_step(pk, bufs, "matvec_fusions", QUICK, wait=False)


def test_layer_fit_builds_the_step_over_fewer_layers(setup, monkeypatch):
    """layer_fit builds the step over its first n layers for each count in turn, over none with every layer call
    left out, and stores one layer's weight bytes (step_us, which needs a GPU, stands in with made-up times)."""
    from kernelbook.chapters.decode_far import ladder
    from kernelbook.decode.model import weight_bytes

    model, *_, bufs, _, _, pk = setup
    assert ladder.fit_layers(28) == (0, 1, 7, 14, 21, 28) and ladder.fit_layers(2) == (0, 1, 2)
    built = []

    def fake_step_us(pk_, bufs_, step_, configs, positions, skip=()):
        n = 0 if skip else len(pk_.layers)
        built.append((n, skip))
        return 100.0 + 10.0 * n

    monkeypatch.setattr(ladder, "step_us", fake_step_us)
    x = ladder.layer_fit(pk, bufs, "pdl", QUICK, (5,), rounds=2)
    counts = ladder.fit_layers(len(pk.layers))
    assert x["layers"] == list(counts) and x["us"] == [[100.0 + 10.0 * n] * 2 for n in counts]
    assert [n for n, _ in built] == [*counts, *counts[1:], counts[0]]  # the second round starts one count later
    assert {s for n, s in built if n == 0} == {tuple(c for c in fast.fused_calls("pdl") if c != "lm_head")}
    assert len(pk.layers) == 2  # the packed model itself keeps its layers
    lw = pk.layers[0]
    assert x["layer_bytes"] == sum(t.nbytes for t in (lw.ln1, lw.ln2, lw.w_qkv, lw.b_qkv, lw.w_o, lw.w_gate_up,
                                                      lw.w_down))
    once = weight_bytes(model) - len(pk.layers) * x["layer_bytes"]  # what the step reads once: LM head, final norm
    assert once == pk.lm_head.nbytes + pk.norm.nbytes + (0 if pk.lm_head is pk.embed else pk.embed.nbytes)


def test_a_step_built_without_waits_on_the_cpu_is_the_step(setup):
    """Without a GPU nothing launches under PDL, so the diagnostic step is the step itself: same logits."""
    model, prompt, feed, bufs, cache, ref, pk = setup
    if DEVICE == "cuda":
        pytest.skip("on a GPU the step without waits reads unwritten inputs: its values mean nothing")
    bufs.pos.fill_(5)
    bufs.ids.fill_(3)
    a = fast.make_step(pk, bufs, "pdl", QUICK, advance=False)().clone()
    b = fast.make_step(pk, bufs, "pdl", QUICK, advance=False, wait=False)().clone()
    assert torch.equal(a, b)


def test_layer_times_take_each_launch_from_its_layers_first():
    from kernelbook.chapters.decode_far import ladder

    def run(layers, names=("a", "b")):  # embedding lookup, layers x (a, b), LM head; layer i starts at 100 + 10 i
        ks = [{"ts": 0.0, "dur": 1.0}]
        for i in range(layers):
            ks += [{"ts": 100.0 + 10 * i, "dur": 5.0}, {"ts": 102.0 + 10 * i, "dur": 6.0 + i}]
        return ks + [{"ts": 500.0, "dur": 50.0}]

    x = ladder.layer_times([run(4), run(4)], ("a", "b"), 4)
    assert x["launches"] == ["a", "b"] and x["start_us"] == [[0.0, 0.0], [2.0, 2.0]]
    assert x["end_us"] == [[5.0, 5.0], [9.5, 9.5]]  # b ends 2 + 6 + i after its layer's start, layers 1 and 2 only
    assert x["period_us"] == [10.0, 10.0]
    two = ladder.layer_times([run(2)], ("a", "b"), 2)  # under three layers: every layer
    assert two["end_us"] == [[5.0], [8.5]] and two["period_us"] == [10.0]
    assert ladder.layer_times([run(1)], ("a", "b"), 1)["period_us"] == []
    with pytest.raises(ValueError, match="kernels, not 10"):
        ladder.layer_times([run(4)[:-1]], ("a", "b"), 4)


def test_layer_launches_follow_the_steps_calls():
    from kernelbook.chapters.decode_far.ladder import layer_launches

    one, split = {"attention": (64, 1, 4)}, {"attention": (16, 32, 4)}
    assert layer_launches("swiglu_ring", one) == ("qkv_rope", "attention", "o", "swiglu_ring", "down")
    assert layer_launches("pdl", split) == ("qkv_rope", "attention", "attention_merge", "o", "swiglu", "down")
    assert layer_launches("attention_o", split) == ("qkv_rope", "attention_o", "swiglu_ring", "down_ring")
    assert layer_launches("down_ring", one) == ("qkv_rope", "attention", "o", "swiglu_ring", "down_ring")


def test_in_step_tuning_keeps_the_fastest_finalist_not_the_luckiest_timing(setup, monkeypatch):
    """Each site's fastest candidates are timed again in turn and the lowest median stays (step_us, which needs a
    GPU, stands in: one attention config is timed fast once and slow after)."""
    from kernelbook.chapters.decode_far import ladder

    *_, bufs, _, _, pk = setup
    seen: dict[tuple, int] = {}

    def fake_step_us(pk_, bufs_, step_, configs, positions, skip=()):
        c = tuple(configs["attention"])
        seen[c] = seen.get(c, 0) + 1
        if c == (4, 4, 4):  # the luckiest first timing
            return 900.0 if seen[c] == 1 else 1100.0
        return {(8, 4, 4): 1000.0, (16, 4, 4): 1050.0, (32, 4, 4): 1200.0}[c]

    monkeypatch.setattr(ladder, "step_us", fake_step_us)
    tuning = {s: {"best": list(QUICK[s]), "candidates": [{"config": list(QUICK[s]), "us": 1.0}]}
              for s in fast.SITES}
    split = ((4, 4, 4), (8, 4, 4), (16, 4, 4), (32, 4, 4))
    a = ladder.tune_in_step(pk, bufs, "pdl", tuning, (5,), split=split)["sites"]["attention"]
    assert (a["best"], a["step_us"]) == ([8, 4, 4], 1000.0)
    final = {tuple(c["config"]): c["again_us"] for c in a["candidates"] if "again_us" in c}
    assert set(final) == {(4, 4, 4), (8, 4, 4), (16, 4, 4)}  # the three fastest first timings
    assert final[(4, 4, 4)] == [1100.0] * ladder.FINAL_ROUNDS and seen[(32, 4, 4)] == 1
