"""Reading the Python module TorchInductor writes: its Triton kernels and its call() function, as plain text.

Everything here works on the source string returned by `torch._inductor.utils.run_and_get_code`, so the page's
facts (how many kernels, whether a row is walked in chunks, which cache hints, which shapes are constants, what went
to cuBLAS) are read out of the generated code, never typed. No torch import: the tests run on stored examples.

Inductor's format moves between versions (`rnumel` became `r0_numel`; `call` became a method of a Runner class;
kernels sit in `async_compile.triton('name', '''source''')` strings). The patterns accept both spellings.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

_ASYNC = re.compile(r"async_compile\.triton\(\s*['\"](\w+)['\"]\s*,\s*'''(.*?)'''", re.S)
_JIT_DEF = re.compile(r"^@triton\.jit\s*\ndef (\w+)\(", re.M)
_LOOP = re.compile(r"^(\s*)for (\w+) in (tl\.range|range)\(")
_NUMEL = re.compile(r"^\s+((?:x|y|z)numel|r\d*_?numel)\s*=\s*(\d+)\s*$", re.M)
_LOAD = re.compile(r"tl\.load\((\w+)\s*[+,)]")
_STORE = re.compile(r"tl\.store\((\w+)\s*[+,)]")
_EVICT = re.compile(r"eviction_policy=['\"](\w+)['\"]")
_KIND = {"red": "reduction", "per": "persistent reduction", "poi": "pointwise", "tem": "template"}
# lines of the kernel body that only rename an index or a size; dropped from the trimmed listing
_ALIAS = re.compile(r"^\s*(roffset|rindex|rbase|rnumel|RBLOCK)\b")
GEMM_MARKS = ("gemm", "nvjet", "cutlass", "xmma", "cublas", "gemv", "splitk", "sm90_", "sm80_", "ampere_", "hopper_")


def kernel_sources(code: str) -> dict[str, str]:
    """Kernel name -> its Triton source (decorators included), in the order the module defines them."""
    found = {name: src for name, src in _ASYNC.findall(code)}
    if found:
        return found
    out = {}
    starts = [(m.start(), m.group(1)) for m in _JIT_DEF.finditer(code)]
    for i, (pos, name) in enumerate(starts):
        out[name] = code[pos: starts[i + 1][0] if i + 1 < len(starts) else len(code)]
    return out


def kernel_def(src: str) -> str:
    """From `def name(` to the end of the kernel's body (the decorators and the imports above it dropped)."""
    m = re.search(r"^def \w+\(", src, re.M)
    if not m:
        raise ValueError("no `def` in this kernel source")
    lines = src[m.start():].splitlines()
    body = [lines[0]]
    for line in lines[1:]:
        if line.strip() and not line.startswith((" ", "\t")):
            break
        body.append(line)
    while body and not body[-1].strip():
        body.pop()
    return "\n".join(body)


def kind_of(name: str) -> str:
    """triton_red_fused_... -> 'reduction'; anything not named triton_* -> 'other'."""
    m = re.match(r"triton_(\w{3})_", name)
    return _KIND.get(m.group(1), m.group(1)) if m else "other"


def _loops(body: str) -> list[dict[str, Any]]:
    """Each top-level `for` in the kernel with the pointers it loads and stores."""
    loops: list[dict[str, Any]] = []
    cur: dict[str, Any] | None = None
    indent = None
    for line in body.splitlines()[1:]:
        m = _LOOP.match(line)
        if m and (indent is None or len(m.group(1)) <= indent):
            indent = len(m.group(1))
            cur = {"var": m.group(2), "range": m.group(3), "loads": [], "stores": []}
            loops.append(cur)
            continue
        if cur is not None and line.strip() and indent is not None and len(line) - len(line.lstrip()) <= indent:
            cur = None
        if cur is not None:
            cur["loads"] += _LOAD.findall(line)
            cur["stores"] += _STORE.findall(line)
    return loops


def kernel_facts(name: str, src: str) -> dict[str, Any]:
    """What one kernel does, read from its text: constants, loops, loads, stores, cache hints."""
    body = kernel_def(src)
    loops = _loops(body)
    loads = _LOAD.findall(body)
    stores = _STORE.findall(body)
    seen: Counter[str] = Counter()
    for lp in loops:
        seen.update(set(lp["loads"]))
    stored_then_loaded = sorted({p for i, lp in enumerate(loops) for p in lp["loads"]
                                 if any(p in earlier["stores"] for earlier in loops[:i])})
    hints = [(ptr, pol) for line in body.splitlines() if "tl.load(" in line
             for ptr, pol in zip(_LOAD.findall(line)[:1], _EVICT.findall(line)[:1] or ["none"], strict=False)]
    return {
        "name": name,
        "kind": kind_of(name),
        "constants": {k: int(v) for k, v in _NUMEL.findall(body)},
        "loops": len(loops),
        "loop_ranges": [lp["range"] for lp in loops],
        "chunked": len(loops) > 0,  # a `for` over the reduction: the row is walked R0_BLOCK elements at a time
        "loads": len(loads),
        "stores": len(stores),
        "pointers_loaded": sorted(set(loads)),
        "pointers_stored": sorted(set(stores)),
        "reloaded_in_later_loop": sorted(p for p, n in seen.items() if n > 1),
        "stored_then_reloaded": stored_then_loaded,
        "eviction": dict(Counter(pol for _, pol in hints)),
        "eviction_by_pointer": {ptr: pol for ptr, pol in hints},
        "lines": len(body.splitlines()),
    }


def trim_kernel(src: str) -> str:
    """The kernel's def and body without the index/size alias lines Inductor emits for older spellings."""
    return "\n".join(line for line in kernel_def(src).splitlines() if not _ALIAS.match(line))


def call_body(code: str) -> list[str]:
    """The lines of the generated `call(args)` (a function or a Runner method), dedented to the body's level."""
    m = re.search(r"^(\s*)def call\((?:self, )?args\):\s*$", code, re.M)
    if not m:
        raise ValueError("no `def call(args)` in the generated code")
    base = len(m.group(1))
    out: list[str] = []
    for line in code[m.end():].splitlines()[1:]:
        if line.strip() and len(line) - len(line.lstrip()) <= base:
            break
        out.append(line)
    while out and not out[-1].strip():
        out.pop()
    body_indent = min((len(x) - len(x.lstrip()) for x in out if x.strip()), default=0)
    return [x[body_indent:] for x in out]


def classify_line(line: str) -> dict[str, Any]:
    """One call() line: a Triton kernel launch, an extern call (cuBLAS mm/addmm/bmm...), a buffer reuse, ..."""
    s = line.strip()
    if m := re.match(r"(\w+)\.run\(", s):
        return {"kind": "triton", "op": m.group(1), "line": s}
    if m := re.search(r"extern_kernels\.(\w+)\(", s):
        return {"kind": "extern", "op": m.group(1), "reinterpret": "reinterpret_tensor(" in s, "line": s}
    if s.endswith("# reuse"):
        m = re.match(r"(\w+) = (\w+); del \w+", s)
        return {"kind": "reuse", "op": f"{m.group(1)} <- {m.group(2)}" if m else s, "line": s}
    if re.search(r"empty_strided\w*\(", s):
        return {"kind": "alloc", "op": s.split(" =")[0], "line": s}
    if m := re.match(r"(aten|torch\.ops\.\w+)\.(\w+)", s) or re.search(r"= (aten\.\w+|torch\.ops\.[\w.]+)\(", s):
        return {"kind": "aten", "op": m.group(0).split("(")[0].lstrip("= "), "line": s}
    for kind, pat in (("comment", r"#"), ("del", r"del "), ("assert", r"assert_size_stride"), ("return", r"return"),
                      ("stream", r"(with |stream\d*|raw_stream)")):
        if re.match(pat, s):
            return {"kind": kind, "op": "", "line": s}
    return {"kind": "other", "op": "", "line": s}


def call_summary(code: str) -> dict[str, Any]:
    """The call() body classified: launches in order (with the source nodes Inductor notes above each), reuses."""
    lines = call_body(code)
    steps, pending = [], None
    for line in lines:
        c = classify_line(line)
        if c["kind"] == "comment" and "Source Nodes" in c["line"]:
            m = re.search(r"Source Nodes: \[(.*?)\]", c["line"])
            pending = m.group(1) if m else None
            continue
        if c["kind"] in ("triton", "extern", "reuse", "aten"):
            steps.append({**c, "source_nodes": pending if c["kind"] != "reuse" else None})
            if c["kind"] != "reuse":
                pending = None
    count = Counter(s["kind"] for s in steps)
    return {
        "lines": lines,
        "steps": steps,
        "triton_launches": count["triton"],
        "extern_calls": [s["op"] for s in steps if s["kind"] == "extern"],
        "reuses": [s["op"] for s in steps if s["kind"] == "reuse"],
        "reinterpret_tensor": sum("reinterpret_tensor(" in x for x in lines),
    }


def trim_call(code: str) -> str:
    """call() reduced to what runs: kernel launches, extern calls and buffer reuses, one per line."""
    return "\n".join(s["line"] for s in call_summary(code)["steps"])


def summarise(code: str) -> dict[str, Any]:
    """Everything the page states about one generated module."""
    kernels = kernel_sources(code)
    facts = [kernel_facts(n, s) for n, s in kernels.items()]
    try:
        call = call_summary(code)
    except ValueError:
        call = None
    return {"kernel_count": len(facts), "kernel_names": list(kernels), "kernels": facts, "call": call,
            "chars": len(code)}


def kernel_family(name: str, cat: str = "kernel") -> str:
    """A profiler kernel name -> 'triton' (Inductor's), 'gemm' (cuBLAS/CUTLASS), 'copy' or 'aten' (eager ops)."""
    low = name.lower()
    if low.startswith("triton_"):
        return "triton"
    if cat == "gpu_memcpy" or "memcpy" in low:
        return "copy"
    if cat == "gpu_memset" or "memset" in low:
        return "memset"
    if any(mark in low for mark in GEMM_MARKS):
        return "gemm"
    return "aten"


def short_kernel_name(name: str, width: int = 60) -> str:
    """A profiler name without template arguments, cut to `width` characters."""
    s = re.sub(r"<.*>", "<…>", name) if "<" in name else name
    s = re.sub(r"^void ", "", s)
    return s if len(s) <= width else s[: width - 1] + "…"
