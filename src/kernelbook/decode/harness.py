"""The decode harness, split as in gpt-fast: `prefill`, a single-token step, and the loop, as separate functions.

Every static-cache variant decodes into one `StaticCache` of 512 slots and reads its token and position from two
fixed buffers, `ids` (1, 1) and `pos` (1,): a CUDA graph replays against fixed addresses, so the loop copies each
new token into `ids` instead of passing a new tensor. A step has no host synchronisation: the next token is an
argmax on the device, copied on the device into `ids`.

The write position of a transformers 5.x `StaticCache` is a device-side counter in each layer (advanced by every
forward, warm-ups included) and not the position the caller passes; `reset_static_cache` zeroes it in place along
with the keys and values, and `Decoder.start` checks after prefill that the counter equals the prompt length.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

PROMPT_LEN = 43
CACHE_SLOTS = 512
PROMPT_SEED = 43


# ---- transformers version differences, looked up at run time ------------------------------------------------------

def _forward_params(model: torch.nn.Module) -> set[str]:
    return set(inspect.signature(model.forward).parameters)


def cache_kwarg(model: torch.nn.Module) -> str:
    """The name forward() takes the cache under: `cache` (transformers >= 5.2x) or `past_key_values`."""
    params = _forward_params(model)
    for name in ("cache", "past_key_values"):
        if name in params:
            return name
    raise TypeError(f"{type(model).__name__}.forward takes neither `cache` nor `past_key_values`: {sorted(params)}")


def takes_cache_position(model: torch.nn.Module) -> bool:
    """transformers 4.x wrote the static cache at `cache_position`; 5.x has no such argument."""
    return "cache_position" in _forward_params(model)


def make_static_cache(model: torch.nn.Module, slots: int = CACHE_SLOTS) -> Any:
    from transformers import StaticCache

    params = inspect.signature(StaticCache.__init__).parameters
    want = {"config": model.config, "max_cache_len": slots, "max_batch_size": 1, "batch_size": 1,
            "device": model.device, "dtype": model.dtype}
    return StaticCache(**{k: v for k, v in want.items() if k in params})


def make_dynamic_cache(model: torch.nn.Module) -> Any:
    from transformers import DynamicCache

    params = inspect.signature(DynamicCache.__init__).parameters
    return DynamicCache(config=model.config) if "config" in params else DynamicCache()


def cache_layers(cache: Any) -> list[Any]:
    return list(getattr(cache, "layers", []) or [])


def layer_keys(cache: Any, i: int = 0) -> torch.Tensor | None:
    """Layer i's key tensor (batch, kv_heads, slots, head_dim), whichever layout this transformers uses."""
    layers = cache_layers(cache)
    if layers:
        return getattr(layers[i], "keys", None)
    kc = getattr(cache, "key_cache", None)
    return kc[i] if kc is not None and len(kc) > i else None


def cache_length(cache: Any) -> int:
    """Tokens the cache believes it holds (reads a device counter: a host sync, so never inside a step)."""
    n = cache.get_seq_length()
    return int(n.item()) if isinstance(n, torch.Tensor) else int(n)


_COUNTER_WORDS = ("length", "position", "seen", "offset")


def _zero_state(obj: Any, where: str, touched: list[str]) -> None:
    for name, v in list(vars(obj).items()):
        if isinstance(v, torch.Tensor):
            v.zero_()  # in place: a captured graph holds these addresses
            touched.append(f"{where}.{name}")
        elif isinstance(v, list) and v and all(isinstance(t, torch.Tensor) for t in v):
            for t in v:
                t.zero_()
            touched.append(f"{where}.{name}[*]")
        elif (isinstance(v, int) and not isinstance(v, bool) and not name.startswith("max")
              and any(w in name for w in _COUNTER_WORDS)):
            setattr(obj, name, 0)
            touched.append(f"{where}.{name}")


def reset_static_cache(cache: Any) -> list[str]:
    """Empty a static cache in place: keys, values and any write counter, on the cache and on every layer.

    Returns what it zeroed. Tensors are zeroed, never replaced, so CUDA graphs and compiled code that captured
    their addresses stay valid. Raises if the cache still reports a length afterwards.
    """
    touched: list[str] = []
    if hasattr(cache, "reset"):
        cache.reset()
        touched.append("cache.reset()")
    _zero_state(cache, "cache", touched)
    for i, layer in enumerate(cache_layers(cache)):
        _zero_state(layer, f"layers[{i}]", touched)
    n = cache_length(cache)
    assert n == 0, f"static cache still reports {n} tokens after reset; zeroed {touched}"
    return touched


# ---- the three pieces ----------------------------------------------------------------------------------------------

def prompt_ids(vocab_size: int, device: torch.device | str, length: int = PROMPT_LEN,
               seed: int = PROMPT_SEED) -> torch.Tensor:
    """A fixed prompt of `length` seeded random token ids, (1, length)."""
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, vocab_size, (1, length), generator=g).to(device)


@dataclass
class Buffers:
    """The step's inputs at fixed addresses: the token to feed (1, 1) and its position (1,)."""
    ids: torch.Tensor
    pos: torch.Tensor

    @classmethod
    def on(cls, device: torch.device | str) -> Buffers:
        return cls(torch.zeros(1, 1, dtype=torch.long, device=device), torch.zeros(1, dtype=torch.long, device=device))


def step_kwargs(model: torch.nn.Module, cache: Any, pos: torch.Tensor) -> dict[str, Any]:
    """forward() keyword arguments for the cache and positions, looked up once (not inside a traced step)."""
    kw = {cache_kwarg(model): cache, "use_cache": True}
    if takes_cache_position(model):
        kw["cache_position"] = pos
    return kw


# --8<-- [start:pieces]
def prefill(model: torch.nn.Module, cache: Any, prompt: torch.Tensor) -> torch.Tensor:
    """Run the prompt (1, T) through the model, filling the cache; logits for the next token (1, vocab)."""
    pos = torch.arange(prompt.shape[1], device=prompt.device)  # (T,)
    out = model(input_ids=prompt, position_ids=pos.view(1, -1), logits_to_keep=1, **step_kwargs(model, cache, pos))
    return out.logits[:, -1, :]


def decode_step_fn(model: torch.nn.Module, cache: Any, bufs: Buffers) -> Callable[[], torch.Tensor]:
    """One token through the model: reads bufs.ids (1, 1) and bufs.pos (1,), writes one cache slot, returns
    logits (1, vocab). Takes no arguments, so it can be captured or compiled as it is."""
    kw = step_kwargs(model, cache, bufs.pos)

    def decode_step() -> torch.Tensor:
        return model(input_ids=bufs.ids, position_ids=bufs.pos.view(1, 1), **kw).logits[:, -1, :]
    return decode_step


class Decoder:
    """One variant's generation: `start` resets the cache and runs prefill, `advance` feeds one token."""

    def __init__(self, model: torch.nn.Module, bufs: Buffers, variant: Any) -> None:
        self.model, self.bufs, self.variant = model, bufs, variant
        self.pos = 0
        self.token: torch.Tensor | None = None  # (1,) on the device

    def start(self, prompt: torch.Tensor) -> torch.Tensor:
        self.variant.reset()
        logits = prefill(self.model, self.variant.cache, prompt)
        n = cache_length(self.variant.cache)  # host sync, outside any step
        assert n == prompt.shape[1], \
            f"{self.variant.name}: cache holds {n} tokens after a {prompt.shape[1]}-token prefill"
        self.pos = prompt.shape[1]
        self.token = logits.argmax(-1)
        return logits

    def advance(self, feed: torch.Tensor | None = None) -> torch.Tensor:
        """One decode step with no host sync: copy the token (the last argmax, or `feed`) into the input buffer,
        run the variant's step, take the argmax on the device. Returns the step's logits (1, vocab)."""
        self.bufs.ids.copy_((self.token if feed is None else feed).view(1, 1))
        self.bufs.pos.fill_(self.pos)
        logits = self.variant.step()
        self.token = logits.argmax(-1)
        self.pos += 1
        return logits


def generate(dec: Decoder, prompt: torch.Tensor, steps: int, feed: torch.Tensor | None = None) -> dict[str, Any]:
    """The loop: prefill, then `steps` decode steps, free-running (each step feeds its own argmax) or teacher-forced
    (step i feeds feed[i]). Returns the tokens, each step's logits (steps, vocab) and top-two gaps, on the host."""
    first = dec.start(prompt).argmax(-1)
    logits = []
    for i in range(steps):
        logits.append(dec.advance(None if feed is None else feed[i:i + 1]).clone())  # graph outputs get overwritten
    lg = torch.cat(logits)  # (steps, vocab), model dtype
    top2 = lg.float().topk(2, dim=-1).values
    return {"first_token": int(first.item()), "tokens": lg.argmax(-1).tolist(), "logits": lg,
            "gaps": (top2[:, 0] - top2[:, 1]).tolist()}
# --8<-- [end:pieces]
