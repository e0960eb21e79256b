"""One allocator case in a fresh process, with exactly the allocator settings it is given.

Settings such as expandable segments are fixed when a process first allocates, so each configuration runs in a
child of its own: `python -m <module> <args>`, every allocator variable of this process removed and the case's
own set. The child prints its result as one JSON line after scripts.MARK.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from kernelbook.chapters.allocator.scripts import MARK

SRC = str(Path(__file__).resolve().parents[3])  # src/, the folder holding the kernelbook package
CONF_VARS = ("PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF", "PYTORCH_NO_CUDA_MEMORY_CACHING")


def run_child(module: str, args: list[str], env: dict[str, str] | None = None, timeout_s: float = 120
              ) -> dict[str, Any]:
    """`python -m module *args` with the allocator settings in `env` only; its JSON result."""
    child_env = {k: v for k, v in os.environ.items() if k not in CONF_VARS}
    child_env.update(env or {})
    child_env["PYTHONPATH"] = SRC + os.pathsep + child_env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-m", module, *args], env=child_env, capture_output=True, text=True,
                          timeout=timeout_s)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith(MARK)]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"{module} {args[0] if args else ''} with {env or {}} failed (exit {proc.returncode}):\n"
                           f"{proc.stderr[-4000:]}\n{proc.stdout[-2000:]}")
    return json.loads(lines[-1][len(MARK):])
