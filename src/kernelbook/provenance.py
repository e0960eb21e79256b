"""What a measurement ran on: the GPU, its clocks and power limit (read at start and at end), versions, git state."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from datetime import UTC, datetime
from importlib import metadata

from kernelbook import paths

SMI_FIELDS = ("clocks.sm", "clocks.mem", "clocks.max.sm", "clocks.max.mem", "power.limit", "power.draw",
              "temperature.gpu", "driver_version")


def nvidia_smi() -> dict[str, str]:
    """One nvidia-smi reading of clocks (MHz), power (W), temperature (C) and the driver; {} where unavailable."""
    try:
        out = subprocess.run(["nvidia-smi", f"--query-gpu={','.join(SMI_FIELDS)}", "--format=csv,noheader,nounits",
                              "-i", os.environ.get("CUDA_VISIBLE_DEVICES", "0").split(",")[0]],
                             capture_output=True, text=True, timeout=20, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    values = [v.strip() for v in out.strip().splitlines()[0].split(",")]
    return dict(zip(SMI_FIELDS, values, strict=False))


def _version(pkg: str) -> str | None:
    try:
        return metadata.version(pkg)
    except metadata.PackageNotFoundError:
        return None


def git_state() -> dict[str, object]:
    """Commit and dirty flag. On a machine without the .git folder (the device copy), the caller passes them in
    KERNELBOOK_GIT_COMMIT / KERNELBOOK_GIT_DIRTY."""
    if os.environ.get("KERNELBOOK_GIT_COMMIT"):
        return {"commit": os.environ["KERNELBOOK_GIT_COMMIT"], "dirty": os.environ.get("KERNELBOOK_GIT_DIRTY") == "1"}
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=paths.root(), capture_output=True, text=True,
                                check=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=paths.root(),
                               capture_output=True, text=True, check=True, timeout=10).stdout.strip() != ""
        return {"commit": commit, "dirty": dirty}
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}


def device() -> dict[str, object]:
    """The GPU as torch sees it. Raises RuntimeError when there is none."""
    import torch

    if not torch.cuda.is_available():
        raise RuntimeError("no CUDA GPU is visible (torch.cuda.is_available() is False)")
    p = torch.cuda.get_device_properties(0)
    return {"gpu": p.name, "sm_count": p.multi_processor_count, "memory_bytes": p.total_memory,
            "capability": f"{p.major}.{p.minor}", "l2_bytes": getattr(p, "L2_cache_size", None)}


def versions() -> dict[str, str | None]:
    import torch

    return {"python": platform.python_version(), "torch": torch.__version__, "cuda": torch.version.cuda,
            "triton": _version("triton"), "transformers": _version("transformers"),
            "liger_kernel": _version("liger-kernel"), "platform": platform.platform()}


def start() -> dict[str, object]:
    return {"started_utc": datetime.now(UTC).isoformat(timespec="seconds"), **device(), "versions": versions(),
            "git": git_state(), "smi_start": nvidia_smi(), "argv": sys.argv[1:]}


def finish(prov: dict[str, object], duration_s: float) -> dict[str, object]:
    smi_end = nvidia_smi()
    return {**prov, "duration_s": round(duration_s, 2), "smi_end": smi_end,
            "driver": smi_end.get("driver_version") or prov.get("smi_start", {}).get("driver_version")}
