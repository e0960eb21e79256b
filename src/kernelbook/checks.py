"""How every experiment checks a version before it times it: fresh random inputs, poisoned outputs, and the
distance from the reference counted in representable steps of the dtype."""

from __future__ import annotations

from typing import Any

import torch


def random_bf16(rows: int, hidden: int, seed: int, n: int = 2, device: str = "cuda") -> list[torch.Tensor]:
    """n fresh N(0, 1) bf16 tensors of (rows, hidden) from a seeded generator on the device."""
    gen = torch.Generator(device=device).manual_seed(seed)
    return [torch.randn(rows, hidden, device=device, dtype=torch.bfloat16, generator=gen) for _ in range(n)]


def nan_like(t: torch.Tensor) -> torch.Tensor:
    """An output buffer shaped as t, filled with NaN: an element a kernel leaves unwritten shows."""
    return torch.full_like(t, float("nan"))


def poisoned(t: torch.Tensor, n: int) -> tuple[torch.Tensor, ...]:
    """n such buffers."""
    return tuple(nan_like(t) for _ in range(n))


def _ordered(t: torch.Tensor) -> torch.Tensor:
    """Float bits as integers that count representable values: neighbours differ by 1, across zero too."""
    bits = {2: torch.int16, 4: torch.int32}[t.element_size()]
    b = t.contiguous().view(bits).to(torch.int64)
    magnitude = b & ((1 << (8 * t.element_size() - 1)) - 1)
    return torch.where(b < 0, -magnitude, magnitude)


def compare(out: torch.Tensor, ref: torch.Tensor) -> dict[str, Any]:
    """How far out is from ref: elements that differ, the largest absolute difference, and the largest distance
    in representable steps of the dtype (1 = one rounding step), with the step size where the largest diff is."""
    assert out.shape == ref.shape and out.dtype == ref.dtype, f"{out.shape} {out.dtype} vs {ref.shape} {ref.dtype}"
    assert not torch.isnan(out).any(), "output holds NaN: the kernel left poisoned elements unwritten"
    diff = (out.float() - ref.float()).abs()
    steps = (_ordered(out) - _ordered(ref)).abs()
    i = int(diff.flatten().argmax())
    at = ref.flatten()[i].float().abs().item()
    step_at = torch.finfo(ref.dtype).eps * 2.0 ** torch.floor(torch.log2(torch.tensor(max(at, 1e-30)))).item()
    return {"elements": out.numel(), "differ": int((steps != 0).sum()), "max_abs": diff.max().item(),
            "max_steps": int(steps.max()), "bit_identical": bool((steps == 0).all()),
            "ref_at_max": at, "step_at_max": step_at, "ref_absmax": ref.float().abs().max().item()}


def checked(name: str, out: Any, ref: Any, max_steps: int) -> dict[str, Any]:
    """compare() for each output of a version (h, y for a pair); refuses a version more than max_steps from ref,
    so that nothing wrong is ever timed."""
    outs = out if isinstance(out, tuple | list) else (out,)
    refs = ref if isinstance(ref, tuple | list) else (ref,)
    res = {k: compare(o, rf) for k, o, rf in zip(("h", "y") if len(outs) == 2 else ("out",), outs, refs, strict=True)}
    worst = max(v["max_steps"] for v in res.values())
    assert worst <= max_steps, f"{name}: {worst} bf16 steps from eager (allowed {max_steps}): {res}"
    return res
