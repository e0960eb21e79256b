"""What a measurement ran on: the GPU (its UUID too), its clocks, power and temperature (read at start and at end,
and sampled every SAMPLE_MS while the experiment runs), the host (CPU model, vCPUs, kernel), versions, git state;
and what the repository's history can refute about a stored run (git_problems)."""

from __future__ import annotations

import hashlib
import os
import platform
import re
import statistics
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

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


SAMPLED = ("clocks.sm", "clocks.mem", "power.draw", "temperature.gpu", "utilization.gpu")  # MHz, MHz, W, C, %
# utilization.gpu is the share of nvidia-smi's last sample period in which a kernel ran: the readings with it above
# zero are those taken while the GPU worked (the summary's "busy"), not while the run imported, compiled or waited
SAMPLE_MS = 500  # nvidia-smi's own loop (-lms): one process for the whole run, not one per reading
KEEP_SAMPLES = 240  # at most this many samples are stored (evenly thinned); the summary is over all of them


class Sampler:
    """nvidia-smi's readings of SAMPLED every SAMPLE_MS while the experiment runs, in a thread of the process that
    runs it: `with Sampler() as s: ...; s.summary()`. Where nvidia-smi cannot run, no samples (the summary says 0)."""

    def __init__(self, every_ms: int = SAMPLE_MS) -> None:
        self.every_ms, self.samples, self._proc, self._thread = every_ms, [], None, None
        self._t0 = time.perf_counter()

    def __enter__(self) -> Sampler:
        try:
            self._proc = subprocess.Popen(
                ["nvidia-smi", f"--query-gpu={','.join(SAMPLED)}", "--format=csv,noheader,nounits",
                 f"-lms={self.every_ms}", "-i", os.environ.get("CUDA_VISIBLE_DEVICES", "0").split(",")[0]],
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        except OSError:
            return self
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()
        return self

    def _read(self) -> None:
        for line in self._proc.stdout:  # type: ignore[union-attr]
            fields = [v.strip() for v in line.split(",")]
            if fields[-1:] == ["[N/A]"]:  # utilization, which some GPUs (a MIG slice) do not report: not a reading
                fields[-1] = "nan"  # of it, yet the clocks, power and temperature stand
            try:
                values = [float(v) for v in fields]
            except ValueError:  # "[N/A]" elsewhere, or a torn line
                continue
            if len(values) == len(SAMPLED):
                self.samples.append((round(time.perf_counter() - self._t0, 2), *values))

    def __exit__(self, *exc: object) -> None:
        if self._proc is not None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def summary(self) -> dict[str, object]:
        """{every_ms, n, fields, each field's min/median/max over every sample, busy: {n, stats} over the samples
        taken while a kernel ran, samples: [[t_s, *values]] thinned}."""
        n = len(self.samples)
        busy = [x for x in self.samples if x[1 + SAMPLED.index("utilization.gpu")] > 0]
        step = max(1, -(-n // KEEP_SAMPLES))
        kept = [[None if v != v else v for v in x] for x in self.samples[::step]]  # NaN (not reported): null
        return {"every_ms": self.every_ms, "n": n, "fields": ["t_s", *SAMPLED], "stats": _stats(self.samples),
                "busy": {"n": len(busy), "stats": _stats(busy)}, "samples": kept}


def _stats(samples: list[tuple[float, ...]]) -> dict[str, dict[str, float]]:
    """Each SAMPLED field's min, median and max over `samples` ({} for none)."""
    if not samples:
        return {}
    cols = [[v for v in c if v == v] for c in zip(*(x[1:] for x in samples), strict=True)]  # NaN: not reported
    return {f: {"min": min(c), "median": statistics.median(c), "max": max(c)}
            for f, c in zip(SAMPLED, cols, strict=True) if c}


def host() -> dict[str, object]:
    """The machine around the GPU: its CPU model, how many vCPUs it has and this process may use, the kernel, and
    what the firmware calls the machine (a cloud VM names itself there); None where it cannot be read."""
    def read(path: str) -> str | None:
        try:
            return Path(path).read_text().strip() or None
        except OSError:
            return None

    cpu = next((ln.split(":", 1)[1].strip() for ln in (read("/proc/cpuinfo") or "").splitlines()
                if ln.startswith("model name")), None) or platform.processor() or None
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    product = " ".join(x for x in (read("/sys/class/dmi/id/sys_vendor"), read("/sys/class/dmi/id/product_name")) if x)
    return {"cpu_model": cpu, "vcpus": os.cpu_count(), "usable_cpus": usable, "kernel": platform.release(),
            "machine": product or None}


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
    uuid = getattr(p, "uuid", None)  # torch >= 2.1; nvidia-smi calls it GPU-<uuid>
    return {"gpu": p.name, "sm_count": p.multi_processor_count, "memory_bytes": p.total_memory,
            "capability": f"{p.major}.{p.minor}", "l2_bytes": getattr(p, "L2_cache_size", None),
            "gpu_uuid": f"GPU-{uuid}" if uuid is not None else None}


def versions() -> dict[str, str | None]:
    import torch

    return {"python": platform.python_version(), "torch": torch.__version__, "cuda": torch.version.cuda,
            "triton": _version("triton"), "transformers": _version("transformers"),
            "liger_kernel": _version("liger-kernel"), "platform": platform.platform()}


def start() -> dict[str, object]:
    return {"started_utc": datetime.now(UTC).isoformat(timespec="seconds"), **device(), "versions": versions(),
            "host": host(), "git": git_state(), "smi_start": nvidia_smi(), "argv": sys.argv[1:]}


def finish(prov: dict[str, object], duration_s: float, sampled: Sampler | None = None) -> dict[str, object]:
    smi_end = nvidia_smi()
    more = {"smi_samples": sampled.summary()} if sampled is not None else {}
    return {**prov, "duration_s": round(duration_s, 2), "smi_end": smi_end, **more,
            "driver": smi_end.get("driver_version") or prov.get("smi_start", {}).get("driver_version")}


# ---- what the repository's history says about a stored run (tests/test_results_provenance.py) -------------------

GIT_SKEW_S = 3600  # clocks of the measuring machine and of the one that committed may differ by this much


def _git(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, timeout=60)


def shallow(root: Path) -> bool:
    """The clone lacks part of its history (`actions/checkout` without fetch-depth: 0): an unknown commit proves
    nothing there."""
    out = _git(root, "rev-parse", "--is-shallow-repository")
    return out.returncode != 0 or out.stdout.strip() == b"true"


def added_times(root: Path, folder: str = "results") -> dict[str, datetime]:
    """{repository path: committer time of the commit that first added it} for every file ever added under folder."""
    out = _git(root, "log", "--diff-filter=A", "--format=%x00%cI", "--name-only", "--", folder)
    found: dict[str, datetime] = {}
    when = None
    for line in out.stdout.decode(errors="replace").splitlines():
        if line.startswith("\0"):
            when = datetime.fromisoformat(line[1:])
        elif line.strip() and when is not None:
            found[line.strip()] = when  # git log runs newest first: the last seen is the first add
    return found


def git_problems(rec: dict, root: Path, added: datetime | None = None) -> tuple[list[str], str | None]:
    """What the repository's history refutes about a measured record, as (problems, reason to skip): it names a
    commit of this repository, measured from a clean tree, that holds exactly the sources it hashed; it started after
    that commit was made and before the commit that added its file (`added`, where it is committed). Fixtures are
    never results. The skip reason is set where the clone cannot tell (a shallow clone without the commit)."""
    from kernelbook import store

    prov = rec.get("provenance") or {}
    if prov.get("fixture"):
        return ["a fixture (provenance.fixture: true): test data, never a result in results/"], None
    git = prov.get("git") or {}
    commit = git.get("commit")
    if git.get("dirty") is not False:
        return [f"measured from a tree with uncommitted changes (git.dirty is {git.get('dirty')!r}): no commit holds "
                f"the code that ran; re-measure from a clean checkout"], None
    if not isinstance(commit, str) or not re.fullmatch(r"[0-9a-f]{7,40}", commit):
        return [f"git.commit {commit!r} is not a commit hash"], None
    if _git(root, "cat-file", "-e", f"{commit}^{{commit}}").returncode:
        if shallow(root):
            return [], f"commit {commit} is not in this shallow clone"
        return [f"commit {commit} is not in this repository's history: the code it names cannot be read (a commit "
                f"that was never pushed, or a made-up one)"], None
    problems = []
    made = datetime.fromisoformat(_git(root, "show", "-s", "--format=%cI", commit).stdout.decode().strip())
    start = store.started(prov.get("started_utc"))
    if start is None:
        problems.append(f"started_utc {prov.get('started_utc')!r} is not an ISO time in UTC")
    else:
        if (made - start).total_seconds() > GIT_SKEW_S:
            problems.append(f"started at {prov['started_utc']}, before its commit {commit[:12]} was made "
                            f"({made.isoformat()}): it cannot have measured that commit's code")
        if added is not None and (start - added).total_seconds() > GIT_SKEW_S:
            problems.append(f"started at {prov['started_utc']}, after the commit that added its file "
                            f"({added.isoformat()}): a run is committed after it is measured")
    hashes = prov.get("source_hashes") or {}
    if not hashes:
        problems.append("no source hashes")
    for rel, measured in sorted(hashes.items()):
        blob = _git(root, "show", f"{commit}:{rel}")
        if blob.returncode:
            problems.append(f"{rel} does not exist at {commit[:12]}")
        elif hashlib.sha256(blob.stdout).hexdigest()[:16] != measured:  # as store.file_hashes hashes a source
            problems.append(f"{rel} at {commit[:12]} is not the code that was measured")
    return problems, None
