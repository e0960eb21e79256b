"""The decode chapters' check: a variant's logits, teacher-forced on the same tokens, against eager StaticCache.

A variant passes when it adds no more error to eager bf16 than TOL_FACTOR times what bf16 rounding alone does to
eager (eager bf16 against the same weights in fp32), and every top-1 it changes was a near tie. Both decode
chapters run it on every variant before anything is timed.
"""

from __future__ import annotations

import statistics
from typing import Any

import torch

from kernelbook.decode import variants as V
from kernelbook.decode.harness import Buffers, Decoder, generate, make_static_cache, prompt_ids
from kernelbook.decode.model import build_model, cast_params

CHECK_STEPS = 20
FEED_SEED = 7
TOL_FACTOR = 3.0  # a compiled variant may sit this many times as far from eager bf16 as eager bf16 is from fp32


# --8<-- [start:compare]
def compare(ref: torch.Tensor, got: torch.Tensor, tol: float, need_identical: bool, band: float = float("inf")
            ) -> dict[str, Any]:
    """Teacher-forced logits (steps, vocab) of a variant against the reference's, step by step.

    Passing needs bit-identical logits (`need_identical`), or a relative error within `tol` at every step and
    every top-1 disagreement at a step where the reference's top-two gap is within `band`, the logit error that
    rounding alone can make: a wider lead overturned means a real error.
    """
    r, g = ref.float(), got.float()
    rel = ((g - r).norm(dim=-1) / r.norm(dim=-1)).tolist()  # (steps,)
    max_abs = (g - r).abs().amax(dim=-1)  # (steps,)
    top2 = r.topk(2, dim=-1).values
    gap = top2[:, 0] - top2[:, 1]
    agree = r.argmax(-1) == g.argmax(-1)
    unexplained = (~agree) & (gap > band)
    identical = ref.dtype == got.dtype and bool(torch.equal(ref, got))
    ok = identical if need_identical else (max(rel) <= tol and not bool(unexplained.any()))
    return {"rel_err_max": max(rel), "rel_err_median": statistics.median(rel), "max_abs": float(max_abs.max()),
            "bit_identical": identical, "top1_agree": float(agree.float().mean()),
            "top1_disagree_steps": (~agree).nonzero().flatten().tolist(),
            "unexplained_steps": unexplained.nonzero().flatten().tolist(), "need_identical": need_identical,
            "tolerance": tol, "band": band if band != float("inf") else None, "passed": ok}
# --8<-- [end:compare]


def yardstick_model(fields: dict[str, Any], dev: torch.device) -> tuple[torch.nn.Module, torch.Tensor, torch.Tensor,
                                                                        Buffers, torch.Tensor]:
    """(bf16 model, prompt, feed, buffers, fp32 logits). The model is built in float32 first and eager StaticCache
    runs teacher-forced on `feed`: those logits are the yardstick, how far bf16 rounding alone moves eager's. Then
    the same weights are cast to bf16 for every variant."""
    model = build_model(fields, dev, torch.float32)
    prompt = prompt_ids(model.config.vocab_size, dev)
    feed = torch.randint(0, model.config.vocab_size, (CHECK_STEPS,), generator=torch.Generator().manual_seed(FEED_SEED)
                         ).to(dev)
    bufs = Buffers.on(dev)
    cache32 = make_static_cache(model)
    ref32 = generate(Decoder(model, bufs, V.eager_static(model, cache32, bufs)), prompt, CHECK_STEPS, feed)["logits"]
    del cache32
    cast_params(model, torch.bfloat16)
    torch.cuda.empty_cache()
    return model, prompt, feed, bufs, ref32


def tolerance(ref32: torch.Tensor, ref: torch.Tensor) -> tuple[dict[str, Any], float, float]:
    """(yardstick, tolerance, band): eager bf16 against eager fp32, and TOL_FACTOR times its largest relative error
    and its largest logit error, what a variant may add to eager bf16."""
    yard = compare(ref32, ref, tol=1.0, need_identical=False)
    return yard, TOL_FACTOR * yard["rel_err_max"], TOL_FACTOR * yard["max_abs"]


def first_divergence(ref: dict[str, Any], got: dict[str, Any]) -> dict[str, Any]:
    """Where a free-running variant's greedy tokens first leave the reference's, and how close the call was."""
    for i, (a, b) in enumerate(zip(ref["tokens"], got["tokens"], strict=True)):
        if a != b:
            return {"step": i, "ref_gap": ref["gaps"][i], "gap": got["gaps"][i]}
    return {"step": None, "ref_gap": None, "gap": None}
