"""The runner: measures one experiment in a process of its own and stores the run with the code that ran.

The experiment runs in a child process that leads a process group of its own (`start_new_session`), so a hang, an
out-of-memory kill or a crash stays contained, and a timeout or a failure ends the whole group, the processes the
experiment started included. Nothing is stored unless the child finished cleanly and its data matches the
experiment's schema (schema.py); a run that does not is kept in .kb-tmp/rejected/, never in results/.

What ran is recorded, not declared: every process that imports this package while KERNELBOOK_IMPORTS_DIR is set
(the child, and any Python process it starts) writes, as it exits, the repository files of the kernelbook modules
it loaded, with their hashes. The runner's own modules (ENGINE) are left out: they decide how a result is stored,
not what is measured. The union, plus the files the registry declares, is the run's `source_hashes`; a run is
stale once any of them changes (store.py).
"""

from __future__ import annotations

import atexit
import importlib
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kernelbook import paths, store
from kernelbook.registry import EXPERIMENTS, Experiment, get

IMPORTS_ENV = "KERNELBOOK_IMPORTS_DIR"
# how results are stored and shown, not what is measured: editing these stales nothing
ENGINE = frozenset(f"kernelbook{m}" for m in (
    "", ".__main__", ".cli", ".child", ".runner", ".store", ".contentcache", ".registry", ".paths", ".provenance",
    ".page", ".macros", ".hooks", ".notebooks", ".schema"))
TERM_GRACE_S = 5.0


PER_EXPERIMENT_S = 30  # beyond its timeout: the child's start, ending its group (TERM_GRACE_S), storing the run
SETUP_MIN = 20  # a GPU job's own work: checkout, install, the GPU probe, uploading the results


def shards(n: int, exps: tuple[Experiment, ...] = EXPERIMENTS) -> list[list[Experiment]]:
    """The experiments split into n shards whose timeouts add up about alike: longest first, each to the shard with
    the least so far (ties to the lower shard). Deterministic; each shard keeps registry order."""
    if not 1 <= n <= len(exps):
        raise paths.BadSetting(f"{n} shards: there are {len(exps)} experiments to split, so 1 to {len(exps)} shards")
    totals, members = [0] * n, [[] for _ in range(n)]
    for i in sorted(range(len(exps)), key=lambda i: (-exps[i].timeout_s, i)):
        k = min(range(n), key=lambda j: (totals[j], j))
        totals[k] += exps[i].timeout_s
        members[k].append(i)
    return [[exps[i] for i in sorted(m)] for m in members]


def job_minutes(exps: list[Experiment]) -> int:
    """The time limit for a job that runs these experiments: their timeouts, a margin for each, and the setup."""
    return math.ceil((sum(e.timeout_s for e in exps) + PER_EXPERIMENT_S * len(exps)) / 60) + SETUP_MIN


def rejected_dir() -> Path:
    """Where a run whose data does not match its schema is kept, outside results/ (git ignores .kb-tmp/)."""
    return paths.root() / ".kb-tmp" / "rejected"


def loaded_files() -> list[str]:
    """Repository-relative paths of the kernelbook modules this process has loaded, the runner's own left out."""
    root = paths.root()
    out = set()
    for name, mod in list(sys.modules.items()):
        if name == "__main__":  # `python -m kernelbook.x` runs x as __main__: recorded by its file
            spec = getattr(mod, "__spec__", None)
            name = getattr(spec, "name", None) or ""
        if not (name == "kernelbook" or name.startswith("kernelbook.")) or name in ENGINE:
            continue
        file = getattr(mod, "__file__", None)
        if not file:
            continue
        try:
            out.add(str(Path(file).resolve().relative_to(root)))
        except ValueError:  # a kernelbook installed outside this checkout: not this repository's code
            continue
    return sorted(out)


def _write_record(folder: str) -> None:
    try:
        hashes = store.file_hashes(loaded_files())
        (Path(folder) / f"{os.getpid()}.json").write_text(json.dumps(hashes))
    except (OSError, store.StoreError):
        pass  # the parent then misses this process's imports and refuses to store the run


def record_at_exit() -> None:
    """Called on import of the package: when the runner asked for it, write this process's imports as it exits."""
    folder = os.environ.get(IMPORTS_ENV)
    if folder and Path(folder).is_dir():
        atexit.register(_write_record, folder)


def recorded(folder: Path) -> dict[str, str]:
    """The union of every process's {file: hash}; a file two processes hashed differently changed during the run."""
    merged: dict[str, str] = {}
    for f in sorted(folder.glob("*.json")):
        for rel, h in json.loads(f.read_text()).items():
            if merged.setdefault(rel, h) != h:
                raise store.StoreError(f"{rel} changed while the experiment ran; run it again")
    return merged


def gpu_slug() -> str | None:
    """This machine's GPU slug, asked of a subprocess so that the caller never initialises CUDA."""
    code = "import torch,sys; sys.stdout.write(torch.cuda.get_device_name(0) if torch.cuda.is_available() else '')"
    try:
        name = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return paths.machine_slug(name) if name.strip() else None


def _group(pgid: int) -> list[str]:
    """'pid command' of every live process in group pgid (Linux /proc; empty where it cannot be read)."""
    found = []
    for d in Path("/proc").glob("[0-9]*"):
        try:
            stat = (d / "stat").read_text()
            if int(stat.rsplit(")", 1)[1].split()[2]) != pgid:
                continue
            cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
            found.append(f"{d.name} {cmd[:120]}")
        except (OSError, ValueError, IndexError):
            continue
    return sorted(found)


def end_group(pgid: int) -> list[str]:
    """End process group pgid: SIGTERM, then SIGKILL whatever is left after TERM_GRACE_S. Returns what was running."""
    members = _group(pgid)
    try:
        os.killpg(pgid, signal.SIGTERM)
    except ProcessLookupError:
        return members
    deadline = time.monotonic() + TERM_GRACE_S
    while time.monotonic() < deadline and _group(pgid):
        time.sleep(0.1)
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    return members


def _ended(members: list[str]) -> str:
    return f"; ended {len(members)} process{'es' if len(members) != 1 else ''}: {' | '.join(members)}" \
        if members else ""


def child_command(name: str, out: Path) -> list[str]:
    """The child process (kernelbook/child.py), measuring `name` into the file `out`. Not the CLI: its imports (the
    page layer and what it reads) would be hashed as the experiment's code, and staled by every edit to a page."""
    return [sys.executable, "-m", "kernelbook.child", name, str(out)]


def run_one(name: str, machine: str, timeout_s: float, into: Path | None = None) -> tuple[bool, str]:
    """Measure one experiment in a child process group; store its run only if the child finished cleanly (in the
    results folder `into`, else the first results folder)."""
    exp = get(name)
    paths.check_machine(machine)
    with tempfile.TemporaryDirectory(prefix="kernelbook-") as tmp:
        out, imports = Path(tmp) / "result.json", Path(tmp) / "imports"
        imports.mkdir()
        cmd = child_command(name, out)
        env = {**os.environ, "PYTHONUNBUFFERED": "1", IMPORTS_ENV: str(imports)}
        proc = subprocess.Popen(cmd, env=env, start_new_session=True)
        try:
            rc = proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            members = end_group(proc.pid)
            proc.wait()
            return False, f"(timed out after {timeout_s:.0f} s{_ended(members)})"
        except BaseException:  # Ctrl-C: take the experiment's processes down with us
            end_group(proc.pid)
            proc.wait()
            raise
        left = end_group(proc.pid)  # processes the experiment started and left running
        if rc != 0:
            return False, f"(exit status {rc}{_ended(left)})"
        try:
            rec = json.loads(out.read_text())
            hashes = recorded(imports)
            if not hashes:
                return False, "(no imports were recorded: the child did not run this package's code)"
            hashes.update(store.file_hashes(exp.declared))
        except (OSError, json.JSONDecodeError) as e:
            return False, f"(child wrote no readable result: {e})"
        except store.StoreError as e:
            return False, f"({e})"
        prov = {**rec["provenance"], "declared": list(exp.declared), "imported": sorted(hashes),
                "source_hashes": hashes, "code_hash": store.combined_hash(hashes)}
        try:
            path = store.save(name, machine, rec["data"], prov, into=into)
        except store.StoreError as e:  # the data does not match its schema: keep the run out of results/
            kept = store.save(name, machine, rec["data"], prov, into=rejected_dir(), check=False)
            return False, (f"({e}; the run is kept in {paths.display(kept)}: fix the experiment or its schema, "
                           f"then `python -m kernelbook merge {paths.display(rejected_dir())} --into results`"
                           f"{_ended(left)})")
        return True, f"-> {paths.display(path)}{_ended(left)}"


def child(name: str, out: str) -> int:
    """Inside the child process: provenance, the measurement, provenance again, one JSON file."""
    from kernelbook import provenance

    e = get(name)
    prov = provenance.start()
    module, func = e.entry.split(":")
    t0 = time.perf_counter()
    with provenance.Sampler() as sampled:  # the GPU's clocks, power and temperature while the experiment runs
        data = getattr(importlib.import_module(module), func)()
    prov = provenance.finish({**prov, "experiment": e.name}, time.perf_counter() - t0, sampled)
    Path(out).write_text(json.dumps({"data": data, "provenance": prov}, allow_nan=False))
    return 0
