"""The result store: results/<machine>/<experiment>.json, each the data of one run and where it came from.

A record is {"schema": 1, "experiment", "machine", "kind", "data", "provenance"}. kind "measured" records carry
the code hash of the experiment's declared sources; kind "published" records quote figures published elsewhere
(the source article's RTX 4060 Laptop numbers) and carry their citation instead. Writes go to a temporary file in
the same folder and are renamed over the old one, so an interrupted run never damages an earlier result.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kernelbook import paths
from kernelbook.registry import Experiment, get

SCHEMA = 1
FRESH, STALE, MISSING, PUBLISHED, CORRUPT = "fresh", "stale", "missing", "published", "corrupt"


class StoreError(RuntimeError):
    """A results file that cannot be read or trusted; the message names the file."""


def file_hashes(sources: tuple[str, ...], root: Path | None = None) -> dict[str, str]:
    root = root or paths.root()
    out = {}
    for rel in sources:
        p = root / rel
        if not p.is_file():
            raise StoreError(f"declared source {rel} does not exist")
        out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()[:16]
    return out


def code_hash(exp: Experiment, root: Path | None = None) -> tuple[str, dict[str, str]]:
    """(hash of all declared sources, per-file hashes): what decides whether a stored result is stale."""
    files = file_hashes(exp.sources, root)
    h = hashlib.sha256("\n".join(f"{k} {v}" for k, v in sorted(files.items())).encode()).hexdigest()[:16]
    return h, files


@dataclass
class Result:
    experiment: str
    machine: str
    kind: str
    data: Any
    provenance: dict[str, Any]
    path: Path
    status: str = FRESH
    changed: list[str] = field(default_factory=list)  # declared sources that changed since the measurement

    @property
    def stale(self) -> bool:
        return self.status == STALE

    @property
    def published(self) -> bool:
        return self.kind == "published"


def result_path(machine: str, name: str) -> Path:
    """Where the record of `name` on `machine` is (the first results folder holding it), or would be written."""
    for d in paths.results_dirs():
        if (d / machine / f"{name}.json").is_file():
            return d / machine / f"{name}.json"
    return paths.results_dir() / machine / f"{name}.json"


def machines() -> list[str]:
    return sorted({p.name for d in paths.results_dirs() if d.is_dir() for p in d.iterdir() if p.is_dir()})


def _read(path: Path) -> dict:
    try:
        rec = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise StoreError(f"{path}: not valid JSON ({e.msg}, line {e.lineno}); re-measure or restore it from git") from e
    if not isinstance(rec, dict) or rec.get("schema") != SCHEMA or "data" not in rec or "kind" not in rec:
        raise StoreError(f"{path}: not a kernelbook result (schema {SCHEMA} with kind and data expected)")
    return rec


def load(name: str, machine: str | None = None) -> Result:
    """The stored result of experiment `name` on `machine` (default: the primary), with its fresh/stale status."""
    exp = get(name)
    machine = machine or paths.primary_machine()
    path = result_path(machine, name)
    if not path.is_file():
        raise FileNotFoundError(
            f"no stored result for {name} on {machine} ({paths.display(path)}); "
            f"measure it on that GPU with `python -m kernelbook run {name}`")
    rec = _read(path)
    res = Result(name, machine, rec["kind"], rec["data"], rec.get("provenance", {}), path)
    if res.published:
        res.status = PUBLISHED
        return res
    now, files = code_hash(exp)
    if rec.get("provenance", {}).get("code_hash") != now:
        old = rec.get("provenance", {}).get("source_hashes", {})
        res.status = STALE
        res.changed = sorted(k for k in set(files) | set(old) if files.get(k) != old.get(k))
    return res


def status(name: str, machine: str) -> str:
    try:
        return load(name, machine).status
    except FileNotFoundError:
        return MISSING
    except StoreError:
        return CORRUPT


def save(name: str, machine: str, data: Any, provenance: dict[str, Any], kind: str = "measured") -> Path:
    """Write atomically: a temp file in the target folder, fsync, rename over the old record."""
    path = paths.results_dir() / machine / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    rec = {"schema": SCHEMA, "experiment": name, "machine": machine, "kind": kind,
           "provenance": provenance, "data": data}
    text = json.dumps(rec, indent=1, sort_keys=False, allow_nan=False) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes it private; a results file is for everyone to read
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
